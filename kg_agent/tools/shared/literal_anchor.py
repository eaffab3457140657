"""A value the question names beside its relation, which the KG writes as a plain literal, not as a node: "How many
spacecraft does **the agency Japan** have?" over a KG stating ``<craft> :agency "Japan"`` on each spacecraft; "which
wines **with the country France** ...", "the volcanoes **whose status is** dormant". No entity is named "Japan" as an
agency (a literal is no node, so it is nothing to link or to walk from); the things the question is about are the
subjects holding that value for that relation: the **anchor**.

**Where it is read** (:func:`literal_anchor`): after a relation's own name in the question (its IRI's words,
camelCase split: ``agency`` -> "agency", ``hasGenre`` -> "has genre"; the relation's words match the question's up
to an ending), then optionally a form of "be" ("whose status **is** dormant"), the next words, longest first and at
most :data:`MAX_VALUE_WORDS`, are looked up as a value of that relation, as the question writes them, in each form
the relation's sampled values take (plain, with a language tag, with a datatype). Only relations whose sampled
objects are literals (their measured range, :func:`~kg_agent.tools.shared.whole_graph.relation_sides`) are tried.
A value several relations hold (a launch site's country "Japan" beside a spacecraft's agency "Japan") is anchored
under the relation the question writes beside it; a value no relation the question names holds is no anchor (the
methods' own reading, and abstention, stand).

**When it is used**: only when the question asks for the anchored things themselves, its type noun naming their
class ("how many **spacecraft** ...", "which **spacecraft** of the agency Japan has the largest mass":
:func:`~kg_agent.tools.shared.answer_checks.of_counted_class`). Then the link step takes the anchored things as the
question's topic (in place of any entity linked from the same words: a launch site also named "Japan" is no agency),
and the answer step (:func:`anchored_answers`) reads every one of them (at most :data:`MAX_ANCHORED`, one bounded
query on every backend) as the answer candidates, each supported by its own fact as a one-step path from the value
("Japan -> ^agency -> Lambda 4S-2": the KG states ``Lambda 4S-2 agency "Japan"``), and the answer checks count, rank
(numbers the KG writes as strings, "508.3", are read as numbers) or list them
(:func:`~kg_agent.tools.shared.answer_checks.final_answers`). A question about something else of theirs ("which
launch sites did spacecraft of the agency Japan use") is not answered here.

Nothing here is a word list: the relation's name and its values are the KG's; the only English read is a form of
"be" between a relation's name and its value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rdflib import Literal, URIRef
from rdflib.term import Node

from kg_agent.kg.errors import KGError, UnknownRelationError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.per_kg import PerKG
from kg_agent.kg.terms import key_term, node_key
from kg_agent.text import AUXILIARIES, BE_WORDS, CONJUNCTIONS, PREPOSITIONS, WH_WORDS, name_words, same_word, stem
from kg_agent.tools.shared.aggregates import literal_text

#: Most words of a value read after a relation's name ("the genre **New Orleans rhythm and blues**" is five).
MAX_VALUE_WORDS = 6
#: Most subjects read for one anchor: a count over more says it counted that many, and is not marked grounded.
MAX_ANCHORED = 5000
#: Values sampled per relation to read the literal forms it writes (a language tag, a datatype).
FORM_SAMPLE = 20
#: Least share of a relation's sampled objects that are literals for its values to be looked up.
MIN_LITERAL_SHARE = 0.5
#: How the link step marks the topic entities an anchor gave (their ``how``).
ANCHORED = "literal value"

#: Words no value opens with: after "launched" (a relation's name) "**from** Woomera" is no launch date.
_OPENS_NO_VALUE = PREPOSITIONS | CONJUNCTIONS | WH_WORDS | AUXILIARIES
_WORD = re.compile(r"[^\W_][\w'.-]*")
_FORM = re.compile(r'^"(?:.*)"(?:\^\^<([^>]*)>|@([A-Za-z0-9-]+))?$', re.DOTALL)


@dataclass(frozen=True)
class LiteralAnchor:
    """The things holding ``value`` (a literal's key, N3) for ``relation``, named in the question by ``mention``;
    ``subjects`` at most :data:`MAX_ANCHORED`, ``cut`` when the KG holds more."""

    mention: str
    relation: str
    value: str
    subjects: tuple[str, ...]
    cut: bool = False

    @property
    def text(self) -> str:
        """The fact shared by every anchored thing, for people: ``agency = Japan``."""
        return f"{self.relation} = {literal_text(self.value)}"

    def walk(self, subject: str, label: str) -> dict:
        """The one-step path from the value to ``subject`` over the relation walked backwards (the KG states
        ``subject relation value``), as every method's walks are written."""
        start = {"id": self.value, "label": literal_text(self.value)}
        step = {"head": start, "relation": f"^{self.relation}", "tail": {"id": subject, "label": label}}
        return {"text": f"{start['label']} -> ^{self.relation} -> {label}", "start": start, "steps": [step]}


def _literal_forms(kg: KnowledgeGraph, relation: str) -> list[tuple[str | None, str | None]]:
    """``(datatype, language)`` of each literal form the relation's sampled values take, the plain form first; []
    when fewer than :data:`MIN_LITERAL_SHARE` of them are literals (its measured range is things)."""
    try:
        sampled = kg.sample_ends([relation], FORM_SAMPLE).get(relation, [])
    except (KGError, ValueError):
        return []
    literals = [key for key in sampled if key.startswith('"')]
    if not literals or len(literals) < MIN_LITERAL_SHARE * len(sampled):
        return []
    found: list[tuple[str | None, str | None]] = [(None, None)]
    for key in literals:
        match = _FORM.match(key)
        if match and (match.group(1) or match.group(2)):
            form = (match.group(1), match.group(2).lower() if match.group(2) else None)
            if form not in found:
                found.append(form)
    return found


def holders(kg: KnowledgeGraph, relation: str, text: str,
            forms: list[tuple[str | None, str | None]]) -> tuple[list[str], str]:
    """The subjects holding ``text`` for ``relation`` in one of the literal ``forms`` (datatype, language) its values
    take (at most :data:`MAX_ANCHORED` + 1), and the form's key (N3) found first; ``([], "")`` when none does. A
    datatype other than a string's is tried only for a text holding a digit (a number, a date)."""
    try:
        predicate = URIRef(kg.relation_iri(relation))
    except (UnknownRelationError, ValueError):
        return [], ""
    for datatype, language in forms:
        if datatype and not datatype.endswith("#string") and not any(c.isdigit() for c in text):
            continue
        value = Literal(text, datatype=URIRef(datatype) if datatype else None, lang=language)
        found = _holding(kg, predicate, value)
        if found:
            return found, node_key(value)
    return [], ""


def _holding(kg: KnowledgeGraph, predicate: URIRef, value: Node) -> list[str]:
    """The subjects of ``predicate`` with object ``value``, at most :data:`MAX_ANCHORED` + 1 (one query, the terms
    bound, never pasted: every bound variable is selected too, as Oxigraph's binding asks); [] when the KG cannot
    say."""
    try:
        rows = kg.query(f"SELECT DISTINCT ?s ?p ?o WHERE {{ ?s ?p ?o }} LIMIT {MAX_ANCHORED + 1}",
                        bindings={"p": predicate, "o": value})
        return [key for key in (node_key(row[0]) for row in rows) if not key.startswith('"')]
    except (KGError, ValueError):
        return []


class RelationWords:
    """The words of one KG's relations' names, indexed by their first word's stem, so a question is matched against
    the few relations that could be named in it, not against every one (a KG of thousands of relations)."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.by_stem: dict[str, list[tuple[str, list[str]]]] = {}
        for relation in kg.relation_names():
            words = name_words(relation.rsplit(".", 1)[-1])
            if words:
                self.by_stem.setdefault(stem(words[0]), []).append((relation, words))

    def named_in(self, lowered: list[str]) -> list[tuple[str, list[int]]]:
        """Each relation whose name's words the question writes (up to an ending), with where a value could start
        after them (past a form of "be"); a start at a word that opens no value (a preposition, a conjunction, a
        question word, an auxiliary: "launched **from** Woomera") is none."""
        found: dict[str, list[int]] = {}
        for at, token in enumerate(lowered):
            stems = dict.fromkeys((stem(token), stem(token.removesuffix("s"))))  # "tags" names a relation "tag"
            for relation, words in (item for key in stems for item in self.by_stem.get(key, ())):
                if at + len(words) >= len(lowered) or not all(
                        same_word(w, lowered[at + i]) for i, w in enumerate(words)):
                    continue
                start = at + len(words)
                start += lowered[start] in BE_WORDS
                if start < len(lowered) and lowered[start] not in _OPENS_NO_VALUE:
                    found.setdefault(relation, []).append(start)
        return sorted(found.items())


_RELATION_WORDS: PerKG[RelationWords] = PerKG(RelationWords)


def literal_anchor(kg: KnowledgeGraph, question: str) -> LiteralAnchor | None:
    """The value the question names right after a relation's name, as the KG holds it for that relation (module
    docstring); the longest value found, the earliest relation name among equals; None when there is none."""
    tokens = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(question)]
    lowered = [t[0].lower().strip(".'") for t in tokens]
    best: LiteralAnchor | None = None
    for relation, starts in _RELATION_WORDS.get(kg).named_in(lowered):
        forms = _literal_forms(kg, relation)
        for start in starts if forms else ():
            for end in range(min(len(tokens), start + MAX_VALUE_WORDS), start, -1):
                if best is not None and end - start <= len(best.mention.split()):
                    break
                text = question[tokens[start][1]:tokens[end - 1][2]].rstrip(".")
                if not text or not text[0].isalnum():
                    continue
                found, value = holders(kg, relation, text, forms)
                if found:
                    best = LiteralAnchor(text, relation, value, tuple(found[:MAX_ANCHORED]), len(found) > MAX_ANCHORED)
                    break
    return best


def asks_for_the_anchored(kg: KnowledgeGraph, question: str, anchor: LiteralAnchor) -> bool:
    """Whether the question's type noun names the class of every anchored thing (module docstring)."""
    from kg_agent.tools.shared.answer_checks import of_counted_class

    try:
        return of_counted_class(question, list(anchor.subjects[:FORM_SAMPLE]), kg) is not None
    except KGError:
        return False


def anchor_for_question(kg: KnowledgeGraph, question: str) -> LiteralAnchor | None:
    """:func:`literal_anchor` when the question asks for the anchored things themselves, else None."""
    anchor = literal_anchor(kg, question)
    return anchor if anchor is not None and asks_for_the_anchored(kg, question, anchor) else None


def anchored_topics(kg: KnowledgeGraph, anchor: LiteralAnchor, max_entities: int) -> list[dict]:
    """The link step's topic entities for an anchor: its first ``max_entities`` things, each saying how it was
    found (``how``: :data:`ANCHORED`; ``anchor``: the relation and the value's key, from which the answer step reads
    every anchored thing again, :func:`anchor_of_topics`)."""
    shown = list(anchor.subjects[:max_entities])
    labels = kg.labels_by_id(shown)
    held = {"relation": anchor.relation, "value": anchor.value}
    return [{"id": key, "label": labels.get(key) or key, "mention": anchor.mention, "score": 1.0, "how": ANCHORED,
             "anchor": held} for key in shown]


def anchor_of_topics(kg: KnowledgeGraph, topic_entities: Sequence) -> LiteralAnchor | None:
    """The anchor the link step took the topic entities from (:func:`anchored_topics`), every anchored thing read
    again (one bounded query); None when they are no anchor's."""
    held = next((t.get("anchor") for t in topic_entities if isinstance(t, dict) and t.get("how") == ANCHORED
                 and isinstance(t.get("anchor"), dict)), None)
    if held is None:
        return None
    relation, value = str(held.get("relation") or ""), str(held.get("value") or "")
    try:
        found = _holding(kg, URIRef(kg.relation_iri(relation)), key_term(value))
    except (UnknownRelationError, ValueError):
        return None
    mention = next(str(t.get("mention") or "") for t in topic_entities if isinstance(t, dict) and t.get("anchor"))
    return LiteralAnchor(mention, relation, value, tuple(found[:MAX_ANCHORED]), len(found) > MAX_ANCHORED) if found else None


def anchored_answers(kg: KnowledgeGraph, anchor: LiteralAnchor) -> list[dict]:
    """Every anchored thing as an answer candidate, grounded by its own fact (one step from the value), unless the
    KG holds more than were read."""
    labels = kg.labels_by_id(list(anchor.subjects))
    return [{"answer": labels.get(key) or key, "entity_id": key, "score": 1.0, "grounded": not anchor.cut,
             "paths": [anchor.walk(key, labels.get(key) or key)], "chunks": []} for key in anchor.subjects]
