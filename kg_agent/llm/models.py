"""Turning a model specification (``"openai:gpt-4o-mini"``, ``"none"``, a chat model object) into a chat model.

The whole library treats "no model" as a first-class mode: ``None`` means *offline* and every
decider falls back to its deterministic heuristic. :func:`resolve_chat_model` is the single place
where a user-facing model string becomes a LangChain chat model.

Examples::

    resolve_chat_model(None)                    # -> None (offline)
    resolve_chat_model("none")                  # -> None (offline)
    resolve_chat_model("openai:gpt-4o-mini")    # -> ChatOpenAI(model="gpt-4o-mini", temperature=0.0, ...)
    resolve_chat_model("gpt-4o-mini")           # -> same: a bare "gpt-..." name means OpenAI
    resolve_chat_model(my_chat_model)           # -> my_chat_model, unchanged

OpenAI-compatible servers (vLLM, llama.cpp, Ollama, a test server...) are reached by setting
``OPENAI_BASE_URL`` (``OPENAI_API_BASE`` is accepted too) and ``OPENAI_API_KEY``.

The command line (``kg-agent ask``, ``eval``, ``mcp``) and the LangGraph server use a chat model only when one is
named: ``--model``, else ``KG_AGENT_MODEL``, else none (offline). An API key in the environment is read only for
a model so named; on its own it never makes anything go online (:func:`default_model_from_env`).

Every model built here has a per-request ``timeout``, a cap on each reply's length (``max_tokens``) and
``stream_usage=True`` (token counts stay exact while streaming). Its HTTP client never resends a request on its
own (the SDK's ``max_retries`` is 0): the ``max_retries`` given here are made by :func:`kg_agent.llm.usage.call_llm`,
each resend counted as a call and checked against the call budget (see :data:`RETRIES_METADATA_KEY`).
"""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING, Any

from kg_agent.llm.errors import ModelConfigurationError

if TYPE_CHECKING:  # LangChain is imported when a model is resolved, not with the CLI's flags
    from langchain_core.language_models import BaseChatModel

#: Model strings that mean "no language model: run the deterministic offline deciders".
OFFLINE_MODEL_NAMES: frozenset[str] = frozenset({"", "none", "offline", "null", "no"})

#: The OpenAI model named in examples and error messages (never chosen on its own: no model named means offline).
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"

#: Seconds per HTTP request before the client gives up (a timed-out request is not resent).
DEFAULT_TIMEOUT_S = 60.0

#: Cap on each reply's length, in tokens: a decision (relation paths, scores, an answer) is far shorter.
DEFAULT_MAX_TOKENS = 512

#: Resends of a request that failed with a 429, a 5xx or a connection error (not a timeout).
DEFAULT_MAX_RETRIES = 1

#: ``metadata`` key of a model built here: how many resends :func:`kg_agent.llm.usage.call_llm` may make.
RETRIES_METADATA_KEY = "kg_agent_max_retries"

#: Bare model-name prefixes that are understood as OpenAI models without an ``openai:`` prefix.
OPENAI_BARE_NAME_PREFIXES: tuple[str, ...] = ("gpt-", "chatgpt-", "o1", "o3", "o4")

_MISSING_KEY_MESSAGE = (
    "model {spec!r} needs an OpenAI API key: set OPENAI_API_KEY or pass --model none to run offline "
    "(for an OpenAI-compatible server also set OPENAI_BASE_URL)"
)


def is_offline_model_spec(model: object) -> bool:
    """True when ``model`` asks for offline mode (``None``, ``"none"``, ``"offline"``, empty string)."""
    return model is None or (isinstance(model, str) and model.strip().lower() in OFFLINE_MODEL_NAMES)


def openai_base_url_from_env() -> str | None:
    """The OpenAI-compatible endpoint from ``OPENAI_BASE_URL`` (preferred) or ``OPENAI_API_BASE``."""
    for variable in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    return None


def _split_provider(spec: str) -> tuple[str | None, str]:
    """``"openai:gpt-4o"`` -> ``("openai", "gpt-4o")``; ``"gpt-4o"`` -> ``(None, "gpt-4o")``."""
    provider, sep, name = spec.partition(":")
    if sep and provider and "/" not in provider:
        return provider.strip().lower(), name.strip()
    return None, spec.strip()


def _make_openai_chat_model(
    model_name: str,
    *,
    spec: str,
    temperature: float,
    timeout: float,
    max_tokens: int | None,
    max_retries: int,
    api_key: str | None,
    base_url: str | None,
) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    if not model_name:
        raise ModelConfigurationError(f"model {spec!r} names no model: use e.g. 'openai:{DEFAULT_OPENAI_MODEL}'")
    key = api_key or os.environ.get("OPENAI_API_KEY", "").strip()
    if not key:
        raise ModelConfigurationError(_MISSING_KEY_MESSAGE.format(spec=spec))
    # ChatOpenAI itself only reads OPENAI_API_BASE and leaves OPENAI_BASE_URL to the SDK client;
    # passing the URL explicitly makes both variables work the same way everywhere.
    kwargs: dict[str, Any] = {
        "model": model_name,
        "temperature": temperature,
        "timeout": timeout,
        "max_tokens": max_tokens,  # sent as max_completion_tokens
        "max_retries": 0,  # resends are made, and counted, by call_llm
        "metadata": {RETRIES_METADATA_KEY: max_retries},
        "stream_usage": True,
        "api_key": key,
    }
    url = base_url or openai_base_url_from_env()
    if url:
        kwargs["base_url"] = url
        if max_tokens is not None:
            # llama.cpp's and llama-cpp-python's servers ignore max_completion_tokens and honour only max_tokens;
            # OpenAI itself gets max_completion_tokens alone (its reasoning models refuse max_tokens).
            kwargs["extra_body"] = {"max_tokens": max_tokens}
    return ChatOpenAI(**kwargs)


def _make_model_with_init_chat_model(
    spec: str, *, temperature: float, timeout: float, max_tokens: int | None, max_retries: int
) -> BaseChatModel:
    try:
        from langchain.chat_models import init_chat_model  # type: ignore[import-not-found]
    except ImportError:
        raise ModelConfigurationError(
            f"unknown model {spec!r}: use 'openai:MODEL' (OpenAI or any OpenAI-compatible server via "
            "OPENAI_BASE_URL), 'none' for offline mode, or install the 'langchain' package for other providers "
            "(e.g. anthropic:MODEL)"
        ) from None
    try:
        return init_chat_model(spec, temperature=temperature, timeout=timeout, max_tokens=max_tokens,
                               max_retries=0, metadata={RETRIES_METADATA_KEY: max_retries})
    except Exception as exc:  # init_chat_model raises ValueError/ImportError with its own wording
        raise ModelConfigurationError(f"cannot create chat model {spec!r}: {exc}") from exc


def _check_request_options(*, temperature: float, timeout: float, max_tokens: int | None, max_retries: int) -> None:
    if not timeout > 0:
        raise ModelConfigurationError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if max_tokens is not None and max_tokens < 1:
        raise ModelConfigurationError(f"max_tokens must be >= 1 (or None for the server's limit), got {max_tokens!r}")
    if max_retries < 0:
        raise ModelConfigurationError(f"max_retries must be >= 0, got {max_retries!r}")


def resolve_chat_model(
    model: str | BaseChatModel | None,
    *,
    temperature: float = 0.0,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
    max_retries: int = DEFAULT_MAX_RETRIES,
    api_key: str | None = None,
    base_url: str | None = None,
) -> BaseChatModel | None:
    """Turn a model specification into a chat model, or ``None`` for offline mode.

    Args:
        model: ``None`` / ``"none"`` / ``"offline"`` -> ``None``; a :class:`BaseChatModel` is returned
            unchanged; ``"openai:NAME"`` or a bare OpenAI name (``"gpt-4o-mini"``, ``"o3-mini"``) ->
            :class:`langchain_openai.ChatOpenAI`; any other ``"provider:NAME"`` goes to LangChain's
            ``init_chat_model`` when the ``langchain`` package is installed.
        temperature: sampling temperature (0 for reproducible runs).
        timeout: seconds per HTTP request before the client gives up; a timed-out request is not resent
            (a local single-slot server would still be busy with it, and the resends would time out in turn).
        max_tokens: cap on each reply's length in tokens (``None``: the server's own limit). OpenAI gets it as
            ``max_completion_tokens``; an OpenAI-compatible server (``base_url``) also as ``max_tokens``, the only
            field llama.cpp's server honours.
        max_retries: resends of a request that failed with a 429, a 5xx or a connection error. They are made by
            :func:`kg_agent.llm.usage.call_llm`, not by the HTTP client, so each one is counted as a call and
            checked against the call budgets.
        api_key: overrides ``OPENAI_API_KEY`` for OpenAI models.
        base_url: overrides ``OPENAI_BASE_URL`` / ``OPENAI_API_BASE`` for OpenAI models.

    Raises:
        ModelConfigurationError: (a ``ValueError``) the key is missing or the provider is unknown.
    """
    if is_offline_model_spec(model):
        return None
    from langchain_core.language_models import BaseChatModel

    if isinstance(model, BaseChatModel):
        return model
    if not isinstance(model, str):
        raise ModelConfigurationError(
            f"model must be a string, a langchain BaseChatModel or None, not {type(model).__name__}"
        )
    request = {"temperature": temperature, "timeout": timeout, "max_tokens": max_tokens, "max_retries": max_retries}
    _check_request_options(**request)
    spec = model.strip()
    provider, name = _split_provider(spec)
    if provider is None and name.lower().startswith(OPENAI_BARE_NAME_PREFIXES):
        provider = "openai"
    if provider == "openai":
        return _make_openai_chat_model(name, spec=spec, api_key=api_key, base_url=base_url, **request)
    return _make_model_with_init_chat_model(spec, **request)


def default_model_from_env() -> str | None:
    """The model named by ``KG_AGENT_MODEL``, written as for ``--model``; ``None`` (offline) when it is unset or asks
    for offline mode (``"none"``).

    API keys play no part: ``OPENAI_API_KEY`` alone never names a model, it is read only when the named model
    needs it.
    """
    configured = os.environ.get("KG_AGENT_MODEL", "").strip()
    return None if is_offline_model_spec(configured) else configured


def describe_chat_model(model: BaseChatModel | None) -> str:
    """A short human-readable name for reports: ``"offline"``, ``"openai:gpt-4o-mini"``, ``"scripted"``..."""
    if model is None:
        return "offline"
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    try:
        llm_type = model._llm_type
    except Exception:  # pragma: no cover - defensive: third-party models
        llm_type = type(model).__name__
    if llm_type == "openai-chat":
        llm_type = "openai"
    return f"{llm_type}:{name}" if isinstance(name, str) and name else str(llm_type)


#: The help text of every ``--model`` flag.
MODEL_HELP = ("chat model, e.g. openai:gpt-4o-mini ('none': offline); default: KG_AGENT_MODEL if set, else none, "
              "every decision made offline (an API key in the environment alone never selects a model)")


def positive_seconds(text: str) -> float:
    """A command-line number of seconds (``--timeout``, ``--tool-timeout``): positive and finite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


def _positive_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return value


def add_model_request_args(parser) -> None:
    """The ``--timeout`` and ``--max-reply-tokens`` flags of every command that takes ``--model``."""
    parser.add_argument("--timeout", type=positive_seconds, default=None, metavar="S",
                        help=f"seconds per model request before giving up; a timed-out request is not resent "
                        f"(default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--max-reply-tokens", type=_positive_count, default=None, metavar="N",
                        help=f"cap on each model reply's length in tokens (default {DEFAULT_MAX_TOKENS})")


def resolve_model_args(args) -> BaseChatModel | None:
    """The chat model of a command's ``--model``, ``--timeout`` and ``--max-reply-tokens`` flags."""
    return resolve_model_option(args.model, timeout=args.timeout, max_tokens=args.max_reply_tokens)


def resolve_model_option(spec: str | None, *, timeout: float | None = None, max_tokens: int | None = None):
    """The chat model a ``--model`` option names: ``None`` (not given) means :func:`default_model_from_env`
    (``KG_AGENT_MODEL``, else offline); ``"none"`` runs offline (``None``). ``timeout`` / ``max_tokens`` (the
    ``--timeout`` and ``--max-reply-tokens`` flags; ``None``: not given) override :data:`DEFAULT_TIMEOUT_S` /
    :data:`DEFAULT_MAX_TOKENS`."""
    if spec is None:
        spec = default_model_from_env()
    return resolve_chat_model(spec, timeout=DEFAULT_TIMEOUT_S if timeout is None else timeout,
                              max_tokens=DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens)
