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
from functools import lru_cache
from pathlib import Path

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
