"""Any embedding model's cosines read on MiniLM's scale (kg_agent/tools/shared/cosine_scale.py), so the offline
deciders' thresholds keep their meaning with a user's ``embeddings=``; fixtures from the report card's real KGs
(tests/fixtures/realkgs/README.md), not movies.

The second model is MiniLM with one constant extra dimension: its cosines are ``(c + k) / (1 + k)``, so unrelated
texts sit at 0.7-0.8 and nothing falls below 0.5, as with OpenAI's ``text-embedding-ada-002`` ("an average
similarity of ~85 %" between unrelated words: https://www.s-anand.net/blog/embeddings-similarity-threshold/). Every
MiniLM-set threshold is then cleared by everything, unless the cosines are calibrated.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from kg_agent.embeddings import MiniLMEmbeddings
from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared import cosine_scale
from kg_agent.tools.shared.cosine_scale import IDENTITY, calibration_texts, fit_scale, pair_cosines
from kg_agent.tools.shared.similarity import TextVectors, scale_for, shared_text_vectors

CATALOGUE = Path(__file__).parent / "fixtures" / "realkgs" / "catalogue.nt"
QUESTIONS = ["Who published Dracula?", "Who is the author of Kidnapped?", "How many times was Dracula downloaded?",
             "What type of item is Dracula?", "Which bookshelf is Treasure Island on?", "What is the subject of Dracula?"]


class CompressedMiniLM(Embeddings):
    """MiniLM plus one constant dimension of weight ``sqrt(k)``: cosines ``(c + k) / (1 + k)``, ada-002-like."""

    def __init__(self, k: float = 3.0, model: str = "compressed-minilm") -> None:
        self.inner = MiniLMEmbeddings()
        self.k = k
        self.model = model

    def _extend(self, vectors) -> list[list[float]]:
        array = np.asarray(vectors, dtype=np.float64)
        array /= np.linalg.norm(array, axis=1, keepdims=True)
        return np.hstack([array, np.full((len(array), 1), np.sqrt(self.k))]).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._extend(self.inner.embed_documents(texts))

    def embed_query(self, text: str) -> list[float]:
        return self._extend([self.inner.embed_query(text)])[0]


class Unreachable(Embeddings):
    """A model behind a service that is down."""

    model = "unreachable"

    def embed_documents(self, texts):
        raise ConnectionError("connection refused")

    def embed_query(self, text):
        raise ConnectionError("connection refused")


@pytest.fixture(scope="module")
def catalogue():
    return open_kg(CATALOGUE)


def test_the_bundled_model_is_read_as_it_is():
    vectors = shared_text_vectors(MiniLMEmbeddings())
    assert vectors.scale is IDENTITY
    raw = vectors.matrix(["publisher", "creator"]) @ vectors.query("who published it")
    assert vectors.rank("who published it", ["publisher", "creator"]) == [float(x) for x in raw]


def test_the_calibration_texts_are_generic_words_of_the_tokenizer_the_same_every_time():
    texts = calibration_texts()
    assert len(texts) > 900 and len(set(texts)) == len(texts)
    assert all(t.replace(" ", "").isalpha() for t in texts)
    cosine_scale.calibration_texts.cache_clear()
    assert calibration_texts() == texts


def test_a_compressed_models_cosines_are_mapped_back_to_minilms_on_texts_it_was_not_fitted_on(catalogue):
    scale = fit_scale(CompressedMiniLM(), MiniLMEmbeddings())
    assert not scale.identity and list(scale.model) == sorted(scale.model)
    held_out = tuple(dict.fromkeys(kg_text for kg_text in (*catalogue.relation_names(), *QUESTIONS)))
    compressed, minilm = pair_cosines(CompressedMiniLM(), held_out), pair_cosines(MiniLMEmbeddings(), held_out)
    assert compressed.min() > 0.5  # uncalibrated, no pair is unrelated on MiniLM's scale
    error = np.abs(scale(compressed) - minilm)
    assert np.median(error) < 0.02 and error.max() < 0.06


def test_the_planner_plans_with_a_compressed_model_what_it_plans_with_minilm(catalogue):
    minilm, compressed = SimilarityPlanner(catalogue), SimilarityPlanner(catalogue, embeddings=CompressedMiniLM())
    uncalibrated = SimilarityPlanner(catalogue, embeddings=CompressedMiniLM(model="compressed-uncalibrated"))
    shared_text_vectors(uncalibrated.scorer._embeddings)._scale = IDENTITY  # what the scorer did before calibration
    differs = 0
    for question in QUESTIONS:
        entities = link_entities(catalogue, question).entities[:1]
        [expected, calibrated, raw] = [p.plan(question, entities, k=1).plans[0].relations
                                       for p in (minilm, compressed, uncalibrated)]
        assert calibrated == expected, question
        differs += raw != expected
    assert differs >= 2  # e.g. "Who published Dracula?" planned ``creator``: every relation cleared every threshold


def test_a_model_that_cannot_embed_keeps_its_raw_cosines_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="kg_agent.tools.shared.cosine_scale"):
        assert scale_for(TextVectors(Unreachable())) is IDENTITY
    assert "not calibrated" in caplog.text and "connection refused" in caplog.text


def test_a_model_is_calibrated_once_per_process():
    model = CompressedMiniLM(model="compressed-once")
    first = scale_for(TextVectors(model))
    model.embed_documents = None  # a second fit would fail
    assert scale_for(TextVectors(model)) is first
