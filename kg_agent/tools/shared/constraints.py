"""Constraints and conjunctions (issue 27 item 3): the answers must satisfy everything the question says of them.

* **The type asked** ("what **films** did [X] act in", "which **city** ..."): the question's type noun
  (:class:`~kg_agent.tools.shared.answer_types.AskedType`) names classes of the KG
  (:mod:`~kg_agent.tools.shared.answer_classes`). When some candidate answer is of such a class, a relation path none
  of whose ends is leaves the answers, and so does an end of another class (an end with no class fact stays, on a
  path whose other ends have the class). When no candidate answer has a class fact, or none has a class the noun
  names, nothing is removed and a warning says so. RoG filters its paths before answering; ToG and ToG-I their final
  answers (:func:`kg_agent.tools.tog.answer.answers_of_asked_type`); when the beam kept none of the class, the
  nodes of the class its last steps reach beside it (:func:`of_asked_type_beside`). The noun is read with its
  modifiers ("invited talks", :attr:`~kg_agent.tools.shared.answer_types.AskedType.phrase`).
* **Every entity the question names** (RoG over its retrieved paths; ToG and ToG-I over their explored chains,
  :func:`kg_agent.tools.tog.answer.answers_of_every_mention`): when entities are linked from two or more different
  mentions of the question ("a player at the **Forward** position at **Club X**"), a walk from one that ends at
  another's entity (``^position -> plays_for`` from Forward to Club X) answers with the node that links them (the
  player); else, when each mention's entities reach answers, the answers are those reached from every mention (each
  by its own plan); when none is, the answers of each are kept and a warning says so. Entities linked from one
  mention (a person and a tag spelt alike) are alternatives, not constraints; entities given by the caller carry no
  mention and are not intersected. When the ends meet nowhere, the mentions may meet through a node
  (:func:`met_through_statements`, issue 46 item 4): a walk ending at a statement node goes on to the named values
  behind it (a membership's person), a walk through a statement node joined to another mention's entity (a
  membership whose organisation is the empire named) reaches its end from that mention too, and so does a walk
  ending one edge from it; never on the statement node itself. Ends not of the kind the question asks for that meet
  nowhere meet on the things of that kind one step behind them (the persons behind two productions' role nodes,
  :mod:`~kg_agent.tools.shared.met_behind`). So that each mention is explored, ToG's and ToG-I's
  beams keep each one's best chain, and an entity reached from more of them first (:func:`shared_among_mentions`;
  a node one edge from another mention's entity counts as reached from it, and is scored first of many tails,
  :func:`kg_agent.tools.tog.prune_entities.joining_nodes`; ToG-I widens W = T to their number).

Each kept answer says what it satisfies in its record's ``constraints`` (:func:`note_constraints`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import value_nodes
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.paths import retrieve_many_paths
from kg_agent.kg.terms import UNNAMED
from kg_agent.kg.walks import Walk
from kg_agent.text import name_phrase, same_word
from kg_agent.text import words as text_words
from kg_agent.tools.shared.aggregates import literal_text
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.answer_types import AskedType, is_prose
from kg_agent.tools.shared.kind_values import kind_values
from kg_agent.tools.shared.met_behind import met_behind_the_ends
from kg_agent.tools.shared.question_parts import ENTITY_TOKEN, NO_RELATION_WORDS, QuestionParts
from kg_agent.tools.shared.scoring import mask_topic_mentions
from kg_agent.tools.shared.similarity import shared_text_vectors


@dataclass
class Constrained:
    """What the constraints keep of a question's walks (paths or chains), with what they applied and could not;
    ``unmet``: why no walk satisfies them all (the mentions' answers meet nowhere), "" when some does or none was
    checked."""

    walks: list[dict]
    applied: dict[str, str] = field(default_factory=dict)  # answer id -> what it satisfies, in words
    warnings: list[str] = field(default_factory=list)
    unmet: str = ""


def _topics(topic_entities: Iterable[dict]) -> list[dict]:
    return [e for e in topic_entities if isinstance(e, dict) and e.get("id")]


def asked_type(question: str, topic_entities: Iterable[dict]) -> AskedType:
    """What the question asks for, its mentions masked (:class:`~kg_agent.tools.shared.answer_types.AskedType`): the
    type noun with its modifiers (``phrase``: "films" in "what films did [X] act in", "invited talks" in "how many
    invited talks were given at [X]") and the noun phrase as written (``noun_phrase``)."""
    return QuestionParts.of(mask_topic_mentions(question, _topics(topic_entities))).asked


def _group_key(walk: dict) -> object:
    """What the type filter judges together: a RoG path's plan, else the walk's relation path."""
    return ("plan", walk["plan"]) if isinstance(walk.get("plan"), int) else Walk.from_dict(walk).relations


def of_asked_type(question: str, topic_entities: Iterable[dict], walks: Sequence[dict], kg: KnowledgeGraph) -> Constrained:
    """The walks whose ends may be of the type the question asks for (module docstring). When the type noun names
    no class of the answers, the longest opening of the noun phrase that names one does ("how many **physical
    constants** have ...", whose first word is taken for the noun)."""
    asked = asked_type(question, topic_entities)
    noun = asked.phrase
    explored = [w for w in walks if w.get("steps")]
    if not noun or not explored:
        return Constrained(list(walks))
    ends = {Walk.end_of(w)["id"] for w in explored}
    try:
        # a statement node's class (a membership for "members") is no answer's: a statement node is never an answer
        ends -= {end for end in ends if end.startswith("_:")} | Nameless.among(kg, ends).statements
        classes = kg.classes_of(ends)
        names = class_names(kg, shared_text_vectors(None))
        named = names.named(noun, {c for found in classes.values() for c in found})
        if not named and len(asked.noun_phrase) > 1:
            opening, named = names.named_by_opening(asked.noun_phrase, {c for found in classes.values() for c in found})
            noun = opening or noun
    except KGError as exc:
        return Constrained(list(walks), warnings=[f"constraints: the answers' classes could not be read ({exc}); "
                                                  f"the type '{noun}' is not checked"])
    by_value = _of_kind_value(noun, asked.noun, walks, ends, kg) if not named else None
    if by_value is not None:  # a kind the KG names by a type-like relation's value, not by a class
        return by_value
    if not classes:
        return Constrained(list(walks), warnings=[f"constraints: the question asks for '{noun}' but the knowledge graph "
                                                  "gives the answers no class (rdf:type, instance of); the type is not checked"])
    if not named:
        found = ", ".join(sorted({names.names(c)[0] if names.names(c) else c for cs in classes.values() for c in cs})[:5])
        return Constrained(list(walks), warnings=[f"constraints: the question asks for '{noun}' but no answer is of a class "
                                                  f"named so (the answers' classes: {found}); the answers are kept"])
    of_type = {end for end, found in classes.items() if named.intersection(found)}
    satisfying = {_group_key(w) for w in explored if Walk.end_of(w)["id"] in of_type}
    kept = [w for w in walks if not w.get("steps") or (
        _group_key(w) in satisfying and (Walk.end_of(w)["id"] in of_type or Walk.end_of(w)["id"] not in classes))]
    label = ", ".join(sorted({names.names(c)[0] if names.names(c) else c for c in named}))
    applied = {Walk.end_of(w)["id"]: f"of class {label} (the question asks for '{noun}')"
               for w in kept if Walk.end_of(w)["id"] in of_type}
    return Constrained(kept, applied)


def _of_kind_value(phrase: str, noun: str, walks: Sequence[dict], ends: set[str], kg: KnowledgeGraph) -> Constrained | None:
    """The walks whose ends are of the kind the noun names by a kind value of a type-like relation ("questions":
    ``work_type -> .../QUEST_WRITTEN``, :mod:`~kg_agent.tools.shared.kind_values`), when some end is: an end with
    another value of that relation leaves (an answer to the question is no question), and so does one with none (the
    class *Person* a walk over ``type`` reaches: nothing says it is of the kind). None when the noun names no kind
    value or no end has one."""
    try:
        of_kind, _ = kind_values(kg).of_kind(sorted(ends), noun or phrase)
    except KGError:
        return None
    if not of_kind:
        return None
    kept = [w for w in walks if not w.get("steps") or Walk.end_of(w)["id"] in of_kind]
    applied = {end: f"its {value.relation} is {value.local_name} "
               f"(the question asks for '{phrase}')" for end, value in of_kind.items()}
    return Constrained(kept, applied)


#: Most candidate answers whose literal values and classes are read for the kind the question's noun phrase names.
MAX_KIND_READ = 500
#: Longest literal (in words) read as a kind ("Research Track Paper"): a longer one is prose, not a kind.
MAX_KIND_WORDS = 6


def _names_the_kind(value: str, phrase: Sequence[str]) -> bool:
    """Whether a literal or class name says the kind the noun phrase names: every word of it is one of the phrase's
    (up to an ending) and every modifier of the phrase is one of its words ("Research Track Paper", or "Research
    Track", for "research track papers"; not "Poster Paper")."""
    words = text_words(value)
    if not words or len(words) > min(len(phrase), MAX_KIND_WORDS):
        return False
    return (all(any(same_word(w, p) for p in phrase) for w in words)
            and all(any(same_word(m, w) for w in words) for m in phrase[:-1]))


def of_named_kind(question: str, topic_entities: Iterable[dict], walks: Sequence[dict], kg: KnowledgeGraph) -> Constrained:
    """The walks whose ends are of the kind the question's noun phrase names by a modifier ("which **research track**
    papers did [X] write"): when some of the ends (not all) have a literal value or a class whose name is that phrase
    (``category "Research Track Paper"``, read from the ends themselves), the walks to the others leave. Nothing is
    removed when the phrase is one word, or none or every end has such a value. A complement after the noun says the
    kind as a modifier does ("which units **of volume**", :func:`noun_complement`): when it names a thing of the KG
    (not one of the question's linked entities), the ends joined to that thing by an edge are those of the kind."""
    phrase = asked_type(question, topic_entities).noun_phrase
    complement = noun_complement(question, topic_entities)
    explored = [w for w in walks if w.get("steps")]
    if (len(phrase) < 2 and not complement) or not explored:
        return Constrained(list(walks))
    ends = [e for e in dict.fromkeys(Walk.end_of(w)["id"] for w in explored) if not e.startswith('"')][:MAX_KIND_READ]
    said: dict[str, str] = {}  # end -> what says its kind
    try:
        classes = kg.classes_of(ends)
        names = class_names(kg, shared_text_vectors(None))
        kg.prefetch(ends)  # their edges in batches, not one request each over an endpoint
        said = _joined_to_complement(kg, ends, complement)
        if said:
            phrase = (*phrase, "of", *complement)
        for end in ends if len(phrase) >= 2 and not said else ():
            for relation, targets in kg.edges(end).items():
                value = next((t for t in targets if t.startswith('"') and not relation.startswith("^")
                              and _names_the_kind(literal_text(t), phrase)), None)
                if value is not None:
                    said[end] = f"its {relation} is {value}"
                    break
            for c in classes.get(end, ()) if end not in said else ():
                if any(_names_the_kind(n, phrase) for n in [*names.names(c), name_phrase(c.rsplit("/", 1)[-1].rsplit("#", 1)[-1])]):
                    said[end] = f"of class {(names.names(c) or [c])[0]}"
                    break
    except KGError as exc:
        return Constrained(list(walks), warnings=[f"constraints: the answers' values could not be read ({exc}); "
                                                  f"'{' '.join(phrase)}' is not checked"])
    if not said or len(said) == len(ends):
        return Constrained(list(walks))
    kept = [w for w in walks if not w.get("steps") or Walk.end_of(w)["id"] in said]
    return Constrained(kept, {end: f"{why} (the question asks for '{' '.join(phrase)}')" for end, why in said.items()})


def noun_complement(question: str, topic_entities: Iterable[dict]) -> tuple[str, ...]:
    """The words of the "of" phrase after the question's type noun, when it names no linked entity ("which units
    **of volume** are ...": ("volume",)): what the answers are of, as a modifier before the noun would say
    ("volume units"); () when there is none."""
    parts = QuestionParts.of(mask_topic_mentions(question, _topics(topic_entities)))
    asked, tokens = parts.asked, parts.tokens
    at = asked.position + 1
    if not asked.noun or at >= len(tokens) or tokens[at] != "of":
        return ()
    at += 1 + (at + 1 < len(tokens) and tokens[at + 1] in ("a", "an", "the"))
    words: list[str] = []
    while at < len(tokens) and tokens[at] not in NO_RELATION_WORDS and tokens[at] != ENTITY_TOKEN:
        words.append(tokens[at])
        at += 1
    return () if at < len(tokens) and tokens[at] == ENTITY_TOKEN else tuple(words)


def _joined_to_complement(kg: KnowledgeGraph, ends: Sequence[str], complement: Sequence[str]) -> dict[str, str]:
    """``{end: why}`` for the ends joined by an edge (either way) to a thing the KG names by the complement's words
    (:func:`noun_complement`: "units of volume" and the quantity kind *Volume*)."""
    if not complement:
        return {}
    named = {e.id: e.label for e in kg.find_entities(" ".join(complement)) if not e.id.startswith('"')}
    said: dict[str, str] = {}
    for end in ends if named else ():
        for relation, targets in kg.edges(end).items():
            hit = next((t for t in targets if t in named), None)
            if hit is not None:
                said[end] = f"its {relation} is {named[hit]}"
                break
    return said


#: Nodes one step of a walk is read for when the beam kept none of the class asked (:func:`of_asked_type_beside`).
MAX_BESIDE = 1000


def of_asked_type_beside(question: str, topic_entities: Iterable[dict], walks: Sequence[dict],
                         kg: KnowledgeGraph) -> list[dict]:
    """When none of the walks' ends is of a class the question's type noun names, the nodes their last steps reach
    from the same node over the same relation that are ("how many **invited talks** were given at [X]": a beam kept
    three of [X]'s sub-events, breaks; the invited talks among the others), or, where the noun names no class, of
    the kind a type-like relation's value the noun names says (:mod:`~kg_agent.tools.shared.kind_values`): each as
    the walk with that end. ``[]``
    when the question names no type or no such node is."""
    noun = asked_type(question, topic_entities).phrase
    steps: dict[tuple[str, str], dict] = {}
    for walk in walks:
        if walk.get("steps"):
            last = walk["steps"][-1]
            steps.setdefault((last["head"]["id"], last["relation"]), walk)
    if not noun or not steps:
        return []
    reached = {key: kg.neighbors(*key)[:MAX_BESIDE] for key in steps}
    try:
        nodes = {n for found in reached.values() for n in found if not n.startswith(('"', "_:"))}
        classes = kg.classes_of(nodes)
        named = class_names(kg, shared_text_vectors(None)).named(noun, {c for found in classes.values() for c in found})
        # or of the kind a type-like relation's value says, where the noun names no class (``case_type -> APPL_CIVIL``)
        of_kind = kind_values(kg).of_kind(sorted(nodes), noun)[0] if not named else {}
    except KGError:
        return []
    if not named and not of_kind:
        return []
    out: list[dict] = []
    for key, walk in steps.items():
        ends = [n for n in reached[key] if named.intersection(classes.get(n, ())) or n in of_kind]
        labels = kg.labels_by_id(ends)
        for end in ends:
            tail = {"id": end, "label": labels.get(end) or end}
            out.append({**walk, "steps": [*walk["steps"][:-1], {**walk["steps"][-1], "tail": tail}]})
    return out


def mention_groups(topic_entities: Iterable[dict]) -> dict[str, set[str]]:
    """Topic entity ids by the mention of the question they were linked from (normalised); given entities left out."""
    groups: dict[str, set[str]] = {}
    for entity in _topics(topic_entities):
        mention = " ".join(str(entity.get("mention") or "").lower().split())
        if mention:
            groups.setdefault(mention, set()).add(entity["id"])
    return groups


def mention_of(topic_entities: Iterable[dict]) -> dict[str, str]:
    """The mention each topic entity was linked from, by entity id, when the question names two or more things (else
    empty: nothing to share a beam among)."""
    groups = mention_groups(topic_entities)
    if len(groups) < 2:
        return {}
    return {entity: mention for mention, ids in groups.items() for entity in sorted(ids)}


T = TypeVar("T")


def shared_among_mentions(ranked: Sequence[T], width: int, mention: Callable[[T], str | None]) -> list[T]:
    """The ``width`` items of ``ranked`` (best first) a beam keeps when the question names several things: the best
    item of each mention first, the rest by rank, in rank order, so that each thing named is explored (ToG-I's
    width starts at 1). Items of no mention (entities given by the caller) compete by rank."""
    firsts: dict[str, int] = {}
    for index, item in enumerate(ranked):
        found = mention(item)
        if found is not None:
            firsts.setdefault(found, index)
    if len(firsts) < 2:
        return list(ranked[:width])
    chosen = set(sorted(firsts.values())[:width])
    rest = [i for i in range(len(ranked)) if i not in chosen][:width - len(chosen)]
    return [ranked[i] for i in sorted([*chosen, *rest])]


def _statements(nodes: Iterable[dict], kg: KnowledgeGraph | None) -> set[str]:
    """The ids of ``nodes`` (``{"id", "label"}``) that are statement nodes: shown unnamed, or (with ``kg``) nameless
    IRIs with facts of their own (:class:`~kg_agent.kg.nameless.Nameless`)."""
    nodes = list(nodes)
    found = {node["id"] for node in nodes if node.get("label") == UNNAMED}
    if kg is not None:
        try:
            found |= Nameless.among(kg, (node["id"] for node in nodes)).statements
        except KGError:
            pass
    return found


def _classes(keys: set[str], kg: KnowledgeGraph | None) -> set[str]:
    """The IRIs among ``keys`` that are classes or properties (no entity: :meth:`~kg_agent.kg.graph.KnowledgeGraph.
    entities_among`): two things of one class (two cities) share it as they share no value."""
    iris = [key for key in keys if not key.startswith(('"', "_:"))]
    if kg is None or not iris:
        return set()
    try:
        return set(iris) - set(kg.entities_among(iris))
    except KGError:
        return set()


def _bridges(groups: dict[str, set[str]], walks: Sequence[dict], kg: KnowledgeGraph | None = None) -> Constrained | None:
    """The walks from one mention's entities that reach another mention's entity after two steps or more, cut before
    the step that reaches it: the answer is what links the two ("Forward" <- ``position`` - *the player* -
    ``plays_for`` -> "Club X"); None when no walk does. A walk that goes on past the other entity is cut there too
    ("[Power] <- ``unitForQuantityKind`` - *the unit* - ``definedUnitOfSystem`` -> [Imperial] <- ... - every unit of
    Imperial's"): what it reaches beyond is reached from the other entity, not from both. A statement node is no
    such link ("[dynasty] <- ``organization`` - *a membership* - ``role`` -> [Emperor]": the person behind it is,
    which the ends reached from both give)."""
    mention_of = {entity: mention for mention, ids in groups.items() for entity in ids}
    at_other = {}  # walk index -> the step that first reaches another mention's entity (after one step at least)
    for index, walk in enumerate(walks):
        steps = walk.get("steps") or []
        start = mention_of.get(walk["start"]["id"])
        reached = next((k for k, step in enumerate(steps) if k >= 1 and mention_of.get(step["tail"]["id"])
                        not in (None, start)), None) if start is not None else None
        if reached is not None:
            at_other[index] = reached
    statements = _statements((walks[i]["steps"][k - 1]["tail"] for i, k in at_other.items()), kg)
    kept: list[dict] = []
    applied: dict[str, str] = {}
    for index, reached in at_other.items():
        walk = walks[index]
        steps = walk["steps"]
        if steps[reached - 1]["tail"]["id"] in statements:
            continue
        start, end = mention_of[walk["start"]["id"]], mention_of[steps[reached]["tail"]["id"]]
        found = Walk.from_dict(walk)
        cut = Walk(found.start, found.steps[:reached], score=found.score, depth=found.depth, round=found.round,
                   details={**found.details, "links": steps[reached]["tail"]["label"]})
        kept.append(cut.to_dict())
        applied[cut.end.id] = f"links {start!r} to {end!r} ({steps[reached]['relation']})"
    return Constrained(kept, applied) if kept else None


def reached_from_every_mention(topic_entities: Iterable[dict], walks: Sequence[dict],
                               kg: KnowledgeGraph | None = None, *, behind_for: str = "") -> Constrained:
    """The walks ending where the walks of every mention's entities end, when there are such ends (module docstring);
    first, the nodes that link one mention's entity to another's, when a walk does. Statement nodes are never such
    ends (``kg``: also nameless IRIs with facts of their own): two mentions meet on the named values behind them.
    With ``behind_for`` (the question), ends that meet nowhere and are not of the kind it asks for are stepped on to
    the things of that kind behind them (:func:`~kg_agent.tools.shared.met_behind.met_behind_the_ends`)."""
    topic_entities = list(topic_entities)
    groups = mention_groups(topic_entities)
    if len(groups) < 2:
        return Constrained(list(walks))
    bridged = _bridges(groups, walks, kg)
    if bridged is not None:
        return bridged
    ends_from: dict[str, set[str]] = {}
    for mention, ids in groups.items():
        ends_from[mention] = {Walk.end_of(w)["id"] for w in walks if w.get("steps") and w["start"]["id"] in ids}
    reaching = [m for m, ends in ends_from.items() if ends]
    silent = [m for m in groups if not ends_from[m]]
    warnings = ([f"constraints: nothing was retrieved from {', '.join(repr(m) for m in silent)}; "
                 "what the question says of it is not checked"] if silent else [])
    if len(reaching) < 2:
        return Constrained(list(walks), warnings=warnings)
    common = _named_common(ends_from, reaching, walks, kg)
    if not common and kg is not None:  # the mentions may meet through a statement node: on the values behind it
        met = met_through_statements(groups, walks, kg)
        if met.ends_from:
            walks = [*walks, *met.walks]
            for mention, ends in met.ends_from.items():
                ends_from.setdefault(mention, set()).update(ends)
            reaching = [m for m, ends in ends_from.items() if ends]
            common = _named_common(ends_from, reaching, walks, kg)
    if not common and kg is not None and behind_for:  # on the things of the kind asked, behind the ends
        stepped, behind = met_behind_the_ends(behind_for, topic_entities, groups, walks, kg)
        if len(behind) >= 2:
            walks = [*walks, *stepped]
            for mention, ends in behind.items():
                ends_from.setdefault(mention, set()).update(ends)
            reaching = [m for m, ends in ends_from.items() if ends]
            common = _named_common(ends_from, reaching, walks, kg)
    named = " and ".join(repr(m) for m in reaching)
    if not common:
        unmet = f"no answer is reached from both {named}"
        if any(all(is_value_end(end) for end in ends_from[m]) for m in reaching):
            # a value (a date, a number) is one thing's: a second thing named qualifies that one ("when was [X]
            # released on [Project Gutenberg]"), so values reached from it are not what the answer must meet; a text
            # describing [X] (prose: its description) is no such value, and the answers of the other mention are then
            # not [X]'s ("who commanded [X]" answered by every commander of the KG)
            return Constrained(list(walks), warnings=[*warnings, unmet_warning(unmet)])
        return Constrained(list(walks), warnings=warnings, unmet=unmet)
    kept = [w for w in walks if not w.get("steps") or Walk.end_of(w)["id"] in common]
    return Constrained(kept, {end: f"reached from {named}" for end in common}, warnings)


def _named_common(ends_from: dict[str, set[str]], reaching: Sequence[str], walks: Sequence[dict],
                  kg: KnowledgeGraph | None) -> set[str]:
    """The ends reached from every mention in ``reaching``, but statement nodes and classes."""
    common = set.intersection(*(ends_from[m] for m in reaching))
    common -= _statements((Walk.end_of(w) for w in walks if w.get("steps") and Walk.end_of(w)["id"] in common), kg)
    return common - _classes(common, kg)


@dataclass
class MetThrough:
    """What :func:`met_through_statements` finds: the walks stepped on from statement nodes to the values behind
    them, and the ends each mention reaches so (beside the ends of its own walks)."""

    walks: list[dict] = field(default_factory=list)
    ends_from: dict[str, set[str]] = field(default_factory=dict)


#: Statement nodes whose values :func:`met_through_statements` steps on to, at most (a walked-out relation path).
MAX_STEPPED_ON = 2000


def met_through_statements(groups: dict[str, set[str]], walks: Sequence[dict], kg: KnowledgeGraph) -> MetThrough:
    """Where two mentions' walks meet through a node of the KG rather than at a common end (issue 46 item 4; the
    KG's shape, not its names: a statement node is an unnamed node with facts of its own, :func:`_statements`):

    * a walk from one mention's entity ending at a statement node ("[Emperor] <- ``role`` - *a membership*") is
      stepped on to the named values behind it (the membership's person, its organisation; not its class, not the
      node it came from): those are the mention's ends too, so "which members of [dynasty] were [Emperor]s" meets on
      the persons, never on the membership;
    * a walk that passes a statement node joined by an edge to another mention's entity ("[person] - ``hasMembership``
      -> *a membership* - ``role`` -> X", the membership's ``organization`` [Empire]) reaches its end from that
      mention too: "what role did [person] hold in [Empire]" is the membership's role;
    * a walk ending at a named node joined by an edge to another mention's entity reaches that node from it too (a
      bridge one step short: "[classification] <- ``memberOf`` - *its entry "PR"* <- ``subject`` - [book]").
    """
    mention_of = {entity: mention for mention, ids in groups.items() for entity in ids}
    explored = [w for w in walks if w.get("steps") and w["start"]["id"] in mention_of]
    met = MetThrough()
    if not explored:
        return met
    try:
        statements = _statements((node for w in explored for node in (step["tail"] for step in w["steps"])), kg)
        near = neighbours_of_mentions(groups, kg)
        met.walks = _stepped_on(explored, statements, kg)
    except KGError:
        return MetThrough()
    for walk in [*explored, *met.walks]:
        own = mention_of[walk["start"]["id"]]
        steps = walk["steps"]
        end = steps[-1]["tail"]["id"]
        if end in statements or end in mention_of:
            continue
        joined = {mention for step in steps[:-1] if step["tail"]["id"] in statements
                  for mention in near.get(step["tail"]["id"], ())}
        joined |= near.get(end, set())
        met.ends_from.setdefault(own, set()).add(end)
        for mention in joined - {own}:
            met.ends_from.setdefault(mention, set()).add(end)
    return met


def neighbours_of_mentions(groups: dict[str, set[str]], kg: KnowledgeGraph) -> dict[str, set[str]]:
    """``{node: the mentions}`` of every node joined by one edge (either way) to an entity linked from a mention
    (``groups``: :func:`mention_groups`), but the mentions' own entities."""
    near: dict[str, set[str]] = {}
    for mention, ids in groups.items():
        for entity in sorted(ids):
            for targets in kg.edges(entity).values():
                for target in targets:
                    near.setdefault(target, set()).add(mention)
    for ids in groups.values():
        for entity in ids:
            near.pop(entity, None)
    return near


def _stepped_on(walks: Sequence[dict], statements: set[str], kg: KnowledgeGraph) -> list[dict]:
    """The walks ending at a statement node, each stepped on to every named value behind it (module's
    :func:`met_through_statements`): one walk per (relation, value), the class and the node it came from left out."""
    ending = [w for w in walks if w["steps"][-1]["tail"]["id"] in statements][:MAX_STEPPED_ON]
    if not ending:
        return []
    classes = {r.lstrip("^") for r in kg.class_fan_outs()}
    kg.prefetch(dict.fromkeys(w["steps"][-1]["tail"]["id"] for w in ending))
    behind: dict[str, list[tuple[str, str]]] = {}
    for walk in ending:
        node = walk["steps"][-1]["tail"]["id"]
        if node not in behind:
            behind[node] = [(relation, target) for relation, targets in kg.edges(node).items() if relation not in classes
                            for target in targets if not target.startswith('"') and target not in statements]
    labels = kg.labels_by_id({target for found in behind.values() for _, target in found})
    unnamed = _statements(({"id": target, "label": label} for target, label in labels.items()), kg)
    out: list[dict] = []
    for walk in ending:
        last = walk["steps"][-1]
        for relation, target in behind[last["tail"]["id"]]:
            if target == last["head"]["id"] or target in unnamed or not labels.get(target):
                continue
            tail = {"id": target, "label": labels[target]}
            out.append({**walk, "steps": [*walk["steps"], {"head": last["tail"], "relation": relation, "tail": tail}],
                        "text": f"{walk.get('text', '')} -> {relation} -> {tail['label']}"})
    return out


#: The most walks each relation path a beam explored is walked out to (:func:`walked_out`).
MAX_WALKED_OUT = 2000


def walked_out(kg: KnowledgeGraph, topic_entities: Iterable[dict], walks: Sequence[dict], *,
               max_paths: int = MAX_WALKED_OUT) -> list[dict]:
    """Every walk from each mention's entities along the relation paths ``walks`` explored from them (at most
    ``max_paths`` each): a beam keeps a few of a relation's ends (ToG's width), so the ends two mentions' beams
    reached may miss the answers both reach ("books by [A]": three of forty; "on the [B] bookshelf": three of thirty).
    Give it :func:`with_same_unnamed` of the topic entities to walk from every blank node that says a mention's value."""
    out: list[dict] = []
    for ids in mention_groups(topic_entities).values():
        first: dict[tuple[str, ...], dict] = {}  # relation path -> the first walk along it (its plan, score, depth)
        for walk in walks:
            if walk.get("steps") and walk["start"]["id"] in ids:
                first.setdefault(Walk.from_dict(walk).relations, walk)
        if not first:
            continue
        try:
            results = retrieve_many_paths(kg, sorted(ids), list(first), max_paths=max_paths)
        except KGError:
            return list(walks)
        for relations, result in zip(first, results):
            details = {k: v for k, v in first[relations].items() if k not in ("text", "start", "steps")}
            out.extend({**details, **Walk.of(path).to_dict()} for path in result.paths)
    return out


def with_same_unnamed(kg: KnowledgeGraph, topic_entities: Sequence[dict]) -> list[dict]:
    """The topic entities with, for each blank node among them, the KG's other blank nodes of its label, linked from
    the same mention (:func:`~kg_agent.kg.linking.value_nodes`: one value a KG writes as a node of its own at each
    use, a catalogue's shelf ``[ rdf:value "Science Fiction" ]`` under every book on it, is one thing)."""
    found = list(topic_entities)
    known = {e["id"] for e in found}
    for entity in topic_entities:
        label = entity.get("label") or ""
        if not entity["id"].startswith("_:") or not label:
            continue
        try:
            same = value_nodes(kg, label)
        except KGError:
            continue
        for other in same:
            if other not in known:
                known.add(other)
                found.append({"id": other, "label": label, "mention": entity.get("mention")})
    return found


_COORDINATED = re.compile(r"\[ENT\]\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+|&\s*)\[ENT\]", re.IGNORECASE)
#: Words by which English says two things named together share what is asked ("both", "together", "in common").
_SHARED = re.compile(r"\b(?:both|together|jointly|common|share|shared|shares|each\s+other)\b", re.IGNORECASE)


def coordinated(question: str, topic_entities: Sequence[dict]) -> bool:
    """Whether the question names its things side by side ("which country are [Paris] and [Springfield] in", "[A],
    [B] or [C]") and so asks the same of each, not for what they share; "both", "together", "in common", "shared"
    ask for what they share ("the films both [A] and [B] starred in")."""
    masked = mask_topic_mentions(question, list(topic_entities))
    return bool(_COORDINATED.search(masked)) and not _SHARED.search(masked)


def is_value_end(key: str) -> bool:
    """Whether a walk's end (its key) is a value that qualifies one thing: a literal that is no prose (a date, a
    number, a code), which a second thing the question names qualifies rather than meets."""
    return key.startswith('"') and not is_prose(literal_text(key))


def unmet_warning(unmet: str) -> str:
    """The warning of an answer given although the mentions' answers meet nowhere (best effort)."""
    return f"constraints: {unmet}; the answers reached from each are kept"


def constrain_walks(question: str, topic_entities: Iterable[dict], walks: Sequence[dict], kg: KnowledgeGraph | None, *,
                    intersect: bool = True, type_check: bool = True, asked: str | None = None) -> Constrained:
    """Both constraints in turn: the ends reached from every mention (``intersect``; when the walks' ends meet
    nowhere, over their relation paths walked out from each mention's entities and the blank nodes saying the same
    value, :func:`walked_out`, and behind those ends on the things of the kind the question asks for,
    :func:`~kg_agent.tools.shared.met_behind.met_behind_the_ends`), then the type asked. ``unmet`` says when the
    mentions' answers meet nowhere even so: the caller abstains, or answers with :func:`unmet_warning`. Without
    ``type_check`` the type is left to the caller (ToG checks its answers' own chains). ``asked``: the question
    whose asked kind the things behind the ends must be of, when ``question`` is not given (default: ``question``)."""
    topics = _topics(topic_entities)
    intersect = intersect and not coordinated(question, topics)
    joined = reached_from_every_mention(topics, walks, kg) if intersect else Constrained(list(walks))
    if joined.unmet and kg is not None:  # the walks kept a few ends of each relation: walk them all out
        expanded = with_same_unnamed(kg, topics)
        walked = reached_from_every_mention(expanded, walked_out(kg, expanded, walks), kg,
                                            behind_for=question if asked is None else asked)
        joined = joined if walked.unmet else walked
    if kg is None or not type_check:
        return joined
    typed = of_asked_type(question, topics, joined.walks, kg)
    kind = of_named_kind(question, topics, typed.walks, kg)
    applied = {end: "; ".join(filter(None, (joined.applied.get(end), typed.applied.get(end), kind.applied.get(end))))
               for end in {*joined.applied, *typed.applied, *kind.applied}}
    return Constrained(kind.walks, applied, [*joined.warnings, *typed.warnings, *kind.warnings], joined.unmet)


def note_constraints(answers: Sequence[dict], applied: dict[str, str]) -> list[dict]:
    """The answer records, each with ``constraints`` (what it satisfies) where a constraint was applied to it (after
    what an earlier constraint said)."""
    return [{**a, "constraints": "; ".join(filter(None, (a.get("constraints"), applied[a["entity_id"]])))}
            if a.get("entity_id") in applied else a for a in answers]
