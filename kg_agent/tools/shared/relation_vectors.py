"""Relation-name vectors computed once, when a KG is loaded, into its vector cache file.

The offline deciders embed each relation's verbalisation (``directed by``, ``directed by (reverse)``) and
each one-hop relation path's (``the directed by of [ENT]``). ``kg-agent load`` computes them for every
relation right after the load, into ``<store>/kg-agent/vectors.sqlite``, so the first question of every
later process finds them there (:mod:`kg_agent.tools.shared.similarity`). Longer relation paths are
written there the first time a question needs them.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation, verbalize_relation_path
from kg_agent.kg.types import inverse
from kg_agent.tools.shared.similarity import TextVectors, use_vector_file

#: More relations than this are not embedded at load (a few seconds of MiniLM at most); they are on first use.
MAX_PRECOMPUTED_RELATIONS = 5000


def relation_texts(relations: list[str]) -> list[str]:
    """The texts the offline deciders embed for each relation and its inverse."""
    texts: list[str] = []
    for name in relations:
        for relation in (name, inverse(name)):
            texts += [verbalize_relation(relation), verbalize_relation_path((relation,))]
    return list(dict.fromkeys(texts))


def precompute_relation_vectors(kg: KnowledgeGraph, embeddings: Embeddings | None = None) -> int:
    """Embed every relation's texts into ``kg``'s vector cache file; how many texts it now holds for them.

    0 when the KG has no vector cache file (or it cannot be written), or more than
    :data:`MAX_PRECOMPUTED_RELATIONS` relations.
    """
    relations = kg.relation_names()
    if len(relations) > MAX_PRECOMPUTED_RELATIONS or use_vector_file(kg.vector_cache_path) is None:
        return 0
    texts = relation_texts(relations)
    TextVectors(embeddings).matrix(texts)
    return len(texts)
