"""Think-on-Graph's *answer* step, shared by ToG and ToG-I.

When verification said Yes, the answer comes from the explored triples: the verifier's braced answer is
reused (no extra call) and checked against the chains; each answer carries the chains that end in it
(``grounded: True``), or ``grounded: False`` when no chain ends in it (a chain's start, the topic entity,
or an entity it passes does not count), and then the grounding policy decides (default ``"prefer"``: the
answers of the same method run without a model replace it; :mod:`kg_agent.tools.shared.grounding`). When exploration ended without a
Yes (maximum depth, no relation or candidate left, call budget spent, no topic entity), ToG answers from
the triples *and the model's own knowledge* (its answer prompt; with no triple at all, a plain question
prompt): those answers are flagged ``grounded: False`` with a note, whatever they are.

* :class:`LLMToGAnswerer` — the above; replies parsed from ``{braced}`` answers, else as a list;
  one retry, then the offline answerer;
* :class:`ChainAnswerer` — offline: the last entities of the best-scored chains of the newest depth
  that follow the best chain's relation path (the path the offline verifier judged best, when it names one),
  best first (grounded only when verification said Yes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kg_agent.kg.containers import membership_relations, walks_into_lists, without_list_steps
from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import value_nodes
from kg_agent.kg.paths import retrieve_many_paths
from kg_agent.kg.types import relation_path_text
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_answer_list
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode, WhenUnsupported
from kg_agent.steps import Decided, decide, decided
from kg_agent.tools.rog.answer import AnswerOutcome
from kg_agent.tools.shared.aggregates import MAX_COMPARED, AnswerRanker, asked_comparison
from kg_agent.tools.shared.answer_checks import (
    ABSTAINED,
    asks_how_many,
    chains_matching_nothing,
    of_counted_class,
    statement_ends,
    unsupported_policy,
    walks_to_named,
)
from kg_agent.tools.shared.class_reached import named_by_the_noun_phrase
from kg_agent.tools.shared.class_split import persons_apart
from kg_agent.tools.shared.constraints import (
    asked_type,
    constrain_walks,
    is_value_end,
    mention_groups,
    note_constraints,
    noun_complement,
    of_asked_type,
    of_asked_type_beside,
    of_named_kind,
    unmet_warning,
    walked_out,
)
from kg_agent.tools.shared.decider import Ask, Asked, Decider, LLMDecider, fall_back
from kg_agent.tools.shared.decision_schemas import Answers
from kg_agent.tools.shared.grounding import NO_GROUNDED_ANSWER, Evidence, RunGrounding, asked_for, ground_names, settle
from kg_agent.tools.shared.link import with_chat_reply
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.role_qualifiers import qualified_walks
from kg_agent.tools.shared.statement_names import walks_to_asked_names
from kg_agent.tools.shared.updates import (
    anchored_update,
    answer_record,
    answer_update,
    names_answered,
    names_update,
    which_of_update,
    whole_graph_update,
)
from kg_agent.tools.tog.prune_entities import chain_triplets
from kg_agent.tools.tog.verify import Verifier, answerable_chains, best_chain, round_chains

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

UNVERIFIED_NOTE = "exploration ended without verification ({reason}); answered from the triples and the model's own knowledge"
OFFLINE_UNVERIFIED_NOTE = "exploration ended without verification ({reason}); best-scored chain, not confirmed"


@runtime_checkable
class ToGAnswerer(Decider, Protocol):
    def answer(self, question: str, chains: Sequence[dict], *, verification: dict | None, stop_reason: str) -> Decided[AnswerOutcome]: ...


class OfflineRun(Protocol):
    """The method an answer step belongs to, run without a model (:class:`kg_agent.graphs.kg_state_graph.OfflineMethod`):
    ``name`` (``"tog"``) and its result for a question from its topic entities (``answers``, ``chains``, ...)."""

    name: str

    def run(self, question: str, topic_entities: Sequence[dict]) -> dict: ...


def answer_relation_paths(answers: Sequence[dict]) -> list[tuple[str, ...]]:
    """The relation paths of the chains that support ``answers``, each once."""
    return list(dict.fromkeys(tuple(Walk.from_dict(chain).relations)
                              for answer in answers for chain in answer.get("paths") or [] if chain.get("steps")))


def chain_evidence(chains: Sequence[dict]) -> Evidence:
    """The chains' ends (best-scored chains cited first); their starts are the topic entities."""
    evidence = Evidence(topic_entities=[c["start"] for c in chains])
    for chain in sorted(chains, key=lambda c: -c.get("score", 0.0)):
        if chain.get("steps"):
            evidence.add_end(chain["steps"][-1]["tail"], chain)
    return evidence


def answer_records(names: Sequence[str], chains: Sequence[dict], *, verified: bool, note: str | None = None,
                   read_sentences: bool = True) -> list[dict]:
    """The model's answers checked against the chain ends; none is grounded unless verification said Yes."""
    records = ground_names(names, chain_evidence(chains), read_sentences=read_sentences)
    for record in records:
        record["grounded"] = verified and record["grounded"]
        if not record["grounded"] and note:
            record["note"] = note
    return records


def asked_chains(question: str, chains: Sequence[dict], *, scorer: RelationPathScorer, kg: KnowledgeGraph | None = None,
                 judged_beside: Sequence[Sequence[str]] = ()) -> tuple[list[dict], list[str]]:
    """The chains whose relation path the question asks for (:func:`~kg_agent.tools.shared.grounding.asked_for`,
    among the explored chains' relation paths and ``judged_beside``: another exploration's, whose longer paths make
    an explored prefix that rates lower a junction, not an answer), and a note naming the relation paths left out."""
    explored = [c for c in chains if c.get("steps")]
    own = list(dict.fromkeys(tuple(Walk.from_dict(c).relations) for c in explored))
    paths = list(dict.fromkeys([*own, *(tuple(p) for p in judged_beside)]))
    if len(paths) < 2 or not own:
        return list(chains), []
    starts = {c["start"]["id"]: c["start"] for c in explored}
    yes = dict(zip(paths, asked_for(question, starts.values(), paths, scorer=scorer, kg=kg)))
    left_out = [p for p in own if not yes[p]]
    if not left_out:
        return list(chains), []
    note = (f"answer: the question does not ask for the relation path(s) {', '.join(relation_path_text(p) for p in left_out)}; "
            "the ends of those explored chains do not ground an answer")
    return [c for c in explored if yes[tuple(Walk.from_dict(c).relations)]], [note]


class ChainAnswerer(RunGrounding):
    """Offline: tails of the best chains of the newest depth that share the best chain's relation path (the
    offline verifier's ``relations`` and ``depth`` when the verification names them).

    They are grounded only when verification said Yes; under ``grounding="strict"`` unverified tails are
    withheld (no answers, ``stop_reason="no_grounded_answer"``).
    """

    name = "chains"

    def __init__(self, *, max_answers: int = 20, grounding: Grounding = DEFAULT_GROUNDING,
                 kg: KnowledgeGraph | None = None) -> None:
        self.max_answers = max_answers
        self.grounding = grounding
        self.kg = kg  # what the chains' last relations reach: answers of a kind the question does not ask for come last

    def answer(self, question, chains, *, verification, stop_reason) -> AnswerOutcome:
        verified = bool(verification and verification.get("sufficient"))
        if not verified and self.grounding == "strict" and chains:
            return AnswerOutcome([], "", warnings=[f"answer: exploration ended without verification ({stop_reason or 'not verified'}); "
                                          "unverified chain ends are withheld (grounding='strict')"],
                                 stop_reason=NO_GROUNDED_ANSWER)
        explored = [c for c in chains if c.get("steps")]
        # the question's own topic entity (or one named as it) is no answer unless the question asks for it, nor is
        # an end of a kind it does not ask for: a chain ending there is answered from only when no other is left
        answerable = answerable_chains(question, explored, kg=self.kg)
        explored = answerable or explored
        named = (verification or {}).get("relations")  # the relation path the offline verifier judged best
        if named is not None:
            explored = [c for c in explored if list(Walk.from_dict(c).relations) == named] or explored
        best = best_chain(explored, (verification or {}).get("depth") if verified or named is not None else None)
        if best is None:
            return AnswerOutcome([], "", warnings=[f"answer: nothing explored ({stop_reason or 'no chain'}), so no answer"])
        # the chains to each member of one list (authorList -> rdf:_1, -> rdf:_2 ...) share one relation path
        relations = {s["relation"] for c in chains for s in c.get("steps") or ()}
        inside = membership_relations(self.kg, relations) if self.kg is not None else set()
        relations = without_list_steps(Walk.from_dict(best).relations, inside)
        kept = {id(c) for c in answerable}
        same = sorted((c for c in chains if c.get("depth") == best["depth"]
                       and without_list_steps(Walk.from_dict(c).relations, inside) == relations),
                      key=lambda c: (id(c) not in kept, -c.get("score", 0.0)))
        answers: dict[str, dict] = {}
        note = None if verified else OFFLINE_UNVERIFIED_NOTE.format(reason=stop_reason or "not verified")
        for chain in same:
            tail = chain["steps"][-1]["tail"]
            if tail["id"] in answers or len(answers) >= self.max_answers:
                continue
            answers[tail["id"]] = answer_record(tail["label"], entity_id=tail["id"], score=chain.get("score", 0.0),
                                                grounded=verified, paths=[chain], note=note)
        # a chain back to the question's own entity ("who was [X] married to" through the marriage reaches [X] too)
        # answers it only when nothing else is reached, as in RoG's answer step
        topic = {c["start"]["id"] for c in chains}
        if any(key not in topic for key in answers):
            answers = {key: record for key, record in answers.items() if key not in topic}
        records = list(answers.values())
        return AnswerOutcome(records, "\n".join(a["answer"] for a in records))


ANSWER_PROMPT = """Given a question and the associated retrieved knowledge graph triplets (entity, relation, entity), you are asked to answer the question with these triplets and your knowledge.
Q: Find the person who said "Taste cannot be controlled by law", where did this person die from?
Knowledge Triplets: Taste cannot be controlled by law., media_common.quotation.author, Thomas Jefferson
A: Based on the given knowledge triplets, it's not sufficient to answer the entire question. The triplets only provide information about the person who said "Taste cannot be controlled by law," which is Thomas Jefferson. To answer the second part of the question, it's necessary to have additional knowledge about where Thomas Jefferson's dead. Based on my knowledge, Thomas Jefferson died in Charlottesville, Virginia, USA. So the answer is {{Charlottesville}}.

Q: {question}
Knowledge Triplets: {triplets}
A: """  # noqa: E501 (prompt text kept verbatim)

NO_TRIPLES_PROMPT = """Answer the question with your own knowledge. Put each answer in braces, like {{Paris}}.
Q: {question}
A: """


def parse_tog_answers(reply: str) -> list[str]:
    """Answers in braces (``{Forrest Gump}``; Yes/No skipped), else the reply read as a list."""
    braced = [b.strip() for b in re.findall(r"\{([^{}]+)\}", reply or "")]
    names = [b for b in braced if b and b.casefold() not in {"yes", "no"}]
    if names:
        return list(dict.fromkeys(names))
    return parse_answer_list(reply)


class LLMToGAnswerer(LLMDecider, RunGrounding):
    """ToG's answer step for a chat model (see the module docstring).

    ``grounding`` (``"prefer"``, ``"strict"``, ``"off"``; :mod:`kg_agent.tools.shared.grounding`) decides what
    happens when none of the model's answers is grounded: a verified answer no explored chain the question asks for
    ends in, or any answer after an exploration without a Yes. Under ``"prefer"`` and ``"strict"`` the
    answers are then ``offline_run``'s: the grounded answers of the same method run without a model from the same
    topic entities (its own exploration: a small model's beam may never reach the chain the question asks for where
    the offline beam does), with a warning; the model's reply stays in ``output``. Without ``offline_run``, or when
    it grounds nothing, they come from the model's explored chains: after a Yes the offline chain answers; after no
    Yes (``"prefer"``), their ends when ``offline_verifier`` finds the chains the question asks for enough. Past
    that, ``"prefer"`` keeps the model's answers flagged ``grounded: False`` and ``"strict"`` withholds them. When
    some of the model's answers end such a chain, those come first. ``output`` is the accepted reply, or the
    answers; never a reply that was rejected.

    Only chains that answer the question ground an answer (:func:`asked_chains`, judged by ``chain_scorer`` and
    ``kg``'s answer types): a model that explored past the answer ("who are the actors in [X]" on to the actors'
    films and their co-actors) and names an end of those chains is not grounded, and the offline answers come
    from the chains the question asks for.
    """

    def __init__(self, model: BaseChatModel, *, fallback: ToGAnswerer | None = None, max_triplets: int = 200,
                 structured_output: StructuredMode = "auto", grounding: Grounding = DEFAULT_GROUNDING,
                 chain_scorer: RelationPathScorer | None = None, kg: KnowledgeGraph | None = None,
                 offline_verifier: Verifier | None = None, offline_run: OfflineRun | None = None) -> None:
        super().__init__(model, "answer", fallback=fallback if fallback is not None else ChainAnswerer(grounding=grounding),
                         structured_output=structured_output, what="answer", schema=Answers,
                         reply_format="... So the answer is {answer}.")
        self.kg = kg
        self.offline_verifier = offline_verifier
        self.offline_run = offline_run
        self.chain_scorer = chain_scorer or RelationPathScorer()
        self.max_triplets = max_triplets
        self.grounding = grounding

    def _settle(self, records, reply, warnings, usage, *, verified, offline, offline_name) -> AnswerOutcome:
        if not verified and self.grounding != "strict":
            return AnswerOutcome(records, reply, warnings=warnings, usage=usage)
        settled = settle(records, policy=self.grounding, node="answer", offline=offline, offline_name=offline_name)
        output = "\n".join(a["answer"] for a in settled.answers) if self.grounding == "strict" or not reply else reply
        return AnswerOutcome(settled.answers, output, warnings=warnings + settled.warnings, usage=usage, stop_reason=settled.stop_reason)

    def answer_request(self, question: str, chains: Sequence[dict]) -> Ask:
        """The model call of an answer not taken from the verifier, as a step to yield (ToG's answer prompt over
        the chains' triplets; with none, a plain question prompt). It depends on the chains alone, so
        ``speculate`` asks it while the last verification runs."""
        lines = chain_triplets(chains)[: self.max_triplets]
        if lines:
            prompt = ANSWER_PROMPT.format(question=question, triplets="\n".join(lines))
        else:
            prompt = NO_TRIPLES_PROMPT.format(question=question)
        return self.decision.request(prompt, lambda r: (parse_tog_answers(r) or None, []))

    def answer(self, question, chains, *, verification, stop_reason, asked: Asked | None = None,
               topic_entities: Sequence[dict] = ()):
        """:meth:`answer` as steps (see :mod:`kg_agent.steps`); ``asked``: :meth:`answer_request`
        already asked (``speculate``), used when the answer needs the model; ``topic_entities``: the question's,
        where ``offline_run`` starts."""
        verified = bool(verification and verification.get("sufficient"))
        read_sentences = self.grounding != "off"
        ran = self._offline_answers(question, topic_entities)
        answering, notes = asked_chains(question, chains, scorer=self.chain_scorer, kg=self.kg,
                                        judged_beside=answer_relation_paths(ran))

        def settled(records: list[dict], reply: str, warnings: list[str], usage: dict) -> AnswerOutcome:
            if ran and not any(r["grounded"] for r in records):
                return self._settle(records, reply, warnings, usage, verified=verified, offline=lambda: ran,
                                    offline_name=f"offline {self.offline_run.name}")
            return self._settle(records, reply, warnings, usage, verified=verified, offline_name=self.fallback.name,
                                offline=lambda: decided(self.fallback.answer, question, answering, verification=verification,
                                                        stop_reason=stop_reason).answers)

        if verified and verification.get("answer"):
            names = parse_tog_answers("{" + verification["answer"] + "}")
            records = answer_records(names, answering, verified=True, note="not found in the explored triples",
                                     read_sentences=read_sentences)
            return settled(records, verification.get("reply") or "", notes, {})
        if asked is None:
            asked = yield self.answer_request(question, chains)
        if not asked.decided:  # the model gave no answer (a budget, a failure): offline answers, the offline run's first
            if ran:
                outcome = AnswerOutcome(ran, "\n".join(a["answer"] for a in ran), warnings=notes)
                return fall_back(asked, outcome, node="answer", to=f"the grounded answers of offline {self.offline_run.name}")
            outcome = decided(self.fallback.answer, question, answering, verification=verification, stop_reason=stop_reason)
            return fall_back(asked, outcome, node="answer", to=f"{self.fallback.name} answers")
        warnings = [*asked.warnings, *notes]
        note = None if verified else UNVERIFIED_NOTE.format(reason=stop_reason or "not verified")
        records = answer_records(asked.value, answering, verified=verified, note=note, read_sentences=read_sentences)
        if not verified and self.grounding == "prefer":
            ends = [r for r in records if r.get("entity_id")]  # the answers that end an explored chain
            said = ", ".join(repr(n) for n in asked.value[:5])
            unverified = f"answer: exploration ended without verification ({stop_reason or 'not verified'}); "
            if ran:  # unverified: none of the model's answers is grounded
                warnings.append(unverified + f"the model's answers ({said}) are not grounded; the answers are the "
                                f"grounded answers of offline {self.offline_run.name} "
                                "(grounding='prefer'; the model's reply is kept in 'output')")
                return AnswerOutcome(ran, asked.reply, warnings=warnings, usage=asked.usage)
            checked = None if ends else self._offline_verified(question, answering, stop_reason)
            if checked is not None:
                warnings.append(unverified + f"the model's answers ({said}) end no explored chain the question asks "
                                f"for; the {self.offline_verifier.name} verifier finds the chains the question "
                                "asks for enough, so their ends are the answers (grounding='prefer'; the model's reply "
                                "is kept in 'output')")
                return AnswerOutcome(checked, asked.reply, warnings=warnings, usage=asked.usage)
            if ends and len(ends) < len(records):
                records = ends + [r for r in records if not r.get("entity_id")]
                warnings.append("answer: the model's answers that end an explored chain the question asks for come "
                                "before its other answers (grounding='prefer')")
        if not verified:
            warnings.append("answer: " + note)
        return settled(records, asked.reply, warnings, asked.usage)

    def _offline_answers(self, question: str, topic_entities: Sequence[dict]) -> list[dict]:
        """The grounded answers of ``offline_run`` (none without it, or under grounding ``"off"``)."""
        if self.offline_run is None or self.grounding == "off":
            return []
        return [a for a in self.offline_run.run(question, topic_entities).get("answers") or [] if a.get("grounded")]

    def _offline_verified(self, question: str, chains: Sequence[dict], stop_reason: str) -> list[dict] | None:
        """Under ``"prefer"``, after an exploration the model never verified and answers that end no explored chain:
        when the offline verifier finds the chains the question asks for enough, the offline chain answers
        (grounded, verified by it); else ``None``."""
        if self.offline_verifier is None or not chains:
            return None
        depth = max(int(c.get("depth") or 0) for c in chains)
        check = decided(self.offline_verifier.verify, question, chains, depth=depth)
        if not check.sufficient:
            return None
        verification = {"sufficient": True, "depth": depth, "answer": check.answer, "source": check.source}
        answers = decided(self.fallback.answer, question, chains, verification=verification, stop_reason=stop_reason).answers
        return [a for a in answers if a.get("grounded")] or None


def answer_steps(state: dict, *, answerer: ToGAnswerer, asked: Asked | None = None, kg: KnowledgeGraph | None = None,
                 when_unsupported: WhenUnsupported = "abstain", chain_scorer: RelationPathScorer | None = None):
    """Graph node (as steps): answer from the explored chains (this round's, in ToG-I) and the verification.

    ``asked``: the answerer's model call, already asked (``speculate``; see :meth:`LLMToGAnswerer.answer_request`).
    With ``kg``, the answers are checked against the type the question asks for (:func:`answers_of_asked_type`)."""
    stop = state.get("stop_reason") or ""
    ahead = {} if asked is None else {"asked": asked}
    question = state.get("question", "")
    topics = state.get("topic_entities") or []
    if isinstance(answerer, LLMToGAnswerer):
        ahead["topic_entities"] = topics
    whole = whole_graph_update(stop, question, kg)
    if whole is not None:
        return whole
    anchored = anchored_update(question, topics, kg, when_unsupported=when_unsupported)
    if anchored is not None:
        return anchored
    compared = which_of_update(question, topics, kg)
    if compared is not None:
        return compared
    names = names_answered(question, topics, kg)
    if names is not None:
        told = None
        if names.for_a_model and isinstance(answerer, LLMToGAnswerer) and asked is None:  # the names are its evidence
            chains = [{**path, "score": 1.0, "depth": 1} for path in names.evidence]
            told = yield decide(answerer.answer, question, chains, verification={"sufficient": True, "depth": 1},
                                stop_reason="", topic_entities=topics)
        update = names_update(names, when_unsupported=when_unsupported, outcome=told)
        if update is not None:
            return update
    chains = walks_into_lists(round_chains(state), kg)  # a chain to an author list reaches its authors
    unmatched = (chains_matching_nothing(question, topics, chains, chain_scorer, kg)
                 if chain_scorer is not None else None)
    if unmatched is not None and unsupported_policy(when_unsupported) == "abstain":
        return answer_update(AnswerOutcome([], "", warnings=[f"answer: abstained: {unmatched}"], stop_reason=ABSTAINED))
    verification = answered_where_the_class_is_reached(question, chains, state.get("verification"), kg)
    walks = chains_answered(question, walks_to_asked_names(question, qualified_walks(question, chains, kg), kg),
                            verification, kg)
    outcome = yield decide(answerer.answer, question, walks,
                           verification=verification, stop_reason=stop, **ahead)
    if verification is not None and verification is not state.get("verification"):
        outcome.warnings = [*outcome.warnings, (
            f"answer: the question's noun names the class of the ends of {' -> '.join(verification['relations'])}; answered "
            f"there, not past them ({' -> '.join((state.get('verification') or {}).get('relations') or ())})")]
    outcome = answers_of_every_mention(topics, chains, outcome,
                                       verified=bool((verification or {}).get("sufficient")), kg=kg,
                                       abstain=unsupported_policy(when_unsupported) == "abstain", question=question)
    if kg is not None:
        outcome = compared_over_every_end(question, chains, verification, outcome, kg, chain_scorer)
        outcome = answers_of_asked_type(question, topics, outcome, kg)
        outcome = persons_beside_the_beam(question, topics, outcome, kg)
        outcome = answers_of_named_kind(question, topics, outcome, kg, chains)
    return answer_update(outcome, stop, question=question, when_unsupported=when_unsupported, kg=kg,
                         as_given=getattr(answerer, "grounding", None) == "off")


def chains_answered(question: str, chains: Sequence[dict], verification: dict | None,
                    kg: KnowledgeGraph | None) -> list[dict]:
    """The chains the answer is read from: those not ending at a statement node that another chain walks on through
    (:func:`~kg_agent.tools.shared.answer_checks.walks_to_named`). But for a count ("how many people held the role of
    [X]"), when the verifier judged a relation path best whose chains all end at statement nodes (``^role``: the
    memberships) and the beam's steps on left them (to the membership's ``organization``, one of the statement's
    values the question does not ask for, the verifier's own judgement says), that path's chains: the count counts the
    things behind those statements (:func:`~kg_agent.tools.shared.answer_checks.through_statements`), as RoG's plan
    of the same path does."""
    kept = walks_to_named(chains, kg)
    named = (verification or {}).get("relations")
    if not named or not asks_how_many(question):
        return kept
    judged = [c for c in chains if c.get("steps") and list(Walk.from_dict(c).relations) == list(named)]
    if not judged or any(list(Walk.from_dict(c).relations) == list(named) for c in kept if c.get("steps")):
        return kept
    return judged


def answered_where_the_class_is_reached(question: str, chains: Sequence[dict], verification: dict | None,
                                        kg: KnowledgeGraph | None) -> dict | None:
    """For a question whose type noun names a class of the KG ("how many **units** are defined in [X]", "which
    **physical constants** of the quantity kind [Y] ..."): when the relation path the verifier judged best walks on
    past explored chains whose ends are all of that class (``^definedUnitOfSystem`` reaches [X]'s units, then
    ``exactMatch`` each unit's match; ``^hasQuantityKind`` [Y]'s constants, then ``exactConstant`` a ``true``), the
    verification naming the shortest such prefix of it (``relations`` and ``depth``): the noun names the first things
    of its class the path reaches, those its clause says ("defined in [X]"). A count then counts every end of that
    prefix, not the beam's ``W`` (:func:`~kg_agent.tools.shared.answer_checks.every_end_reached`). Only when the
    whole noun phrase names that class, or the judged path's own ends are values or things of that class too: past
    the launch (a class *Launch*) to its site, "from which launch site ..." asks for the site. Unchanged for a judged
    path of one relation, or when no node on the way is of a class the noun names (a KG without classes)."""
    judged = list((verification or {}).get("relations") or ())
    if kg is None or len(judged) < 2:
        return verification

    def ends_of(relations: list[str]) -> list[str]:
        return list(dict.fromkeys(Walk.end_of(c)["id"] for c in chains
                                  if c.get("steps") and list(Walk.from_dict(c).relations) == relations))

    last = ends_of(judged)
    for size in range(1, len(judged)):
        ends = ends_of(judged[:size])
        of_class = of_counted_class(question, ends, kg) if ends else None
        # past them, values (a flag, a number) or more things of the class; not things of another class, which the
        # question may ask for where the class is named by a modifier only ("which **launch** site ...")
        if of_class is not None and (named_by_the_noun_phrase(question, ends, kg)
                                     or all(end.startswith('"') or end in of_class([end]) for end in last)):
            return {**(verification or {}), "relations": judged[:size], "depth": size}
    return verification


def compared_over_every_end(question: str, chains: Sequence[dict], verification: dict | None, outcome: AnswerOutcome,
                            kg: KnowledgeGraph, scorer: RelationPathScorer | None = None) -> AnswerOutcome:
    """For a question that compares ("the earliest-born author of a book on [shelf]", "the most downloaded book of
    [X]", :func:`~kg_agent.tools.shared.aggregates.asked_comparison`): the answers of the first explored relation path
    whose ends, walked out from the chains' starts (every end, not the beam's ``W``: a comparison is over all of them,
    as a count is; a blank node standing for each blank node of its name, as linking reads it), have a value the
    question compares (:class:`~kg_agent.tools.shared.aggregates.AnswerRanker`); the verifier's judged path is tried
    first, then the others by their best chain's score, answerable chains only; a path whose ends are compared by a
    relation the question names (``birthdate`` for "earliest-born") before one whose ends are compared only by their
    time line (a book's ``issued``). A path whose ends have nothing to compare (a publisher's name, for "the
    earliest-born author") answers nothing compared; a path whose ends are dates on statement nodes answers the
    things the dates belong to ("[craft] -> launch -> [launch] -> launched": the craft;
    :meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.owners`); a path whose ends no condition keeps ("in 1950")
    answers only when no other path's ends meet it (the answer check then says why none is kept). The outcome is unchanged
    when the question compares nothing, or no explored path's ends have a value it compares. The answers are grounded
    as the verification says; the answer check then ranks them (their ``compared`` evidence)."""
    if asked_comparison(question) is None or not outcome.answers:
        return outcome
    explored = answerable_chains(question, [c for c in chains if c.get("steps")], kg=kg)
    by_path: dict[tuple[str, ...], list[dict]] = {}
    for chain in sorted(explored, key=lambda c: -(c.get("score") or 0.0)):
        by_path.setdefault(tuple(Walk.from_dict(chain).relations), []).append(chain)
    named = tuple((verification or {}).get("relations") or ())
    order = sorted(by_path, key=lambda path: path != named)  # stable: the judged path first, then by score
    ranker = AnswerRanker(scorer)
    verified = bool((verification or {}).get("sufficient"))
    fallback: list[dict] | None = None  # the first path's answers compared by a relation the question does not name
    fallback_cut: list[str] = []
    for path in order:
        starts: dict[str, None] = {}
        for chain in by_path[path]:
            start = chain["start"]
            starts[start["id"]] = None
            if start["id"].startswith("_:"):
                starts.update(dict.fromkeys(value_nodes(kg, start.get("label") or "")))
        try:
            [found] = retrieve_many_paths(kg, list(starts), [path], max_paths=MAX_COMPARED)
        except KGError:
            return outcome
        records: dict[str, dict] = {}
        for walk in (Walk.of(p).to_dict() for p in found.paths):
            end = Walk.end_of(walk)
            if end["id"] not in records and end["id"] not in starts:
                records[end["id"]] = answer_record(end["label"], entity_id=end["id"], score=by_path[path][0].get("score") or 0.0,
                                                   grounded=verified, paths=[walk])
        ranked = ranker.apply(question, list(records.values()), kg) if records else None
        if ranked is None:  # nothing to compare
            continue
        ends = ranker.owners(question, list(records.values()), kg)  # a launch's date stands for its craft
        cut = [compared_cut_warning(relation_path_text(path), len(records))] if found.truncated else []
        if not ranked:  # no end passes the question's bound or condition: the answer check says so, unless another
            if fallback is None:  # path's ends pass it
                fallback, fallback_cut = ends, cut
            continue
        if ranker.compared_relation(question, [ranked[0].get("compared_by") or ""], kg) is not None:
            return _compared(outcome, ends, cut)
        if fallback is None:
            fallback, fallback_cut = ends, cut
    return outcome if fallback is None else _compared(outcome, fallback, fallback_cut)


def compared_cut_warning(what: str, compared: int) -> str:
    """What a comparison whose set was cut at :data:`MAX_COMPARED` walks compared: the answer may not be the extreme."""
    return (f"answer: {what} has more than {MAX_COMPARED} walks; the comparison is over the {compared} answers of the "
            "first of them, not every answer")


def _compared(outcome: AnswerOutcome, answers: list[dict], warnings: Sequence[str] = ()) -> AnswerOutcome:
    """The outcome answering ``answers`` (the ends of the path a comparison ranks; the answer check ranks them)."""
    if outcome.output == "\n".join(a["answer"] for a in outcome.answers):  # an offline output: the answers listed
        outcome.output = "\n".join(a["answer"] for a in answers)
    outcome.answers = answers
    outcome.warnings = [*outcome.warnings, *warnings]
    return outcome


def answers_of_every_mention(topic_entities: Sequence[dict], chains: Sequence[dict], outcome: AnswerOutcome, *,
                             verified: bool, kg: KnowledgeGraph | None = None, abstain: bool = False,
                             question: str = "") -> AnswerOutcome:
    """The outcome's answers that satisfy every entity the question names
    (:func:`~kg_agent.tools.shared.constraints.constrain_walks` over the explored chains: the node an explored chain
    passes on its way from one mention's entity to another's, else an end reached from each, the chains' relation
    paths walked out in ``kg`` when their ends meet nowhere); when none of its answers does, those whose chain passes
    a statement node where every other mention's chain ends (:func:`met_on_the_way`), else the ends that do, best
    chains first (grounded when verification said Yes). When the mentions' answers meet nowhere: no answer with
    ``abstain`` (stop reason ``abstained``), else the outcome with a warning. Unchanged when the question names fewer
    than two things; ``warnings`` say what was not checked. ``question``: what the things the chains' ends join must
    be when the ends meet nowhere (:func:`~kg_agent.tools.shared.met_behind.met_behind_the_ends`: "who" had roles in
    both, the persons behind the role nodes)."""
    joined = constrain_walks("", topic_entities, [c for c in chains if c.get("steps")], kg, type_check=False,
                             asked=question)
    if joined.unmet and outcome.answers and all(is_value_end(str(a.get("entity_id") or "")) for a in outcome.answers):
        # the answers are values (a date, a number): one thing's, which a second thing named qualifies ("when was [X]
        # released on [Project Gutenberg]"), as :func:`~kg_agent.tools.shared.constraints.reached_from_every_mention`
        # reads a mention whose every end is a value; here the answered chains' ends are, though the beam explored more
        outcome.warnings = [*joined.warnings, unmet_warning(joined.unmet), *outcome.warnings]
        return outcome
    if joined.unmet and abstain:
        return AnswerOutcome([], "", warnings=[*joined.warnings, f"answer: abstained: {joined.unmet}"],
                             usage=outcome.usage, stop_reason=ABSTAINED)
    outcome.warnings = [*joined.warnings, *([unmet_warning(joined.unmet)] if joined.unmet else []), *outcome.warnings]
    if not joined.applied:
        return outcome
    satisfying = [a for a in outcome.answers if a.get("entity_id") in joined.applied]
    if not satisfying:
        met = met_on_the_way(topic_entities, chains, outcome.answers, kg)
        if met:
            return _answered_with(outcome, met, {a["entity_id"]: "passes where every other mention's chain ends"
                                                 for a in met})
    return _answered_with(outcome, satisfying or _records_of_ends(joined.walks, joined.applied, grounded=verified),
                          joined.applied)


def met_on_the_way(topic_entities: Sequence[dict], chains: Sequence[dict], answers: Sequence[dict],
                   kg: KnowledgeGraph | None = None) -> list[dict]:
    """Those of ``answers`` whose chain from one mention's entity passes, before its end, a statement node (a step
    inside a fact: :func:`~kg_agent.tools.shared.answer_checks.statement_ends`) where an explored chain of every other
    mention ends: "with which exponent does [the metre] enter [the pascal]": the pascal's chain to its factor's
    ``exponent`` passes the factor node the metre's chain ends at (the metre's own factor), so its end, a value of
    that fact, satisfies both, where the nodes both reach behind the fact (the metre's unit) are no exponent. A named
    node both reach is the meeting itself, not a step to it: the common ends answer then."""
    groups = mention_groups(topic_entities)
    if len(groups) < 2:
        return []
    mention = {entity: m for m, ids in groups.items() for entity in ids}
    ends_from = {m: statement_ends([c for c in chains if c.get("steps") and c["start"]["id"] in ids], kg)
                 for m, ids in groups.items()}
    met = []
    for answer in answers:
        for path in (answer.get("paths") or [])[:1]:
            start = mention.get(path.get("start", {}).get("id"))
            passed = {step["tail"]["id"] for step in (path.get("steps") or [])[:-1]}
            if start is not None and passed and all(passed & ends for m, ends in ends_from.items() if m != start):
                met.append(answer)
    if met or kg is None:
        return met
    # the beam kept another of the fact nodes the answers' relation path passes: walk that path out from its start
    paths = list(dict.fromkeys((path["start"]["id"], tuple(Walk.from_dict(path).relations)) for answer in answers
                               for path in (answer.get("paths") or [])[:1] if len(path.get("steps") or ()) >= 2))
    grounded = any(a.get("grounded") for a in answers)
    found: dict[str, dict] = {}
    for start_id, relations in paths:
        start = mention.get(start_id)
        others = [ends for m, ends in ends_from.items() if m != start]
        if start is None or not others or not all(others):
            continue
        try:
            [walked] = retrieve_many_paths(kg, [start_id], [relations], max_paths=MAX_COMPARED)
        except KGError:
            continue
        for walk in (Walk.of(p).to_dict() for p in walked.paths):
            passed = {step["tail"]["id"] for step in walk["steps"][:-1]}
            end = Walk.end_of(walk)
            if end["id"] not in found and all(passed & ends for ends in others):
                found[end["id"]] = answer_record(end["label"], entity_id=end["id"], grounded=grounded, paths=[walk])
    return list(found.values())


def _records_of_ends(walks: Sequence[dict], applied: dict[str, str], *, grounded: bool) -> list[dict]:
    """One answer record per end of ``walks`` that a constraint kept (``applied``), best-scored walks first."""
    found: dict[str, dict] = {}
    for chain in sorted(walks, key=lambda c: -(c.get("score") or 0.0)):
        end = Walk.end_of(chain)
        if chain.get("steps") and end["id"] in applied and end["id"] not in found:
            found[end["id"]] = answer_record(end["label"], entity_id=end["id"], score=chain.get("score") or 0.0,
                                             grounded=grounded, paths=[chain])
    return list(found.values())


def _answered_with(outcome: AnswerOutcome, answers: list[dict], applied: dict[str, str]) -> AnswerOutcome:
    """The outcome with ``answers`` (each noting the constraints it satisfies); an offline output, which lists the
    answers, lists these."""
    if outcome.output == "\n".join(a["answer"] for a in outcome.answers):
        outcome.output = "\n".join(a["answer"] for a in answers)
    outcome.answers = note_constraints(answers, applied)
    return outcome


def answers_of_asked_type(question: str, topic_entities: Sequence[dict], outcome: AnswerOutcome,
                          kg: KnowledgeGraph) -> AnswerOutcome:
    """The outcome with the answers of another class than the question's type noun names left out, when some answer
    is of such a class (:func:`~kg_agent.tools.shared.constraints.of_asked_type` over the answers' chains); each kept
    answer of the class says so in ``constraints``, and ``warnings`` say when the type could not be checked."""
    chains = [a["paths"][0] for a in outcome.answers if a.get("entity_id") and a.get("paths")]
    if not chains:
        return outcome
    typed = of_asked_type(question, topic_entities, chains, kg)
    kept_ends = {Walk.end_of(c)["id"] for c in typed.walks}
    answers = [a for a in outcome.answers if not (a.get("entity_id") and a.get("paths")) or a["entity_id"] in kept_ends]
    beside = [] if typed.applied else of_asked_type_beside(question, topic_entities, chains, kg)
    if beside:  # the beam kept none of the class asked: those its last steps reach beside them
        grounded = {Walk.end_of(c)["id"]: a.get("grounded", False) for a, c in zip(
            [a for a in outcome.answers if a.get("entity_id") and a.get("paths")], chains)}
        typed = of_asked_type(question, topic_entities, beside, kg)
        answers = [answer_record(Walk.end_of(c)["label"], entity_id=Walk.end_of(c)["id"], score=c.get("score") or 0.0,
                                 grounded=any(grounded.values()), paths=[c]) for c in typed.walks]
    outcome = _answered_with(outcome, answers, typed.applied)
    outcome.warnings = [*typed.warnings, *outcome.warnings]
    return outcome


def persons_beside_the_beam(question: str, topic_entities: Sequence[dict], outcome: AnswerOutcome,
                            kg: KnowledgeGraph) -> AnswerOutcome:
    """For a question asking for persons ("who asked [X]") whose beam kept only things of another class over a relation
    that holds two roles (a written question's ``creator``: its authors and the institution it is addressed to; a
    beam of width one keeps one of them): the persons among every object of the answers' last relation from the same
    thing (not the ends of the same relation path through other statements: the holders of a conference's other
    roles are no gold sponsor), told apart from the relation's other role by their classes as the answer check tells
    them
    (:func:`~kg_agent.tools.shared.class_split.persons_apart`). Unchanged when some answer is already kept by that
    split (the answer check splits them), or the walked-out ends hold no persons beside the other role."""
    chains = [a["paths"][0] for a in outcome.answers if a.get("entity_id") and a.get("paths")]
    if not chains or not QuestionParts.of(question).asked.asks_persons:
        return outcome
    grounded = any(a.get("grounded") for a in outcome.answers)
    ends: dict[str, dict] = {}
    for chain in sorted(chains, key=lambda c: -(c.get("score") or 0.0)):
        steps = chain.get("steps") or []
        if not steps:
            continue
        last = steps[-1]  # the same last relation from the same thing: not the ends of other statements of a role
        try:
            tails = list(kg.edges(last["head"]["id"]).get(last["relation"]) or ())[:MAX_COMPARED]
        except KGError:
            return outcome
        for tail in tails:
            label = last["tail"]["label"] if tail == last["tail"]["id"] else kg.label(tail)
            if tail in ends or tail.startswith(('"', "_:")) or not label:
                continue
            walk = {**{k: v for k, v in chain.items() if k != "text"},
                    "steps": [*steps[:-1], {**last, "tail": {"id": tail, "label": label}}]}
            ends[tail] = answer_record(label, entity_id=tail, score=chain.get("score") or 0.0, grounded=grounded,
                                       paths=[walk])
    split = persons_apart(question, list(ends.values()), kg)
    if split is None or not split[0]:
        return outcome
    kept, reason = split
    if {a.get("entity_id") for a in outcome.answers} & {a.get("entity_id") for a in kept}:
        return outcome
    if outcome.output == "\n".join(a["answer"] for a in outcome.answers):
        outcome.output = "\n".join(a["answer"] for a in kept)
    outcome.answers = kept
    outcome.warnings = [*outcome.warnings, f"answer: the beam kept only the relation's other role; {reason}; the "
                        "persons are the other objects of the same last relation"]
    return outcome


def answers_of_named_kind(question: str, topic_entities: Sequence[dict], outcome: AnswerOutcome,
                          kg: KnowledgeGraph, explored: Sequence[dict] = ()) -> AnswerOutcome:
    """The outcome's answers of the kind the question's noun phrase names by a modifier ("which **research track**
    papers", "which units **of volume**": :func:`~kg_agent.tools.shared.constraints.of_named_kind`), over every end
    of the answers' relation paths from the entities they start at (:func:`~kg_agent.tools.shared.constraints.walked_out`:
    a beam kept a few of [X]'s papers, maybe none of that kind); when the question names several things, over the
    ends that the ``explored`` chains' relation paths, walked out, reach from every one of them
    (:func:`~kg_agent.tools.shared.constraints.constrain_walks`); unchanged when no end or every end is of it."""
    chains = [a["paths"][0] for a in outcome.answers if a.get("entity_id") and a.get("paths")]
    if not chains or (len(asked_type(question, topic_entities).noun_phrase) < 2
                      and not noun_complement(question, topic_entities)):
        return outcome
    walked = walked_out(kg, topic_entities, chains) or chains
    if explored and len(mention_groups(topic_entities)) >= 2:
        # "which units of volume are defined in both [A] and [B]": the ends of the kind among those reached from both
        joined = constrain_walks(question, topic_entities,
                                 walked_out(kg, topic_entities, [c for c in explored if c.get("steps")]), kg,
                                 type_check=False)
        walked = joined.walks if joined.applied and not joined.unmet else walked
    kind = of_named_kind(question, topic_entities, walked, kg)
    if not kind.applied:
        return outcome
    grounded = any(a.get("grounded") for a in outcome.answers)
    return _answered_with(outcome, _records_of_ends(kind.walks, kind.applied, grounded=grounded), kind.applied)


def respond_steps(state: dict, *, answerer: ToGAnswerer, name: str = "tog",
                  asked: Asked | None = None, kg: KnowledgeGraph | None = None,
                  when_unsupported: WhenUnsupported = "abstain", chain_scorer: RelationPathScorer | None = None):
    """``answer``, plus the chat reply when the question came as messages. Steps."""
    update = yield from answer_steps(state, answerer=answerer, asked=asked, kg=kg, when_unsupported=when_unsupported,
                                     chain_scorer=chain_scorer)
    return with_chat_reply(state, update, name=name)
