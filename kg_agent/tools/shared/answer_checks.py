"""The last check every method's answers pass before they reach the caller: what the question asks for, said plainly.

* **Unnamed nodes are never answers.** A blank node, a Freebase mediator or a Wikidata statement node (shown as
  :data:`~kg_agent.kg.terms.UNNAMED`) joins an entity to the values a question asks for; it is no answer itself. When
  only such nodes were reached, the method **abstains**: no answer, ``stop_reason="abstained"`` and the reason in
  ``warnings`` ("only unnamed statement nodes were reached"), unless the caller asked for ``"best_effort"``
  (:class:`~kg_agent.settings.GraphSettings` ``when_unsupported``), which keeps them, flagged ungrounded.
* **A node the KG gives no name is a statement, or a page.** An IRI without any name literal that has facts of
  its own (an ``org:Membership``, a place's ``#this`` location node) is a statement node: no answer, as above. One
  without facts that is no class (a web page a ``webpage`` relation points to) is answered by its IRI, which is what
  it is; a class keeps the name its IRI ends with.
* **A vocabulary's header is no answer.** A node the KG types ``owl:Ontology`` (where ``rdfs:isDefinedBy`` leads every
  term) describes the KG's terms, no thing of its domain: answers that are it, or are reached only through it, are
  left out, and with none left the method abstains, saying why (:func:`off_the_vocabulary_header`).
* **A question no relation of the KG matches is not answered.** When every plan comes from the offline relation-path
  scorer (:class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`) and the best scores no more than zero --
  no phrase of the question evidences its relations beyond what the scorer charges for them -- the KG has no relation
  for what is asked ("the ISBN of [X]", "the molecular weight of [X]"): RoG abstains, saying so
  (:func:`plans_matching_nothing`), unless ``"best_effort"`` is asked for; offline ToG and ToG-I read their explored
  chains' relation paths with the same scorer (:func:`chains_matching_nothing`).
* **The relation asked.** Each answer's walk must end in a relation the question asks for
  (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.asked_paths`: a word evidences it, or its values
  are of the kind the wh-word or type noun asks for); the answers over other walks are left out, and when none is
  left the method abstains, saying which words the KG has no relation for ("the knowledge graph has no relation for
  'isbn'"; "the knowledge graph has 'ill' for 'illustrated', but no walk from the question's entity reaches it"; a
  time question's verb naming an event no relation stands for: "the knowledge graph has no relation for 'sink'"),
  unless ``"best_effort"`` is asked for. Walks no word reads that reach bare values ("how far", "which airlines" over
  numbers) are judged by :mod:`~kg_agent.tools.shared.unsupported_asks`; things asked for by a word no relation,
  class or value of the KG names ("what **key** is [X] written in" over ``writer``) by
  :mod:`~kg_agent.tools.shared.unnamed_things`.
* **The thing of the kind named.** When a name the question uses is shared by several things the walks start from,
  and the words before it name the class of some ("the **invited talk** [X]", a talk and a paper of one title), the
  answers from the others are left out (:func:`started_at_the_kind_named`; the link step does the same,
  :func:`~kg_agent.tools.shared.link.links_of_the_kind_named`).
* **A value of the thing asked about.** A value asked of the question's entity ("[X] 's email address") is not read
  off another named thing that a statement of [X] joins it to, reached over relations no word of the question names
  (``[X] -^heldBy-> [role] -isRoleAt-> [event] -address->``: the event's address); values of [X], of the statement
  or role nodes standing for its facts, and of a thing the question names the way to ("the address of the season in
  which [X] held ...") stand (:func:`attribute_of_another_thing`).
* **The kind asked.** A question asking for a time ("when", "what year") or a quantity ("how much", "how heavy")
  is not answered by a literal of another kind: a literal's datatype says what it is (``xsd:integer`` downloads are
  no release date; integers that are all years are years), an untyped one its form (:func:`of_another_kind`).
  "Where" is not answered by persons (a relation's sampled objects, or the answers' own classes when one is named
  a person: ``foaf:Person``), nor "who" by a plain text over a relation no phrase of the question names (a room's
  name for "who gave the talk [X]"). "Which <things>", when the noun phrase names a class of the KG ("which
  physical constants"), is answered by no number, time or truth value over a relation the noun does not name.
* **"How many" is counted.** A question asking how many things there are is answered by the number of distinct
  answers reached, one answer whose ``counted`` field lists them (the evidence), grounded when every counted answer
  is; a quantity the KG states itself (the answers are all numbers: a download count, a population) is kept as it is.
  A count that reached only statement nodes ("how many people held the role of [X]": the memberships) counts the
  things of the class the question's type noun names that the statements are about, one relation on
  (:func:`through_statements`), unless the noun names the statements' own class ("how many **launches** ...": the
  unnamed launch records are what is counted, :func:`counted_statements`; counted, never shown as answers); a walk
  stepping out of a statement node counts every statement the step before reached, each through its own step on
  (:func:`every_end_reached`). A number the KG states of a thing answers
  "how many <noun>" only when no relation of that thing reaches things of a class the noun names ("how many
  downloadable **files** are listed for [X]": its ``hasFormat`` files are counted, not its ``downloads``;
  :func:`things_of_the_counted_class`). When the type noun with its modifiers names the answers' class ("how many
  **invited talks** were given at [X]": the sub-events of the class *invited talk event*), only the things of that
  class count, beyond the answer list too; "the first / last <noun> at [X]" is ranked among all of them.
  A count counts what the question's entity has: walks that first step to another named thing over a relation
  no word of the question names ("how many pages does [X] have" over ``creator -> webpage``) are left out, and
  with none left the method abstains (:func:`counted_of_another_thing`).
* **"When" is answered by the finest time first**: of one node's times, a moment (``xsd:dateTime``) before a day, a
  month or a year (datatype, else form; :func:`finest_times_first`); "which year" keeps the order.
* **"The most / the earliest / more than N / before <year> / in 1965 / was launched last" is compared.** The answers
  are ranked or filtered by the number or date the KG gives each through the relation the question's words name
  (:mod:`~kg_agent.tools.shared.aggregates`); the answers kept carry ``compared`` (each compared answer with its
  value) and ``compared_by`` (the relation). A condition no answer meets ("in 1950") is abstained on with the reason
  ("none of the 5 answers compared was completed in 1950 by the knowledge graph"), never answered with the unfiltered
  set; a count with a condition counts the answers it keeps (:func:`conditioned`). A superlative answered only by
  text literals, none a number or a date, compared nothing: abstained on (:func:`uncompared_texts`). "The longest"
  naming no relation ranks by the one number the KG gives every answer; answers sharing none, or several ranking
  them differently, are abstained on, saying so (:meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.unmeasured`).

The question's grammar is read (English "how many", "the most", "more than"), never a data set's relation names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from kg_agent.kg.containers import membership_relations
from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import value_nodes
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.naming import OWL
from kg_agent.kg.relation_paths import own_name_words
from kg_agent.kg.terms import UNNAMED
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk
from kg_agent.settings import WhenUnsupported, current_run_settings
from kg_agent.text import content_words, same_word
from kg_agent.text import words as text_words
from kg_agent.tools.shared.aggregates import AnswerRanker, asked_comparison
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.answer_types import (
    NUMBER,
    PERSON,
    PLACE,
    PLAIN_NUMBER,
    TIME,
    XSD,
    AskedType,
    is_prose,
    literal_answer_kind,
    names_persons,
    relation_object_kinds,
)
from kg_agent.tools.shared.class_split import persons_apart
from kg_agent.tools.shared.counted_texts import texts_of_an_unnamed_attribute
from kg_agent.tools.shared.kind_values import MAX_ENDS_READ, things_of_kind
from kg_agent.tools.shared.passive_hop import passive_hop_ends
from kg_agent.tools.shared.passive_objects import PASSIVE_OBJECTS, passive_objects
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.peer_relations import counted_one_way
from kg_agent.tools.shared.question_parts import QuestionParts, kind_before_mention
from kg_agent.tools.shared.relation_words import TIME_SUPERLATIVES
from kg_agent.tools.shared.scoring import mask_every_name, mask_mentions
from kg_agent.tools.shared.unit_measures import counted_for_a_measure
from kg_agent.tools.shared.unnamed_things import unnamed_thing
from kg_agent.tools.shared.unsupported_asks import names_the_kg_lacks, unsupported_kind

ABSTAINED = "abstained"
ONLY_UNNAMED = "only unnamed statement nodes were reached, none of them a thing the question asks for"
ONLY_NAMELESS = ("only things the KG does not name were reached (IRIs with no name, no facts of their own and no "
                 "readable local name), none of them an answer to show")

_HOW_MANY = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\s+of\b", re.IGNORECASE)


#: The planner whose plans carry the relation-path scorer's scores (:class:`~kg_agent.tools.rog.plan.SimilarityPlanner`).
SCORED_PLANS = "similarity"


def plans_matching_nothing(plans: Sequence[dict]) -> str | None:
    """Why the plans answer nothing the question asks for (every plan the scorer's, the best scoring no more than
    zero), or None."""
    if not plans or any(p.get("source") != SCORED_PLANS for p in plans):
        return None
    best = max(plans, key=lambda p: float(p.get("score") or 0.0))
    score = float(best.get("score") or 0.0)
    return None if score > 0.0 else _nothing_matches(best.get("relations") or [], score)


def chains_matching_nothing(question: str, topic_entities: Sequence[dict], chains: Sequence[dict],
                            scorer: RelationPathScorer, kg: KnowledgeGraph | None) -> str | None:
    """Why the explored chains answer nothing the question asks for (the scorer's best score of their relation paths
    no more than zero, as :func:`plans_matching_nothing` reads a plan's; steps inside an RDF list left out: they name
    nothing), or None (nothing explored: None too)."""
    inside = membership_relations(kg, {s["relation"] for c in chains for s in c.get("steps") or ()}) if kg is not None else set()
    paths = list(dict.fromkeys(tuple(step["relation"] for step in c["steps"] if step["relation"] not in inside)
                               for c in chains if c.get("steps")))
    paths = [p for p in paths if p]
    if not paths:
        return None
    entities = [Entity(t["id"], t.get("label") or t["id"]) for t in topic_entities if t.get("id")]
    scores = scorer.score(mask_mentions(question, entities), paths, kg=kg)
    best = max(range(len(paths)), key=scores.__getitem__)
    return None if scores[best] > 0.0 else _nothing_matches(paths[best], scores[best])


def _nothing_matches(relations: Sequence[str], score: float) -> str:
    return (f"no relation of the knowledge graph matches what the question asks for (the best relation path, "
            f"{' -> '.join(relations)}, scores {score:.3f}: none of its relations is named by the question)")


def ranks_in_time(question: str) -> bool:
    """Whether the question asks for the first / last / earliest / latest of something."""
    asked = asked_comparison(question)
    return asked is not None and asked.extreme and asked.words.split()[:1] != [] \
        and asked.words.split()[0] in TIME_SUPERLATIVES


def asks_how_many(question: str) -> bool:
    """Whether the question asks for a count ("how many ...", "the number of ...")."""
    return _HOW_MANY.search(question) is not None


def is_unnamed(answer: dict) -> bool:
    return str(answer.get("answer", "")).strip() in ("", UNNAMED)


def is_number(answer: dict) -> bool:
    return PLAIN_NUMBER.fullmatch(str(answer.get("answer", "")).strip()) is not None


@dataclass
class Checked:
    """The answers after the checks, with the stop reason they imply (empty: unchanged) and warnings."""

    answers: list[dict]
    stop_reason: str = ""
    warnings: list[str] = field(default_factory=list)


def unsupported_policy(built: WhenUnsupported) -> WhenUnsupported:
    """The run's choice (its LangGraph context) over the graph's own."""
    return current_run_settings().when_unsupported or built


def named_by_the_kg(answers: Sequence[dict], kg: KnowledgeGraph) -> list[dict]:
    """``answers`` with each IRI the KG gives no name shown as :data:`UNNAMED` when it has facts of its own (a
    statement node) or when its IRI reads as no name (a thing the KG points at and does not name:
    :attr:`~kg_agent.kg.nameless.Nameless.unnamed`), else as its IRI (a page, a document) unless it is a class
    (something is an instance of it). An answer of the second kind carries ``"nameless": True``, so an abstention
    can say why."""
    nameless = Nameless.among(kg, (a.get("entity_id") for a in answers))
    return [{**a, "answer": UNNAMED} if a.get("entity_id") in nameless.statements
            else {**a, "answer": UNNAMED, "nameless": True} if a.get("entity_id") in nameless.unnamed
            else {**a, "answer": a["entity_id"]} if a.get("entity_id") in nameless.pages else a for a in answers]


#: The class of a vocabulary's header node (OWL 2, section 3: "an ontology ... a header"): it describes the KG's terms.
ONTOLOGY_HEADER = OWL + "Ontology"
ONLY_THE_HEADER = ("only the vocabulary's header (an owl:Ontology node, which describes the KG's terms, no thing of "
                   "its domain) was reached")


def off_the_vocabulary_header(answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """The answers but those that are, or are reached only through, a node the KG types ``owl:Ontology``: a
    vocabulary's header ("QUDT Vocab ... Release 2.1") that ``rdfs:isDefinedBy`` leads every term to says which
    document defines the terms, nothing of the things themselves, and through it every term reaches every other.
    None when no answer is."""
    ends = {a["entity_id"] for a in answers if a.get("entity_id")}
    passed = {step["tail"]["id"] for a in answers for path in a.get("paths") or () for step in (path.get("steps") or ())[:-1]}
    keys = [key for key in ends | passed if not key.startswith(('"', "_:"))]
    try:
        headers = {key for key, classes in kg.classes_of(keys).items() if ONTOLOGY_HEADER in classes} if keys else set()
    except KGError:
        return None
    if not headers:
        return None

    def through_a_header(answer: dict) -> bool:
        paths = [p for p in answer.get("paths") or () if p.get("steps")]
        return answer.get("entity_id") in headers or (bool(paths) and all(
            any(step["tail"]["id"] in headers for step in path["steps"][:-1]) for path in paths))

    kept = [a for a in answers if not through_a_header(a)]
    return (kept, ONLY_THE_HEADER) if len(kept) < len(answers) else None


def walks_to_named(walks: Sequence[dict], kg: KnowledgeGraph | None, question: str = "") -> list[dict]:
    """The walks, but those ending at a statement node (unnamed, or a nameless IRI with facts of its own) that another
    walk steps on from to one of the statement's values: a statement node is a step inside a fact, so the plan or
    chain that stops there answers nothing, and the one that walks one step on through it (``hasMembership ->
    role``) answers instead. The statement node's class is none of its values (a step over a class predicate does
    not count). A walk ending at a statement node no walk steps on from is kept (the answer check then leaves it
    out, and abstains, saying why, when nothing else is left). A count of the statements themselves ("how many
    **launches** were made from [X]": the nodes of the class *Launch*, :func:`counted_statements`) keeps them."""
    unnamed = statement_ends(walks, kg)
    if unnamed and kg is not None and asks_how_many(question) and of_counted_class(question, sorted(unnamed), kg):
        return list(walks)
    if not unnamed:
        return list(walks)
    classes = {r.lstrip("^") for r in kg.class_fan_outs()} if kg is not None else set()
    through = {w["steps"][-2]["tail"]["id"] for w in walks
               if len(w.get("steps") or ()) >= 2 and Walk.end_of(w)["id"] not in unnamed
               and w["steps"][-1].get("relation") not in classes}
    return [w for w in walks if not w.get("steps") or Walk.end_of(w)["id"] not in unnamed & through]


def statement_ends(walks: Sequence[dict], kg: KnowledgeGraph | None) -> set[str]:
    """The ids of the walks' ends that are statement nodes: shown as :data:`UNNAMED`, or (with ``kg``) nameless IRIs
    with facts of their own (:class:`Nameless`)."""
    ends = [Walk.end_of(w) for w in walks if w.get("steps")]
    found = {end["id"] for end in ends if end.get("label") == UNNAMED}
    if kg is not None:
        found |= Nameless.among(kg, (end["id"] for end in ends)).statements
    return found


def final_answers(question: str, answers: Sequence[dict], *, policy: WhenUnsupported = "abstain",
                  kg: KnowledgeGraph | None = None) -> Checked:
    """Apply the module's checks to one method's answers (see the module docstring); without ``kg`` nameless IRIs
    are not looked at."""
    counting = asks_how_many(question) and bool(answers) and not all(is_number(a) for a in answers)
    if asks_how_many(question) and answers and not counting and kg is not None:
        instead = things_of_the_counted_class(question, answers, kg)
        if instead is not None:
            return Checked([counted(instead[0])], warnings=[f"answer: {instead[1]}"])
    if counting:  # "how many pages long is [X]": a measure, not a count of the things reached
        measured = narrowed_or_abstained(list(answers), counted_for_a_measure(question, answers), policy)
        if isinstance(measured, Checked):
            return measured
    if counting and kg is not None:
        answers = counted_one_way(_masked(question, answers, kg), answers, _scorer(), kg)
        answers = [*answers, *every_end_reached(answers, kg, question)]
    if kg is not None and answers:
        narrowed = narrowed_or_abstained(list(answers), off_the_vocabulary_header(answers, kg), policy)
        if isinstance(narrowed, Checked):
            return narrowed
        answers = narrowed
    answers = named_by_the_kg(answers, kg) if kg is not None else list(answers)
    if counting and kg is not None and answers and all(is_unnamed(a) for a in answers):
        own = counted_statements(question, answers, kg)
        if own is not None:
            return Checked([counted(own)], warnings=[f"answer: {STATEMENTS_COUNTED}"])
        answers = through_statements(question, answers, kg) or answers
    named = [a for a in answers if not is_unnamed(a)]
    if answers and not named:
        reason = ONLY_NAMELESS if any(a.get("nameless") for a in answers) else ONLY_UNNAMED
        if policy == "best_effort":
            return Checked([{**a, "grounded": False} for a in answers],
                           warnings=[f"answer: {reason}; kept as asked (best effort), flagged ungrounded"])
        return Checked([], ABSTAINED, [f"answer: abstained: {reason}"])
    answers = started_at_the_kind_named(question, named, kg) if kg is not None else named
    narrowed = narrowed_or_abstained(answers, not_asked_for(question, answers, kg) if kg is not None and answers
                                     else None, policy)
    if isinstance(narrowed, Checked):
        return narrowed
    answers = narrowed
    if kg is not None and answers:
        narrowed = narrowed_or_abstained(answers, unsupported(question, answers, kg), policy)
        if isinstance(narrowed, Checked):
            return narrowed
        answers = narrowed
    if not counting and answers and kg is not None:
        narrowed = narrowed_or_abstained(answers, attribute_of_another_thing(question, answers, kg), policy)
        if isinstance(narrowed, Checked):
            return narrowed
        answers = narrowed
    if kg is not None and len(answers) > 1:  # "who wrote [X]": the persons of a relation holding two roles
        narrowed = narrowed_or_abstained(answers, persons_apart(question, answers, kg), policy)
        if isinstance(narrowed, Checked):
            return narrowed
        answers = narrowed
    if counting and answers:
        narrowed = narrowed_or_abstained(answers, counted_of_another_thing(question, answers, kg)
                                         if kg is not None else None, policy)
        if isinstance(narrowed, Checked):
            return narrowed
        narrowed = narrowed_or_abstained(narrowed, texts_of_an_unnamed_attribute(
            question, narrowed, kg, _scorer(), counted_noun(question)) if kg is not None else None, policy)
        if isinstance(narrowed, Checked):
            return narrowed
        narrowed = narrowed_or_abstained(narrowed, conditioned(question, narrowed, kg), policy)
        if isinstance(narrowed, Checked):
            return narrowed
        return Checked([counted(narrowed)])
    narrowed = narrowed_or_abstained(answers, of_another_kind(question, answers, kg)
                                     if answers and not asks_how_many(question) else None, policy)
    if isinstance(narrowed, Checked):
        return narrowed
    answers = narrowed
    if kg is not None and answers and ranks_in_time(question) and of_counted_class(
            question, [a["entity_id"] for a in answers if a.get("entity_id")], kg) is not None:
        # "the first invited talk at [X]": first among all of [X]'s invited talks, not among those a beam kept
        answers = [*answers, *every_end_reached(answers, kg, question)]
    answers = finest_times_first(question, answers)
    compared = _ranker().compare(question, answers, kg)
    if compared is not None and not compared.kept:  # "which questions were answered in March": the answers' dates
        stepped = compared_past_the_passive_hop(question, answers, kg)
        if stepped is not None:
            return stepped
    if compared is not None:
        narrowed = narrowed_or_abstained(answers, (compared.kept, compared.reason), policy)
        if isinstance(narrowed, Checked):
            return narrowed
        objects = passive_objects(question, narrowed, kg, _scorer())  # "which questions were answered after [date]"
        return Checked(narrowed) if objects is None else Checked(objects, warnings=[f"answer: {PASSIVE_OBJECTS}"])
    unmeasured = _ranker().unmeasured(question, answers, kg)
    if unmeasured is not None:  # "the longest" of things the KG gives no one number to rank by
        narrowed = narrowed_or_abstained(answers, ([], unmeasured), policy)
        return narrowed if isinstance(narrowed, Checked) else Checked(narrowed)
    narrowed = narrowed_or_abstained(answers, uncompared_texts(question, answers), policy)
    return narrowed if isinstance(narrowed, Checked) else Checked(narrowed)


def compared_past_the_passive_hop(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None) -> Checked | None:
    """For answers whose own dates meet no condition of the question: the things the question's passive verb is said
    of, compared over the dates one hop on over the relation the verb names ("which questions were answered in
    March": the answers' dates; :func:`~kg_agent.tools.shared.passive_hop.passive_hop_ends`, then
    :func:`~kg_agent.tools.shared.passive_objects.passive_objects`); None when there is no such hop or none of its
    ends meets the condition either (the comparison over the answers then says why none is kept)."""
    ends = passive_hop_ends(question, answers, kg, _scorer())
    if ends is None:
        return None
    compared = _ranker().compare(question, ends, kg)
    if compared is None or not compared.kept:
        return None
    objects = passive_objects(question, compared.kept, kg, _scorer())
    return None if objects is None else Checked(objects, warnings=[f"answer: {PASSIVE_OBJECTS}"])


def conditioned(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None) -> tuple[list[dict], str] | None:
    """For a count with a condition ("how many [X] craft were launched in 1965", "how many books have more than 1000
    downloads"): the answers the condition keeps (:meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.compare`),
    or none with why; None when the question states no condition or none can be applied (no value to test)."""
    asked = asked_comparison(question)
    if asked is None or asked.extreme or kg is None:
        return None
    compared = _ranker().compare(question, answers, kg)
    if compared is None:
        return None
    return [{k: v for k, v in a.items() if k not in ("compared", "compared_by")} for a in compared.kept], compared.reason


def uncompared_texts(question: str, answers: Sequence[dict]) -> tuple[list[dict], str] | None:
    """For a superlative ("the earliest-born author of ...") answered only by text literals, none a number or a date
    (a publisher's name ``"Project Gutenberg"`` a walk reached): nothing was compared, so none is "the earliest"; no
    answer, with the reason. None for any other question or answers (things are compared by the ranker, or stand)."""
    asked = asked_comparison(question)
    if asked is None or not asked.extreme or not answers:
        return None
    if not all(literal_answer_kind(a) == "text" and a.get("grounded", True) for a in answers):
        return None
    shown = ", ".join(repr(str(a.get("answer")))[:60] for a in answers[:3])
    return [], (f"the question asks for the {asked.words}, and the answers reached ({shown}) are texts with no number "
                f"or date to compare")


def narrowed_or_abstained(answers: list[dict], found: tuple[list[dict], str] | None,
                          policy: WhenUnsupported) -> list[dict] | Checked:
    """The answers a check left (``found``: those kept and why the others went; None: all), or, when it left none,
    the abstention with the reason -- under ``"best_effort"`` every answer, flagged ungrounded."""
    if found is None:
        return answers
    kept, reason = found
    if kept:
        return kept
    if policy == "best_effort":
        return Checked([{**a, "grounded": False} for a in answers],
                       warnings=[f"answer: {reason}; kept as asked (best effort), flagged ungrounded"])
    return Checked([], ABSTAINED, [f"answer: abstained: {reason}"])


def answer_relation_paths(answer: dict) -> list[tuple[str, ...]]:
    """The relation paths of the walks that reach an answer (none for an answer without a walk)."""
    return [tuple(step["relation"] for step in path["steps"]) for path in answer.get("paths") or () if path.get("steps")]


def not_asked_for(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """When some answers are reached by walks whose last relation the question does not ask for
    (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.asked_paths`: no word names it, its values are
    not of the kind asked, "the ISBN of [X]" answered over ``bookshelf``): the answers some asked-for walk reaches
    (the best plan's or chain's whose answers fit), or none with the reason (the KG has no relation for what is
    asked); None when every answer with a walk is reached by an asked-for one. Answers without a walk are kept, and so
    are answers already flagged ungrounded (a model's under grounding ``"off"``: as given)."""
    walked = [answer_relation_paths(a) if a.get("grounded", True) else [] for a in answers]
    paths = [p for ps in walked for p in ps]
    if not paths:
        return None
    found = _scorer().asked_paths(_masked(question, answers, kg), paths, kg=kg)
    kept = [a for a, ps in zip(answers, walked) if not ps or found.asked.intersection(ps)]
    if len(kept) == len(answers):
        return None
    return kept, found.reason or "the walks to some answers end in a relation the question does not ask for"


def unsupported(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """No answer and why, when the question names a thing the KG holds nowhere or asks, by "how <measure>", "how
    many <noun>" or "which <noun>", for what walks no word of it reads do not reach
    (:mod:`~kg_agent.tools.shared.unsupported_asks`); None otherwise."""
    lacking = names_the_kg_lacks(question, answers, kg)
    if lacking is not None:
        return lacking
    walked = [p for a in answers if a.get("grounded", True) for p in answer_relation_paths(a)]
    if not walked:
        return None
    masked = _masked(question, answers, kg)
    scorer = _scorer()

    def class_named(noun: str) -> bool:  # a KG whose classes are not all known is not judged: as if named
        every = kg.classes().every
        return every is None or bool(class_names(kg, scorer.vectors).named(noun, every))

    kind = unsupported_kind(question, masked, answers, scorer.asked_paths(masked, walked, kg=kg), kg, class_named)
    return kind if kind is not None else unnamed_thing(masked, answers, kg, scorer, class_named)


def _masked(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None = None) -> str:
    """The question with every name of the entities the answers' walks start from masked (:func:`~kg_agent.tools.
    shared.scoring.mask_every_name`)."""
    heads = {path["steps"][0]["head"]["id"]: path["steps"][0]["head"].get("label") or ""
             for a in answers for path in a.get("paths") or () if path.get("steps")}
    return mask_every_name(question, [Entity(key, label) for key, label in heads.items()], kg)


def started_at_the_kind_named(question: str, answers: list[dict], kg: KnowledgeGraph) -> list[dict]:
    """The answers whose walks start at the thing of the kind the question names it by, when its name is shared:
    "the **invited talk** [X]" where a talk and a paper are both called [X], the walks from the talk (a class of it,
    *InvitedTalkEvent*, is named by the words before the mention: :meth:`~kg_agent.tools.shared.answer_classes.
    ClassNames.named`, by the words or their last one), not the paper's year. Unchanged when the answers' walks start
    at one node per name, when the words name the classes of all or none of the nodes of one name, or no answer
    would be left."""
    from kg_agent.tools.shared.answer_classes import of_the_kind_named as named_kind
    from kg_agent.tools.shared.similarity import shared_text_vectors

    starts = {path["steps"][0]["head"]["id"]: str(path["steps"][0]["head"].get("label") or "")
              for a in answers for path in a.get("paths") or () if path.get("steps")}
    shared = {key for key, label in starts.items() if label and sum(other == label for other in starts.values()) > 1}
    if not shared:
        return answers
    of_kind = named_kind(kg, shared_text_vectors(None), kind_before_mention(_masked(question, answers, kg)), sorted(shared))
    other = {key for key in shared if key not in of_kind and starts[key] in {starts[k] for k in of_kind}}
    if not of_kind or not other:
        return answers
    kept = [a for a in answers if not (paths := [p for p in a.get("paths") or () if p.get("steps")])
            or any(p["steps"][0]["head"]["id"] not in other for p in paths)]
    return kept or answers


def counted_of_another_thing(question: str, answers: Sequence[dict],
                             kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """For a count ("how many pages does [X] have"): the answers some walk reaches that does not first step from
    [X] to another named thing over a relation no phrase of the question names
    (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops`): ``[X] -creator-> [Y] -webpage->``
    reaches [Y]'s pages, and counting them says how many [Y] has, not [X]. A first step into an unnamed statement
    node or a blank node (a value of [X] written as a node) stays inside [X]'s own facts and is kept; so are answers
    without a walk. None when no answer is reached so; else the answers kept and why the others went (none kept: the
    method abstains, saying so)."""
    walked = [answer_relation_paths(a) if a.get("grounded", True) else [] for a in answers]
    firsts = {path["steps"][0]["relation"] for a in answers for path in a.get("paths") or ()
              if len(path.get("steps") or ()) >= 2 and _names_a_thing(path["steps"][0]["tail"])}
    if not firsts:
        return None
    named = _scorer().named_hops(_masked(question, answers, kg), sorted(firsts), kg=kg)
    unnamed = firsts - named
    if not unnamed:
        return None

    def elsewhere(answer: dict) -> bool:
        paths = [p for p in answer.get("paths") or () if p.get("steps")]
        return bool(paths) and answer.get("grounded", True) and all(
            len(p["steps"]) >= 2 and p["steps"][0]["relation"] in unnamed and _names_a_thing(p["steps"][0]["tail"])
            for p in paths)

    kept = [a for a, ps in zip(answers, walked) if not elsewhere(a)]
    if len(kept) == len(answers):
        return None
    via = ", ".join(repr(r) for r in sorted(unnamed))
    return kept, (f"the question counts what its entity has; the walks reach things of another node, through {via}, "
                  f"which no word of the question names")


def attribute_of_another_thing(question: str, answers: Sequence[dict],
                               kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """For a value asked of the question's entity ("[X] 's email address"): the literals a walk reads off another
    named thing that a statement of [X] joins it to (a role node, :mod:`~kg_agent.kg.role_nodes`, an unnamed or
    nameless statement node: :class:`Nameless`), reached over relations no phrase of the question names
    (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops`), are no answer: a walk ``[X]
    -^heldBy-> [role] -isRoleAt-> [event] -address->`` reads the address of the event one of [X]'s roles belongs
    to, the event's, not [X]'s. Values of [X] itself, of its statement nodes (a membership's start date, a place's
    ``#this`` location), of a thing [X] reaches directly, and of one the question names the way to ("the address of
    the season in which [X] held ...") stand. Answers that are no literal, or without a walk, are not judged here. None
    when no answer is reached so only; else the answers kept and why the others went (none kept: the method
    abstains, saying so)."""
    literal = [a for a in answers if str(a.get("entity_id") or "").startswith('"') and a.get("grounded", True)
               and any(len(p.get("steps") or ()) >= 3 for p in a.get("paths") or ())]
    if not literal:
        return None
    walked = [p["steps"] for a in literal for p in a.get("paths") or () if len(p.get("steps") or ()) >= 3]
    inner = {step["tail"]["id"]: step["tail"] for steps in walked for step in steps[:-1]}
    statements = {key for key, node in inner.items() if not _names_a_thing(node)}
    statements |= Nameless.among(kg, [key for key in inner if key not in statements]).statements
    holders = {steps[-1]["head"]["id"] for steps in walked} - statements
    if not holders:
        return None
    # where one walk passes a statement node, a walk from the same start over the same relations passes one too
    # (a role node of a class too small to be measured, "Participant", beside the "PC Member" ones)
    through = {(steps[0]["head"]["id"], tuple(step["relation"] for step in steps[:i + 1]))
               for steps in walked for i, step in enumerate(steps[:-2]) if step["tail"]["id"] in statements}
    before = {step["relation"] for steps in walked if steps[-1]["head"]["id"] in holders for step in steps[:-1]}
    named = _scorer().named_hops(_masked(question, answers, kg), sorted(before), kg=kg)

    def elsewhere(path: dict) -> bool:
        steps = path.get("steps") or ()
        return (len(steps) >= 3 and steps[-1]["head"]["id"] in holders - {steps[0]["head"]["id"]}
                and any((steps[0]["head"]["id"], tuple(step["relation"] for step in steps[:i + 1])) in through
                        for i in range(len(steps) - 2))
                and not named.intersection(step["relation"] for step in steps[:-1]))

    off = [a for a in literal if all(elsewhere(p) for p in a.get("paths") or () if p.get("steps"))]
    if not off:
        return None
    kept = [a for a in answers if not any(a is o for o in off)]
    via = sorted({p["steps"][-1]["relation"] for a in off for p in a.get("paths") or () if p.get("steps")})
    things = sorted({str(p["steps"][-1]["head"].get("label") or p["steps"][-1]["head"]["id"])
                     for a in off for p in a.get("paths") or () if p.get("steps")})
    return kept, (f"the walks read {', '.join(repr(r) for r in via)} off another thing "
                  f"({', '.join(repr(t)[:60] for t in things[:3])}), reached over relations no word of the question "
                  f"names, not off the question's entity")


def _names_a_thing(node: dict) -> bool:
    """Whether a walk's node is a thing of its own: no blank node, no unnamed statement node."""
    return not str(node.get("id", "")).startswith("_:") and node.get("label") != UNNAMED


@lru_cache(maxsize=1)
def _scorer() -> RelationPathScorer:
    return RelationPathScorer()


def of_another_kind(question: str, answers: Sequence[dict],
                    kg: KnowledgeGraph | None = None) -> tuple[list[dict], str] | None:
    """When the question asks for a time ("when", "what year") or a quantity ("how much", "how heavy") and some
    answers are literals of another kind (a download count, ``xsd:integer``, for "when was [X] released"): the
    answers of the asked kind, or none, with the reason; None when no answer is of a wrong kind. An answer that is no
    literal is not judged here; with ``kg``, a number reached over a relation whose values are years (a year of birth
    typed ``xsd:integer``, :class:`~kg_agent.tools.shared.answer_types.ObjectKinds`) is a time."""
    parts = QuestionParts.of(question).asked
    asked = parts.kind
    if asked not in (TIME, NUMBER):
        return _value_for_a_thing(parts, answers, kg, question)
    kinds = [literal_answer_kind(a) if a.get("grounded", True) else "" for a in answers]  # ungrounded: as given
    if kg is not None and asked == TIME and NUMBER in kinds:  # numbers of a relation whose values are years
        last = {a.get("answer"): paths[0][-1] for a in answers if (paths := answer_relation_paths(a))}
        profiled = relation_object_kinds(kg).kinds_of(set(last.values()))
        kinds = [TIME if kind == NUMBER and a.get("answer") in last and profiled[last[a.get("answer")]].time >= 0.5
                 else kind for a, kind in zip(answers, kinds)]
    wrong = [a for a, kind in zip(answers, kinds) if kind and kind != asked]
    if not wrong:
        return None
    kept = [a for a, kind in zip(answers, kinds) if not kind or kind == asked]
    what = "a time" if asked == TIME else "a quantity"
    shown = ", ".join(repr(str(a.get("answer"))) for a in wrong[:3])
    return kept, (f"the question asks for {what}, and {len(wrong)} answer(s) reached ({shown}) are "
                  f"{'no time' if asked == TIME else 'no number'} (their datatype or form says so)")


#: How finely a time literal says when (its datatype; an untyped one by its form): a moment, a day, a month, a year.
TIME_PRECISION = {XSD + "dateTime": 4, XSD + "dateTimeStamp": 4, XSD + "date": 3, XSD + "gYearMonth": 2, XSD + "gYear": 1}
_UNTYPED_PRECISION = ((re.compile(r"-?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*"), 4), (re.compile(r"-?\d{4}-\d{2}-\d{2}"), 3),
                      (re.compile(r"-?\d{4}-\d{2}"), 2), (re.compile(r"-?\d{3,4}"), 1))


def time_precision(answer: dict) -> int:
    """How finely a literal answer says when (:data:`TIME_PRECISION`: its datatype, else its form); 0 for no time."""
    key = str(answer.get("entity_id") or "")
    if not key.startswith('"'):
        return 0
    datatype = key.rsplit("^^<", 1)[1].rstrip(">") if "^^<" in key else ""
    if datatype:
        return TIME_PRECISION.get(datatype, 0)
    text = str(answer.get("answer", "")).strip()
    return next((precision for form, precision in _UNTYPED_PRECISION if form.fullmatch(text)), 0)


def finest_times_first(question: str, answers: list[dict]) -> list[dict]:
    """For "when ..." (a time asked by its wh-word, no noun such as "which year"): of the times one node has (the
    answers whose walks' last step leaves the same node: a talk's ``year`` "2004" and its start
    ``"2004-11-10T09:00:00"^^xsd:dateTime``), the finest first (:func:`time_precision`), each in the place one of them
    held; answers of different nodes keep their order."""
    asked = QuestionParts.of(question).asked
    if asked.kind != TIME or asked.noun or len(answers) < 2:
        return answers
    node = [next((p["steps"][-1]["head"]["id"] for p in a.get("paths") or () if p.get("steps")), None) for a in answers]
    order = list(answers)
    for head in {h for h in node if h is not None}:
        at = [i for i, h in enumerate(node) if h == head]
        finest = sorted((answers[i] for i in at), key=time_precision, reverse=True)
        for i, answer in zip(at, finest):
            order[i] = answer
    return order


def _named_in_full(relation: str, question: str) -> bool:
    """Whether every content word of the relation's own name shares a root with a word of the question
    (``place_of_death`` in "who is the place of death of [X]")."""
    words = content_words(own_name_words(relation))
    asked = text_words(question)
    return bool(words) and all(any(same_word(w, q) for q in asked) for w in words)


def _value_for_a_thing(asked: AskedType, answers: Sequence[dict], kg: KnowledgeGraph | None = None,
                       question: str = "") -> tuple[list[dict], str] | None:
    """For a question asking for a person or a place ("who", "where"): the answers that are no number or time (the
    "4" of a talk's ``orderInSession`` for "who chaired the session"); for one asking for a person, a place or things
    its type noun names ("which laboratory"): the answers that are no prose either
    (:func:`~kg_agent.tools.shared.answer_types.is_prose`: a definition reached for "which laboratory first described
    [X]" is a text, no laboratory) unless the walk's last relation is named by the type noun ("which definition");
    with ``kg``, for "where" the things a walk's last relation reaches when they are persons, not places, and for "who"
    places or times, not persons (as the relation's sampled values say:
    :class:`~kg_agent.tools.shared.answer_types.ObjectKinds`; the people holding a conference's roles for "where was
    [X] held"), unless the question names that relation in full ("who is the place of death of [X]" asks for the
    place its words name, whatever its wh-word); for "where" also the things over a relation most of whose answers
    reached are of a class the KG names a person (:func:`_persons_by_class`: a role's holders, sampled as
    organisations); for "who" a plain text literal (no time, number or prose) over a relation no phrase of the
    question names (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops`: the room of "who gave
    the talk [X]"; a ``creator`` string for "who wrote [X]" stands). None when no answer is of such a kind."""
    if not (asked.noun or asked.kind in (PERSON, PLACE)):
        return None
    last = {a.get("entity_id"): paths[0][-1] for a in answers if (paths := answer_relation_paths(a))}
    profiled = (relation_object_kinds(kg).kinds_of(set(last.values()))
                if kg is not None and last and asked.kind in (PERSON, PLACE) else {})
    of_persons = _persons_by_class(kg, last) if kg is not None and asked.kind == PLACE else frozenset()
    texts = {last[a.get("entity_id")] for a in answers if asked.kind == PERSON and a.get("grounded", True)
             and a.get("entity_id") in last and literal_answer_kind(a) == "text"}
    # a text literal answers "who" only over a relation some phrase names ("who wrote [X]": a ``creator`` string)
    unnamed_texts = texts - _scorer().named_hops(_masked(question, answers, kg), sorted(texts), kg=kg) if texts else set()
    # "which physical constants": a class of the KG named by the noun phrase is asked for, no number, time or truth
    things_asked = kg is not None and any(literal_answer_kind(a) in (TIME, NUMBER) or _is_truth_value(a)
                                          for a in answers) and bool(_class_the_phrase_names(asked, kg))

    def wrong(answer: dict) -> str:
        if not answer.get("grounded", True):
            return ""
        kind = literal_answer_kind(answer)
        if kind in (TIME, NUMBER) and asked.kind in (PERSON, PLACE):
            return "a number" if kind == NUMBER else "a time"
        if things_asked and (kind in (TIME, NUMBER) or _is_truth_value(answer)) \
                and not any(asked.named_by(path[-1]) for path in answer_relation_paths(answer)):
            return "a truth value" if _is_truth_value(answer) else "a number" if kind == NUMBER else "a time"
        relation = last.get(answer.get("entity_id")) or ""
        reached = profiled.get(relation)
        if not kind and reached is not None and not _named_in_full(relation, question):
            if asked.kind == PLACE and (reached.person >= 0.5 or relation in of_persons) and reached.place < 0.5:
                return "persons"
            if asked.kind == PERSON and (reached.place >= 0.5 or reached.time >= 0.5) and reached.person < 0.5:
                return "places" if reached.place >= 0.5 else "times"
        if kind == "text" and relation in unnamed_texts:
            return "texts no word of the question names as a person's"
        if kind == "text" and is_prose(str(answer.get("answer", ""))) \
                and not any(asked.named_by(path[-1]) for path in answer_relation_paths(answer)):
            return "prose"
        return ""

    kinds = [wrong(a) for a in answers]
    if not any(kinds):
        return None
    what = f"a {asked.noun}" if asked.noun else "a person" if asked.kind == PERSON else "a place"
    found = sorted(set(k for k in kinds if k))
    shown = ", ".join([repr(str(a.get("answer")))[:60] for a, k in zip(answers, kinds) if k][:5])
    shown += ", ..." if sum(map(bool, kinds)) > 5 else ""
    return ([a for a, k in zip(answers, kinds) if not k],
            f"the question asks for {what}, and {sum(map(bool, kinds))} answer(s) reached ({shown}) are "
            f"{' or '.join(found)}, not {what}")


def _is_truth_value(answer: dict) -> bool:
    """Whether the answer is a literal typed ``xsd:boolean``."""
    return str(answer.get("entity_id") or "").endswith(f"^^<{XSD}boolean>")


def _class_the_phrase_names(asked: AskedType, kg: KnowledgeGraph) -> frozenset[str]:
    """The classes of the KG that the question's noun phrase names, read from its longest opening that names one
    (:meth:`~kg_agent.tools.shared.answer_classes.ClassNames.named_by_opening`: "which physical constants have ...":
    "physical constants" names *physical constant*); none when no opening does or the KG's classes cannot be listed."""
    from kg_agent.tools.shared.similarity import shared_text_vectors

    names = class_names(kg, shared_text_vectors(None))
    every = kg.classes().every
    if not every:
        return frozenset()
    return names.named_by_opening(asked.noun_phrase or (asked.noun,), every)[1]


def _persons_by_class(kg: KnowledgeGraph, last: dict) -> frozenset[str]:
    """Of the last relations of the answers' walks (``last``: answer id -> relation), those over which most answers
    reached are of a class the KG names a person (a class whose name ends in a person noun: ``foaf:Person``,
    "human"; :func:`~kg_agent.tools.shared.answer_types.names_persons`): the answers themselves as the relation's
    sample, where its sampled objects were of other kinds (a role's holders, organisations and persons)."""
    things = [key for key in last if key and not str(key).startswith('"')]
    if not things:
        return frozenset()
    classes = kg.classes_of(things)
    names = class_names(kg, _scorer().vectors)
    persons = {c for c in {c for of in classes.values() for c in of}
               if any(name.split() and names_persons(name.split()[-1]) for name in names.names(c))}
    by_relation: dict[str, list[bool]] = {}
    for key in things:
        by_relation.setdefault(last[key], []).append(bool(persons.intersection(classes.get(key, ()))))
    return frozenset(r for r, found in by_relation.items() if 2 * sum(found) >= len(found))


#: Most nodes one counted step reads (a hub's millions are not counted one by one).
MAX_COUNTED = 100_000


def every_end_reached(answers: Sequence[dict], kg: KnowledgeGraph, question: str = "") -> list[dict]:
    """For a count: every node the answers' last steps reach from the node they leave over the same relation, beyond
    the answers themselves. A beam keeps W of them (ToG), an answer list its cap (RoG's ``max_answers``); the count
    is of all. A blank node the step leaves stands for every blank node of its name (a value written once per use: the
    shelf "Horror" under each book on it), as linking reads it. Each is grounded by its answer's path, its last step
    ending there. When every answer is of a class the question's type noun names (the constraints kept those: "how
    many **invited talks** were given at [X]", of the sub-events), only the nodes of such a class count
    (:func:`of_counted_class`)."""
    have = {a.get("entity_id") for a in answers}
    ids = [a.get("entity_id") for a in answers if a.get("entity_id")]
    of_class = of_counted_class(question, ids, kg) or of_counted_kind(question, ids, kg)
    steps: dict[tuple[str, str], dict] = {}
    for a in answers:
        for path in (a.get("paths") or [])[:1]:
            if path.get("steps") and a.get("grounded"):
                last = path["steps"][-1]
                steps.setdefault((last["head"]["id"], last["relation"]), path)
    extra: list[dict] = []
    for (head, relation), path in steps.items():
        heads = dict.fromkeys([head, *value_nodes(kg, path["steps"][-1]["head"].get("label") or "")]
                              if head.startswith("_:") else [head])
        if len(path["steps"]) >= 2 and (path["steps"][-1]["head"].get("label") == UNNAMED
                                        or head in Nameless.among(kg, [head]).statements):
            # a step out of a statement node ("[role] -^role-> membership -^hasMembership-> person"): every statement
            # the step before reaches from its node counts, each through its own step on
            before = path["steps"][-2]
            heads.update(dict.fromkeys(kg.neighbors(before["head"]["id"], before["relation"])[:MAX_COUNTED]))
        ends = [n for n in dict.fromkeys(n for h in heads for n in kg.neighbors(h, relation))][:MAX_COUNTED]
        ends = [n for n in ends if n not in have]
        if of_class is not None:
            ends = of_class(ends)
        labels = kg.labels_by_id(ends)
        for end in ends:
            have.add(end)
            tail = {"id": end, "label": labels[end]}
            steps_to = [*path["steps"][:-1], {**path["steps"][-1], "tail": tail}]
            extra.append({"answer": labels[end], "entity_id": end, "score": 0.0, "grounded": True,
                          "paths": [{**path, "steps": steps_to, "text": path.get("text", "").rsplit(" -> ", 1)[0]
                                     + f" -> {labels[end]}"}]})
    return extra


def of_counted_class(question: str, ids: Sequence[str], kg: KnowledgeGraph):
    """When every one of ``ids`` (a count's answers) is of a class the question's type noun with its modifiers names
    (or, naming none, the longest opening of its noun phrase that names one), a filter keeping the nodes of such a
    class; else None."""
    from kg_agent.tools.shared.answer_classes import class_names
    from kg_agent.tools.shared.similarity import shared_text_vectors

    asked = QuestionParts.of(question).asked if question else None
    phrase = asked.phrase if asked is not None else ""
    if not phrase or not ids:
        return None
    classes = kg.classes_of(ids)
    if len(classes) < len(set(ids)):
        return None
    names = class_names(kg, shared_text_vectors(None))
    named = names.named(phrase, {c for found in classes.values() for c in found})
    if not named and asked is not None and len(asked.noun_phrase) > 1:  # "physical constants": the phrase's opening
        named = names.named_by_opening(asked.noun_phrase, {c for found in classes.values() for c in found})[1]
    if not named or not all(named.intersection(found) for found in classes.values()):
        return None

    def keep(nodes: list[str]) -> list[str]:
        found = kg.classes_of(nodes)
        return [n for n in nodes if named.intersection(found.get(n, ()))]

    return keep


def of_counted_kind(question: str, ids: Sequence[str], kg: KnowledgeGraph):
    """When every one of ``ids`` (a count's answers) has the kind value the question's type noun names (a KG naming
    its kinds by a type-like relation's values, "how many **questions** were addressed to [X]": ``work_type
    QUEST_WRITTEN``, :mod:`~kg_agent.tools.shared.kind_values`), a filter keeping the nodes of that kind; else None.
    The count is then of things of the kind, not of everything else the relation reaches (the answers to them)."""
    asked = QuestionParts.of(question).asked if question else None
    noun = asked.noun if asked is not None else ""
    if not noun or not ids:
        return None
    try:
        of_kind = things_of_kind(ids, noun, kg)
    except KGError:
        return None
    if not of_kind or not all(i in of_kind for i in ids):
        return None

    def keep(nodes: list[str]) -> list[str]:  # read in slices: a kind counted past one read's cap is counted whole
        found: set[str] = set()
        for start in range(0, len(nodes), MAX_ENDS_READ):
            found.update(things_of_kind(nodes[start:start + MAX_ENDS_READ], noun, kg))
        return [n for n in nodes if n in found]

    return keep


_HOW_MANY_NOUN = re.compile(r"\bhow\s+many\s+((?:[A-Za-z][\w'-]*\s+){0,3}?[A-Za-z][\w'-]*?)\s+(?:are|is|were|was|do|does|"
                            r"did|has|have|had|can|could|will|would|exist)\b", re.IGNORECASE)


def counted_noun(question: str) -> str:
    """The head noun of "how many <noun phrase> <verb>" ("how many downloadable **files** are listed"), or ""."""
    match = _HOW_MANY_NOUN.search(question)
    return match.group(1).split()[-1].lower() if match else ""


def things_of_the_counted_class(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """For "how many <noun>" answered by numbers the KG states of a thing ("[Moby Dick] -downloads-> 858"): when a
    relation of that thing reaches things of a class the noun names ("files": Moby Dick's ``hasFormat`` reaches
    ``pgterms:file`` s), those things, each with its walk, and why; the number is another quantity. None when the noun
    names no class of what the thing reaches ("how many **times** has [X] been downloaded": the number stands)."""
    from kg_agent.tools.shared.answer_classes import class_names
    from kg_agent.tools.shared.similarity import shared_text_vectors

    noun = counted_noun(question)
    heads = {}
    for a in answers:
        for path in (a.get("paths") or [])[:1]:
            if path.get("steps"):
                head = path["steps"][-1]["head"]
                if not str(head.get("id", "")).startswith(('"', "_:")):
                    heads.setdefault(head["id"], head)
    if not noun or len(heads) != 1:
        return None
    [(head_id, head)] = heads.items()
    reached = {r: [t for t in targets if not t.startswith('"')][:MAX_COUNTED] for r, targets in kg.edges(head_id).items()}
    things = sorted({t for found in reached.values() for t in found})
    if not things:
        return None
    classes = kg.classes_of(things)
    named = class_names(kg, shared_text_vectors(None)).named(noun, {c for found in classes.values() for c in found})
    if not named:
        return None
    of_class = {r: [t for t in found if named.intersection(classes.get(t, ()))] for r, found in reached.items()}
    relation = max(sorted(of_class), key=lambda r: (len(of_class[r]), not r.startswith("^")))  # a tie: the forward one
    if not of_class[relation]:
        return None
    labels = kg.labels_by_id(of_class[relation])
    found = []
    for thing in of_class[relation]:
        label = labels.get(thing) or thing
        step = {"head": head, "relation": relation, "tail": {"id": thing, "label": label}}
        found.append({"answer": label, "entity_id": thing, "score": 0.0, "grounded": True,
                      "paths": [{"steps": [step], "text": f"{head.get('label')} -> {relation} -> {label}"}]})
    return found, (f"'{noun}' names the class of what {head.get('label')}'s {relation} reaches: those are counted, "
                   f"not the number the KG states")


STATEMENTS_COUNTED = ("the question's noun names the class of the unnamed statement nodes reached: they are counted "
                      "(never shown as answers)")


def counted_statements(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> list[dict] | None:
    """For a count that reached only statement nodes of the class the question's noun names ("how many **launches**
    were made from [X]": the nodes of the class *Launch*, unnamed records joining a spacecraft, a date and a site):
    those nodes, which are what is counted (a count of statement nodes is a number, no statement node is shown);
    None when some answer is no such node, or the noun names another class (then :func:`through_statements`)."""
    ids = [a.get("entity_id") or "" for a in answers]
    if not ids or not all(ids) or any(key.startswith('"') for key in ids):
        return None
    of_class = of_counted_class(question, ids, kg)
    return list(answers) if of_class is not None and len(of_class(ids)) == len(ids) else None


def through_statements(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> list[dict]:
    """For a count that reached only statement nodes ("how many people held the role of [X]": ``^role`` reaches the
    memberships): the things of the class the question's type noun names ("people": a class named Person) that the
    statements are about, one relation on from each (the relation reaching most of them; the walk's own previous
    node left out), each with its walk stepped on. ``[]`` when the question names no type, or no statement reaches
    a thing of a class it names."""
    from kg_agent.tools.shared.answer_classes import IRREGULAR_PLURALS, class_names
    from kg_agent.tools.shared.similarity import shared_text_vectors

    noun = QuestionParts.of(question).asked.phrase.lower()
    if not noun:
        return []
    noun = IRREGULAR_PLURALS.get(noun, noun)  # "people" counts persons
    came_from: dict[str, tuple[dict, dict]] = {}  # statement -> (its answer, its walk)
    for a in answers:
        for path in (a.get("paths") or [])[:1]:
            if a.get("entity_id") and path.get("steps"):
                came_from.setdefault(a["entity_id"], (a, path))
    reached: dict[str, dict[str, str]] = {}  # relation -> {thing: the statement reaching it}
    for statement, (_, path) in list(came_from.items())[:MAX_COUNTED]:
        previous = path["steps"][-1]["head"]["id"]
        for relation, targets in kg.edges(statement).items():
            for target in targets:
                if target != previous and not target.startswith(('"', "_:")):
                    reached.setdefault(relation, {}).setdefault(target, statement)
    if not reached:
        return []
    things = sorted({t for found in reached.values() for t in found})
    classes = kg.classes_of(things)
    named = class_names(kg, shared_text_vectors(None)).named(noun, {c for found in classes.values() for c in found})
    if not named:
        return []
    of_class = {r: {t: s for t, s in found.items() if named.intersection(classes.get(t, ()))} for r, found in reached.items()}
    relation = max(sorted(of_class), key=lambda r: len(of_class[r]))
    if not of_class[relation]:
        return []
    labels = kg.labels_by_id(list(of_class[relation]))
    stepped = []
    for thing, statement in of_class[relation].items():
        answer, path = came_from[statement]
        head = path["steps"][-1]["tail"]
        tail = {"id": thing, "label": labels.get(thing) or thing}
        steps = [*path["steps"], {"head": head, "relation": relation, "tail": tail}]
        stepped.append({**answer, "answer": tail["label"], "entity_id": thing,
                        "paths": [{**path, "steps": steps, "text": f"{path.get('text', '')} -> {relation} -> {tail['label']}"}]})
    return stepped


@lru_cache(maxsize=1)
def _ranker() -> AnswerRanker:
    return AnswerRanker()


def counted(answers: Sequence[dict]) -> dict:
    """One answer: how many distinct things ``answers`` are, with them as its evidence (``counted``). Nodes without
    an IRI of their own (blank nodes: a structured value written once per use, a shelf named "Horror" under each
    book) count by their name. When some answers are things (nodes), the literals beside them are not counted: a
    string the KG writes of the things (a paper's authors' names in one string) is no further thing."""
    things = [a for a in answers if not str(a.get("entity_id") or '"').startswith('"')]
    distinct: dict[str, dict] = {}
    for a in things or answers:
        key = a.get("entity_id") or ""
        # a blank node counts by its name; an unnamed one (a statement node counted) by itself
        distinct.setdefault(str(a.get("answer")) if not key or (key.startswith("_:") and not is_unnamed(a)) else key, a)
    paths = [p for a in distinct.values() for p in (a.get("paths") or [])[:1]]
    return {
        "answer": str(len(distinct)),
        "entity_id": None,
        "score": max((float(a.get("score") or 0.0) for a in distinct.values()), default=0.0),
        "grounded": all(a.get("grounded") for a in distinct.values()),
        "paths": paths,
        "counted": [a.get("answer") for a in distinct.values()],
    }
