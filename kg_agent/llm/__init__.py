"""The LLM service layer: choosing a chat model, calling it with accounting and budgets, parsing replies.

* :func:`resolve_chat_model` - ``"openai:gpt-4o-mini"`` / ``"none"`` / a chat model -> chat model or ``None`` (offline).
* :func:`call_llm` / :func:`acall_llm` - the one way deciders call a model.
* :class:`UsageTracker`, :func:`merge_usage` - per-node call/token accounting.
* :class:`QuestionBudget` - per-question caps on LLM calls (with a reserve for the answer), tokens and wall time,
  and the circuit breaker that stops calling a failing model (:mod:`kg_agent.llm.budget`); the one limiter, checked
  by :func:`call_llm` inside :func:`question_allowance`.
* ``CallLimit`` and ``LLMCaller`` are deprecated (a ``DeprecationWarning``; removed in the next release).
* :func:`enable_llm_cache` / :func:`llm_cache` - optional SQLite cache of model replies (:mod:`kg_agent.llm.cache`).
* :mod:`kg_agent.llm.parsing` - lenient parsers for RoG/ToG output formats.
* :class:`ScriptedChatModel` - deterministic chat model for tests and reproducible benchmarks.

Names are imported on first use (:mod:`kg_agent.lazy_exports`).
"""

from typing import TYPE_CHECKING

from kg_agent.lazy_exports import lazy_exports

if TYPE_CHECKING:  # what type checkers read; at run time each name is imported on first use (below)
    from kg_agent.llm.budget import DEFAULT_MAX_LLM_ERRORS, QuestionBudget, question_allowance
    from kg_agent.llm.cache import SQLiteLLMCache, disable_llm_cache, enable_llm_cache, llm_cache
    from kg_agent.llm.errors import (
        BudgetExceeded,
        KGAgentLLMError,
        LLMCallError,
        LLMUnavailable,
        ModelConfigurationError,
        ScriptExhaustedError,
    )
    from kg_agent.llm.models import (
        DEFAULT_OPENAI_MODEL,
        default_model_from_env,
        describe_chat_model,
        is_offline_model_spec,
        resolve_chat_model,
    )
    from kg_agent.llm.parsing import (
        ScoredParse,
        normalize_name,
        parse_answer_list,
        parse_json_object,
        parse_relation_paths,
        parse_scored_items,
        parse_yes_no,
    )
    from kg_agent.llm.scripted import ScriptedChatModel
    from kg_agent.llm.usage import (
        CallLimit,
        LLMCaller,
        LLMReply,
        PromptInput,
        UsageTracker,
        acall_llm,
        acall_llm_reply,
        call_llm,
        call_llm_reply,
        empty_usage,
        estimate_tokens,
        merge_usage,
    )

_EXPORTS = {
    "DEFAULT_MAX_LLM_ERRORS": "kg_agent.llm.budget",
    "QuestionBudget": "kg_agent.llm.budget",
    "question_allowance": "kg_agent.llm.budget",
    "SQLiteLLMCache": "kg_agent.llm.cache",
    "disable_llm_cache": "kg_agent.llm.cache",
    "enable_llm_cache": "kg_agent.llm.cache",
    "llm_cache": "kg_agent.llm.cache",
    "BudgetExceeded": "kg_agent.llm.errors",
    "KGAgentLLMError": "kg_agent.llm.errors",
    "LLMCallError": "kg_agent.llm.errors",
    "LLMUnavailable": "kg_agent.llm.errors",
    "ModelConfigurationError": "kg_agent.llm.errors",
    "ScriptExhaustedError": "kg_agent.llm.errors",
    "DEFAULT_OPENAI_MODEL": "kg_agent.llm.models",
    "default_model_from_env": "kg_agent.llm.models",
    "describe_chat_model": "kg_agent.llm.models",
    "is_offline_model_spec": "kg_agent.llm.models",
    "resolve_chat_model": "kg_agent.llm.models",
    "ScoredParse": "kg_agent.llm.parsing",
    "normalize_name": "kg_agent.llm.parsing",
    "parse_answer_list": "kg_agent.llm.parsing",
    "parse_json_object": "kg_agent.llm.parsing",
    "parse_relation_paths": "kg_agent.llm.parsing",
    "parse_scored_items": "kg_agent.llm.parsing",
    "parse_yes_no": "kg_agent.llm.parsing",
    "ScriptedChatModel": "kg_agent.llm.scripted",
    "CallLimit": "kg_agent.llm.usage",
    "LLMCaller": "kg_agent.llm.usage",
    "LLMReply": "kg_agent.llm.usage",
    "PromptInput": "kg_agent.llm.usage",
    "UsageTracker": "kg_agent.llm.usage",
    "acall_llm": "kg_agent.llm.usage",
    "acall_llm_reply": "kg_agent.llm.usage",
    "call_llm": "kg_agent.llm.usage",
    "call_llm_reply": "kg_agent.llm.usage",
    "empty_usage": "kg_agent.llm.usage",
    "estimate_tokens": "kg_agent.llm.usage",
    "merge_usage": "kg_agent.llm.usage",
}

__all__ = [
    "DEFAULT_MAX_LLM_ERRORS",
    "DEFAULT_OPENAI_MODEL",
    "CallLimit",
    "BudgetExceeded",
    "KGAgentLLMError",
    "LLMCallError",
    "LLMCaller",
    "LLMUnavailable",
    "QuestionBudget",
    "question_allowance",
    "SQLiteLLMCache",
    "disable_llm_cache",
    "enable_llm_cache",
    "llm_cache",
    "LLMReply",
    "ModelConfigurationError",
    "PromptInput",
    "ScoredParse",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "UsageTracker",
    "acall_llm",
    "acall_llm_reply",
    "call_llm",
    "call_llm_reply",
    "default_model_from_env",
    "describe_chat_model",
    "empty_usage",
    "estimate_tokens",
    "is_offline_model_spec",
    "merge_usage",
    "normalize_name",
    "parse_answer_list",
    "parse_json_object",
    "parse_relation_paths",
    "parse_scored_items",
    "parse_yes_no",
    "resolve_chat_model",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
