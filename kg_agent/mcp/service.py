"""What the MCP tools call (:class:`KGService`): the KG, the model and the compiled method graphs behind them, as plain
synchronous calls with their arguments checked and their results shaped."""

import inspect
import sys
import threading
import uuid
from collections.abc import Mapping
from typing import Any

from kg_agent.graphs.registry import METHODS, create_graph, graph_factory, options_for
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.mcp.input_checks import MAX_QUESTION_CHARS, checked_relations, checked_text
from kg_agent.mcp.results import AskResult, NeighboursResult, PathsResult, RelationsResult, SearchResult, ask_result, kg_summary
from kg_agent.settings import GraphSettings, RunSettings
from kg_agent.tools import lookups
from kg_agent.tools.lookups import KGToolError


def method_graph(method: str, kg: KnowledgeGraph, *, model=None, documents=None, max_seconds: float | None = None,
                 ask_when_ambiguous: bool = False):
    """The uncompiled graph of ``method`` over ``kg``; ToG-2 also gets the documents (``None``: see its docs).
    ``max_seconds``: the wall time of each question's budget (``None``: unlimited); ``ask_when_ambiguous``: see
    :class:`~kg_agent.settings.GraphSettings`."""
    if method not in METHODS:
        raise KGToolError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    settings = GraphSettings(model=model, max_seconds=max_seconds, ask_when_ambiguous=ask_when_ambiguous)
    return create_graph(method, kg, settings=settings, **options_for(method, {"documents": documents}))


def method_descriptions() -> dict[str, str]:
    """Each method with the first line of its module's docstring."""
    return {name: (inspect.getdoc(sys.modules[graph_factory(name).__module__]) or name).splitlines()[0]
            for name in METHODS}


class KGService:
    """The KG, the model and the compiled method graphs behind the server's tools; plain synchronous calls.
    ``max_seconds``: the wall time of each ``ask``'s question budget (``None``: unlimited)."""

    def __init__(self, kg: KnowledgeGraph, *, model=None, documents=None, max_seconds: float | None = None) -> None:
        self.kg = kg
        self.model = model
        self.documents = documents
        self.max_seconds = max_seconds
        self._graphs: dict[str, Any] = {}
        self._asking_graphs: dict[str, Any] = {}
        self._summary: dict | None = None
        self._lock = threading.Lock()

    def search_entities(self, text: str, limit: int) -> SearchResult:
        """Entities by name (no match is an empty list with a note naming the closest labels)."""
        return SearchResult.model_validate(lookups.search_entities(self.kg, checked_text(text, "text"), limit=limit))

    def entity_relations(self, entity: str, limit: int) -> RelationsResult:
        """An entity's relations with their fan-out."""
        found = lookups.entity_relations(self.kg, checked_text(entity, "entity"), limit=limit)
        return RelationsResult.model_validate(found)

    def neighbours(self, entity: str, relation: str, limit: int) -> NeighboursResult:
        """The entities one relation leads to."""
        found = lookups.neighbours(self.kg, checked_text(entity, "entity"), checked_text(relation, "relation"), limit=limit)
        return NeighboursResult.model_validate(found)

    def retrieve_paths(self, entity: str, relations: list[str], limit: int) -> PathsResult:
        """The reasoning paths a relation path yields from an entity."""
        rels = checked_relations(relations)
        found = lookups.retrieve(self.kg, rels, entity=checked_text(entity, "entity"), limit=limit)
        return PathsResult.model_validate(found)

    def graph(self, method: str):
        """The compiled graph of ``method``, built on first use."""
        with self._lock:
            if method not in self._graphs:
                self._graphs[method] = method_graph(method, self.kg, model=self.model, documents=self.documents,
                                                    max_seconds=self.max_seconds).compile()
            return self._graphs[method]

    def asking_graph(self, method: str):
        """The compiled graph of ``method`` that asks which entity an ambiguous mention means (a LangGraph
        ``interrupt``, :mod:`kg_agent.tools.shared.ambiguity`), with an in-memory checkpointer; built on first use."""
        from langgraph.checkpoint.memory import InMemorySaver

        with self._lock:
            if method not in self._asking_graphs:
                graph = method_graph(method, self.kg, model=self.model, documents=self.documents,
                                     max_seconds=self.max_seconds, ask_when_ambiguous=True)
                self._asking_graphs[method] = graph.compile(checkpointer=InMemorySaver())
            return self._asking_graphs[method]

    def ask(self, question: str, method: str, settings: RunSettings | None = None) -> AskResult:
        """A method's answer, run with ``settings`` (:class:`~kg_agent.settings.RunSettings`: grounding, structured
        output, tighter budgets); :class:`KGToolError` when the question names no entity of the KG."""
        question = checked_text(question, "question", max_chars=MAX_QUESTION_CHARS)
        return self._answer(self.graph(method).invoke({"question": question}, context=settings), method)

    def ask_choosing(self, question: str, method: str, settings: RunSettings | None,
                     choices: Mapping[str, str]) -> AskResult | dict:
        """:meth:`ask`, where a mention several entities fit equally well is narrowed to the one ``choices`` names
        for it (mention -> entity id). The first such mention ``choices`` has no candidate's id for stops the run:
        its question to the user is returned instead of the answer (the interrupt's value,
        :func:`~kg_agent.tools.shared.ambiguity.ambiguity_request`). Nothing is kept between calls: each call
        runs the graph afresh and replays the choices (the MCP revision 2026-07-28 keeps no session)."""
        from langgraph.types import Command

        question = checked_text(question, "question", max_chars=MAX_QUESTION_CHARS)
        app = self.asking_graph(method)
        thread = uuid.uuid4().hex
        config = {"configurable": {"thread_id": thread}}
        try:
            state = app.invoke({"question": question}, config, context=settings)
            while state.get("__interrupt__"):
                asked = state["__interrupt__"][0].value
                chosen = choices.get(asked["mention"])
                if chosen not in {card["id"] for card in asked["candidates"]}:
                    return asked
                state = app.invoke(Command(resume={"id": chosen}), config, context=settings)
        finally:
            app.checkpointer.delete_thread(thread)
        return self._answer(state, method)

    @staticmethod
    def _answer(state: dict, method: str) -> AskResult:
        """The finished run's result; :class:`KGToolError` when it found no entity of the KG in the question."""
        if not state.get("topic_entities"):
            reasons = [w.removeprefix("link: ") for w in state.get("warnings") or [] if w.startswith("link:")]
            reason = "; ".join(reasons).rstrip(". ") or "no entity of the knowledge graph found in the question"
            raise KGToolError(f"{reason}. Name an entity as the KG writes it, e.g. in [brackets] "
                              "(search_entities finds labels).")
        return ask_result(state, method=method)

    def summary(self) -> dict:
        """Size and relations (with triple counts) of the KG, computed once."""
        with self._lock:
            if self._summary is None:
                self._summary = kg_summary(self.kg)
            return self._summary

    def methods(self) -> dict:
        """The methods ``ask`` runs, the chat model and ToG-2's documents."""
        docs = "configured" if self.documents else "none given (the bundled plot summaries with the sample KG, else KG only)"
        return {
            "methods": method_descriptions(),
            "model": type(self.model).__name__ if self.model is not None else "none (offline deciders)",
            "tog2_documents": docs,
        }
