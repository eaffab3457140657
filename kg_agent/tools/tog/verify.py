"""Think-on-Graph's *reasoning* (verification) step: are the triples explored so far enough to answer?

* :class:`LLMVerifier` — ToG's evaluation prompt over the knowledge triplets; the reply
  ``{Yes}. ... the answer is {Forrest Gump}`` is parsed with :func:`~kg_agent.llm.parsing.parse_yes_no`
  (decision plus the braced answer, which the answer step reuses without another call). An undecidable
  reply is retried once, then the offline verifier decides and the reason is recorded.
* :class:`ScoreVerifier` — offline, decided from the same relation-path scores the offline pruners use, over
  every chain explored (ToG's reasoning step reads all the retrieved paths, not one): the best relation path
  explored so far ("now") against the best extension of any chain of the newest depth (the beam) by
  ``lookahead`` more relations walkable from its last entity (default 2: with answer-type cues a one-hop look
  stops "who are the actors in the films directed by the director of [X]" at the director, a person, where the
  round trip and ``starred_actors`` only pay off together; docs/benchmarks.md section 8). **Yes** when no
  extension explains the question better (``now + margin >= best extension``) or no chain can be extended;
  **No** otherwise. So "who directed [Forrest Gump]" stops after ``directed_by`` ("directed by" beats
  "directed by then directed by (reverse)"), while "who starred in films directed by [Robert Zemeckis]" goes on
  after ``^directed_by``. The outcome names the best path and its depth (``relations``, ``depth``), Yes or No:
  the offline answerer answers from the chains that follow it; on Yes the answer is its best chain's last entity.
  Only chains whose end may answer count (:func:`answerable_chains`): a chain back to the question's own topic
  entity or one named as it ("which films did tom hanks act in": the tag *tom hanks* -> a film -> the actor), or
  one whose answers are of a kind the question does not ask for (persons for "which films"), is not accepted, and
  an extension of such a kind is not looked ahead to; so ToG explores on or stops at a chain that answers.
"""  # noqa: E501 (prompt text kept verbatim)

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_yes_no
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode
from kg_agent.steps import Decided, decide, decided, synchronous
from kg_agent.tools.shared.aggregates import AnswerRanker, asked_comparison
from kg_agent.tools.shared.answer_checks import statement_ends
from kg_agent.tools.shared.decider import Candidates, Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import Verification
from kg_agent.tools.shared.grounding import RunGrounding, UnaskedAnswers
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS
from kg_agent.tools.tog.prune_entities import chain_triplets, triplet_text
from kg_agent.tools.tog.prune_relations import (
    SimilarityRelationPruner,
    guided_query,
    relation_walks,
)

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

_JOIN = "\x1f"


def _joined(relations: Sequence[str]) -> str:
    return _JOIN.join(relations)


@dataclass
class VerifyOutcome(Outcome):
    """The decision, the answer the verifier named (if any), the accepted reply (empty when the model's reply
    was rejected and the offline verifier decided: a rejected reply is never reused), warnings and usage."""

    sufficient: bool
    answer: str | None = None
    reply: str = ""
    budget_exhausted: bool = False
    relations: tuple[str, ...] | None = None  # the relation path the offline verifier judged best (answered from)
    depth: int | None = None  # the depth of the chains with that path


@runtime_checkable
class Verifier(Decider, Protocol):
    def verify(self, question: str, chains: Sequence[dict], *, depth: int) -> Decided[VerifyOutcome]: ...


def best_chain(chains: Sequence[dict], depth: int | None = None) -> dict | None:
    """The highest-scored chain (of ``depth`` when given); the first one on ties."""
    pool = [c for c in chains if depth is None or c.get("depth") == depth] or list(chains)
    return max(pool, key=lambda c: c.get("score", 0.0)) if pool else None


class ScoreVerifier:
    """Offline verification from the relation-path scorer the offline pruners use (see the module docstring);
    ``margin`` favours stopping.

    The scorer (:class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`) rewards a path for explaining
    the question's words and penalises a hop no phrase evidences, so "Where did [ENT]'s father die?" goes on
    from ``father`` to ``place of death`` and "who directed [X]" stops after ``directed_by``.
    """

    name = "score"

    def __init__(
        self,
        kg: KnowledgeGraph,
        *,
        embeddings: Embeddings | None = None,
        margin: float = 0.0,
        lookahead: int = 2,
        sample: int = 30,
        max_extensions: int = 300,
        ignored_relations: Sequence[str] = DEFAULT_IGNORED_RELATIONS,
        scorer: RelationPathScorer | None = None,
    ) -> None:
        self.kg = kg
        self.margin = margin
        self.lookahead = lookahead
        self.sample = sample
        self.max_extensions = max_extensions
        self.ignored_relations = tuple(ignored_relations)
        self._similarity = SimilarityRelationPruner(kg=kg, embeddings=embeddings, scorer=scorer)

    def extensions(self, chain: dict) -> list[str]:
        """The chain's relation path extended by 1..``lookahead`` relations walkable from its last entity.

        Returned as single "relations" (the whole path joined) so one similarity call ranks them all.
        """
        walk = Walk.from_dict(chain)
        walks = relation_walks(self.kg, [walk.end.id], self.lookahead, sample=self.sample,
                               ignored_relations=self.ignored_relations, max_paths=self.max_extensions,
                               reached_over=walk.relations[-1] if walk.relations else None,
                               came_from=walk.steps[-1].head.id if walk.steps else None)
        return [_joined((*walk.relations, *more)) for more in walks]

    def verify(self, question, chains, *, depth) -> VerifyOutcome:
        explored = [c for c in chains if c.get("steps")]
        if not explored:
            return VerifyOutcome(False, source=self.name)
        starts = {c["start"]["id"]: Entity(c["start"]["id"], c["start"]["label"]) for c in explored}
        query = guided_query(question, entities=list(starts.values()))  # mentions abstracted as in relation pruning
        # a chain back to the question's own topic entity (or one named as it) answers nothing the question asks
        # (or of a kind the question does not ask for: persons for "which films"), nor does an extension of that kind
        unasked = UnaskedAnswers(question, [c["start"] for c in explored], kg=self.kg)
        answerable = answerable_chains(question, explored, unasked=unasked)
        beam = [c for c in explored if c.get("depth") == depth]
        if not answerable:  # explore on from where the beam stands
            return VerifyOutcome(False, source=self.name)
        paths = list(dict.fromkeys(_joined(Walk.from_dict(c).relations) for c in answerable))
        best, now = self._similarity.best_similarity(query, (), paths)
        path = paths[best]
        chain = best_chain([c for c in answerable if _joined(Walk.from_dict(c).relations) == path])
        beam = beam or [chain]
        ahead = [e for e in dict.fromkeys(e for c in beam for e in self.extensions(c))
                 if not unasked.wrong_kind(e.split(_JOIN))]
        extension = (self._similarity.best_similarity(query, (), ahead) or (None, float("-inf")))[1]
        sufficient = now + self.margin >= extension
        return VerifyOutcome(sufficient, Walk.from_dict(chain).end.label if sufficient else None, source=self.name,
                             relations=Walk.from_dict(chain).relations, depth=chain.get("depth"))


def answerable_chains(question: str, chains: Sequence[dict], *, kg: KnowledgeGraph | None = None,
                      unasked: UnaskedAnswers | None = None) -> list[dict]:
    """The chains whose end may answer the question (:class:`~kg_agent.tools.shared.grounding.UnaskedAnswers`, built
    from the chains' starts unless given): not a topic entity (a chain's start) nor an entity named as one, unless
    the question asks for what the chain's last relation reaches by name; with ``kg``, not of a kind the question
    does not ask for (persons for "which films")."""
    unasked = unasked or UnaskedAnswers(question, [c["start"] for c in chains], kg=kg)
    return [c for c in chains if not c.get("steps") or not unasked.excluded_walk(c)]


VERIFY_PROMPT = """Given a question and the associated retrieved knowledge graph triplets (entity, relation, entity), you are asked to answer whether it's sufficient for you to answer the question with these triplets and your knowledge (Yes or No).
Q: Find the person who said "Taste cannot be controlled by law", what did this person die from?
Knowledge Triplets: Taste cannot be controlled by law., media_common.quotation.author, Thomas Jefferson
A: {{No}}. Based on the given knowledge triplets, it's not sufficient to answer the entire question. The triplets only provide information about the person who said "Taste cannot be controlled by law," which is Thomas Jefferson. To answer the second part of the question, it's necessary to have additional knowledge about where Thomas Jefferson's dead.

Q: The artist nominated for The Long Winter lived where?
Knowledge Triplets: The Long Winter, book.written_work.author, Laura Ingalls Wilder
Laura Ingalls Wilder, people.person.places_lived, Unknown-Entity
Unknown-Entity, people.place_lived.location, De Smet
A: {{Yes}}. Based on the given knowledge triplets, the author of The Long Winter, Laura Ingalls Wilder, lived in De Smet. Therefore, the answer to the question is {{De Smet}}.

Q: {question}
Knowledge Triplets: {triplets}
A: """  # noqa: E501 (prompt text kept verbatim)


class LLMVerifier(LLMDecider, RunGrounding):
    """ToG's evaluation prompt; ``{Yes}``/``{No}`` (or a leading Yes/No) plus the braced answer.

    Under ``grounding="strict"`` the decision carries its candidates: the answer a schema allows is the end of an
    explored chain the prompt shows (an ``enum``, best-scored chains first; or none), so a server that constrains
    decoding (llama.cpp under ``structured_output="auto"``) lets the model answer only what a chain reaches."""

    def __init__(self, model: BaseChatModel, *, fallback: Verifier | None = None, prompt: str = VERIFY_PROMPT,
                 max_triplets: int = 200, structured_output: StructuredMode = "auto",
                 grounding: Grounding = DEFAULT_GROUNDING) -> None:
        # without candidates (grounding "prefer", "off") a grammar server keeps the text prompt: under the grammar SmolLM2
        # parsed every verification on the first call but said Yes at the first depth, so ToG stopped a hop short on
        # MetaQA 2- and 3-hop questions (0 of 4 and 1 of 3 against 4 and 3 offline; docs/real_llm.md)
        super().__init__(model, "verify", fallback=fallback, structured_output=structured_output, schema=Verification,
                         reply_format="{Yes}. ... the answer is {answer}   or   {No}. ...")
        self.grounding = grounding
        self.prompt = prompt
        self.max_triplets = max_triplets

    def verify(self, question, chains, *, depth):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        lines = chain_triplets(chains)
        warnings: list[str] = []
        if len(lines) > self.max_triplets:
            warnings.append(f"verify: {len(lines)} triplets; the prompt keeps the first {self.max_triplets}")
            lines = lines[: self.max_triplets]
        prompt = self.prompt.format(question=question, triplets="\n".join(lines))

        def parse(reply: str):
            decision, answer = parse_yes_no(reply)
            return (None if decision is None else (decision, answer)), []

        candidates = chain_ends(chains, set(lines)) if self.grounding == "strict" else None
        asked = yield self.decision.request(prompt, parse, candidates=candidates)
        if asked.decided:
            decision, answer = asked.value
            return VerifyOutcome(decision, answer if decision else None, asked.reply, warnings=warnings + asked.warnings,
                                 usage=asked.usage, source=self.name)
        if self.fallback is None:
            outcome = VerifyOutcome(False, source=self.name)
            return fall_back(asked, outcome, node="verify", to="exploring on (no decision)", before=warnings)
        return fall_back(asked, decided(self.fallback.verify, question, chains, depth=depth), node="verify",
                         to=f"the {self.fallback.name} verifier", before=warnings)


def chain_ends(chains: Sequence[dict], shown: set[str]) -> Candidates:
    """The labels of the ends of the explored chains whose last triplet the prompt shows (``shown``), in chain
    order; ranked (for a cut) by the chains' scores."""
    ending = [c for c in chains if c.get("steps") and triplet_text(c["steps"][-1]) in shown]

    def by_score() -> list[str]:
        return [Walk.from_dict(c).end.label for c in sorted(ending, key=lambda c: -c.get("score", 0.0))]

    return Candidates(list(dict.fromkeys(Walk.from_dict(c).end.label for c in ending)), rank=by_score)


def round_chains(state: dict) -> list[dict]:
    """The chains of the current round (all of them in ToG; ToG-I's outer iteration ``round``)."""
    return [c for c in state.get("chains") or [] if (c.get("round") or 0) == (state.get("round") or 0)]


def verify_request(state: dict, *, verifier: Verifier):
    """The verification of the chains explored so far (this round's, in ToG-I), as a step to yield."""
    return decide(verifier.verify, state["question"], round_chains(state), depth=int(state.get("depth") or 0))


def verification_update(state: dict, outcome: VerifyOutcome) -> dict:
    """The state update of a verification: ``verification``, warnings and usage."""
    depth = int(state.get("depth") or 0) if outcome.depth is None else outcome.depth
    verification = {"sufficient": outcome.sufficient, "answer": outcome.answer, "depth": depth,
                    "source": outcome.source, "reply": outcome.reply}
    if outcome.relations is not None:
        verification["relations"] = list(outcome.relations)
    if outcome.budget_exhausted:
        verification["budget_exhausted"] = True
    return {
        "verification": verification,
        "warnings": outcome.warnings,
        "usage": outcome.usage,
    }


def verify_steps(state: dict, *, verifier: Verifier):
    """Graph node (as steps): ask whether the chains explored so far (this round's, in ToG-I) answer the question.

    Writes ``verification``: ``{"sufficient", "answer", "depth", "source", "reply"}``; the graph routes on it.
    """
    outcome = yield verify_request(state, verifier=verifier)
    return verification_update(state, outcome)


verify_node = synchronous(verify_steps)


def with_stop_reason(state: dict, update: dict, *, max_depth: int, kg: KnowledgeGraph | None = None) -> dict:
    """A verification's ``update`` with the stop reason: ``verified``, ``max_depth`` or '' (explore on; once the call
    budget is spent, the next exploration step stops, see :func:`~kg_agent.tools.shared.question_budget.budgeted`).
    With ``kg``, chains that all end at statement nodes (:func:`~kg_agent.tools.shared.answer_checks.walks_to_named`)
    are never enough: a statement node is a step inside a fact, so the search walks on through it."""
    if update["verification"]["sufficient"] and kg is not None and only_statement_ends(round_chains(state), kg):
        update["verification"] = {**update["verification"], "sufficient": False}
        update["warnings"] = [*update.get("warnings", []),
                              "verify: every chain ends at an unnamed statement node; exploring on through it"]
    if update["verification"]["sufficient"] and kg is not None and judged_ends_uncompared(
            state.get("question") or "", round_chains(state), update["verification"], kg):
        update["verification"] = {**update["verification"], "sufficient": False}
        update["warnings"] = [*update.get("warnings", []), "verify: the question compares, and the ends of the chains "
                              "judged best have no value to compare; exploring on"]
    if update["verification"]["sufficient"]:
        stop = "verified"
    elif int(state.get("depth") or 0) >= max_depth:
        stop = "max_depth"
    else:
        stop = ""
    update["stop_reason"] = stop
    return update


def verify_and_decide(state: dict, *, verifier: Verifier, max_depth: int, kg: KnowledgeGraph | None = None):
    """``verify``, then the stop reason (:func:`with_stop_reason`). Steps."""
    update = yield from verify_steps(state, verifier=verifier)
    return with_stop_reason(state, update, max_depth=max_depth, kg=kg)


def judged_ends_uncompared(question: str, chains: Sequence[dict], verification: dict, kg: KnowledgeGraph) -> bool:
    """Whether the question compares by an attribute its words name among the KG's relations ("the earliest-born
    author of a book on [shelf]": a birth date; :func:`~kg_agent.tools.shared.aggregates.asked_comparison`,
    :meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.compared_relation`), the relation path the offline verifier
    judged best does not walk that relation, and its chains' ends have no value the comparison ranks them by (the
    books' publisher, a name with no date): such chains answer no comparison, so the search goes on (ToG-I to its
    next, wider round). A comparison whose words name no relation ("the most books": a count), or the judged path's
    own ("the first edition" naming the publisher's), stops as before."""
    judged = verification.get("relations")
    asked = asked_comparison(question)
    if not judged or asked is None:
        return False
    ranker = AnswerRanker()
    try:  # the attribute compared: the KG's relation the comparison's own words name ("earliest-born": a birth date)
        attribute = ranker.compared_relation(asked.words, [r for r in kg.relation_names() if not r.startswith("^")], kg)
    except KGError:
        return False
    if attribute is None or attribute in judged:  # none named ("the most books"), or the judged path walks it
        return False
    ends = {(end := Walk.end_of(c))["id"]: (end, c) for c in chains
            if c.get("steps") and list(Walk.from_dict(c).relations) == list(judged)}
    if not ends:
        return False
    records = [{"answer": end.get("label") or key, "entity_id": key, "paths": [chain]} for key, (end, chain) in ends.items()]
    try:
        return ranker.apply(question, records, kg) is None
    except KGError:
        return False


def only_statement_ends(chains: Sequence[dict], kg: KnowledgeGraph) -> bool:
    """Whether some chain was explored and every explored one ends at a statement node."""
    explored = [c for c in chains if c.get("steps")]
    return bool(explored) and {Walk.end_of(c)["id"] for c in explored} <= statement_ends(explored, kg)
