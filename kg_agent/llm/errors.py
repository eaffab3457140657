"""Exceptions raised by the LLM service layer.

Every error that the layer raises on purpose derives from :class:`KGAgentLLMError`, so a caller
can catch "anything the LLM layer refused or failed to do" with one ``except`` clause.
"""

from __future__ import annotations


class KGAgentLLMError(RuntimeError):
    """Base class of every error raised on purpose by :mod:`kg_agent.llm`."""


class ModelConfigurationError(KGAgentLLMError, ValueError):
    """A model specification cannot be turned into a chat model (unknown provider, missing key...)."""


class BudgetExceeded(KGAgentLLMError):
    """The question's :class:`~kg_agent.llm.budget.QuestionBudget` is spent; the call was not made."""


class LLMCallError(KGAgentLLMError):
    """The chat model failed (network error, timeout, HTTP error, malformed reply...).

    The original exception is kept as ``__cause__``.
    """


class ScriptExhaustedError(KGAgentLLMError):
    """A :class:`~kg_agent.llm.scripted.ScriptedChatModel` was asked for more replies than scripted."""


class LLMUnavailable(LLMCallError):
    """The model already failed too often for this question; the call was not made (circuit breaker).

    Raised by :func:`~kg_agent.llm.call_llm` inside a method graph once a question has seen
    ``QuestionBudget.max_llm_errors`` failed calls: its deciders use their offline twins from then on.
    """
