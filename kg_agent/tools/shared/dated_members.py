"""Questions about the members of a class by a date they hold, naming no entity: "which spacecraft were launched
before 1958", "which lighthouse was first lit", "which lighthouse was commissioned earliest", "how many volcanoes
erupted after 1900". No entity is linked from them (there is none), so no method has a topic entity to start from;
they are answered here by one bounded query over the class's members, with the evidence.

**The question** (:func:`dated_question`) is read with English grammar only: "which / what <noun> <was|were|is|are|
has been ...> <participle> <condition>" or "how many <noun> <was|were ...> <participle> <condition>". The noun names
what is asked for or counted, the participle ("launched", "founded", "born", "published") the date read; the
condition and the order are :func:`~kg_agent.tools.shared.aggregates.asked_comparison`'s (a bound: "before 1958",
"after 1900"; a superlative of time order: "the earliest", "the first"). An adverb of time order right before or after
the participle ("first lit", "launched earliest", "launched last") is read here when ``asked_comparison`` reads none.
A superlative that is no time order ("the most", "the heaviest") is none of these questions (the whole-KG attribute
superlatives, :mod:`~kg_agent.tools.shared.whole_graph`, read those).

**The KG decides the rest** (:class:`DatedMembers`): the class is the one the noun names by the KG's class names
(:class:`~kg_agent.tools.shared.answer_classes.ClassNames`; a noun with modifiers that name no class while its last
word does is a question about a thing, "which **Human Crew** spacecraft ...", and is left to the methods). The dates
are those a sample of the class's members reach in one step, or in two through an unnamed statement node (a
spacecraft's launch node holding the launch date; :class:`~kg_agent.kg.nameless.Nameless`), whose values are typed
points in time (``xsd:date``, ``xsd:dateTime``, ``xsd:gYear`` ...: what makes a date a date, the KG's own datatypes).
Of those relations and paths, the one the question's words name best is read (the project's relation scorer,
:meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.named_relations`: word stems or the embeddings' phrase
evidence); when none is named, nothing is answered. The class's members and their dates are read by one query
(memory, Oxigraph and SPARQL endpoints alike) of at most :data:`~kg_agent.tools.shared.whole_graph.MAX_EDGES` rows:
beyond, the answer says so and is not marked grounded.

A bound keeps every member one of whose dates it keeps (:func:`kept_by`, the one place the condition is applied);
a superlative keeps every member whose extreme date in the asked direction is the extreme of them all (ties are all
answers: two spacecraft of one launch); "how many" counts the members kept. Unnamed and statement nodes are never
answers. Where the question is one of these but the KG cannot answer it (no class its noun names, no date its
participle names, no member the condition keeps), the answer is no answer with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.nameless import Nameless, statement_classes
from kg_agent.kg.sparql import sparql_iri
from kg_agent.kg.terms import UNNAMED, node_key
from kg_agent.kg.types import base_relation, is_inverse
from kg_agent.text import FUNCTION_WORDS
from kg_agent.tools.shared.aggregates import (
    MAX,
    MIN,
    TIME_DATATYPE_ENDINGS,
    AnswerRanker,
    Comparison,
    asked_comparison,
    literal_text,
    literal_value,
)
from kg_agent.tools.shared.answer_classes import MAX_PHRASE_WORDS, class_names
from kg_agent.tools.shared.relation_words import EARLIEST_WORDS, TIME_SUPERLATIVES
from kg_agent.tools.shared.similarity import TextVectors, shared_text_vectors
from kg_agent.tools.shared.whole_graph import EVIDENCE_GROUPS, MAX_EDGES, NAMED_CHECKED, relation_sides

#: "which <noun> were <rest>", "how many <noun> were <rest>": the noun, then the participle and condition.
_ASKED = re.compile(r"\s*(which|what|how\s+many)\s+([A-Za-z][\w\s'-]*?)\s+(?:was|were|is|are|(?:has|have|had)\s+been)"
                    r"\s+([^?!]*?)[?.!]*\s*$", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")
#: Members of the class whose edges are read to find the dates they reach.
MEMBER_SAMPLE = 50
#: Edges per relation read at a sampled member or statement node (a relation with more is no date of one member).
EDGE_BOUND = 20
#: Statement nodes whose edges are read.
STATEMENT_SAMPLE = 200
#: The step between the two relations of a path through a statement node, as the relation scorer reads it.
PATH_STEP = " -> "


@dataclass(frozen=True)
class DatedQuestion:
    """What a question about a class's members by a date asks: the ``noun`` naming the class ("spacecraft"), the
    ``participle`` naming the date ("launched"), the ``comparison`` (a bound or a superlative of time order),
    whether the members kept are counted (``count``), and the ``question`` (its words name the date's relation)."""

    noun: str
    participle: str
    comparison: Comparison
    count: bool
    question: str


def dated_question(question: str) -> DatedQuestion | None:
    """The question's reading as a question about a class's members by a date (module docstring), or None."""
    match = _ASKED.match(question or "")
    if match is None:
        return None
    noun_words = [w.lower() for w in _WORD.findall(match.group(2))]
    if not noun_words or len(noun_words) > MAX_PHRASE_WORDS or any(w in FUNCTION_WORDS for w in noun_words) \
            or len(noun_words) != len(match.group(2).split()):
        return None
    rest = [w if w[:1].isupper() else w.lower() for w in _WORD.findall(match.group(3))]  # "Last Stand": a name
    if len(rest) > 1 and rest[0] == "the" and rest[1] in TIME_SUPERLATIVES:  # "was the first launched"
        rest = rest[1:]
    adverb = rest[0] if rest and rest[0] in TIME_SUPERLATIVES else ""  # "first lit"
    rest = rest[1:] if adverb else rest
    if not rest or rest[0] in FUNCTION_WORDS or rest[0] in TIME_SUPERLATIVES or rest[0][:1].isupper():
        return None
    participle, after = rest[0].lower(), rest[1:]
    after = after[1:] if after[:1] == ["the"] else after
    if not adverb and after[:1] and after[0] in TIME_SUPERLATIVES:  # "launched earliest", "launched the last"
        adverb, after = after[0], after[1:]
    comparison = asked_comparison(question)
    if comparison is None and adverb:
        comparison = Comparison(MIN if adverb in EARLIEST_WORDS else MAX, words=adverb)
    if comparison is None:
        return None
    count = match.group(1).lower().startswith("how")
    if ranks(comparison) and (count or not time_order(comparison) or not adverb or after):
        return None  # "the most", "the heaviest": no order in time; "how many ... first": no count; "published by
        # the first author": the superlative is of another noun, not the participle's
    return DatedQuestion(" ".join(noun_words), participle, comparison, count, question)


def ranks(comparison: Comparison) -> bool:
    """Whether the comparison is a superlative (it ranks) rather than a condition (it keeps)."""
    return comparison.extreme and bool(comparison.words)


def time_order(comparison: Comparison) -> str:
    """The word of a superlative's words that orders in time ("first", "earliest", "last", "latest"), "" for none."""
    return next((w for w in comparison.words.lower().split() if w in TIME_SUPERLATIVES), "")


def kept_by(comparison: Comparison, value: float) -> bool:
    """Whether the question's condition keeps a date (a year with its fraction,
    :func:`~kg_agent.tools.shared.aggregates.literal_value`): the one place the condition is applied
    (:meth:`~kg_agent.tools.shared.aggregates.Comparison.keeps`: a bound, or an interval such as "in 1957"); a
    superlative keeps none here (it ranks)."""
    return not comparison.extreme and comparison.keeps(value)


def only_names_its_class(question: str, mentions: Sequence[str]) -> bool:
    """Whether each mention an entity was linked from is the question's noun, or part of it holding its last word
    ("which **spacecraft** were launched before 1958" linked to the class *Spacecraft*): the class asked about, not a
    thing the question is about. A mention of the noun's modifiers alone ("which **Human Crew** spacecraft") names a
    thing, and the question is the methods'."""
    asked = dated_question(question)
    if asked is None or not mentions:
        return False
    noun = asked.noun.split()
    for mention in mentions:
        words = [w.lower() for w in _WORD.findall(mention or "")]
        if not words or not set(words) <= set(noun) or noun[-1] not in words:
            return False
    return True


@dataclass(frozen=True)
class DatePath:
    """A way from a class's members to a date: ``relations`` (one, or two through a statement node; a first step
    ``^r`` goes from the member to a statement node that points at it) and how many sampled members it reached."""

    relations: tuple[str, ...]
    reached: int

    @property
    def name(self) -> str:
        return PATH_STEP.join(self.relations)


class DatedMembers:
    """Answers :class:`DatedQuestion` s over one KG (module docstring)."""

    def __init__(self, kg: KnowledgeGraph, vectors: TextVectors, ranker: AnswerRanker | None = None) -> None:
        self.kg = kg
        self.vectors = vectors
        self.class_names = class_names(kg, vectors)
        self.ranker = ranker or AnswerRanker()

    def answer(self, asked: DatedQuestion) -> tuple[list[dict], str] | None:
        """``(answers, what was done)``; ``([], why)`` when the KG cannot answer the question; None when the noun's
        modifiers name a thing (the question is the methods')."""
        chosen = self.named_class(asked.noun)
        if chosen is None:
            return None
        if not chosen:
            return [], f"the knowledge graph has no class named '{asked.noun}'"
        class_name = (self.class_names.names(chosen) or (chosen,))[0]
        paths = self.date_paths(chosen)
        if not paths:
            return [], f"no date the knowledge graph gives its {class_name} members ({asked.noun})"
        path = self.named_path(asked, paths)
        if path is None:
            return [], (f"no date of the {asked.noun} the question's '{asked.participle}' names (their dates: "
                        f"{', '.join(p.name for p in paths[:4])})")
        values, cut = self.member_dates(chosen, path)
        if not values:
            return [], f"none of the {asked.noun} has a {path.name} date"
        return self._kept_answers(asked, class_name, path, values, cut)

    # ------------------------------------------------------------------ the class
    def named_class(self, noun: str) -> str | None:
        """The class the noun names (the one most seen on the relations' sampled sides among several, then the first
        by id); "" when the noun names none; None when it names none but its last word does (its modifiers name a
        thing: "Human Crew spacecraft")."""
        every = self.kg.classes().every
        sides = relation_sides(self.kg).sides()
        seen: dict[str, int] = {}
        for pair in sides.values():
            for side in pair:
                for c, n in side.classes.items():
                    seen[c] = seen.get(c, 0) + n
        known = list(every) if every is not None else sorted(seen)
        statements = statement_classes(self.kg)
        named = sorted(c for c in self.class_names.named(noun, known) if not statements.holds(c))
        if named:
            return max(named, key=lambda c: seen.get(c, 0))  # the first by id of those seen most
        head = noun.split()[-1]
        if head != noun and self.class_names.named(head, known):
            return None
        return ""

    # ------------------------------------------------------------------ the dates
    def date_paths(self, class_id: str) -> list[DatePath]:
        """The relations (one step) and paths through a statement node (two) by which a sample of the class's
        members reach typed points in time, most members reached first."""
        members = self._sample_members(class_id)
        if not members:
            return []
        reached: dict[tuple[str, ...], set[str]] = {}
        through: dict[str, list[tuple[str, str]]] = {}  # node -> [(member, first relation)]
        fan_outs = self.kg.class_fan_outs()
        typing = {base_relation(r) for r in fan_outs}
        for member, edges in self._edges(members).items():
            for relation, targets in edges.items():
                if base_relation(relation) in typing:
                    continue
                if not is_inverse(relation) and _time_values(targets):
                    reached.setdefault((relation,), set()).add(member)
                for node in targets:
                    if not node.startswith('"') and node != member:
                        through.setdefault(node, []).append((member, relation))
        nodes = list(through)[:STATEMENT_SAMPLE]
        statements = self._statements(nodes)
        for node, edges in self._edges(statements).items():
            for second, targets in edges.items():
                if is_inverse(second) or base_relation(second) in typing or not _time_values(targets):
                    continue
                for member, first in through[node]:
                    reached.setdefault((first, second), set()).add(member)
        found = [DatePath(relations, len(of)) for relations, of in reached.items()]
        return sorted(found, key=lambda p: (-p.reached, p.name))

    def _sample_members(self, class_id: str) -> list[str]:
        members: list[str] = []
        for fan_out in sorted(self.kg.class_fan_outs()):
            members += self.kg.sample_targets(class_id, fan_out, MEMBER_SAMPLE)
        return [m for m in dict.fromkeys(members) if not m.startswith('"')][:MEMBER_SAMPLE]

    def _edges(self, nodes: Sequence[str]) -> dict[str, dict[str, Sequence[str]]]:
        if not nodes:
            return {}
        try:
            bounded = self.kg.bounded_edges_each(nodes, EDGE_BOUND)
        except KGError:
            return {}
        return {node: dict(edges.targets) for node, edges in bounded.items()}

    def _statements(self, nodes: Sequence[str]) -> list[str]:
        """The statement nodes among ``nodes``: unnamed nodes with facts of their own (:class:`Nameless`) and blank
        nodes the KG gives no name."""
        blank = [n for n in nodes if n.startswith("_:")]
        unnamed = {n for n, name in self.kg.store.labels_of(blank).items() if not name} if blank else set()
        found = Nameless.among(self.kg, nodes).statements | unnamed
        return [n for n in nodes if n in found]

    def named_path(self, asked: DatedQuestion, paths: Sequence[DatePath]) -> DatePath | None:
        """The date path the participle names best (:meth:`AnswerRanker.named_relations`; the participle alone: the
        noun names the members, not their date, and would name a path stepping back over a relation of its name); of
        several named equally well, the one reaching most members; None when none is named."""
        by_name = {p.name: p for p in paths}
        named = self.ranker.named_relations(asked.participle, list(by_name), self.kg)
        return max((by_name[n] for n in named), key=lambda p: p.reached, default=None)

    def member_dates(self, class_id: str, path: DatePath) -> tuple[dict[str, list[tuple[float, str]]], bool]:
        """``({member: [(value, date text)]}, cut)``: every member's dates over the path, by one query of at most
        :data:`MAX_EDGES` rows (``cut``: there were more)."""
        predicates = " ".join(sparql_iri(p) for p in self.kg.naming.class_predicates)
        steps = [f"VALUES ?class_of {{ {predicates} }} ?s ?class_of {sparql_iri(class_id)} ."]
        at = "?s"
        for number, relation in enumerate(path.relations):
            to = "?v" if number == len(path.relations) - 1 else f"?x{number}"
            iri = sparql_iri(self.kg.relation_iri(relation))
            steps.append(f"{to} {iri} {at} ." if is_inverse(relation) else f"{at} {iri} {to} .")
            at = to
        try:
            rows = [tuple(row) for row in self.kg.query(f"SELECT ?s ?v WHERE {{ {' '.join(steps)} }} "
                                                        f"LIMIT {MAX_EDGES + 1}")]
        except (KGError, ValueError):
            return {}, False
        values: dict[str, list[tuple[float, str]]] = {}
        for s, v in rows[:MAX_EDGES]:
            key, date = node_key(s), node_key(v)
            value = literal_value(date) if date.endswith(TIME_DATATYPE_ENDINGS) else None
            if value is not None and not key.startswith('"'):
                values.setdefault(key, []).append((value, literal_text(date)))
        return values, len(rows) > MAX_EDGES

    # ------------------------------------------------------------------ the answers
    def _kept_answers(self, asked: DatedQuestion, class_name: str, path: DatePath,
                      values: dict[str, list[tuple[float, str]]], cut: bool) -> tuple[list[dict], str]:
        """The members the comparison keeps, named (or counted), with the evidence."""
        comparison = asked.comparison
        if ranks(comparison):
            kept, named = self._extreme(comparison, values)
            how = f"the {time_order(comparison)}"
        else:
            kept = {key: min(d for d in dates if kept_by(comparison, d[0])) for key, dates in values.items()
                    if any(kept_by(comparison, d[0]) for d in dates)}
            named = self._named(list(kept) if not asked.count else sorted(kept, key=lambda k: kept[k])[:EVIDENCE_GROUPS])
            how = "those the question's condition keeps"
        if not kept or not named:
            return [], f"none of the {asked.noun} has a {path.name} date the question's condition keeps"
        cut_note = f", over the first {MAX_EDGES:,} dates only" if cut else ""
        order = sorted(named, key=lambda k: (kept[k][0], named[k], k))
        if asked.count:
            what = (f"counted the {class_name} members ({asked.noun}) whose {path.name} date the question's "
                    f"condition keeps{cut_note}")
            return [{"answer": str(len(kept)), "entity_id": None, "score": 1.0, "grounded": not cut, "paths": [],
                     "chunks": [], "counted": [named[k] for k in order[:EVIDENCE_GROUPS]], "counted_by": what}], what
        what = f"compared the {path.name} dates of the {class_name} members ({asked.noun}): {how}{cut_note}"
        compared = [{"answer": named[k], "value": kept[k][1]} for k in order[:EVIDENCE_GROUPS]]
        return [{"answer": named[k], "entity_id": k, "score": 1.0, "grounded": not cut, "paths": [], "chunks": [],
                 "compared": compared, "compared_by": what} for k in order], what

    def _extreme(self, comparison: Comparison, values: dict[str, list[tuple[float, str]]]
                 ) -> tuple[dict[str, tuple[float, str]], dict[str, str]]:
        """The members whose extreme date in the asked direction is the extreme of the named members' (all of them
        when tied), with their names: the members are named a date at a time from the extreme on, so an unnamed or
        statement node holding the extreme does not hide the named ones after it."""
        pick = max if comparison.order == MAX else min
        extreme = {key: pick(dates) for key, dates in values.items()}
        by_value: dict[float, list[str]] = {}
        for key, (value, _) in extreme.items():
            by_value.setdefault(value, []).append(key)
        for value in sorted(by_value, reverse=comparison.order == MAX)[:NAMED_CHECKED]:
            named = self._named(by_value[value])
            if named:
                return {key: extreme[key] for key in named}, named
        return {}, {}

    def _named(self, keys: Sequence[str]) -> dict[str, str]:
        """``{member: its name}`` of the ``keys`` that are neither unnamed nor statement nodes."""
        if not keys:
            return {}
        labels = self.kg.labels_by_id(keys)
        statements = Nameless.among(self.kg, keys).statements
        return {k: labels[k] for k in keys if k not in statements and labels.get(k) not in (None, "", UNNAMED)}


def _time_values(targets: Sequence[str]) -> bool:
    """Whether some of a relation's targets are literals typed as points in time."""
    return any(t.startswith('"') and t.endswith(TIME_DATATYPE_ENDINGS) for t in targets)


def answer_dated_members(kg: KnowledgeGraph, question: str,
                         vectors: TextVectors | None = None) -> tuple[list[dict], str] | None:
    """:meth:`DatedMembers.answer` over ``kg`` (the offline deciders' shared text vectors by default); None when the
    question is none of these or is the methods' (its noun's modifiers name a thing)."""
    asked = dated_question(question)
    if asked is None:
        return None
    return DatedMembers(kg, vectors or shared_text_vectors()).answer(asked)
