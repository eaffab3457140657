"""Exemplars taught by the KG: training questions for the exemplar planner made from the KG itself.

A user's KG comes without training questions, so :class:`~kg_agent.tools.rog.plan.ExemplarPlanner` has nothing to
learn from. :func:`teach_exemplars` makes some: it walks the KG's relation paths (one and two hops) from a bounded,
seeded sample of named entities per relation and direction, and words each walk as questions from what the KG
says -- the start entity's label, the relation's name split into words, its aliases and description
(``rdfs:comment`` ...) where the KG gives them, and the class of what is asked for (generic English templates, no
word list):

* a forward step ``r`` from ``X``: "What is the <r words> of [X]?", "Which <answer class> is the <r words> of [X]?";
* a backward step ``^r`` to ``X``: "What has <r words> [X]?", "Which <answer class> has <r words> [X]?";
* two hops compose the first step as a noun phrase ("the <r1 words> of [X]", "the <class> that has <r1 words> [X]");
  through an unnamed node (a statement node: an award with its year) the first step's wording alone asks for it too.

Each question carries its relation path (the walk, weight 1) and the walk's end entities as answers, so fitting
needs no teacher. How many: ``per_relation`` starts per relation direction, each worded a few ways, at most
``max_questions`` in all (taken round-robin over the relation directions, so a cap never drops a relation whole).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.terms import is_generated_id
from kg_agent.kg.types import base_relation, inverse, is_inverse
from kg_agent.tools.rog.exemplar import Exemplar

#: Changed whenever the teacher words or walks otherwise: questions kept by an older teacher are taught again.
TEACHING_VERSION = 1
#: Start entities sampled per relation direction.
DEFAULT_PER_RELATION = 3
#: Most taught questions in all (their embedding is most of the build time: ~1,000 a few seconds with MiniLM).
DEFAULT_MAX_QUESTIONS = 2000
#: Candidates read per relation direction to sample the starts from (the sample is seeded, so deterministic).
_CANDIDATES_PER_START = 8
#: Second relations taught after each first one (two-hop paths), and the first hop's ends read to tell whether they
#: are statement nodes (unnamed).
_SECOND_RELATIONS = 16
_MIDDLES = 3
#: Most answers a taught question keeps (a hub's thousands of members teach no more than a few).
_MAX_ANSWERS = 50


@dataclass(frozen=True)
class _Step:
    relation: str
    words: str
    names: tuple[str, ...]  # the relation's words, then its aliases


def teach_exemplars(kg: KnowledgeGraph, *, per_relation: int = DEFAULT_PER_RELATION,
                    max_questions: int = DEFAULT_MAX_QUESTIONS, seed: int = 0, max_hops: int = 2) -> list[Exemplar]:
    """Questions worded from the KG's own relation paths, each with its relation path and answers (see the module
    docstring). Deterministic for a given KG and ``seed``."""
    teacher = _Teacher(kg, seed)
    directions = [d for r in kg.relation_names() for d in (r, inverse(r)) if d not in teacher.fan_outs]
    starts = kg.sample_ends([inverse(d) for d in directions], per_relation * _CANDIDATES_PER_START)
    per_direction: list[Iterator[Exemplar]] = []
    for direction in directions:
        candidates = [s for s in starts.get(inverse(direction), []) if teacher.name(s) is not None]
        chosen = sorted(candidates) if len(candidates) <= per_relation else sorted(teacher.rng.sample(sorted(candidates), per_relation))
        per_direction.append(teacher.walks(direction, chosen, candidates, max_hops))
    taught: list[Exemplar] = []
    while per_direction and len(taught) < max_questions:
        still: list[Iterator[Exemplar]] = []
        for walks in per_direction:
            exemplar = next(walks, None)
            if exemplar is not None:
                taught.append(exemplar)
                still.append(walks)
                if len(taught) >= max_questions:
                    break
        per_direction = still
    return taught


class _Teacher:
    def __init__(self, kg: KnowledgeGraph, seed: int) -> None:
        self.kg = kg
        self.rng = random.Random(seed)
        # the class predicates, both ways: every node has its class, so questions on it would vote everywhere (and
        # the class is in the wording already: "Which <class> ...")
        fan_outs = kg.class_fan_outs()
        self.fan_outs = fan_outs | {inverse(r) for r in fan_outs}
        self._names: dict[str, str | None] = {}
        self._steps: dict[str, _Step] = {}
        self._class_names: dict[str, str] = {}

    def name(self, key: str) -> str | None:
        """A node's label when it has a name to ask about (not a literal; an unnamed node has none), else None."""
        if key not in self._names:
            self._names[key] = None if key.startswith('"') else self.kg.label(key, default=None)
        return self._names[key]

    def answerable(self, key: str) -> bool:
        """Whether a node can be an answer: a literal, a named node, or an IRI of its own (a web page); not an
        unnamed node (a statement node)."""
        return key.startswith('"') or not is_generated_id(key) or self.name(key) is not None

    def step(self, relation: str) -> _Step:
        if relation not in self._steps:
            words = verbalize_relation(base_relation(relation)).lower()
            aliases = [a.lower() for a in self.kg.relation_aliases(relation)[:2] if a.lower() != words]
            self._steps[relation] = _Step(relation, words, (words, *aliases))
        return self._steps[relation]

    def class_name(self, keys: Sequence[str]) -> str | None:
        """The name of the class most of ``keys`` belong to (None when they have no class fact)."""
        counts = Counter(c for classes in self.kg.classes_of(keys[:10]).values() for c in classes)
        if not counts:
            return None
        best = min(counts, key=lambda c: (-counts[c], c))
        if best not in self._class_names:
            self._class_names[best] = (self.kg.label(best) or "").lower()
        return self._class_names[best] or None

    def ends(self, nodes: Sequence[str], relation: str, exclude: set[str]) -> list[str]:
        found: dict[str, None] = {}
        for node in nodes:
            for end in self.kg.neighbors(node, relation):
                if end not in exclude:
                    found[end] = None
        return sorted(found)

    def walks(self, first: str, starts: Sequence[str], candidates: Sequence[str], max_hops: int) -> Iterator[Exemplar]:
        """The questions of one relation direction: its one-hop walk from each start, then (``max_hops`` 2) a
        two-hop walk per relation that follows it (at most :data:`_SECOND_RELATIONS`, each from the first start, or
        else candidate, that reaches it)."""
        step = self.step(first)
        for start in starts:
            label = self.name(start)
            assert label is not None
            ends = self.ends([start], first, {start})
            if not ends:
                continue
            mention = f"[{label}]"
            named_ends = [e for e in ends if self.answerable(e)]
            if named_ends:
                for question in self._questions(step, mention, self.class_name(named_ends)):
                    yield Exemplar(question, named_ends[:_MAX_ANSWERS], (start,), ((first,),))
        if max_hops < 2:
            return
        # the relations that follow this one anywhere in the KG (the relation index), each taught from the first
        # sampled start (then the other candidates) whose walk reaches it
        following = [r for r in self.kg.relations_following(first) if r != inverse(first) and r not in self.fan_outs]
        if len(following) > _SECOND_RELATIONS:
            following = sorted(self.rng.sample(following, _SECOND_RELATIONS))
        for second in following:
            for start in [*starts, *(c for c in candidates if c not in starts)]:
                middles = [m for m in self.ends([start], first, {start}) if not m.startswith('"')]
                taught = list(self._second_hop(step, second, start, f"[{self.name(start)}]", middles))
                if taught:
                    yield from taught
                    break

    def _second_hop(self, step: _Step, second: str, start: str, mention: str, middles: Sequence[str]) -> Iterator[Exemplar]:
        ends = [e for e in self.ends(middles[:_MAX_ANSWERS], second, {start}) if self.answerable(e)]
        ends = [e for e in ends if e not in middles]
        if not ends:
            return
        path = (step.relation, second)
        answer_class = self.class_name(ends)
        phrase = _noun_phrase(step, mention, self.class_name(middles))
        for question in self._questions(self.step(second), phrase, answer_class):
            yield Exemplar(question, ends[:_MAX_ANSWERS], (start,), (path,))
        if all(self.name(m) is None for m in middles[:_MIDDLES]):  # statement nodes: asking for the first relation asks for their values
            for question in self._questions(step, mention, answer_class):
                yield Exemplar(question, ends[:_MAX_ANSWERS], (start,), (path,))

    def _questions(self, step: _Step, about: str, answer_class: str | None) -> list[str]:
        questions: list[str] = []
        for words in step.names:
            if is_inverse(step.relation):
                questions.append(f"What has {words} {about}?")
                if answer_class:
                    questions.append(f"Which {answer_class} has {words} {about}?")
            else:
                questions.append(f"What is the {words} of {about}?")
                if answer_class:
                    questions.append(f"Which {answer_class} is the {words} of {about}?")
        description = self.kg.relation_description(step.relation)
        if description and not is_inverse(step.relation):
            questions.append(f"{description.strip().rstrip('.?')}: {about}?")
        return questions


def _noun_phrase(step: _Step, mention: str, middle_class: str | None) -> str:
    if is_inverse(step.relation):
        return f"the {middle_class or 'one'} that has {step.words} {mention}"
    return f"the {step.words} of {mention}"
