"""Questions the KG cannot answer although some walk reached values: abstain, saying what the KG lacks.

The answer checks (:mod:`~kg_agent.tools.shared.answer_checks`) keep the answers whose walk ends in a relation the
question asks for (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.asked_paths`). When no word, type
noun or wh-kind of the question reads the walks' last relations at all, that judge keeps every walk unjudged (a verb
may name a relation in words no embedding puts near it). Three shapes of English say more than the verb, and with
none of the walks read by the question, what they reached is no answer:

* **A quantity asked by "how <measure>"** ("how **far** is the flight from [A] to [B]", "how **tall**", "how
  **much**"): the measure word asks for one number the KG states of the thing; a number over a relation no word
  names (a longitude for "how far") measures something else. Abstain: "the knowledge graph has no relation for 'how
  far'".
* **"How many <noun>" answered by a number the KG states** ("how many **passengers** used [X]" over a ``lon``
  value): the noun says what the number counts; a number over a relation neither the noun nor another word names,
  while the noun names no class of the KG either, counts nothing the question asks about (a non-integer is no count
  at all; the reason says so).
* **"Which <noun>" answered by bare values** ("which **airlines** fly from [A] to [B]" over ``runways`` numbers or
  ``country`` codes): the noun asks for things of a kind; values over relations no word names, when the noun names
  no class and no relation of the KG, are not of it. So are things of the classes of the walks' own starts (airports
  reached over ``route`` from an airport), when every class of the KG is known and the noun names none of them.

And one shape of the question's names: a proper name that is a preposition's object right after the noun asked for
("which airports in **Japan**": it restricts the answers) that the KG holds nowhere
(:func:`~kg_agent.kg.unknown_names.unknown_names`) cannot have been linked, so the other entities' walks answer
another question: abstain, "the knowledge graph has no entity named 'Japan'". A name elsewhere in the question
("when was [X] released **on Project Gutenberg**") may name where the whole KG comes from, and is not judged.

Answered by texts, the noun is read only where it heads its phrase (followed by a function word or a mention, or a
plural followed by no other plural: "which **airlines** fly", not "which *research* track papers", whose head is
"papers"); bare numbers are no things whatever the phrase's head. English
grammar and the KG's own relation and class names are read; no word list of a domain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.unknown_names import no_entity_named, unknown_names
from kg_agent.text import ARTICLES, FUNCTION_WORDS, PREPOSITIONS
from kg_agent.tools.shared.answer_types import NUMBER, literal_answer_kind
from kg_agent.tools.shared.literal_filter import holding_relation
from kg_agent.tools.shared.measured_relations import dimension_relations
from kg_agent.tools.shared.named_by_kg import named_by_kg
from kg_agent.tools.shared.path_scoring import AskedPaths
from kg_agent.tools.shared.question_parts import QuestionParts

#: Answers shown in a reason.
SHOWN = 3


def names_the_kg_lacks(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """No answer and why, when the question names by a preposition's object a thing the KG holds nowhere
    ("which airports in Japan ..."); None otherwise (or with no answers: nothing to withhold)."""
    if not answers:
        return None
    noun = QuestionParts.of(question).asked.noun
    if not noun:
        return None
    try:
        missing = [name for name in unknown_names(kg, question) if _restricts(question, noun, name)
                   and not _held_by_an_answer(kg, answers, name)]
    except KGError:
        return None
    return ([], no_entity_named(missing)) if missing else None


def _held_by_an_answer(kg: KnowledgeGraph, answers: Sequence[dict], name: str) -> bool:
    """Whether an answer holds ``name`` as a plain value other things share ("airports in London" over a ``city``
    string the label index need not hold): the name is the KG's, a filter on the answers
    (:mod:`~kg_agent.tools.shared.literal_filter`), not missing."""
    keys = [str(a["entity_id"]) for a in answers[:SHOWN * 10] if a.get("entity_id")
            and not str(a["entity_id"]).startswith(('"', "_:"))]
    return any(holding_relation(kg, key, name) is not None for key in keys)


def _restricts(question: str, noun: str, name: str) -> bool:
    """Whether ``name`` is the object of a preposition right after the noun the question asks for ("which
    **airports in Japan**", "how many huts in the Binn Valley"): a restriction on the answers, which without the
    thing named cannot be met. A name elsewhere ("when was [X] released **on Project Gutenberg**") may say where
    the whole KG comes from, and is left to the methods."""
    pattern = (r"(?i)\b" + re.escape(noun) + r"\s+(?:" + "|".join(sorted(PREPOSITIONS)) + r")\s+(?:(?:"
               + "|".join(sorted(ARTICLES)) + r")\s+)?" + re.escape(name) + r"(?!\w)")
    return re.search(pattern, question) is not None


def unsupported_kind(question: str, masked_question: str, answers: Sequence[dict], found: AskedPaths,
                     kg: KnowledgeGraph, class_named) -> tuple[list[dict], str] | None:
    """No answer and why, when the walks' last relations were left unjudged by the question (``found``, of the
    answers' relation paths) and the question asks, by "how <measure>", "how many <noun>" or "which <noun>", for
    what they do not reach (module docstring); None otherwise. ``class_named(noun)``: whether the noun names a class
    of the KG."""
    if found.judged or not answers:
        return None
    parts = QuestionParts.of(masked_question)
    asked, tokens = parts.asked, parts.tokens
    ends = sorted({step["relation"] for a in answers for p in a.get("paths") or () for step in (p.get("steps") or ())[-1:]})
    over = f" (no word of the question names the relations the walks end in: {', '.join(ends[:SHOWN])})"
    if asked.kind == NUMBER and not asked.noun and 0 < asked.position < len(tokens) and tokens[asked.position - 1] == "how":
        if dimension_relations(tokens[asked.position], "", ends, kg):  # "how high" over ``elevation``: the measure asked
            return None
        return [], f"the knowledge graph has no relation for 'how {tokens[asked.position]}'{over}"
    if not asked.noun or asked.kind:
        return None
    kinds = [literal_answer_kind(a) for a in answers]
    if not any(kinds):
        return _things_of_another_class(asked, tokens, answers, kg, class_named, over)
    if not all(kinds):  # things are judged by their classes elsewhere
        return None
    # bare numbers are no things of any noun's kind; texts may name what a noun heading its phrase asks for
    if not all(k == NUMBER for k in kinds) and not _heads_its_phrase(asked.noun_phrase, tokens, asked.position):
        return None
    if named_by_kg(asked, kg, class_named):
        return None
    counting = tuple(tokens[max(0, asked.position - 2):asked.position]) == ("how", "many")
    if counting and not all(k == NUMBER for k in kinds):
        return None
    fractional = [str(a.get("answer")) for a in answers if _fractional(str(a.get("answer", "")))]
    shown = ", ".join(repr(str(a.get("answer")))[:40] for a in answers[:SHOWN])
    if counting:
        why = f"; {fractional[0]!r} is no count" if fractional else ""
        return [], (f"the knowledge graph has no relation or class for {asked.noun!r}: the numbers reached ({shown}) "
                    f"count no {asked.noun}{over}{why}")
    return [], f"the knowledge graph has no relation or class for {asked.noun!r}: the values reached ({shown}) are no {asked.noun}{over}"


def _things_of_another_class(asked, tokens: Sequence[str], answers: Sequence[dict], kg: KnowledgeGraph, class_named,
                             over: str) -> tuple[list[dict], str] | None:
    """No answer and why, when "which <noun>" is answered by things every one of which the KG gives a class, the noun
    names none of the KG's classes (all of them known) and no relation of it, and it heads its phrase ("which
    **airlines** fly from [A] to [B]" answered by airports): the things reached are of the classes the KG gives them,
    not of the kind asked. A count ("how many <noun>") is left to the count's own checks."""
    if not _heads_its_phrase(asked.noun_phrase, tokens, asked.position):
        return None
    if tuple(tokens[max(0, asked.position - 2):asked.position]) == ("how", "many"):
        return None
    if named_by_kg(asked, kg, class_named):
        return None
    keys = [str(a.get("entity_id") or "") for a in answers]
    if not all(keys) or any(key.startswith("_:") for key in keys):
        return None
    try:
        classes = kg.classes_of(keys[:SHOWN * 10])
    except KGError:
        return None
    if not classes or not all(classes.get(key) for key in keys[:SHOWN * 10]):
        return None
    # only things of the walks' own starts' classes (airports reached from an airport): a noun naming no class may
    # still ask for things of another class named otherwise ("papers" for *InProceedings*), never for the start's kind
    starts = sorted({p["steps"][0]["head"]["id"] for a in answers for p in a.get("paths") or () if p.get("steps")})
    try:
        own = {c for found in kg.classes_of(starts).values() for c in found} if starts else set()
    except KGError:
        return None
    if not own or not all(set(classes[key]) <= own for key in keys[:SHOWN * 10]):
        return None
    held = sorted({kg.label(c) or c for key in keys[:SHOWN * 10] for c in classes[key]})
    shown = ", ".join(repr(str(a.get("answer")))[:40] for a in answers[:SHOWN])
    return [], (f"the knowledge graph has no relation or class for {asked.noun!r}: the things reached ({shown}) are "
                f"{', '.join(held[:SHOWN])}, no {asked.noun}{over}")


def _heads_its_phrase(phrase: Sequence[str], tokens: Sequence[str], position: int) -> bool:
    """Whether the type noun at ``position`` heads its noun phrase: the phrase ends there (a function word, a
    mention or the end follows), or the noun is a plural and no later word of the phrase is ("which airlines fly")."""
    after = tokens[position + 1] if position + 1 < len(tokens) else ""
    if not after or after in FUNCTION_WORDS or not after.isalpha():
        return True
    noun = tokens[position]
    later = phrase[phrase.index(noun) + 1:] if noun in phrase else ()
    return _plural(noun) and not any(_plural(w) for w in later)


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))




def _fractional(text: str) -> bool:
    try:
        value = float(text.strip())
    except ValueError:
        return False
    return value != int(value) if value == value and abs(value) != float("inf") else False
