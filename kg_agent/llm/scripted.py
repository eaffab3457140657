"""A deterministic chat model for tests and reproducible benchmarks.

:class:`ScriptedChatModel` is a real LangChain :class:`BaseChatModel` (``invoke``, ``ainvoke``,
``stream``, ``astream``, ``batch``, callbacks all work) whose replies come from a script:

* a list of responses, returned in order (a response may also be an exception instance, which is
  raised, to test error handling); asking for more raises :class:`ScriptExhaustedError`;
* or a ``responder(prompt_text) -> str`` callable, for replies that depend on the prompt.

A scripted ``AIMessage`` may carry ``tool_calls``; :meth:`ScriptedChatModel.bind_tools` accepts tools (the
script decides which to call), so the model drives tool-calling agents too.

Every prompt it receives is recorded in :attr:`ScriptedChatModel.prompts`. Replies carry
``usage_metadata`` with ``input_tokens = len(prompt_text) // 4`` and
``output_tokens = len(reply) // 4`` so token accounting can be tested.

>>> model = ScriptedChatModel(["<PATH> starred_actors </PATH>", "Tom Hanks"])
>>> model.invoke("plan please").content
'<PATH> starred_actors </PATH>'
>>> model.prompts
['plan please']
>>> echo = ScriptedChatModel(responder=lambda prompt: prompt.upper())
>>> echo.invoke("hi").content
'HI'
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, PrivateAttr

from kg_agent.llm.errors import ScriptExhaustedError
from kg_agent.llm.usage import estimate_tokens

#: One scripted reply: text, a ready-made AIMessage, or an exception to raise.
ScriptedResponse = str | AIMessage | BaseException


def messages_to_prompt_text(messages: Sequence[BaseMessage]) -> str:
    """The text a responder sees: message contents joined by blank lines (roles are dropped)."""
    return "\n\n".join(str(message.text) for message in messages)


class ScriptedChatModel(BaseChatModel):
    """Chat model that replies from a fixed list of responses or a ``responder`` callable.

    Args:
        responses: replies returned in order (``str``, ``AIMessage`` or an exception to raise).
        responder: ``prompt_text -> reply`` used instead of (or after running out of) ``responses``.
        model_name: name reported in descriptions and run metadata.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responses: list[Any] | None = None
    responder: Callable[[str], str] | None = None
    model_name: str = "scripted"

    _next_index: int = PrivateAttr(default=0)
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self,
        responses: Sequence[ScriptedResponse] | None = None,
        *,
        responder: Callable[[str], str] | None = None,
        **kwargs: Any,
    ) -> None:
        if responses is None and responder is None:
            raise ValueError("ScriptedChatModel needs a list of responses or a responder callable")
        if isinstance(responses, str):
            raise TypeError("responses must be a list of replies, not one string")
        super().__init__(responses=list(responses) if responses is not None else None, responder=responder, **kwargs)

    # -- inspection -----------------------------------------------------------------------
    @property
    def prompts(self) -> list[str]:
        """Every prompt text received so far, in order (a copy)."""
        with self._lock:
            return list(self._prompts)

    @property
    def calls(self) -> int:
        """How many prompts the model has received."""
        with self._lock:
            return len(self._prompts)

    @property
    def remaining(self) -> int | None:
        """Scripted responses not used yet (``None`` when a responder answers everything)."""
        if self.responses is None:
            return None
        with self._lock:
            return len(self.responses) - self._next_index

    # -- BaseChatModel ----------------------------------------------------------------------
    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any):
        """Bind tools (OpenAI format) like a real tool-calling model; the script says which ones are called."""
        from langchain_core.utils.function_calling import convert_to_openai_tool

        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _next_reply(self, prompt_text: str) -> AIMessage:
        with self._lock:
            self._prompts.append(prompt_text)
            scripted: ScriptedResponse | None = None
            if self.responses is not None and self._next_index < len(self.responses):
                scripted = self.responses[self._next_index]
                self._next_index += 1
            elif self.responder is None:
                raise ScriptExhaustedError(
                    f"ScriptedChatModel ran out of responses: all {len(self.responses or [])} scripted replies "
                    f"were used and call #{len(self._prompts)} got the prompt {prompt_text[:200]!r}"
                )
        if scripted is None:
            assert self.responder is not None
            scripted = self.responder(prompt_text)
        if isinstance(scripted, BaseException):
            raise scripted
        if isinstance(scripted, AIMessage):
            message = scripted.model_copy()
            if message.usage_metadata is None:
                message.usage_metadata = self._usage(prompt_text, str(message.text))
            return message
        text = str(scripted)
        return AIMessage(content=text, usage_metadata=self._usage(prompt_text, text))

    @staticmethod
    def _usage(prompt_text: str, reply: str) -> UsageMetadata:
        input_tokens, output_tokens = estimate_tokens(prompt_text), estimate_tokens(reply)
        return UsageMetadata(
            input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=input_tokens + output_tokens
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._next_reply(messages_to_prompt_text(messages))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._next_reply(messages_to_prompt_text(messages))
        text = str(message.text)
        if message.tool_calls:  # one chunk carrying the calls
            calls = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c.get("id"), "index": i, "type": "tool_call_chunk"}
                for i, c in enumerate(message.tool_calls)
            ]
            chunk = ChatGenerationChunk(message=AIMessageChunk(
                content=text, tool_call_chunks=calls, usage_metadata=message.usage_metadata, chunk_position="last"))
            if run_manager is not None:
                run_manager.on_llm_new_token(text, chunk=chunk)
            yield chunk
            return
        pieces = re.findall(r"\s*\S+|\s+", text) or [""]
        for index, piece in enumerate(pieces):
            is_last = index == len(pieces) - 1
            chunk = ChatGenerationChunk(
                message=AIMessageChunk(
                    content=piece,
                    usage_metadata=message.usage_metadata if is_last else None,
                    chunk_position="last" if is_last else None,
                )
            )
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
