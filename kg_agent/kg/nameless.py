"""Nameless IRIs: of some IRIs, which the KG gives no name, and what each is -- a statement node (walked through,
never an answer) or a page (answered by its IRI). Read by the answer checks, the aggregates and the constraint steps
alike, so it sits in the KG layer below all of them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.role_nodes import role_nodes


@dataclass
class Nameless:
    """Of some IRIs, those the KG gives no name: ``statements`` are unnamed nodes, walked through and never answers
    (those with facts of their own, statement nodes; and those standing for a part of another node's description,
    :meth:`described_parts`), ``pages`` have no facts, are no class and are answered by their IRI (a web page, a
    file). Named role nodes (:mod:`~kg_agent.kg.role_nodes`: a node labelled "General Chair" of a class whose
    members' labels repeat, each joining a few entities) and named values owned by one entity and named after it
    ("Value for Avogadro constant") are statements too."""

    statements: set[str]
    pages: set[str]

    @classmethod
    def among(cls, kg: KnowledgeGraph, ids: Iterable[str]) -> Nameless:
        iris = [key for key in dict.fromkeys(ids) if key and not key.startswith(('"', "_:"))]
        if not iris:
            return cls(set(), set())
        nameless = {key for key, name in kg.store.labels_of(iris).items() if name is None}
        at = kg.relations_at_each(nameless) if nameless else {}
        facts = {key for key, relations in at.items() if any(not r.startswith("^") for r in relations)}
        fan_outs = kg.class_fan_outs()
        classes = {key for key, relations in at.items() if fan_outs.intersection(relations)}
        roles = role_nodes(kg).statements_among(key for key in iris if key not in nameless)
        pages = nameless - facts - classes
        parts = cls.described_parts(kg, pages)
        return cls((facts - classes) | parts | roles, pages - parts)

    @staticmethod
    def described_parts(kg: KnowledgeGraph, iris: Iterable[str]) -> set[str]:
        """Of nameless IRIs, those with a fragment (``X#this``) whose document ``X`` is a node the KG states facts
        of: the fragment names a thing the description of ``X`` speaks of (a place's location, a record's part),
        no page a user can open, so its IRI is no answer. It is not named ``X``'s name either: nothing in the KG
        says the two are one (without an edge between them, every term of an ontology's hash namespace would take
        the ontology's name)."""
        documents: dict[str, set[str]] = {}
        for key in iris:
            document, hash_, fragment = key.partition("#")
            if hash_ and fragment and document:
                documents.setdefault(document, set()).add(key)
        if not documents:
            return set()
        described = {key for key, relations in kg.relations_at_each(documents).items()
                     if any(not r.startswith("^") for r in relations)}
        return {key for document in described for key in documents[document]}
