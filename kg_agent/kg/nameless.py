"""Nameless IRIs: of some IRIs, which the KG gives no name, and what each is -- a statement node (walked through,
never an answer), a page (answered by its IRI) or a thing the KG does not name (no answer at all); and the classes
whose members are statement nodes. Read by the answer checks, the aggregates, the constraint steps and the path
scorer alike, so it sits in the KG layer below all of them.

A nameless IRI with no facts of its own is a page a user can open (``http://en.wikipedia.org/wiki/Joseph_Conrad``,
a file) only when its IRI reads as a name: its local name (the last path segment or the fragment) holds a word of
letters. An IRI whose local name is a number or a short code (``http://sws.geonames.org/2635167/``, a record
number of another database) names nothing a reader can tell: the KG points at a thing it does not describe or name,
and presenting the bare IRI as an answer says nothing (issue 46: answers are never unnamed nodes). Such IRIs are
:attr:`Nameless.unnamed`: no answer, and no statement node to walk through either (they have no facts). The rule
reads only the IRI's own spelling, so it holds for any KG."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.measured_cache import MeasuredOnce
from kg_agent.kg.per_kg import PerKG
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.terms import local_name
from kg_agent.text import MIN_CONTENT_LETTERS

#: Least share of a class's sampled members that are statement nodes for the class to be one of statement nodes.
MIN_STATEMENT_SHARE = 0.5
#: The kind of the KG's result cache (:attr:`~kg_agent.kg.graph.KnowledgeGraph.result_cache`: an endpoint's, a store's
#: measured facts) where classes of statement nodes are kept.
STATEMENT_CLASSES_KIND = "statement_classes"
_LETTER_RUN = re.compile(r"[^\W\d_]{%d,}" % MIN_CONTENT_LETTERS)


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
    #: Nameless IRIs with no facts whose IRI reads as no name (:func:`reads_as_a_name`): things the KG points at but
    #: does not name, never answers (module docstring).
    unnamed: set[str] = field(default_factory=set)

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
        pages -= parts
        unnamed = {key for key in pages if not reads_as_a_name(key)}
        return cls((facts - classes) | parts | roles, pages - unnamed, unnamed)

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


def reads_as_a_name(iri: str) -> bool:
    """Whether an IRI's local name holds a run of at least :data:`~kg_agent.text.MIN_CONTENT_LETTERS` letters (a
    page's title, a file's name: ``Joseph_Conrad``, ``report.pdf``), not only digits and short codes (``2635167``,
    ``Q42``, ``a1b2c3``)."""
    return _LETTER_RUN.search(local_name(iri)) is not None


class StatementClasses:
    """Of one KG, whether a class is a class of statement nodes: at least :data:`MIN_STATEMENT_SHARE` of a sample
    of its members (:meth:`~kg_agent.kg.role_nodes.RoleNodes.sample_members`) are statements by
    :meth:`Nameless.among` (nameless nodes with facts of their own, role nodes, owned values) or blank nodes the KG
    gives no name. Such a class (a W3C ``org:Membership``, a Wikidata-style statement, a role) names how the KG joins
    things, never a thing a question asks for: a node of it is walked through, its class is no answer's class
    ("which **members** of [X]" asks for the persons a *Membership* node joins, not for the node). Measured once per
    class (kept in the KG's result cache when it has one); a class the KG cannot answer about is none, and is asked
    about again next time (a dead endpoint)."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self._known = MeasuredOnce(kg, STATEMENT_CLASSES_KIND, self._measure)

    def holds(self, class_id: str) -> bool:
        """Whether ``class_id``'s members are statement nodes (class docstring)."""
        return bool(self._known.get(class_id))

    def _measure(self, class_id: str) -> bool:
        members = role_nodes(self.kg).sample_members(class_id)
        if not members:
            return False
        blank = [key for key in members if key.startswith("_:")]
        unnamed = {key for key, name in self.kg.store.labels_of(blank).items() if not name} if blank else set()
        statements = Nameless.among(self.kg, members).statements | unnamed
        return len(statements) >= MIN_STATEMENT_SHARE * len(members)


_BY_KG: PerKG[StatementClasses] = PerKG(StatementClasses)


def statement_classes(kg: KnowledgeGraph) -> StatementClasses:
    """The process-wide :class:`StatementClasses` of a KG (kept as long as the KG is)."""
    return _BY_KG.get(kg)
