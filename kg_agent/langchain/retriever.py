"""RoG's reasoning paths as a LangChain retriever, for any RAG chain.

:class:`KGRetriever` runs RoG's first three steps for a query — link the question's entities, plan the
top-``k`` relation paths, retrieve the reasoning paths that follow them (Algorithm 1) — and returns each
reasoning path as a :class:`~langchain_core.documents.Document`::

    from kg_agent import KGRetriever
    from kg_agent.kg import open_kg

    retriever = KGRetriever(kg=open_kg(), max_documents=5)
    for doc in retriever.invoke("who directed the films that [Tom Hanks] starred in"):
        print(doc.page_content)   # Tom Hanks -> ^starred_actors -> Big -> directed_by -> Penny Marshall

``page_content`` is the path text (a relation starting with ``^`` is read backwards); ``metadata`` holds
``relations``, ``relation_path``, ``entity_ids``, ``entity_labels``, ``start`` / ``start_id``, ``answer`` /
``answer_id`` (the path's last entity), ``plan_rank``, ``plan_score`` and ``plan_source``. Documents come
best plan first, at most ``max_documents`` of them (``invoke(query, max_documents=3)`` overrides it per
call). A query with no entity of the KG, or no path, gives ``[]``; :meth:`KGRetriever.reasoning_state`
returns the whole state with its warnings.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field, PrivateAttr

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS
from kg_agent.kg.walks import Walk
from kg_agent.tools.rog.plan import DEFAULT_K, Planner, PlannerChoice, make_planner
from kg_agent.tools.rog.reasoning_paths import rog_reasoning_paths

DEFAULT_MAX_DOCUMENTS = 20


def path_document(path: dict, plans: list[dict]) -> Document:
    """One reasoning path (a state ``paths`` item) as a Document."""
    walk = Walk.from_dict(path)
    entities = [walk.start.to_dict(), *(step.tail.to_dict() for step in walk.steps)]
    relations = list(walk.relations)
    rank = int(path.get("plan", 0))
    plan = plans[rank] if rank < len(plans) else {}
    key = "\x1f".join([*(e["id"] for e in entities), *relations])
    return Document(
        id="kgpath-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16],
        page_content=path["text"],
        metadata={
            "source": "kg_agent.rog",
            "relations": relations,
            "relation_path": plan.get("text", ""),
            "entity_ids": [e["id"] for e in entities],
            "entity_labels": [e["label"] for e in entities],
            "start": entities[0]["label"],
            "start_id": entities[0]["id"],
            "answer": entities[-1]["label"],
            "answer_id": entities[-1]["id"],
            "plan_rank": rank,
            "plan_score": float(plan.get("score", 0.0)),
            "plan_source": plan.get("source", ""),
        },
    )


class KGRetriever(BaseRetriever):
    """Reasoning paths from a knowledge graph for a query (RoG: link -> plan -> retrieve), as Documents.

    Args:
        kg: the knowledge graph (only read).
        planner: a :class:`~kg_agent.tools.rog.plan.Planner` (LLM, exemplar or similarity planner), or
            ``"auto"`` / ``"similarity"``; ``None`` (default): the offline similarity planner.
        k: how many relation paths to plan (RoG's top-K, 3).
        max_paths: cap on reasoning paths searched per plan.
        max_documents: how many documents to return (best plans first); ``invoke(q, max_documents=n)``
            overrides it for one call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kg: KnowledgeGraph = Field(exclude=True)
    planner: Any = Field(default=None, exclude=True)
    k: int = Field(default=DEFAULT_K, ge=1)
    max_paths: int = Field(default=DEFAULT_MAX_PATHS, ge=1)
    max_documents: int = Field(default=DEFAULT_MAX_DOCUMENTS, ge=1)

    _planner: Planner | None = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def resolved_planner(self) -> Planner:
        """The planner in use (built on first use when none was given)."""
        with self._lock:
            if self._planner is None:
                choice: PlannerChoice | Planner = self.planner if self.planner is not None else "auto"
                self._planner = make_planner(self.kg, planner=choice)
            return self._planner

    def reasoning_state(self, query: str, *, k: int | None = None, max_paths: int | None = None) -> dict:
        """RoG's state after link -> plan -> retrieve: ``topic_entities``, ``plans``, ``paths``, ``warnings``."""
        return rog_reasoning_paths(
            self.kg, query, planner=self.resolved_planner(), k=k or self.k, max_paths=max_paths or self.max_paths
        )

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        max_documents: int | None = None,
        k: int | None = None,
        max_paths: int | None = None,
    ) -> list[Document]:
        limit = int(max_documents or self.max_documents)
        state = self.reasoning_state(query, k=k, max_paths=max_paths)
        plans = state.get("plans") or []
        ordered = sorted(enumerate(state.get("paths") or []), key=lambda pair: (pair[1].get("plan", 0), pair[0]))
        documents: list[Document] = []
        seen: set[str] = set()
        for _, path in ordered:
            if path["text"] in seen:
                continue
            seen.add(path["text"])
            documents.append(path_document(path, plans))
            if len(documents) >= limit:
                break
        return documents

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        max_documents: int | None = None,
        k: int | None = None,
        max_paths: int | None = None,
    ) -> list[Document]:
        return await run_in_executor(
            None,
            self._get_relevant_documents,
            query,
            run_manager=run_manager.get_sync(),
            max_documents=max_documents,
            k=k,
            max_paths=max_paths,
        )
