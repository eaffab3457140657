"""The state the method graphs share.

Every field is plain JSON (dicts, lists, strings, numbers), so a state checkpoints anywhere, streams to a
LangGraph server client and prints as JSON. Entities and triples are the ``to_dict()`` forms of
:mod:`kg_agent.kg.types`; every walk (RoG's ``paths``, the ToG family's ``chains`` and ``frontier``, an answer's
``paths``) is a :class:`~kg_agent.kg.walks.Walk`'s (``text``, ``start``, ``steps``, and what the method adds: ``score``,
``scores``, ``depth``, ``round``, RoG's ``plan``, ToG-2's ``entity``, ``clue``, ``relation_score``); answers are
:func:`answer_record` dicts.

``warnings`` and ``usage`` have reducers (:data:`~kg_agent.tools.shared.updates.REDUCERS`): each node returns only
its own warnings and the usage of its own calls, and the graph appends and adds them up. They are per turn: the
first node of a turn (``link``) starts them afresh (an ``Overwrite``), so a chatbot thread with a checkpointer does
not carry last turn's warnings along. The other per-turn fields (``stop_reason``, ``answers`` ...) have no reducer:
``link`` resets them. A node function called outside a graph: :func:`~kg_agent.tools.shared.updates.apply_update`.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

# typing_extensions' TypedDict, not typing's: on Python 3.11 pydantic builds the graphs' JSON schemas (the LangGraph
# server's input schemas and its /mcp tools) only from this one.
from typing_extensions import TypedDict

from kg_agent.llm.usage import merge_usage
from kg_agent.tools.shared.updates import answer_record, append_warnings  # noqa: F401  (answer_record re-exported)


class KGQuestionInput(TypedDict, total=False):
    """What a method graph accepts: a question, or a chat (its last human message is the question)."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]
    #: Optional topic entities given by the caller (ids or labels); otherwise they are linked from the question.
    topic_entities: list[Any]


class KGAnswerOutput(TypedDict, total=False):
    """What every method graph returns, whatever the method."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]
    topic_entities: list[dict]
    answers: list[dict]
    paths: list[dict]
    stop_reason: str
    usage: Annotated[dict, merge_usage]
    warnings: Annotated[list[str], append_warnings]


class KGState(KGQuestionInput, total=False):
    """Fields shared by all methods (see ``../shared/DESIGN.md``)."""

    topic_entities: list[dict]
    plans: list[dict]
    paths: list[dict]
    chains: list[dict]
    documents: list[dict]
    answers: list[dict]
    #: Free-text output of the answer step (the model's reply, or the offline answers one per line).
    output: str
    stop_reason: str
    usage: Annotated[dict, merge_usage]
    warnings: Annotated[list[str], append_warnings]
    #: ``time.time()`` when this turn's ``link`` step ran (the clock of a ``max_seconds`` budget).
    started_at: float


class RoGState(KGState, total=False):
    """RoG: link -> plan -> retrieve -> answer."""


class ToGState(KGState, total=False):
    """Think-on-Graph and ToG-I: link -> (prune relations -> prune entities -> verify) per depth -> answer.

    ``chains`` holds every scored chain explored (walks with ``steps``, ``score``, ``scores`` and ``depth``; ToG-I
    adds its outer iteration ``round``); ``frontier`` the beam being extended; ``candidate_relations``
    the (chain, relation) pairs kept by relation pruning; ``verification`` the last verification.
    ToG-I adds ``instructions``, the integrated ``guidance`` of the current ``round`` and its ``width``.
    """

    depth: int
    frontier: list[dict]
    candidate_relations: list[dict]
    verification: dict
    instructions: list[str]
    guidance: str
    round: int
    width: int


class ToGRunState(ToGState, total=False):
    """:class:`ToGState` plus what the graphs pass between steps only (not part of the result): ``speculated``, the
    next step's model replies asked ahead by ``verify`` (``speculate=True``; :mod:`kg_agent.tools.tog.speculate`)."""

    speculated: dict | None


class ToG2State(KGState, total=False):
    """Think-on-Graph 2.0: link -> topic prune -> clue queries -> (relation prune -> entity prune -> examine)*.

    ``frontier`` holds the current topic entities as walks with their clue queries (see
    :mod:`kg_agent.tools.tog2.frontier`); ``chains`` every entity kept so far; ``documents`` the chunks
    gathered so far, best first (``references``: the top-L the examine step read last).
    """

    frontier: list[dict]
    depth: int
    clue_queries: list[dict]
    relations: list[dict]
    candidates: list[dict]
    references: list[dict]
