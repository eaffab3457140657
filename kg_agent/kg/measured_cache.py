"""What the offline deciders measure on a store's KG at their first use, kept beside the store for later processes.

A relation's answer kinds (:class:`~kg_agent.tools.shared.answer_types.RelationObjectKinds`: a sample of its ends,
their names, classes and relations) and whether a class's members are role or owned-value nodes
(:mod:`~kg_agent.kg.role_nodes`) are read from the KG at the first question that needs them: a few hundred
milliseconds on a small store, seconds at a hundred million triples. An Oxigraph store keeps them in
``<store>/kg-agent/measured.sqlite`` (:data:`~kg_agent.kg.store_folder.MEASURED_FILE`), so the next process -- the
next ``kg-agent ask``, a restarted MCP server -- reads them instead.

They are kept per load and per kg-agent code: the scope of every entry is the load's build id (a new load of the store
measures again) and a digest of kg-agent's own source (code that measures differently never reads what older code
measured); entries of other scopes are deleted when the file is opened. A folder kg-agent may not write (a read-only
store) keeps nothing: the facts are then measured once per process, as without the file (a warning is logged).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from kg_agent.kg.errors import KGError
from kg_agent.kg.sparql_cache import SparqlCache

logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of kg-agent's Python source (every module of the installed package): what measured a fact."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=8)
    for module in sorted(package.rglob("*.py")):
        digest.update(module.relative_to(package).as_posix().encode("utf-8"))
        digest.update(module.read_bytes())
    return digest.hexdigest()


def open_measured_cache(path: Path, build: str) -> SparqlCache | None:
    """The measured facts of the load ``build`` at ``path`` (created when missing; other scopes' entries deleted), or
    ``None`` when the file cannot be used (logged)."""
    try:
        cache = SparqlCache(path, f"{build}:{code_digest()}")
        cache.drop_other_scopes()
    except (KGError, OSError) as exc:
        logger.warning("%s: not used to keep what is measured on the KG (%s); it is measured once per process", path, exc)
        return None
    return cache


class KeepsResults(Protocol):
    """What :class:`MeasuredOnce` reads of a KG (:class:`~kg_agent.kg.graph.KnowledgeGraph` is one)."""

    @property
    def result_cache(self) -> SparqlCache | None: ...


class MeasuredOnce:
    """One kind of per-key fact of one KG (a class is a role class, a class of statement nodes ...), measured at its
    first need by ``measure(key)`` (a JSON value) and kept in memory and in the KG's result cache under ``kind``
    (:attr:`~kg_agent.kg.graph.KnowledgeGraph.result_cache`: a store's measured facts, an endpoint's cache file) when it
    has one."""

    def __init__(self, kg: KeepsResults, kind: str, measure: Callable[[str], Any]) -> None:
        self.kg = kg
        self.kind = kind
        self.measure = measure
        self._known: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        """The fact of ``key``: kept, else read from the result cache, else measured (and kept); ``None`` when the KG
        cannot answer (a dead endpoint), and asked again next time."""
        with self._lock:
            if key in self._known:
                return self._known[key]
        cache = self.kg.result_cache
        try:
            stored = cache.get(self.kind, key) if cache is not None else None
            if stored is not None:
                found = stored["value"]
            else:
                found = self.measure(key)
                if cache is not None:
                    cache.put(self.kind, key, {"value": found})
        except KGError:
            return None
        with self._lock:
            self._known[key] = found
        return found
