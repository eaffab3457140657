"""A package's names imported on first use (PEP 562), so importing one of its modules stays cheap.

``kg_agent.kg``, ``kg_agent.llm`` and ``kg_agent.graphs`` export their main names this way: ``from kg_agent.kg
import open_kg`` works as before, but ``import kg_agent.kg.naming`` (what the command line needs to build its
flags) no longer imports rdflib, LangChain or LangGraph with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose name ``N`` is ``exports[N]``'s attribute ``N``
    (``exports``: name -> module), imported when first asked for and then kept in the package."""
    namespace = import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
