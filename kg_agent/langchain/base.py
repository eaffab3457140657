"""The base classes of the KG tools: a read-only tool over one KnowledgeGraph, and one that asks a decider."""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, Field, PrivateAttr, ValidationError

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.lookups import (
    clamp_limit,
)


def validation_message(error: ValidationError | Exception) -> str:
    """A short message for arguments that do not match the tool's schema."""
    if isinstance(error, ValidationError):
        parts = [f"{'.'.join(str(x) for x in e['loc']) or 'input'}: {e['msg']}" for e in error.errors()[:5]]
        return "invalid arguments: " + "; ".join(parts)
    return f"invalid arguments: {error}"


# ---------------------------------------------------------------------------------------------- base
class KGTool(BaseTool):
    """A tool over one :class:`KnowledgeGraph` (read only). Errors come back as messages, not exceptions."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kg: KnowledgeGraph = Field(exclude=True)
    #: Longest list a result shows (the rest is summarised in ``note``).
    max_items: int = 20
    handle_tool_error: bool = True
    handle_validation_error: Any = validation_message

    def _limit(self, limit: int | None) -> int:
        return clamp_limit(limit, self.max_items)


class DeciderTool(KGTool):
    """A tool that asks a decider (LLM one when ``model`` is set, else offline); built on first use."""

    model: BaseChatModel | None = Field(default=None, exclude=True)
    _decider_cache: Any = PrivateAttr(default=None)
    _decider_lock: Any = PrivateAttr(default_factory=threading.Lock)

    def _given_decider(self) -> Any:
        return None

    def _default_decider(self) -> Any:
        raise NotImplementedError

    def decider(self) -> Any:
        given = self._given_decider()
        if given is not None:
            return given
        with self._decider_lock:
            if self._decider_cache is None:
                self._decider_cache = self._default_decider()
            return self._decider_cache


