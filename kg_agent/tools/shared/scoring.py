"""The offline deciders' scoring kit, one copy for RoG, ToG, ToG-I and ToG-2.

* :func:`mask_mentions`: the question with its entity mentions replaced by ``[ENT]``, so relation similarity
  ignores names ("[Tom Hanks]" and "[Meg Ryan]" read the same);
* :func:`stems` / :func:`lexical_overlap` / :func:`relation_overlap`: the lexical bonus, with one stemmer (the
  first 4 letters of each content word: ``directed``/``director`` -> ``dire``), added to MiniLM cosines, which on
  their own barely tell "starred actors" from "directed by" for "who directed X";
* :func:`top_normalised`: the best ``width`` scores rescaled to sum to 1;
* :data:`DEFAULT_IGNORED_RELATIONS` / :func:`is_ignored_relation` / :func:`filter_relations`: bookkeeping
  relations never explored;
* :func:`shared_text_vectors` / :class:`TextVectorsFromEmbeddings`: one text-vector cache per embeddings object for
  the whole process.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence

from langchain_core.embeddings import Embeddings

from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.types import Entity, base_relation
from kg_agent.tools.shared.similarity import TextVectors, default_embeddings

#: Bookkeeping relations never offered to a pruner (``fnmatch`` patterns over the relation name without
#: ``^``). ToG drops ``type.object.type``, ``type.object.name``, ``common.*``, ``freebase.*`` and
#: ``sameAs``; ``kg.object_profile.*`` and RDF typing/labels are added here. ``has_imdb_votes`` is *not*
#: listed: MetaQA asks about it. Pass ``ignored_relations=`` to the graph factories to change the list.
DEFAULT_IGNORED_RELATIONS: tuple[str, ...] = (
    "type.object.*",
    "type.type.*",
    "common.*",
    "freebase.*",
    "kg.object_profile.*",
    "*sameAs*",
    "type",
    "rdf:type",
    "*22-rdf-syntax-ns#type",
    "rdfs:label",
    "*rdf-schema#label",
)


def is_ignored_relation(relation: str, ignored: Sequence[str] = DEFAULT_IGNORED_RELATIONS) -> bool:
    """Whether ``relation`` (``^`` ignored) matches one of the ``ignored`` patterns."""
    name = base_relation(relation)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in ignored)


def filter_relations(relations: Iterable[str], ignored: Sequence[str] = DEFAULT_IGNORED_RELATIONS) -> tuple[list[str], list[str]]:
    """``(kept, dropped)``: relations whose name (without ``^``) matches an ignored pattern are dropped."""
    kept: list[str] = []
    dropped: list[str] = []
    for relation in relations:
        (dropped if is_ignored_relation(relation, ignored) else kept).append(relation)
    return kept, dropped


_BRACKETED = re.compile(r"\[[^\[\]]+\]")


def mask_mentions(question: str, entities: Sequence[Entity] = ()) -> str:
    """The question with its entity mentions replaced by ``[ENT]``: bracketed names, and the entities' labels."""
    text = _BRACKETED.sub("[ENT]", question)
    for entity in entities:
        label = entity.label.strip()
        if label and len(label) > 1:
            # (?<!\w)...(?!\w), not \b: a label may end in punctuation ("Robert Downey Jr.")
            text = re.sub(r"(?i)(?<!\w)" + re.escape(label) + r"(?!\w)", "[ENT]", text)
    return text


def mask_topic_mentions(question: str, topic_entities: Sequence[dict]) -> str:
    """:func:`mask_mentions` of a state's topic entities (``{"id", "label"}`` dicts; a label may be missing)."""
    return mask_mentions(question, [Entity(e["id"], e.get("label") or "") for e in topic_entities])


STOPWORDS = frozenset({"by", "in", "has", "of", "the", "then", "reverse", "a", "an", "to", "is", "and"})
STEM_LETTERS = 4


def _content_words(text: str) -> list[str]:
    return [w[:STEM_LETTERS] for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS and len(w) >= 3]


def stems(text: str) -> set[str]:
    """The stems of ``text``'s content words (``directed``/``director`` -> ``dire``)."""
    return set(_content_words(text))


def lexical_overlap(relation_text: str, question_stems: set[str]) -> float:
    """Share of the (verbalised) relation path's content words whose stem occurs in the question."""
    words = _content_words(relation_text)
    return sum(w in question_stems for w in words) / len(words) if words else 0.0


def relation_overlap(question: str, relations: Sequence[str]) -> float:
    """:func:`lexical_overlap` of the words the relations' names carry with the question: ``directed_by`` and
    "who directed" -> 1.0."""
    return lexical_overlap(" ".join(verbalize_relation(r) for r in relations), stems(question)) if relations else 0.0


def top_normalised(items: Iterable[tuple[str, float]], width: int) -> list[tuple[str, float]]:
    """The ``width`` best items (stable on ties), scores clipped at 0 and rescaled to sum to 1."""
    ranked = sorted(((name, max(0.0, float(score))) for name, score in items), key=lambda pair: -pair[1])[:width]
    total = sum(score for _, score in ranked)
    if not ranked:
        return []
    if total <= 1e-12:
        return [(name, round(1.0 / len(ranked), 6)) for name, _ in ranked]
    return [(name, round(score / total, 6)) for name, score in ranked]


_SHARED_VECTORS: dict[int, TextVectors] = {}


def shared_text_vectors(embeddings: Embeddings | None = None) -> TextVectors:
    """One :class:`TextVectors` cache per embeddings object, shared by the offline deciders of every graph."""
    embeddings = embeddings or default_embeddings()
    vectors = _SHARED_VECTORS.get(id(embeddings))
    if vectors is None or vectors.embeddings is not embeddings:
        vectors = _SHARED_VECTORS[id(embeddings)] = TextVectors(embeddings)
    return vectors


class TextVectorsFromEmbeddings:
    """Mixin for the offline deciders: ``self.vectors`` is the process-wide cache of ``self._embeddings``
    (:func:`shared_text_vectors`), looked up on first use."""

    _embeddings: Embeddings | None = None
    _vectors: TextVectors | None = None

    @property
    def vectors(self) -> TextVectors:
        if self._vectors is None:
            self._vectors = shared_text_vectors(self._embeddings)
        return self._vectors
