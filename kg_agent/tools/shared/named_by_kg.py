"""Whether the KG names the noun a question asks for its answers by: the one test of the rules that abstain when it
does not (:mod:`~kg_agent.tools.shared.unsupported_asks`, :mod:`~kg_agent.tools.shared.unnamed_things`, the
relation-path scorer's "no relation or class for ...").

A KG names a kind of thing by a class ("Musical key", read as the type constraints read it:
:class:`~kg_agent.tools.shared.answer_classes.ClassNames`, an irregular plural by its singular), by a relation whose
name or objects the noun names (:meth:`~kg_agent.tools.shared.answer_types.AskedType.named_by`), or by the unlabelled
IRIs of a type-like relation of its own (``case_type -> .../APPL_CIVIL`` names "applications":
:mod:`~kg_agent.tools.shared.kind_values`). A noun named in none of these ways names nothing the KG holds, whatever
the walks reached.
"""

from __future__ import annotations

from collections.abc import Callable

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.answer_classes import IRREGULAR_PLURALS
from kg_agent.tools.shared.answer_types import AskedType
from kg_agent.tools.shared.kind_values import names_a_kind_value


def kind_named(noun: str, kg: KnowledgeGraph, class_named: Callable[[str], bool]) -> bool:
    """Whether ``noun`` names a kind of thing of the KG: a class (``class_named(noun)``: True when the KG's classes
    are not all known) or a kind value of a type-like relation."""
    return class_named(IRREGULAR_PLURALS.get(noun, noun)) or names_a_kind_value(noun, kg)


def named_by_kg(asked: AskedType, kg: KnowledgeGraph, class_named: Callable[[str], bool]) -> bool:
    """Whether the KG names the asked-for noun of ``asked`` (module docstring): a relation names it, or it names a
    kind of thing of the KG (:func:`kind_named`)."""
    return any(asked.named_by(r) for r in kg.relation_names()) or kind_named(asked.noun, kg, class_named)
