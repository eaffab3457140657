""""Which is larger, A or B?": one of two named things, chosen by comparing a number or date the KG gives both.

The question's English comparison grammar is read ("which (one) is/was/has <comparative>, A or B", "which of A and B
is <comparative>"; a comparative is "more", "less" or a word in -er whose superlative, -est, the superlative reader
of :mod:`~kg_agent.tools.shared.aggregates` knows: "larger" as "largest", "older" as "oldest", the least of dates).
It names two things (two mentions linked, :func:`~kg_agent.tools.shared.constraints.mention_groups`). The KG decides
the rest: the attributes compared are the relation paths that reach a number or a date from both things, in one step
(``conversionMultiplier``) or in two through a statement node (a value with its unit: ``quantityValue -> value``),
the statement nodes' named values (their units) the same for both, else the numbers are in different units and not
compared. An adjective that names some of those relations (the project's relation scorer: word stems, or the
embeddings' cosine: "heavier" a ``mass``, "taller" a ``height``) compares only them; one naming none ("larger" of
two units) compares them all. Each attribute on which the two differ votes for one of them; the one most attributes
put first is the answer, with the compared values as its evidence (``compared``, ``compared_by``). No answer (the
question goes on as any other) when no attribute is shared or the votes tie.

"Which was <verb> first / earlier / later / last, A or B" (and "which of A and B was <verb> first") compares the
two by a date: the relation paths the verb names ("planted" a ``planting -> planted`` through an unnamed planting
record), else those whose values are all typed points in time (``xsd:date`` ...); only values that are points in
time (typed so, or written as a date) are compared, the earliest first for "first" and "earlier". A date has no
unit, so the statement nodes it sits on (a launch, a planting: each naming its own site, its own thing) need not
agree. The answer is the thing, never its date.

"Which has more <noun>, A or B" and "who <verb> more / fewer <noun>, A or B" ("who asked more questions"; "which of A
and B wrote more letters") compare how many things each reaches when the KG writes no such number: over the relation
the noun names, or the one whose ends are of the class it names; else, when the noun names a kind the KG writes only
as an unlabelled value of a type-like relation (:mod:`~kg_agent.tools.shared.kind_values`: "questions",
``work_type -> .../QUEST_WRITTEN``), the distinct things of that kind each reaches over any relation (over those the
verb names, when it names some), so that a participation's role node ("Author") or a thing of another kind (an answer
document) is neither counted nor answered. The counts are the evidence (``compared``, ``counted``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.terms import UNNAMED
from kg_agent.text import AUXILIARIES, BE_NONFINITE, FUNCTION_WORDS, MODALS
from kg_agent.tools.shared.aggregates import (
    MAX,
    MIN,
    TIME_DATATYPE_ENDINGS,
    AnswerRanker,
    asked_comparison,
    literal_text,
    literal_value,
)
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.constraints import mention_groups
from kg_agent.tools.shared.kind_values import things_of_kind
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.relation_words import EARLIEST_WORDS, LATEST_WORDS
from kg_agent.tools.shared.similarity import shared_text_vectors

_COMPARATIVE = r"(more|less|[a-z]{2,}er)"
#: The noun after "has more" that names what is counted or measured ("which has more **runways**, A or B").
_NOUN = r"(?:\s+([a-z]{3,}))?"
_WHICH_IS = re.compile(r"^\s*which(?:\s+one)?\s+(?:is|was|are|were|has|had)\s+(?:the\s+)?" + _COMPARATIVE + _NOUN
                       + r"\s*[,:]", re.IGNORECASE)
_WHICH_OF = re.compile(r"^\s*which\s+of\s+.+\s+(?:is|was|has|had)\s+(?:the\s+)?" + _COMPARATIVE + _NOUN
                       + r"\s*\??\s*$", re.IGNORECASE)
#: Time adverbs of "which was <verb> first / earlier / later, A or B": the earliest or the latest date wins.
_IN_TIME_ORDER = {**dict.fromkeys(EARLIEST_WORDS | {"earlier", "sooner"}, MIN),
                  **dict.fromkeys(LATEST_WORDS | {"later"}, MAX)}
_TIME_ADVERB = "(" + "|".join(sorted(_IN_TIME_ORDER)) + ")"
_WHICH_WHEN = re.compile(r"^\s*which(?:\s+one)?\s+(?:(?:is|was|are|were|has\s+been|had\s+been)\s+)?([a-z]{3,})\s+(?:the\s+)?"
                         + _TIME_ADVERB + r"\s*[,:]", re.IGNORECASE)
_WHICH_OF_WHEN = re.compile(r"^\s*which\s+of\s+.+?\s+(?:(?:is|was|were|has\s+been|had\s+been)\s+)?([a-z]{3,})\s+(?:the\s+)?"
                            + _TIME_ADVERB + r"\s*\??\s*$", re.IGNORECASE)
#: "Who asked more questions, A or B" / "which of A and B wrote more books": a verb (no auxiliary: "which has more"
#: is read above), then "more / fewer" and the counted noun.
_WHO_DID_MORE = re.compile(r"^\s*(?:who|which(?:\s+one)?)\s+(?:(?:did|does|do)\s+)?([a-z]{3,})\s+(more|fewer|less)\s+"
                           r"([a-z]{3,})\s*[,:]", re.IGNORECASE)
_WHICH_OF_DID_MORE = re.compile(r"^\s*(?:who|which)\s+of\s+.+\s+([a-z]{3,})\s+(more|fewer|less)\s+([a-z]{3,})"
                                r"\s*\??\s*$", re.IGNORECASE)
_DATE_TEXT = re.compile(r"^-?\d{1,6}-\d\d(?:-\d\d)?(?:T|$)")
#: Most relations read per thing and statement node.
EDGE_BOUND = 50
#: Most counted things a count comparison's answer shows as its evidence (the counts are of them all).
COUNTED_SHOWN = 10


def asked_order(question: str) -> tuple[str, str, bool] | None:
    """``(order, the word naming the attribute, whether it is a time)`` for a "which is <comparative>, A or B"
    question (``(MAX, "heavier", False)``) or a "which was <verb> first / earlier / later, A or B" one (``(MIN,
    "launched", True)``: the date the verb names, the earliest first); None for any other question."""
    if not re.search(r"\b(?:or|and)\b", question, re.IGNORECASE):
        return None
    match = _WHICH_IS.match(question) or _WHICH_OF.match(question)
    if match is not None:
        word, noun = match.group(1).lower(), (match.group(2) or "").lower()
        if noun and word not in ("more", "less", "fewer"):
            return None  # "which is older Bordeaux, ..." is no comparison of a noun
        superlative = {"more": "most", "less": "least", "fewer": "fewest"}.get(word) or word[:-2] + "est"
        found = asked_comparison(f"the {superlative}")
        # the noun names the attribute ("more runways": ``runways``), as an adjective does ("heavier": a mass)
        return (found.order, noun or word, False) if found is not None and found.bound is None else None
    did = _did_more(question)
    if did is not None:
        return did[0], did[2], False
    match = _WHICH_WHEN.match(question) or _WHICH_OF_WHEN.match(question)
    if match is None or match.group(1).lower() in ("which", "one", "the"):
        return None
    return _IN_TIME_ORDER[match.group(2).lower()], match.group(1).lower(), True


def _did_more(question: str) -> tuple[str, str, str] | None:
    """``(order, verb, counted noun)`` of a "who <verb> more / fewer <noun>, A or B" question (``(MAX, "asked",
    "questions")``), or "which of A and B <verb> more <noun>"; None for any other question (an auxiliary is no verb
    here: "which has more <noun>" is read by :data:`_WHICH_IS`)."""
    if not re.search(r"\b(?:or|and)\b", question, re.IGNORECASE):
        return None
    match = _WHO_DID_MORE.match(question) or _WHICH_OF_DID_MORE.match(question)
    if match is None:
        return None
    verb, word, noun = (match.group(i).lower() for i in (1, 2, 3))
    if verb in AUXILIARIES | BE_NONFINITE | MODALS or noun in FUNCTION_WORDS:
        return None
    return (MAX if word == "more" else MIN), verb, noun


def comparative_order(question: str) -> str | None:
    """:data:`MAX` or :data:`MIN` for a "which is <comparative>, A or B" or "which was <verb> first, A or B"
    question, else None."""
    found = asked_order(question)
    return found[0] if found is not None else None


def _numbers(kg: KnowledgeGraph, thing: str) -> dict[tuple[str, ...], tuple[float, str, frozenset[str], str]]:
    """``{relation path: (value, the literal, the statement's named values, the statement node)}``: the numbers and
    dates the thing has in one step (no statement: ``""``), or in two through a statement node (then with that
    node's named values: its unit)."""
    found: dict[tuple[str, ...], tuple[float, str, frozenset[str], str]] = {}
    edges = kg.bounded_edges(thing, EDGE_BOUND).targets
    nodes = {n for relation, targets in edges.items() if not relation.startswith("^") for n in targets
             if not n.startswith('"')}
    statements = Nameless.among(kg, nodes).statements | {n for n in nodes if n.startswith("_:")}
    for relation, targets in edges.items():
        if relation.startswith("^"):
            continue
        for target in targets:
            value = literal_value(target) if target.startswith('"') else None
            if value is not None:
                found.setdefault((relation,), (value, target, frozenset(), ""))
            elif target in statements:
                inner = kg.bounded_edges(target, EDGE_BOUND).targets
                named = frozenset(f"{r} {n}" for r, ns in inner.items() if not r.startswith("^") for n in ns
                                  if not n.startswith('"'))
                for second, values in inner.items():
                    for literal in values:
                        number = literal_value(literal) if literal.startswith('"') else None
                        if number is not None and not second.startswith("^"):
                            found.setdefault((relation, second), (number, literal, named, target))
    return found


def which_of_answered(question: str, topic_entities: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """The answer to a "which is <comparative>, A or B" question, with what was compared (module docstring); None
    for any other question, or when the KG gives the two things no number to compare."""
    asked = asked_order(question)
    groups = mention_groups(topic_entities)
    if asked is None or len(groups) != 2:
        return None
    by_id = {e["id"]: e for e in topic_entities if isinstance(e, dict) and e.get("id")}
    first, second = ([e for e in by_id if e in ids] for ids in groups.values())
    counted = counted_noun(question)
    try:
        for a in first:
            for b in second:
                found = _compared(kg, a, b, asked)
                if found is not None:
                    return _answer(kg, by_id, found, asked)
        if counted:  # "which has more members": no number the KG writes; the members each has, counted
            for a in first:
                for b in second:
                    by_count = _counted(kg, a, b, asked[0], counted) or _counted_of_kind(
                        kg, a, b, asked[0], counted, _did_more(question))
                    if by_count is not None:
                        return _count_answer(kg, by_id, by_count, asked[0], counted)
    except KGError:
        return None
    return None


def counted_noun(question: str) -> str:
    """The noun a "which has more / fewer <noun>, A or B" question counts ("members"); "" for any other question
    (an adjective's comparison, "which is heavier", or a noun the KG may write as a number only)."""
    match = _WHICH_IS.match(question) or _WHICH_OF.match(question)
    if match is None or match.group(1).lower() not in ("more", "less", "fewer") or not match.group(2):
        did = _did_more(question)
        return did[2] if did is not None else ""
    return match.group(2).lower()


def _relation_counts(kg: KnowledgeGraph, thing: str) -> dict[str, list[str]]:
    """``{relation: the distinct named things it reaches}`` from a thing, both directions (``^artist``: the albums
    naming it their artist), literals left out (a name, a description: no member to count)."""
    found: dict[str, list[str]] = {}
    for relation, targets in kg.edges(thing).items():
        nodes = list(dict.fromkeys(t for t in targets if not t.startswith('"')))
        if nodes:
            found[relation] = nodes
    return found


def _counted(kg: KnowledgeGraph, a: str, b: str, order: str, noun: str
             ) -> tuple[str, str, str, list[str], list[str]] | None:
    """``(winner, loser, relation, winner's members, loser's members)``: the two things compared by how many things
    the relation the counted noun names reaches from each (:func:`counted_relations`); None when no relation is
    named, or the counts tie on every one named."""
    of_a, of_b = _relation_counts(kg, a), _relation_counts(kg, b)
    for relation in counted_relations(kg, noun, of_a, of_b):
        members_a, members_b = of_a.get(relation, []), of_b.get(relation, [])
        if len(members_a) == len(members_b):
            continue
        if (len(members_a) > len(members_b)) == (order == MAX):
            return a, b, relation, members_a, members_b
        return b, a, relation, members_b, members_a
    return None


def _counted_of_kind(kg: KnowledgeGraph, a: str, b: str, order: str, noun: str,
                     did: tuple[str, str, str] | None
                     ) -> tuple[str, str, str, list[str], list[str], dict[str, str]] | None:
    """As :func:`_counted`, for a counted noun that names a kind value
    (:mod:`~kg_agent.tools.shared.kind_values`: "questions", ``work_type -> QUEST_WRITTEN``): each thing's distinct
    things of that kind, over the relations reaching them from either of the two (``^creator``); of those, the
    ones the question's verb names when it names some ("wrote" a ``writer``), else all. None when neither reaches a
    thing of the kind, or the counts tie. Last: ``{counted thing: the relation reaching it}``."""
    of_a, of_b = _relation_counts(kg, a), _relation_counts(kg, b)
    of_kind = things_of_kind([t for found in (of_a, of_b) for ts in found.values() for t in ts], noun, kg)
    if not of_kind:
        return None
    reaching = sorted(r for r in set(of_a) | set(of_b) if of_kind.keys() & {*of_a.get(r, ()), *of_b.get(r, ())})
    named = AnswerRanker().named_relations(did[1], reaching, kg) if did is not None else []
    relations = named or reaching
    members_a = list(dict.fromkeys(t for r in relations for t in of_a.get(r, ()) if t in of_kind))
    members_b = list(dict.fromkeys(t for r in relations for t in of_b.get(r, ()) if t in of_kind))
    if len(members_a) == len(members_b):
        return None
    if (len(members_a) > len(members_b)) == (order == MAX):
        winner, loser, members, other_members, of_winner = a, b, members_a, members_b, of_a
    else:
        winner, loser, members, other_members, of_winner = b, a, members_b, members_a, of_b
    via = {t: r for r in reversed(relations) for t in of_winner.get(r, ())}
    return winner, loser, " / ".join(relations), members, other_members, via


def counted_relations(kg: KnowledgeGraph, noun: str, *reached: dict[str, list[str]]) -> list[str]:
    """Of the relations reaching things from either of the compared (``{relation: things}`` each, either direction),
    those the counted noun names, best first: by the relation scorer's words or embeddings at its evidence floor
    ("members": ``member``), else by the class of the things the relation reaches ("albums": ``^artist``, whose ends
    are of the class Album). A relation the noun is merely closest to names nothing ("hits": ``track``)."""
    relations = sorted({r for found in reached for r in found})
    if not relations:
        return []
    ranker = AnswerRanker()
    evidence = ranker.scorer.unclipped_evidence(QuestionParts.of(noun), relations, kg.relation_names())
    named = {r: float(e.max()) for r, e in zip(relations, evidence) if e.size and e.max() >= ranker.scorer.evidence_floor}
    if named:
        return sorted(named, key=lambda r: (-named[r], r))
    ends = {r: [t for found in reached for t in found.get(r, [])][:EDGE_BOUND] for r in relations}
    classes = kg.classes_of(sorted({t for found in ends.values() for t in found}))
    names = class_names(kg, shared_text_vectors(None))
    by_class = []
    for relation, things in ends.items():
        of_things = [c for t in things for c in classes.get(t, ())]
        if things and names.named(noun, set(of_things)):
            by_class.append(relation)
    return by_class


def _count_answer(kg: KnowledgeGraph, by_id: dict[str, dict], found: tuple, order: str, noun: str
                  ) -> tuple[list[dict], str]:
    """The answer record of a count comparison ``found`` by :func:`_counted` (or :func:`_counted_of_kind`, whose
    last item says which relation reaches each counted thing), its counted things as its paths."""
    winner, loser, relation, members, other_members = found[:5]
    via: dict[str, str] = found[5] if len(found) > 5 else {}
    labels = kg.labels_by_id([winner, loser, *members[:COUNTED_SHOWN]])
    name = labels.get(winner) or by_id[winner].get("label") or winner
    other = labels.get(loser) or by_id[loser].get("label") or loser
    shown = [{"id": m, "label": labels.get(m) or m} for m in members[:COUNTED_SHOWN]]
    winner_node = {"id": winner, "label": name}
    paths = [{"steps": [{"head": winner_node, "relation": via.get(node["id"], relation), "tail": node}],
              "text": f"{name} -> {via.get(node['id'], relation)} -> {node['label']}"} for node in shown]
    record = {"answer": name, "entity_id": winner, "score": 1.0, "grounded": True, "paths": paths,
              "compared": [{"answer": name, "value": str(len(members))},
                           {"answer": other, "value": str(len(other_members))}],
              "compared_by": f"number of {relation}",
              "counted": [node["label"] for node in shown]}
    what = (f"compared {name} and {other} by the number of their {noun} over {relation} ({len(members)} against "
            f"{len(other_members)}): {name} has {'more' if order == MAX else 'fewer'}")
    return [record], what


def _is_time(literal: str) -> bool:
    """Whether a literal is a point in time: typed one (``xsd:date``, ``xsd:gYear`` ...) or written as a date."""
    return literal.endswith(TIME_DATATYPE_ENDINGS) or _DATE_TEXT.match(literal_text(literal)) is not None


def _compared_paths(kg: KnowledgeGraph, word: str, in_time: bool, shared: dict[tuple[str, ...], tuple[str, str]]
                    ) -> list[tuple[str, ...]]:
    """Of the relation paths reaching a value from both things (``{path: (a's literal, b's literal)}``), those
    compared: the ones whose relations the question's word names best (the relation scorer's stems or embeddings,
    :meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.named_relations`: "heavier" a ``mass``, "launched" a
    ``launch -> launched``); when it names none, for a time adverb the paths whose values are both typed points in
    time, for an adjective every path."""
    relations = sorted({relation for path in shared for relation in path})
    named = set(AnswerRanker().named_relations(word, relations, kg)) if relations else set()
    paths = [path for path in shared if named.intersection(path)]
    if in_time:
        return [path for path in paths or shared if all(_is_time(literal) for literal in shared[path])]
    return paths or list(shared)


def _compared(kg: KnowledgeGraph, a: str, b: str, asked: tuple[str, str, bool]
              ) -> tuple[str, str, list[tuple], int] | None:
    """``(winner, loser, its votes, the paths compared)`` for the pair, each vote ``(path, (winner's value,
    literal, _, statement), (loser's ...))``; None when no shared number differs or the votes tie."""
    order, word, in_time = asked
    numbers_a, numbers_b = _numbers(kg, a), _numbers(kg, b)
    shared = {path: (numbers_a[path][1], numbers_b[path][1]) for path in set(numbers_a) & set(numbers_b)}
    votes: dict[str, list[tuple]] = {a: [], b: []}
    for path in sorted(_compared_paths(kg, word, in_time, shared)):
        of_a, of_b = numbers_a[path], numbers_b[path]
        if of_a[0] == of_b[0] or of_a[2] != of_b[2] and not (_is_time(of_a[1]) and _is_time(of_b[1])):
            continue
        if (of_a[0] > of_b[0]) == (order == MAX):
            votes[a].append((path, of_a, of_b))
        else:
            votes[b].append((path, of_b, of_a))
    if len(votes[a]) == len(votes[b]):
        return None
    winner, loser = (a, b) if len(votes[a]) > len(votes[b]) else (b, a)
    return winner, loser, votes[winner], len(votes[a]) + len(votes[b])


def _answer(kg: KnowledgeGraph, by_id: dict[str, dict], found: tuple[str, str, list[tuple], int],
            asked: tuple[str, str, bool]) -> tuple[list[dict], str]:
    order, _, in_time = asked
    winner, loser, votes, compared_paths = found
    labels = kg.labels_by_id([winner, loser])
    name = labels.get(winner) or by_id[winner].get("label") or winner
    other = labels.get(loser) or by_id[loser].get("label") or loser
    path, (_, literal, _, statement), (_, other_literal, _, _) = votes[0]
    by = " -> ".join(path)
    shown, other_shown = literal_text(literal), literal_text(other_literal)
    nodes = [{"id": winner, "label": name}, *([{"id": statement, "label": UNNAMED}] if statement else []),
             {"id": literal, "label": shown}]
    steps = [{"head": head, "relation": relation, "tail": tail} for head, relation, tail in zip(nodes, path, nodes[1:])]
    record = {"answer": name, "entity_id": winner, "score": 1.0, "grounded": True,
              "paths": [{"steps": steps, "text": f"{name} -> {by} -> {shown}"}],
              "compared": [{"answer": name, "value": shown}, {"answer": other, "value": other_shown}],
              "compared_by": by}
    what = (f"compared {name} and {other} by {by} ({shown} against {other_shown}): {len(votes)} of the "
            f"{compared_paths} {'dates' if in_time else 'numbers'} the KG gives both put {name} "
            f"{('later' if in_time else 'above') if order == MAX else ('earlier' if in_time else 'below')}")
    return [record], what
