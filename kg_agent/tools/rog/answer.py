"""RoG's *answer* step: answers from the retrieved reasoning paths, each with the paths that support it.

* :class:`VoteAnswerer` (offline): RoG's vote reasoning — the path ends, ranked by the best plan that
  reaches them (plans arrive best first), then by how many of that plan's paths reach them.
* :class:`LLMAnswerer`: RoG's reasoning prompt ("return all the possible answers as a list"), or its
  explanation prompt. The answer list is parsed, and every answer is checked against the retrieved
  paths (faithfulness, :mod:`kg_agent.tools.shared.grounding`: an answer is grounded when it is the end of
  a path whose plan answers the question -- see :func:`unasked_plans` -- not an entity a path passes); the
  grounding policy decides what an ungrounded answer becomes. Under ``grounding="strict"`` the answer decision is
  asked with the ends of the paths that may ground an answer as its candidates (an ``enum`` in its schema, plus
  :data:`NO_PATH_END`), so a server that constrains decoding lets the model name only those.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kg_agent.kg.containers import walks_into_lists
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import relation_path_text
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_answer_list
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode, WhenUnsupported
from kg_agent.steps import Decided, decide, decided, synchronous
from kg_agent.tools.shared.aggregates import MAX_COMPARED, asked_comparison
from kg_agent.tools.shared.answer_checks import (
    ABSTAINED,
    asks_how_many,
    plans_matching_nothing,
    statement_ends,
    unsupported_policy,
    walks_to_named,
)
from kg_agent.tools.shared.class_reached import stopped_at_the_named_class
from kg_agent.tools.shared.constraints import constrain_walks, note_constraints, unmet_warning
from kg_agent.tools.shared.decider import Candidates, Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import Answers
from kg_agent.tools.shared.grounding import (
    RunGrounding,
    Settled,
    UnaskedAnswers,
    asked_for,
    ground_names,
    no_prefix_rates_higher,
    path_evidence,
    rate_with_prefixes,
    settle,
)
from kg_agent.tools.shared.link import with_chat_reply
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.role_qualifiers import qualified_walks
from kg_agent.tools.shared.statement_names import walks_to_asked_names
from kg_agent.tools.shared.statement_plans import without_plans_of_statements
from kg_agent.tools.shared.updates import answer_record

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

REASONING_PROMPT = (
    "Based on the reasoning paths, please answer the given question. Please keep the answer as simple as "
    "possible and return all the possible answers as a list.\n\nReasoning Paths:\n{paths}\n\nQuestion:\n{question}"
)
EXPLANATION_PROMPT = (
    "Based on the reasoning paths, please answer the given question and explain why. Start with the answers "
    "as a list on the first line, then the explanation.\n\nReasoning Paths:\n{paths}\n\nQuestion:\n{question}"
)
NO_PATHS_TEXT = "(no reasoning path was found in the knowledge graph)"
#: The strict answer schema's explicit choice beside the path ends: no path end answers the question.
NO_PATH_END = "none"


def says_no_path_end(reply: str) -> bool:
    """Whether a reply answers only :data:`NO_PATH_END` (``["none"]``, ``{"answers": ["none"]}``, ``none``)."""
    try:
        value = json.loads(reply)
    except ValueError:
        value = reply.strip().rstrip(".")
    if isinstance(value, dict):
        value = value.get("answers")
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(i, str) and i.strip().lower() == NO_PATH_END for i in items)


@dataclass
class AnswerOutcome(Outcome):
    answers: list[dict]
    output: str
    stop_reason: str = ""  # set when the answer step itself decides why the question stopped


@runtime_checkable
class Answerer(Decider, Protocol):
    def answer(self, question: str, paths: Sequence[dict], plans: Sequence[dict]) -> Decided[AnswerOutcome]: ...


def plan_score(plans: Sequence[dict], rank: int) -> float:
    """The score of the plan ranked ``rank`` (1.0 for a rank past the plans: a path of no known plan)."""
    return float(plans[rank].get("score", 1.0)) if rank < len(plans) else 1.0


def close_enough(plans: Sequence[dict], rank: int, top_rank: int, *, min_relative_score: float) -> bool:
    """Whether answers of the plan ranked ``rank`` are kept beside those of ``top_rank``, the best plan with answers:
    it scores at least ``min_relative_score`` x that plan's score (none when that score is not positive)."""
    if rank == top_rank:
        return True
    top = plan_score(plans, top_rank)
    return top > 0 and plan_score(plans, rank) >= min_relative_score * top


@dataclass(frozen=True)
class PathUse:
    """What RoG's answer step reads of the retrieved paths, so that retrieval and the state keep no more
    (:func:`kg_agent.tools.rog.retrieve.retrieve_for_plans`, :func:`kg_agent.tools.rog.retrieve.paths_the_answer_uses`).

    * Answers come from the best plan with paths and the plans scoring at least ``min_relative_score`` x its score
      (:func:`close_enough`), at most ``max_answers`` of them, ranked by the evidence of the plans reaching them,
      then by the paths of the best plan reaching them (:class:`VoteAnswerer`);
    * a model's prompt holds the first ``max_prompt_paths`` distinct paths, best plans first, and so does any
      other plan's share of the result: the paths that show what the plan found.

    The offline answers are the same from the paths kept as from all of them when no plan reaches more than
    ``max_answers`` ends (beyond that, a plan's paths to its rarer ends, and with them its evidence for them, are
    not kept); a model's answer is grounded by the ends of the paths kept (those of its prompt among them).
    """

    min_relative_score: float
    max_answers: int
    max_prompt_paths: int

    def answering(self, plans: Sequence[dict], top_rank: int) -> list[int]:
        """The ranks of the plans whose answers are kept when ``top_rank`` is the best plan with paths."""
        return [rank for rank in range(top_rank, len(plans))
                if close_enough(plans, rank, top_rank, min_relative_score=self.min_relative_score)]


class VoteAnswerer:
    """Offline answers ranked by the evidence of every plan kept beside the best one, then by the best plan
    reaching them and its votes.

    Plans arrive best first (the planner's order: for the zero-shot planner, the relation-path scorer's). An
    answer's evidence is the sum, over the kept plans reaching it, of ``exp((plan score - best) /
    plan_temperature)``: each plan counts once, so the paths of one plan never out-vote another plan, but two
    plans that score nearly as well as the best and agree on an answer put it above one the best plan alone
    reaches (a plan 0.05 below the best weighs 0.37, 0.15 below 0.05). ``plan_temperature=None`` ranks by the
    best plan reaching an answer alone, as before. Ties (and answers of equal evidence) go to the best plan
    reaching them; its votes are the paths *of that plan* reaching them, however many paths of weaker plans
    reach them. Answers reached only by plans scoring below ``min_relative_score`` x the best plan's score
    are left out (only the best plan's answers when that score is not positive): on MetaQA keeping them cost
    2-4 F1 points (docs/benchmarks.md). ``max_answers`` caps the list.

    With ``plan_scorer``, a plan other than the best one with paths contributes no answers when the scorer rates
    a shorter prefix of it higher (:func:`~kg_agent.tools.shared.grounding.no_prefix_rates_higher`, the rule
    grounding applies to a model's plans; ``kg`` gives the scorer the answer types): for "who directed [Forrest
    Gump]", ``directed_by -> ^directed_by -> directed_by`` (the directors of Robert Zemeckis's other films) adds
    nothing to ``directed_by``.
    """

    name = "vote"

    def __init__(self, *, min_relative_score: float = 0.9, max_answers: int = 100, max_supporting_paths: int = 3,
                 plan_scorer: RelationPathScorer | None = None, kg: KnowledgeGraph | None = None,
                 plan_temperature: float | None = 0.05) -> None:
        self.min_relative_score = min_relative_score
        self.plan_temperature = plan_temperature
        self.max_answers = max_answers
        self.max_supporting_paths = max_supporting_paths
        self.plan_scorer = plan_scorer
        self.kg = kg

    def answer(self, question: str, paths: Sequence[dict], plans: Sequence[dict]) -> AnswerOutcome:
        ranks = {self._rank(path, plans) for path in paths}
        passed_by_prefix = self._passed_by_a_prefix(question, paths, plans, ranks)
        best_rank: dict[str, int] = {}
        votes: dict[str, int] = {}
        support: dict[str, list[dict]] = {}
        labels: dict[str, str] = {}
        reaching: dict[str, set[int]] = {}  # end -> the ranks of the plans reaching it
        for path in paths:
            rank = self._rank(path, plans)
            if rank in passed_by_prefix:
                continue
            steps = path["steps"]
            end = steps[-1]["tail"] if steps else path["start"]
            key = end["id"]
            labels[key] = end["label"]
            reaching.setdefault(key, set()).add(rank)
            if rank < best_rank.get(key, len(plans) + 1):  # votes and support come from the best plan reaching it
                best_rank[key], votes[key], support[key] = rank, 0, []
            if rank == best_rank[key]:
                votes[key] += 1
                if len(support[key]) < self.max_supporting_paths:
                    support[key].append(path)
        if not votes:
            return AnswerOutcome([], "", warnings=["answer: no reasoning path, so no answer"])
        top_rank = min(best_rank.values())
        evidence = self._evidence(reaching, plans, top_rank)
        # the question's own topic entity (or one named as it) and answers of a kind it does not ask for come last
        unasked = UnaskedAnswers(question, [p["start"] for p in paths if p.get("start")], kg=self.kg)
        own = {k for k in votes if support[k] and unasked.excluded_walk(support[k][0])}
        ranked = sorted(votes, key=lambda k: (k in own, -evidence.get(k, 0.0), best_rank[k], -votes[k], labels[k], k))
        close = [k for k in ranked if self._close_enough(plans, best_rank[k], top_rank)]
        # a walk back to the question's own entity ("who did [X] marry" through the marriage, "the child of [X] 's
        # parent"), or out of an unnamed node back to where it entered it ("the spouse of [X] 's director" through the
        # marriage reaches the director too), answers only when nothing else is kept (PathQuestion, when [X] is the
        # only child the KG gives; its walks back through named people, "[X] 's parent 's child 's parent", stay)
        back = {p["start"]["id"] for p in paths if p.get("start")}
        back |= {k for k in close if support[k] and all(Walk.from_dict(p).steps_back for p in support[k])}
        if any(k not in back for k in close):
            close = [k for k in close if k not in back]
        # a comparison ("the heaviest ...") is over every answer: the answer check ranks them and keeps the first
        compares = asked_comparison(question) is not None
        limit = max(self.max_answers, MAX_COMPARED) if compares else self.max_answers
        kept = close[:limit]
        warnings = ([] if len(close) <= limit else
                    [f"answer: more answers than {MAX_COMPARED}; the comparison is over the first {limit}, most evidence "
                     "across the plans first, not every answer"] if compares else
                    [f"answer: more answers than max_answers={self.max_answers}; kept the first {self.max_answers}, most "
                     "evidence across the plans first"])
        answers = [
            answer_record(labels[k], entity_id=k, score=plan_score(plans, best_rank[k]) + votes[k] * 1e-6,
                          grounded=True, paths=support[k])
            for k in kept
        ]
        return AnswerOutcome(answers, "\n".join(labels[k] for k in kept), warnings=warnings)

    def _evidence(self, reaching: dict[str, set[int]], plans: Sequence[dict], top_rank: int) -> dict[str, float]:
        """Each answer's evidence across the plans kept beside the best one (``reaching``: each answer's ranks of the
        plans whose paths end there, those passed by a prefix left out): the sum, over the plans reaching it, of
        ``exp((plan score - best plan score) / plan_temperature)`` (a plan counts once, however many of its paths
        reach the answer). Plans that score nearly alike and agree outweigh one that disagrees ("[X] 's son": the
        ends of ``children`` and of ``^parents``); a plan well below the best adds next to nothing. Without a
        temperature every answer's evidence is 0 and the best plan reaching it decides alone."""
        if not self.plan_temperature or top_rank >= len(plans):
            return {}
        top = plan_score(plans, top_rank)
        counted = {rank for ranks in reaching.values() for rank in ranks
                   if rank < len(plans) and self._close_enough(plans, rank, top_rank)}
        weight = {rank: math.exp(min(0.0, plan_score(plans, rank) - top) / self.plan_temperature) for rank in counted}
        return {key: sum(weight[r] for r in ranks & counted) for key, ranks in reaching.items() if ranks & counted}

    @staticmethod
    def _rank(path: dict, plans: Sequence[dict]) -> int:
        """The rank of the plan that retrieved the path (``len(plans)`` when it has none)."""
        return path["plan"] if isinstance(path.get("plan"), int) and path["plan"] < len(plans) else len(plans)

    def _passed_by_a_prefix(self, question: str, paths: Sequence[dict], plans: Sequence[dict], ranks: set[int]) -> set[int]:
        """The ranks of the plans whose answers would be kept beside the best plan's but a shorter prefix of which
        the plan scorer rates higher."""
        known = sorted(r for r in ranks if r < len(plans))
        if self.plan_scorer is None or len(known) < 2:
            return set()
        judged = [r for r in known[1:] if len(plans[r]["relations"]) > 1 and self._close_enough(plans, r, known[0])]
        if not judged:
            return set()
        starts = {p["start"]["id"]: p["start"] for p in paths if p.get("start")}
        rating = rate_with_prefixes(question, starts.values(), [plans[r]["relations"] for r in judged],
                                    scorer=self.plan_scorer, kg=self.kg)
        return {r for r in judged if not no_prefix_rates_higher(plans[r]["relations"], rating)}

    def _close_enough(self, plans: Sequence[dict], rank: int, top_rank: int) -> bool:
        """Whether answers of the plan ranked ``rank`` are kept beside those of the best plan with answers."""
        return close_enough(plans, rank, top_rank, min_relative_score=self.min_relative_score)


def unasked_plans(question: str, paths: Sequence[dict], plans: Sequence[dict], *, scorer: RelationPathScorer,
                  model_source: str | None, kg: KnowledgeGraph | None = None) -> set[int]:
    """The ranks of the model's plans the question does not ask for: their paths ground no answer.

    Only plans the model proposed (``source`` is ``model_source``) are judged; an offline planner's plan (the kept
    offline plan, or every plan when the model's planning fell back) stands as that planner's judgement, and a path
    with no known plan is not judged. ``model_source`` ``None`` judges every plan (a reply written in sentences
    names the entities a path passes on its way, and the end of a plan that stops there, "author" for "where was
    the author of [Neuromancer] born", must not ground it: :mod:`kg_agent.langchain.middleware`). A plan is asked
    for when
    :func:`~kg_agent.tools.shared.grounding.asked_for` says so among the plans that retrieved a path: for "which
    person directed [Working Girl]" a model plan ``has_genre`` does not ground "Comedy" when ``directed_by``
    retrieved paths too.
    """
    ranks = sorted({p["plan"] for p in paths if isinstance(p.get("plan"), int) and p["plan"] < len(plans)})
    judged = {r for r in ranks if model_source is None or plans[r].get("source") == model_source}
    if not judged:
        return set()
    starts = {p["start"]["id"]: p["start"] for p in paths if p.get("start")}
    asked = asked_for(question, starts.values(), [plans[r]["relations"] for r in ranks], scorer=scorer, kg=kg)
    return {r for r, yes in zip(ranks, asked) if not yes and r in judged}


def path_lines(paths: Sequence[dict], limit: int) -> tuple[list[str], bool]:
    """Path texts for the prompt, best plans first (paths arrive grouped by plan rank), deduplicated."""
    ordered = sorted(paths, key=lambda p: p.get("plan", 0))
    lines = list(dict.fromkeys(p["text"] for p in ordered))
    return lines[:limit], len(lines) > limit


class LLMAnswerer(LLMDecider, RunGrounding):
    """RoG's reasoning (or explanation) prompt over the retrieved paths, with a faithfulness check.

    At most ``max_prompt_paths`` paths go into the prompt: those of the best plans first, in a fixed
    order; a warning reports the truncation. An unusable reply is retried once; then the offline
    ``fallback`` answers (default: :class:`VoteAnswerer` with the same ``plan_scorer`` and ``kg``), the
    reason is recorded and ``output`` is those answers (never the rejected reply). A usable reply's answers
    are checked against the paths and ``grounding`` (``"prefer"``, ``"strict"``, ``"off"``; see
    :mod:`kg_agent.tools.shared.grounding`) decides what is answered: under ``"prefer"`` the fallback's path
    votes replace answers no path supports, and ``output`` keeps the reply.
    Only the paths of plans that answer the question ground an answer (:func:`unasked_plans`, judged by
    ``plan_scorer``, with ``kg``'s answer types when given): a model that names the end of a path of a plan it
    made up for a question that asks for something else ("Comedy" by ``has_genre`` for "which person directed
    [Working Girl]") is not grounded. At most ``max_answers`` answers are kept (a warning says when the model gave
    more).

    Under ``grounding="strict"`` the answer is asked with its candidates
    (:class:`~kg_agent.tools.shared.decider.Candidates`): the labels of the ends of the prompt's paths whose plans
    the question asks for, in the prompt's order (cut by the offline votes past the enum limits), and
    :data:`NO_PATH_END`; the schema lists them as an ``enum`` (under
    ``structured_output="auto"`` OpenAI and vLLM constrain to it; llama.cpp keeps the text prompt, where SmolLM2
    answers usably and the grammar cost more tokens than it saved: ``LLMDecision.grammar_under_auto``). A reply of only
    :data:`NO_PATH_END` decides that no path end answers: the grounded votes replace it, or no answer is given
    (``"no_grounded_answer"``).
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        explain: bool = False,
        max_prompt_paths: int = 100,
        max_answers: int = 100,
        fallback: Answerer | None = None,
        structured_output: StructuredMode = "auto",
        grounding: Grounding = DEFAULT_GROUNDING,
        plan_scorer: RelationPathScorer | None = None,
        model_source: str = "llm",
        kg: KnowledgeGraph | None = None,
    ) -> None:
        self.plan_scorer = plan_scorer or RelationPathScorer()
        super().__init__(model, "answer", structured_output=structured_output, what="answer", schema=Answers,
                         reply_format="answer 1\nanswer 2", grammar_under_auto="never",
                         fallback=(fallback if fallback is not None
                                   else VoteAnswerer(plan_scorer=self.plan_scorer, kg=kg, max_answers=max_answers)))
        self.grounding = grounding
        self.model_source = model_source
        self.kg = kg
        self.prompt = EXPLANATION_PROMPT if explain else REASONING_PROMPT
        self.explain = explain
        self.max_prompt_paths = max_prompt_paths
        self.max_answers = max_answers

    def answer(self, question: str, paths: Sequence[dict], plans: Sequence[dict]):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        lines, truncated = path_lines(paths, self.max_prompt_paths)
        warnings: list[str] = []
        if truncated:
            warnings.append(f"answer: {len(set(p['text'] for p in paths))} reasoning paths; "
                            f"the prompt keeps the first {self.max_prompt_paths} (best plans first)")
        prompt = self.prompt.format(paths="\n".join(lines) or NO_PATHS_TEXT, question=question)
        unasked = unasked_plans(question, paths, plans, scorer=self.plan_scorer, model_source=self.model_source, kg=self.kg)
        strict = self.grounding == "strict"

        def parse(reply: str):
            if strict and says_no_path_end(reply):
                return [], ["answer: the model answered that no path end answers the question"]
            return parse_answer_list(reply.split("\n", 1)[0] if self.explain else reply) or None, []

        grounding_paths = [p for p in paths if p.get("plan") not in unasked]
        candidates = self._path_ends(question, paths, plans, grounding_paths, set(lines)) if strict else None
        asked = yield self.decision.request(prompt, parse, candidates=candidates)
        if not asked.decided:
            return fall_back(asked, decided(self.fallback.answer, question, paths, plans), node="answer",
                             to=f"{self.fallback.name} answers", before=warnings)
        warnings.extend(asked.warnings)
        checked = check_answers(asked.value, question, paths, plans, policy=self.grounding, fallback=self.fallback,
                                unasked=unasked)
        warnings.extend(checked.warnings)
        settled = checked.settled
        kept = settled.answers[:self.max_answers]
        if len(settled.answers) > self.max_answers:
            warnings.append(f"answer: the model gave {len(settled.answers)} answers; kept the first {self.max_answers} "
                            "(max_answers)")
        output = "\n".join(a["answer"] for a in kept) if self.grounding == "strict" else asked.reply
        return AnswerOutcome(kept, output, warnings=warnings + settled.warnings, usage=asked.usage, stop_reason=settled.stop_reason)

    def _path_ends(self, question: str, paths: Sequence[dict], plans: Sequence[dict], grounding_paths: Sequence[dict],
                   shown: set[str]) -> Candidates:
        """What a strict answer may name: the labels of the ends of the prompt's paths (``shown``: their texts) that
        may ground an answer, and :data:`NO_PATH_END`; ranked (for a cut) by the offline votes."""
        ends = [p["steps"][-1]["tail"]["label"] for p in sorted(grounding_paths, key=lambda p: p.get("plan", 0))
                if p.get("steps") and p["text"] in shown]

        def by_votes() -> list[str]:
            return [NO_PATH_END, *(a["answer"] for a in decided(self.fallback.answer, question, paths, plans).answers)]

        return Candidates([*dict.fromkeys(ends), NO_PATH_END], rank=by_votes)


@dataclass
class CheckedAnswers:
    """A model's answers checked against the reasoning paths: ``settled`` (what the grounding policy lets through,
    :func:`~kg_agent.tools.shared.grounding.settle`), each answer as the model gave it checked (``answers``), and
    what was said about the check beyond the policy's own warnings (``warnings``)."""

    settled: Settled
    answers: list[dict]
    warnings: list[str]


def check_answers(names: Sequence[str], question: str, paths: Sequence[dict], plans: Sequence[dict], *,
                  policy: Grounding, fallback: Answerer, unasked: Collection[int] = (),
                  node: str = "answer") -> CheckedAnswers:
    """RoG's grounding check of a model's answers (``names``: the answers it gave, or sentences naming them) against
    the reasoning ``paths``, settled by ``policy``: the paths of the plans in ``unasked`` (:func:`unasked_plans`)
    ground nothing, and the ``fallback`` answerer's answers replace ungrounded ones where the policy says so
    (:mod:`kg_agent.tools.shared.grounding`). What :class:`LLMAnswerer` and the agent middleware
    (:mod:`kg_agent.langchain.middleware`) both apply to a reply."""
    warnings: list[str] = []
    left_out = sorted(relation_path_text(plans[r]["relations"]) for r in unasked)
    if left_out:
        warnings.append(f"{node}: the question does not ask for the plan(s) {', '.join(left_out)}; "
                        "their path ends do not ground an answer")
    grounding_paths = [p for p in paths if p.get("plan") not in unasked]
    answers = ground_names(names, path_evidence(grounding_paths), read_sentences=policy != "off")
    settled = settle(answers, policy=policy, node=node, offline_name=f"{fallback.name}",
                     offline=lambda: decided(fallback.answer, question, paths, plans).answers)
    return CheckedAnswers(settled, answers, warnings)


def path_use(answerer: Answerer, *, max_prompt_paths: int) -> PathUse | None:
    """What ``answerer`` reads of the retrieved paths (:class:`PathUse`; ``max_prompt_paths`` for an answerer without
    a prompt); None for an answerer of another kind, which is given every path."""
    votes = answerer.fallback if isinstance(answerer, LLMAnswerer) else answerer
    if not isinstance(votes, VoteAnswerer):
        return None
    prompt = answerer.max_prompt_paths if isinstance(answerer, LLMAnswerer) else max_prompt_paths
    return PathUse(min_relative_score=votes.min_relative_score, max_answers=votes.max_answers, max_prompt_paths=prompt)


def answer_steps(state: dict, *, answerer: Answerer, kg: KnowledgeGraph | None = None,
                 when_unsupported: WhenUnsupported = "abstain"):
    """Graph node (as steps): answer the question from the state's reasoning paths that satisfy its constraints
    (:func:`~kg_agent.tools.shared.constraints.constrain_walks`: the ends reached from every entity the question
    names, of the type it asks for when ``kg`` gives the answers' classes); each answer's record says which it
    satisfies (``constraints``), and ``warnings`` which could not be checked. When the answers reached from the
    things the question names meet nowhere, no answer, and the reason (``when_unsupported="best_effort"``: the
    answers reached from each, with a warning)."""
    from kg_agent.tools.shared.updates import (
        anchored_update,
        answer_update,
        names_answered,
        names_update,
        which_of_update,
        whole_graph_update,
    )

    question = state["question"]
    whole = whole_graph_update(state.get("stop_reason") or "", question, kg)
    if whole is not None:
        return whole
    anchored = anchored_update(question, state.get("topic_entities") or [], kg, when_unsupported=when_unsupported)
    if anchored is not None:
        return anchored
    compared = which_of_update(question, state.get("topic_entities") or [], kg)
    if compared is not None:
        return compared
    names = names_answered(question, state.get("topic_entities") or [], kg)
    if names is not None:
        told = None
        if names.for_a_model and isinstance(answerer, LLMAnswerer):  # the names found are the model's evidence
            told = yield decide(answerer.answer, question, names.evidence, [])
        update = names_update(names, when_unsupported=when_unsupported, outcome=told)
        if update is not None:
            return update
    unmatched = plans_matching_nothing(state.get("plans") or [])
    if unmatched is not None and unsupported_policy(when_unsupported) == "abstain":
        return answer_update(AnswerOutcome([], "", warnings=[f"answer: abstained: {unmatched}"], stop_reason=ABSTAINED))
    paths = walks_into_lists(state.get("paths") or [], kg)  # a path to an author list reaches its authors
    constrained = constrain_walks(question, state.get("topic_entities") or [], paths, kg)
    if constrained.unmet and unsupported_policy(when_unsupported) == "abstain":
        return answer_update(AnswerOutcome([], "", warnings=[*constrained.warnings, f"answer: abstained: {constrained.unmet}"],
                                           stop_reason=ABSTAINED))
    # through the role the question names; on to a statement node's name where its naming predicate is asked for
    walks = walks_to_named(walks_to_asked_names(question, qualified_walks(question, constrained.walks, kg), kg), kg,
                           question)
    if not asks_how_many(question):  # a count may count the statements themselves ("how many performances")
        walks = without_plans_of_statements(walks, statement_ends(walks, kg), state.get("plans") or [],
                                            {r.lstrip("^") for r in kg.class_fan_outs()} if kg is not None else ())
    walks, stopped = stopped_at_the_named_class(question, walks, kg, getattr(answerer, "plan_scorer", None))
    outcome = yield decide(answerer.answer, question, walks, state.get("plans") or [])
    outcome.answers = note_constraints(outcome.answers, constrained.applied)
    outcome.warnings = [*constrained.warnings, *([unmet_warning(constrained.unmet)] if constrained.unmet else []),
                        *stopped, *outcome.warnings,
                        *([f"answer: {unmatched}; answered as asked (best effort)"] if unmatched else [])]
    return answer_update(outcome, state.get("stop_reason") or "", question=question, when_unsupported=when_unsupported,
                         kg=kg, as_given=getattr(answerer, "grounding", None) == "off",
                         max_answers=getattr(answerer, "max_answers", None))


answer_node = synchronous(answer_steps)


def respond_steps(state: dict, *, answerer: Answerer, kg: KnowledgeGraph | None = None,
                  when_unsupported: WhenUnsupported = "abstain"):
    """``answer``, plus the chat reply when the question came as messages. Steps."""
    update = yield from answer_steps(state, answerer=answerer, kg=kg, when_unsupported=when_unsupported)
    return with_chat_reply(state, update, name="rog")
