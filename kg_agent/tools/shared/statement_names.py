"""A statement node named by the value the question asks for: "Which **launch vehicle** carried Mariner 4?" over a KG
where each launch is a node of its own, joining a spacecraft to its launch site and date, with ``:launchvehicle
"Atlas-Agena D"`` as the launch's only short text. That text repeats across the launches (56 texts on 1009), so the
KG profile reads the predicate as a value of the launch records, not their name (a **record value predicate**:
:mod:`~kg_agent.kg.record_values`), and the launches as nameless record (statement) nodes, walked through and never
answers. (A predicate the profile does read as a name, its texts telling things apart, names statement nodes too:
role nodes whose names repeat by class, :mod:`~kg_agent.kg.role_nodes`.)

But the value is a fact: the launch's ``launchvehicle`` *is* "Atlas-Agena D". When the question's type noun phrase
is that predicate's own name ("launch vehicle" and ``launchvehicle``: its words, or the words run together, as
compounds are written; the last word up to an ending), a walk ending at a statement node carrying it goes one step
on, over it, to the value ("Mariner 4 -> launch -> [launch] -> launchvehicle -> Atlas-Agena D"): that literal
answers, with a path of facts the KG states. A walk that went on *past* a record node whose record value predicate
the question names (to the launch's site) is cut at the record first: the question asks for the record's value, not
for what lies beyond it. A predicate the question does not name (``rdfs:label`` for "which launch vehicle") steps
nowhere, and a statement node stays what it was. Nothing here is a word list: the predicate's name is the KG's own.
"""

from __future__ import annotations

from collections.abc import Sequence

from rdflib import URIRef

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.record_values import record_nodes
from kg_agent.kg.terms import key_term, local_name, node_key
from kg_agent.kg.walks import Walk
from kg_agent.text import name_words, same_word
from kg_agent.tools.shared.aggregates import literal_text
from kg_agent.tools.shared.question_parts import QuestionParts

#: Most names read per statement node over the naming predicate.
MAX_NAMES = 5


def names_the_asked_phrase(question: str, predicate_iri: str) -> bool:
    """Whether the question's type noun phrase, from its start, is the predicate's own name: its words one by one
    ("launch vehicle" / ``launch_vehicle``) or run together as one ("launch vehicle" / ``launchvehicle``), the last
    up to an ending."""
    asked = QuestionParts.of(question).asked
    phrase = list(asked.noun_phrase) if asked is not None else []
    words = name_words(local_name(predicate_iri))
    if not phrase or not words:
        return False
    if len(words) > 1:
        return len(phrase) >= len(words) and all(a == b for a, b in zip(words[:-1], phrase)) \
            and same_word(words[-1], phrase[len(words) - 1])
    name = words[0]
    for count in range(2, len(phrase) + 1):  # a compound: the phrase's first words run together
        head = "".join(phrase[:count - 1])
        if name.startswith(head) and same_word(name[len(head):], phrase[count - 1]):
            return True
    return False


def walks_to_asked_names(question: str, walks: Sequence[dict], kg: KnowledgeGraph | None) -> list[dict]:
    """The walks, each ending at a statement node that a naming predicate the question's type noun phrase names
    names, taken one step on to that name (module docstring); the others as they are."""
    from kg_agent.tools.shared.answer_checks import statement_ends

    if kg is None or not walks:
        return list(walks)
    walks = _cut_at_named_records(question, walks, kg)
    named = [p for p in (*kg.naming.label_predicates, *kg.naming.record_value_predicates)
             if names_the_asked_phrase(question, p)]
    if not named:
        return list(walks)
    ends = statement_ends(walks, kg)
    if not ends:
        return list(walks)
    names: dict[str, list[tuple[str, str]]] = {}  # statement node -> [(predicate's name, its value's key)]
    for node in ends:
        for predicate in named:
            for value in _values(kg, node, predicate):
                names.setdefault(node, []).append((local_name(predicate), value))
    if not names:
        return list(walks)
    found: list[dict] = []
    for walk in walks:
        end = Walk.end_of(walk) if walk.get("steps") else None
        if end is None or end["id"] not in names:
            found.append(walk)
            continue
        for relation, value in names[end["id"]][:MAX_NAMES]:
            tail = {"id": value, "label": literal_text(value)}
            step = {"head": end, "relation": relation, "tail": tail}
            found.append({**walk, "steps": [*walk["steps"], step],
                          "text": f"{walk.get('text') or Walk.from_dict(walk).text()} -> {relation} -> {tail['label']}"})
    return found


def _cut_at_named_records(question: str, walks: Sequence[dict], kg: KnowledgeGraph) -> list[dict]:
    """The walks, each that passes through a record node (:mod:`~kg_agent.kg.record_values`: named only by a value
    many records share) whose record value predicate the question's type noun phrase names, cut at that node: the
    question asks for the record's value ("which launch vehicle": the launch's ``launchvehicle``), so a walk going on
    past the record (to its launch site) answers something else. The cut walk then steps on to the value
    (:func:`walks_to_asked_names`). Walks through no such node stay as they are."""
    if not any(names_the_asked_phrase(question, p) for p in kg.naming.record_value_predicates):
        return list(walks)
    inner = {step["tail"]["id"] for walk in walks for step in walk.get("steps", ())[:-1]}
    records = record_nodes(kg, inner)
    if not records:
        return list(walks)
    cut: list[dict] = []
    seen: set[tuple] = set()
    for walk in walks:
        steps = walk.get("steps") or []
        at = next((i for i, step in enumerate(steps[:-1]) if step["tail"]["id"] in records), None)
        if at is None:
            cut.append(walk)
            continue
        kept = steps[:at + 1]
        key = tuple((step["head"]["id"], step["relation"], step["tail"]["id"]) for step in kept)
        if key in seen:
            continue
        seen.add(key)
        cut.append({**walk, "steps": kept, "text": Walk.from_dict({**walk, "steps": kept, "text": None}).text()})
    return cut


def _values(kg: KnowledgeGraph, node: str, predicate: str) -> list[str]:
    """The literal values of ``predicate`` on ``node`` (at most :data:`MAX_NAMES`); [] when the KG cannot say."""
    try:
        rows = kg.query(f"SELECT ?s ?p ?o WHERE {{ ?s ?p ?o }} LIMIT {MAX_NAMES}",  # bound ones selected: Oxigraph
                        bindings={"s": key_term(node), "p": URIRef(predicate)})
        return [key for key in (node_key(row[2]) for row in rows) if key.startswith('"')]
    except (KGError, ValueError):
        return []
