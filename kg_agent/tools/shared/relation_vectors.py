"""Relation-name vectors computed once, when a KG is loaded, into its vector cache file.

The offline deciders embed each relation's verbalisation (``directed by``, ``directed by (reverse)``) and
each relation path's (``the directed by of [ENT]``), and the words of relation names. ``kg-agent load``
computes them right after the load, for every relation and every relation path of up to three hops the
relation index allows (:data:`MAX_PRECOMPUTED_PATHS` at most), into ``<store>/kg-agent/vectors.sqlite``,
so the first question of every later process finds them there (:mod:`kg_agent.tools.shared.similarity`)
instead of loading them into MiniLM. Paths beyond are written there the first time a question needs them.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation, verbalize_relation_path
from kg_agent.kg.types import inverse
from kg_agent.tools.shared.path_scoring import content_words, name_words
from kg_agent.tools.shared.similarity import TextVectors, use_vector_file

#: More relations than this are not embedded at load (a few seconds of MiniLM at most); they are on first use.
MAX_PRECOMPUTED_RELATIONS = 5000
#: Relation paths (of two and three hops, as the relation index allows them) embedded at load at most.
MAX_PRECOMPUTED_PATHS = 5000


def relation_texts(relations: list[str]) -> list[str]:
    """The texts the offline deciders embed for each relation and its inverse."""
    texts: list[str] = []
    for name in relations:
        texts += content_words(name_words(name))
        for relation in (name, inverse(name)):
            texts += [verbalize_relation(relation), verbalize_relation_path((relation,))]
    return list(dict.fromkeys(texts))


def relation_path_texts(kg: KnowledgeGraph, relations: list[str], *, limit: int = MAX_PRECOMPUTED_PATHS) -> list[str]:
    """The verbalisations of the 2- and 3-hop relation paths the relation index allows (first ``limit``)."""
    layer = [(relation,) for name in relations for relation in (name, inverse(name))]
    paths: list[tuple[str, ...]] = []
    for _hop in (2, 3):
        layer = [path + (following,) for path in layer for following in kg.relations_following(path[-1])]
        paths += layer[:limit - len(paths)]
        if len(paths) >= limit:
            break
    return [verbalize_relation_path(path) for path in paths]


def precompute_relation_vectors(kg: KnowledgeGraph, embeddings: Embeddings | None = None) -> int:
    """Embed every relation's and relation path's texts into ``kg``'s vector cache file; how many texts it
    now holds for them.

    0 when the KG has no vector cache file (or it cannot be written), or more than
    :data:`MAX_PRECOMPUTED_RELATIONS` relations.
    """
    relations = kg.relation_names()
    if len(relations) > MAX_PRECOMPUTED_RELATIONS or use_vector_file(kg.vector_cache_path) is None:
        return 0
    texts = list(dict.fromkeys(relation_texts(relations) + relation_path_texts(kg, relations)))
    TextVectors(embeddings).matrix(texts)
    return len(texts)
