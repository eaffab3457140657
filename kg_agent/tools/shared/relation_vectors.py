"""Relation-name vectors computed once, when a KG is loaded, into its vector cache file.

The offline deciders embed each relation's verbalisation (``directed by``, ``directed by (reverse)``),
each relation path's (``the directed by of [ENT]``) and the words of relation names. ``kg-agent load``
computes them from the relation index, for every relation and every relation path of up to three hops the
index allows (:data:`MAX_PRECOMPUTED_PATHS` at most), into ``<store>/kg-agent/vectors.sqlite``, while the
bulk loader is still writing the store (:func:`kg_agent.kg.build_oxigraph`'s ``beside_load``). The first
question of every later process finds them there (:mod:`kg_agent.tools.shared.similarity`) instead of
running them through MiniLM. Paths beyond are written there the first time a question needs them.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.embeddings import Embeddings

from kg_agent.kg.relation_index import RelationIndex
from kg_agent.kg.relation_paths import verbalize_relation, verbalize_relation_path
from kg_agent.kg.terms import RelationNames
from kg_agent.kg.types import inverse
from kg_agent.tools.shared.path_scoring import content_words, name_words
from kg_agent.tools.shared.similarity import VectorFile, default_embeddings, embedding_model_key, unit_vectors

#: More relations than this are not embedded at load (a few seconds of MiniLM at most); they are on first use.
MAX_PRECOMPUTED_RELATIONS = 5000
#: Relation paths (of two and three hops, as the relation index allows them) embedded at load at most.
MAX_PRECOMPUTED_PATHS = 5000
#: KGs smaller than this are not embedded at load: their questions embed the few texts they need on first use (a
#: second or two, then kept in the vector file), where a load would spend longer on every relation path of the
#: schema (a 300-triple DBpedia-style file: 797 texts, 4-15 s of MiniLM on 2 cores).
MIN_PRECOMPUTED_TRIPLES = 1_000


def relation_texts(relations: list[str]) -> list[str]:
    """The texts the offline deciders embed for each relation and its inverse."""
    texts: list[str] = []
    for name in relations:
        texts += content_words(name_words(name))
        for relation in (name, inverse(name)):
            texts += [verbalize_relation(relation), verbalize_relation_path((relation,))]
    return list(dict.fromkeys(texts))


def relation_path_texts(index: RelationIndex, names: RelationNames, *, limit: int = MAX_PRECOMPUTED_PATHS) -> list[str]:
    """The verbalisations of the 2- and 3-hop relation paths the relation index allows (the first ``limit``),
    with relations named as a KG over the same store names them."""

    def following(relation: str) -> list[str]:
        return sorted(names.signed_name(iri) for iri in index.following(names.signed_iri(relation)))

    layer = [(relation,) for name in names.names() for relation in (name, inverse(name))]
    paths: list[tuple[str, ...]] = []
    for _hop in (2, 3):
        layer = [path + (after,) for path in layer for after in following(path[-1])]
        paths += layer[:limit - len(paths)]
        if len(paths) >= limit:
            break
    return [verbalize_relation_path(path) for path in paths]


def precompute_relation_vectors(index: RelationIndex, vector_path: str | Path, *, names: RelationNames | None = None,
                                embeddings: Embeddings | None = None) -> int:
    """Embed the relation and relation-path texts of a KG (from its relation index) into the vector file at
    ``vector_path``; how many texts were embedded (those the file held already are not embedded again).

    ``names`` names the relations as the KG's store does (:attr:`GraphStore.names
    <kg_agent.kg.stores.base.GraphStore.names>`: a property's own label, ``director`` for Wikidata's
    ``wdt:P57``); by default each is named by its IRI's local name, which is all the relation index knows while
    the bulk loader is still writing the store.

    0 when the embeddings have no persistent name (:func:`~kg_agent.tools.shared.similarity.embedding_model_key`),
    the index has more than :data:`MAX_PRECOMPUTED_RELATIONS` relations or fewer than
    :data:`MIN_PRECOMPUTED_TRIPLES` triples.
    """
    if index.triples < MIN_PRECOMPUTED_TRIPLES:
        return 0
    if names is None:
        names = RelationNames()
        for iri in index.predicates():
            names.name(iri)
    relations = names.names()
    embeddings = embeddings or default_embeddings()
    model = embedding_model_key(embeddings)
    if model is None or len(relations) > MAX_PRECOMPUTED_RELATIONS:
        return 0
    texts = list(dict.fromkeys(relation_texts(relations) + relation_path_texts(index, names)))
    vector_file = VectorFile(vector_path)
    try:
        stored = vector_file.get(model, texts)
        todo = [text for text in texts if text not in stored]
        if todo:
            vector_file.put(model, dict(zip(todo, unit_vectors(embeddings.embed_documents(todo)))))
    finally:
        vector_file.close()
    return len(todo)
