"""Reopening an Oxigraph store :func:`~kg_agent.kg.loading.oxigraph_build.build_oxigraph` built
(:func:`open_oxigraph`): its relation index, its label file (rebuilt when stale) and its profile."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.label_index import LABEL_KEYS_VERSION, SqliteLabelIndex, build_label_sqlite
from kg_agent.kg.naming import DEFAULT_NAMING, Naming
from kg_agent.kg.profile import KGProfile, measure_name_predicates, oxigraph_texts
from kg_agent.kg.relation_index import RelationIndex
from kg_agent.kg.store_folder import (
    COMPLETE_MARKER,
    LABEL_INDEX_FILE,
    MEASURED_FILE,
    PROFILE_FILE,
    RELATION_INDEX_FILE,
    SIDECAR_DIR,
    VECTOR_CACHE_FILE,
    lock_holder,
)
from kg_agent.kg.terms import RelationNames


def label_build(build: str, naming: Naming) -> str:
    """What a label file is built for: one load of the store, with one set of name predicates, its labels keyed as
    this version of :func:`~kg_agent.kg.terms.label_keys` keys them."""
    return f"{build} {naming.names_key} keys-{LABEL_KEYS_VERSION}"


def store_profile(store, sidecar: Path, naming: Naming) -> KGProfile:
    """The Oxigraph store's profile: the one its load kept in its sidecar folder, else (a store loaded before
    profiles were kept) measured now and kept there when the folder is writable."""
    path = sidecar / PROFILE_FILE
    profile = KGProfile.load(path)
    if profile is None:
        profile = measure_name_predicates(oxigraph_texts(store), naming)
        try:
            profile.save(path)
        except OSError:
            pass
    return profile


def _open_label_index(store_path: Path, store, build: str, naming: Naming) -> SqliteLabelIndex:
    """The store's label file; a missing or stale one (another load, other name predicates) is rebuilt from the
    store, or refused if it cannot be."""
    from kg_agent.kg.stores.oxigraph import store_names

    build = label_build(build, naming)
    path = store_path / SIDECAR_DIR / LABEL_INDEX_FILE
    try:
        return SqliteLabelIndex(path, build=build)
    except KGLoadError as exc:
        problem = str(exc) if path.exists() else f"{path}: missing"
    warnings.warn(f"{problem}; rebuilding it from the store", stacklevel=3)
    try:
        build_label_sqlite(path, store_names(store, naming), build=build)
    except OSError as exc:
        raise KGLoadError(f"{problem}, and it cannot be rebuilt here ({exc}); rebuild the store with "
                          "`kg-agent load --overwrite`") from exc
    return SqliteLabelIndex(path, build=build)


def open_oxigraph(store_path: str | Path, *, cache_size: int = 50_000, naming: Naming = DEFAULT_NAMING,
                  discover_names: bool = True) -> KnowledgeGraph:
    """Reopen an Oxigraph store built by :func:`build_oxigraph` (milliseconds: nothing is re-parsed).

    With ``discover_names`` the store's profile (``kg-agent/profile.json``, measured on the first open and kept:
    :mod:`kg_agent.kg.profile`) adds the predicates the data names its things with to the naming's labels.

    A folder that is not a store, or a store whose load never finished (no completion marker), is
    refused with :class:`KGLoadError`.
    """
    import pyoxigraph as ox

    from kg_agent.kg.stores.oxigraph import OxigraphGraphStore

    store_path = Path(store_path)
    if not store_path.is_dir():
        raise KGLoadError(f"{store_path}: no Oxigraph store here (build one with `kg-agent load FILE --store DIR`)")
    sidecar = store_path / SIDECAR_DIR
    if not (sidecar / COMPLETE_MARKER).exists() and (writer := lock_holder(store_path)) is not None:
        raise KGLoadError(f"{store_path}: kg-agent load ({'process ' + str(writer) if writer > 0 else 'another process'}) "
                          "is still building this store; open it when the load has finished")
    if not (store_path / "CURRENT").exists():
        raise KGLoadError(f"{store_path}: not an Oxigraph store (build one with `kg-agent load FILE --store DIR`)")
    if not (sidecar / COMPLETE_MARKER).exists():
        raise KGLoadError(f"{store_path}: this Oxigraph store was not completely loaded by kg-agent (no "
                          f"{SIDECAR_DIR}/{COMPLETE_MARKER}); rebuild it with `kg-agent load SOURCE --store "
                          f"{store_path} --overwrite`")
    index = RelationIndex.load(sidecar / RELATION_INDEX_FILE)
    try:
        marker = json.loads((sidecar / COMPLETE_MARKER).read_text(encoding="utf-8"))
        build = str(marker["build"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KGLoadError(f"{sidecar / COMPLETE_MARKER}: unreadable ({exc}); rebuild the store with "
                          "`kg-agent load --overwrite`") from exc
    try:  # read-only: a reader writes nothing in the store folder (a read-write open rewrites RocksDB's files)
        store = ox.Store.read_only(str(store_path))
    except OSError as exc:
        raise KGLoadError(f"{store_path}: cannot open the Oxigraph store: {exc}; rebuild it with "
                          "`kg-agent load SOURCE --store DIR --overwrite`") from exc
    if discover_names:
        naming = store_profile(store, sidecar, naming).naming(naming)
    labels = _open_label_index(store_path, store, build, naming)
    return KnowledgeGraph(OxigraphGraphStore(store, names=RelationNames(),
                                             name=str(store_path), cache_size=cache_size, relation_index=index,
                                             label_index=labels, naming=naming),
                          vector_cache_path=sidecar / VECTOR_CACHE_FILE, profile_path=sidecar / PROFILE_FILE,
                          measured_path=sidecar / MEASURED_FILE, build=build)
