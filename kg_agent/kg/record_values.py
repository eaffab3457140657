"""Records named only by a repeated value: nodes the KG gives no name, whose one short text is a value many of them
share.

A name tells things apart: a text that repeats across many subjects is a value they share, not a name of each. The
KG profile (:mod:`kg_agent.kg.profile`) therefore takes a predicate as a naming predicate only when its texts on IRIs
are mostly distinct; a predicate that otherwise looks like one (one short text per subject, on many subjects nothing
else names) but whose texts repeat is a **record value predicate**
(:attr:`~kg_agent.kg.naming.Naming.record_value_predicates`): a launch register whose launches each carry
``:vehicle "Atlas-Agena D"`` and nothing else short, a tour whose concerts each carry ``:venue "Olympia"``. Its
triples stay facts, walked like any other ("which launch vehicle carried X": ``launch -> launchvehicle``), and its
subjects are **record nodes**: nameless, each joining a few things to a few values, so statement nodes (walked
through, never answers) for the path scorer as for the answer checks.

This is narrower than "every nameless IRI with facts": a KG's nameless nodes that carry no such value (a person's
``#birth`` node with only a date and a class, a ``#provenance`` node pointing at blank nodes, a place's ``#this``
with coordinates) are left as the scorer reads them today, since nothing in the data says they are records of a
kind the KG lists many of under one repeated value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import base_relation


def record_value_names(kg: KnowledgeGraph) -> frozenset[str]:
    """The relation names (as the KG's relations are named) of its record value predicates; empty when it has
    none."""
    return frozenset(kg.store.names.name(predicate) for predicate in kg.naming.record_value_predicates)


def record_nodes(kg: KnowledgeGraph, ids: Iterable[str],
                 relations_at: Mapping[str, Sequence[str]] | None = None) -> set[str]:
    """Of ``ids``, the record nodes (module docstring): IRIs the KG gives no name with a record value predicate
    among their relations. ``relations_at`` (``{id: relation names}``, as
    :meth:`~kg_agent.kg.graph.KnowledgeGraph.relations_at_each` gives them) saves reading them again."""
    values = record_value_names(kg)
    if not values:
        return set()
    iris = [key for key in dict.fromkeys(ids) if key and not key.startswith(('"', "_:"))]
    if not iris:
        return set()
    try:
        missing = [key for key in iris if relations_at is None or key not in relations_at]
        at = {**(relations_at or {}), **(kg.relations_at_each(missing) if missing else {})}
        carrying = [key for key in iris if values.intersection(base_relation(r) for r in at.get(key, ())
                                                             if not r.startswith("^"))]
        if not carrying:
            return set()
        return {key for key, name in kg.store.labels_of(carrying).items() if name is None}
    except KGError:
        return set()
