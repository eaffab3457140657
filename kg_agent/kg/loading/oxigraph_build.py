"""Loading a KG file once into an Oxigraph store on disk (:func:`build_oxigraph`): the store folder's safety checks,
Oxigraph's bulk loader in a child process beside the index pass, the atomic swap of a finished store into place."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.label_index import build_label_sqlite
from kg_agent.kg.loading.collector_paused import collector_paused
from kg_agent.kg.loading.oxigraph_index_pass import index_derived_edges, index_triples, pass_classes
from kg_agent.kg.loading.oxigraph_open import label_build
from kg_agent.kg.loading.plain_triples import PLAIN_FORMATS, detect_format, iter_named_triples, named_triples_graph
from kg_agent.kg.loading.rdf_parsing import (
    OXIGRAPH_FORMATS,
    QUAD_FORMATS,
    parse_rdf,
    rdf_syntax_error,
    too_long_term_error,
    write_union_ntriples,
)
from kg_agent.kg.naming import DEFAULT_NAMING, Naming
from kg_agent.kg.owl_restrictions import RESTRICTION_EDGES_QUERY, RESTRICTION_GRAPH
from kg_agent.kg.profile import KGProfile
from kg_agent.kg.relation_index import RelationIndex, RelationIndexBuilder
from kg_agent.kg.store_folder import (
    COMPLETE_MARKER,
    LABEL_INDEX_FILE,
    LOCK_FILE,
    PROFILE_FILE,
    RELATION_INDEX_FILE,
    SIDECAR_DIR,
    StoreBusy,
    busy_message,
    foreign_files,
    foreign_files_text,
    lock_holder,
    remove_own_files,
    write_lock,
    written_files,
)
from kg_agent.kg.stores.base import NameLiterals, name_relations
from kg_agent.kg.terms import RelationNames


def is_kg_agent_store(path: str | Path) -> bool:
    """Whether ``path`` is a folder :func:`build_oxigraph` built to the end (it holds the completion marker)."""
    return (Path(path) / SIDECAR_DIR / COMPLETE_MARKER).is_file()


def check_store_target(source: Path, store_path: Path, *, overwrite: bool) -> None:
    """Refuse a store folder that loading ``source`` must not write to or replace; nothing is created.

    Accepted: a new path, an empty folder (or one holding only the lock file a killed load left) and, with
    ``overwrite``, a store kg-agent built (it holds the completion marker) holding only kg-agent's files
    (:mod:`kg_agent.kg.store_folder`). Refused: the input file, any other file, a folder holding the input file,
    the current folder or one of its parents, a folder kg-agent did not build that holds anything, and a store
    holding files kg-agent did not write (they are named): kg-agent never deletes what it did not create.
    """
    choose = "choose an empty or new folder for the store"
    target, input_file = store_path.resolve(), source.resolve()
    if input_file == target:
        raise KGLoadError(f"{store_path} is the input file itself; {choose}")
    if Path.cwd().resolve().is_relative_to(target):
        raise KGLoadError(f"{store_path} is the current folder or one of its parents; {choose}")
    if input_file.is_relative_to(target):
        raise KGLoadError(f"{store_path} holds the input file {source}; {choose}")
    if target.exists() and not target.is_dir():
        raise KGLoadError(f"{store_path} is a file, not a folder; {choose}")
    if target.is_dir() and not _holds_only_a_lock(target):
        if not is_kg_agent_store(target):
            only_ours = "; --overwrite only replaces a folder kg-agent created" if overwrite else ""
            raise KGLoadError(f"{store_path} is not a kg-agent store (it holds other files); {choose}{only_ours}")
        if not overwrite:
            raise KGLoadError(f"{store_path}: a kg-agent store already exists there; pass --overwrite to rebuild it")
        foreign = foreign_files(target)
        if foreign:
            raise KGLoadError(f"{foreign_files_text(store_path, foreign)}; --overwrite replaces only a store's own "
                              "files: move those out of it first, or choose an empty or new folder for the store")
    partial = _partial_folder(target)
    if partial.exists() and not _is_own_partial(partial):
        raise KGLoadError(f"{partial} is in the way and was not made by kg-agent; move it, or {choose}")


def _holds_only_a_lock(folder: Path) -> bool:
    """Whether ``folder`` is empty or holds only kg-agent's sidecar folder with, at most, its lock file (a load of
    a new store holds it, or left it when killed)."""
    entries = list(folder.iterdir())
    if not entries:
        return True
    sidecar = entries[0]
    if len(entries) > 1 or sidecar.name != SIDECAR_DIR or sidecar.is_symlink() or not sidecar.is_dir():
        return False
    return all(entry.name == LOCK_FILE and entry.is_file() for entry in sidecar.iterdir())


def _partial_folder(target: Path) -> Path:
    """Where :func:`build_oxigraph` builds the store for ``target`` (resolved) before renaming it."""
    return target.with_name(target.name + ".partial")


def _is_own_partial(partial: Path) -> bool:
    """A folder :func:`build_oxigraph` left when its process was killed: empty, or holding kg-agent's sidecar."""
    return partial.is_dir() and not partial.is_symlink() and (not any(partial.iterdir()) or (partial / SIDECAR_DIR).is_dir())


def build_oxigraph(source: str | Path, store_path: str | Path, *, format: str | None = None, overwrite: bool = False,
                   progress: bool = False, naming: Naming = DEFAULT_NAMING, lenient: bool = False,
                   beside_load: Callable[[RelationIndex, Path, RelationNames], object] | None = None) -> Path:
    """Load a KG file once into an Oxigraph store on disk; reopen it with :func:`open_oxigraph`.

    RDF files go through Oxigraph's bulk loader (Rust, no Python per triple), in a child process so that
    Ctrl-C (``KeyboardInterrupt``) stops the load at once; plain-name formats (MetaQA, RoG, 2Wiki) are
    converted to N-Triples first. The same run reads the file once more with Oxigraph's parser to build the
    relation index (:mod:`kg_agent.kg.relation_index`), kept in ``<store>/kg-agent/``.

    ``store_path`` must be a new path or an empty folder; with ``overwrite=True`` it may also be a store
    kg-agent built (:func:`is_kg_agent_store`), which is replaced. Anything else is refused with
    :class:`KGLoadError` before anything is created (:func:`check_store_target`): kg-agent never deletes what
    it did not create.

    The store is built in ``<store>.partial`` and renamed at the end, after a completion marker is
    written, so an interrupted or failed load never leaves a folder that :func:`open_oxigraph` accepts,
    and keeps the old store, if any, as it was. A syntax error raises :class:`KGLoadError` naming the file
    and line. ``progress`` shows a progress bar (tqdm, on stderr) over the bytes of the file read by the
    index pass.

    ``naming`` says which predicates name things (their literals go to the label file, not to the relation
    index); a store opened with other name predicates rebuilds its label file.

    The edges the file's OWL class restrictions state (:mod:`kg_agent.kg.owl_restrictions`) are derived from the
    loaded store with one SPARQL query and kept in its named graph
    :data:`~kg_agent.kg.owl_restrictions.RESTRICTION_GRAPH` (the file's triples stay in the default graph); the
    relation index learns their relations and the profile counts them.

    ``lenient`` skips the file's bad lines (:func:`parse_rdf`; the file is then parsed in Python and loaded from a
    clean copy).

    ``beside_load(index, sidecar_folder, names)`` is called with the relation index as soon as it is built, while
    the bulk loader may still be writing the store, for what a caller derives from the index and keeps in
    ``<sidecar_folder>``; ``names`` names the relations as the finished store will (by their
    properties' labels where the file gives them, :meth:`GraphStore.relation_naming
    <kg_agent.kg.stores.base.GraphStore.relation_naming>`), read from the file by the same pass. Its error fails
    the load like any other. That index holds the file's facts: the restriction edges, read from the loaded store,
    are added to the index saved with the store afterwards.

    One load writes a store at a time: the load holds ``<store>/kg-agent/write.lock``
    (:func:`~kg_agent.kg.store_folder.write_lock`) until it ends, however it ends; another load of the same store
    meanwhile raises :class:`~kg_agent.kg.store_folder.StoreBusy` at once. An old store is replaced only if it
    holds nothing but kg-agent's own files (:func:`~kg_agent.kg.store_folder.foreign_files`), checked again just
    before the swap.
    """
    source, store_path = Path(source), Path(store_path)
    if not source.is_file():
        raise KGLoadError(f"{source}: no such file" if not source.exists() else f"{source} is a folder, not a KG file")
    check_store_target(source, store_path, overwrite=overwrite)
    fmt = format or detect_format(source)
    target = store_path.resolve()
    holder = lock_holder(target)
    if holder is not None:  # said before anything is made
        raise StoreBusy(busy_message(store_path, holder))
    with write_lock(target) as lock:
        check_store_target(source, store_path, overwrite=overwrite)  # again, now that no other load can change it
        _build_locked(source, store_path, target, fmt, lock, progress=progress, naming=naming, lenient=lenient,
                      beside_load=beside_load)
    return store_path


def _build_locked(source: Path, store_path: Path, target: Path, fmt: str, lock: int, *, progress: bool,
                  naming: Naming, lenient: bool, beside_load) -> None:
    """:func:`build_oxigraph`'s work, done holding the store's write lock (``lock``, its file descriptor, which
    the bulk loader's process inherits)."""
    import time
    import uuid

    import pyoxigraph as ox

    partial = _partial_folder(target)
    if partial.exists():  # left by a load whose process was killed (check_store_target made sure it is ours)
        shutil.rmtree(partial)
    sidecar = partial / SIDECAR_DIR
    sidecar.mkdir(parents=True)
    started = time.perf_counter()
    builder = RelationIndexBuilder()
    build = uuid.uuid4().hex
    try:
        if fmt in QUAD_FORMATS and not lenient:  # the union of the graphs, as the memory backend reads it
            load_path, format_name = sidecar / "converted.nt", "N_TRIPLES"
            write_union_ntriples(source, fmt, load_path)
        elif fmt in OXIGRAPH_FORMATS and not lenient:
            load_path, format_name = source, OXIGRAPH_FORMATS[fmt]
        else:
            graph = (named_triples_graph(iter_named_triples(source, fmt)) if fmt in PLAIN_FORMATS
                     else parse_rdf(source, format=fmt, lenient=lenient))
            load_path, format_name = sidecar / "converted.nt", "N_TRIPLES"
            graph.serialize(load_path, format="nt", encoding="utf-8")
            del graph
        load_format = getattr(ox.RdfFormat, format_name)

        blank_labels: list[bool] = []
        built: list[RelationIndex] = []
        profiles: list[KGProfile] = []

        def index_and_labels() -> None:
            from kg_agent.kg.stores.oxigraph import with_default_names

            with collector_paused():  # the pass keeps many objects and frees no cycle (collector_paused)
                literals, links, naming_entities, profile = index_triples(builder, ox, load_path, load_format,
                                                                          naming, progress=progress)
            profiles.append(profile)
            profiled = profile.naming(naming)  # the names a reader opening the store will ask the label file for
            collected: dict[str, NameLiterals] = {entity: [] for entity in naming_entities}
            relation_names = frozenset(naming.name_predicates)  # the relations are named as before the profile
            with literals, collector_paused():  # one read of the names: the label file's, and the relation-naming
                # entities' on the way
                if literals.blank:  # the store renames blank nodes: ask it
                    blank_labels.append(True)
                    for _ in literals.pairs(collected, relation_names):
                        pass
                else:  # built once, with the profile's names (the pass kept their literals too)
                    build_label_sqlite(sidecar / LABEL_INDEX_FILE,
                                       with_default_names(literals.pairs(collected, relation_names),
                                                          builder.signatures),
                                       build=label_build(build, profiled))
            names_of = {entity: found for entity, found in collected.items() if found}
            built.append(builder.build())
            built[0].save(sidecar / RELATION_INDEX_FILE)
            if beside_load is not None:
                iris = [iri for iri in built[0].predicates() if naming.is_fact(iri)]
                names = RelationNames()
                names.bind(lambda: name_relations(naming, iris, links, lambda _nodes, _predicates: names_of))
                beside_load(built[0], sidecar, names)

        # the relation index and the label file are built from the file here, beside the bulk loader's process
        _bulk_load_beside(partial, load_path, format_name, index_and_labels, source=source, fmt=fmt, lock=lock)
        if load_path.parent == sidecar:
            load_path.unlink()
        if fmt in QUAD_FORMATS and not lenient:  # a triple stated in two graphs was read twice: the store's count
            builder.triples = built[0].triples = len(ox.Store.read_only(str(partial)))
            built[0].save(sidecar / RELATION_INDEX_FILE)
        profiles[0] = _with_label_node_names(ox, partial, profiles[0], naming)
        profiled = profiles[0].naming(naming)
        if blank_labels or profiles[0].label_node_relations:  # names the pass did not read: the store's own
            from kg_agent.kg.stores.oxigraph import store_names

            store = ox.Store(str(partial))
            build_label_sqlite(sidecar / LABEL_INDEX_FILE, store_names(store, profiled, builder.signatures),
                               build=label_build(build, profiled))
            del store
        derived = _keep_restriction_edges(ox, partial)
        if derived:  # the relation index learns the relations they state
            index_derived_edges(builder, ox, derived, ntriples=load_format == ox.RdfFormat.N_TRIPLES)
            built[0] = builder.build()
            built[0].save(sidecar / RELATION_INDEX_FILE)
        profile = replace(profiles[0], restriction_edges=len(derived),
                          classes=pass_classes(builder, ox, naming))  # from the index pass: no scan of the store
        profile.save(sidecar / PROFILE_FILE)
        files = written_files(partial) + [f"{SIDECAR_DIR}/{COMPLETE_MARKER}"]  # the manifest: what this load wrote
        (sidecar / COMPLETE_MARKER).write_text(json.dumps({
            "build": build, "source": str(source), "format": fmt, "triples": built[0].triples,
            "seconds": round(time.perf_counter() - started, 2), "files": sorted(set(files))}), encoding="utf-8")
        _replace_folder(target, partial, build, store_path)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _with_label_node_names(ox, store_path: Path, profile: KGProfile, naming: Naming) -> KGProfile:
    """``profile`` with the loaded store's label-node relations (:mod:`kg_agent.kg.label_nodes`), measured from its
    first triples; the names they give stated on the entities they name, in the store's default graph."""
    from kg_agent.kg.label_nodes import add_store_names, oxigraph_triples, with_label_nodes

    store = ox.Store(str(store_path))
    try:
        profile = with_label_nodes(profile, oxigraph_triples(store), naming)
        if profile.label_node_relations:
            add_store_names(store, profile)
    finally:
        del store
    return profile


def _keep_restriction_edges(ox, store_path: Path) -> list[tuple]:
    """The edges the loaded store's OWL class restrictions state (:data:`RESTRICTION_EDGES_QUERY`), kept in the store's
    named graph :data:`RESTRICTION_GRAPH` (kg-agent's own; the file's triples stay in the default graph as they
    were), as ``(subject, predicate, object)`` pyoxigraph terms."""
    store = ox.Store(str(store_path))
    try:
        edges = [(row[0], row[1], row[2]) for row in store.query(RESTRICTION_EDGES_QUERY)]
        if edges:
            graph = ox.NamedNode(RESTRICTION_GRAPH)
            store.extend([ox.Quad(s, p, o, graph) for s, p, o in edges])
            store.flush()
    finally:
        del store
    return edges


def _replace_folder(target: Path, partial: Path, build: str, store_path: Path) -> None:
    """Put the finished ``partial`` folder at ``target``. An old store (or an empty folder, or the one the lock was
    made in) there is swapped with it in one step where the system can (``renameat2`` ``RENAME_EXCHANGE``: a reader
    opens the old store or the new one, never nothing), else moved aside first and put back if the rename fails;
    then its files, all kg-agent's (checked just before), are deleted."""
    if not os.path.lexists(target):
        partial.rename(target)
        return
    foreign = foreign_files(target)
    if foreign:  # the user put files there while the load ran
        raise KGLoadError(f"{foreign_files_text(store_path, foreign)}; --overwrite replaces only a store's own "
                          "files: move those out of it first (the old store is kept)")
    replaced = target.with_name(f"{target.name}.replaced-{build}")
    if _exchange(partial, target):
        partial.rename(replaced)
    else:
        target.rename(replaced)
        try:
            partial.rename(target)
        except BaseException:
            replaced.rename(target)
            raise
    left = remove_own_files(replaced)
    if left:
        warnings.warn(f"{foreign_files_text(replaced, left)} (put there during the load); kept them there", stacklevel=4)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(..., RENAME_EXCHANGE)``); False where the system cannot."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    done = renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0
    return done


#: The bulk load, run by ``python -c`` (pyoxigraph alone: starts in a tenth of a second). Oxigraph's bulk loader
#: runs in native code and never returns to Python before it is done; its own process can be killed at once.
_BULK_LOAD_SCRIPT = """
import json, os, sys, threading, time
import pyoxigraph as ox

store_path, source, rdf_format, parent = sys.argv[1:]
try:  # Linux: the kernel kills this process the moment the loading process dies
    import ctypes, signal
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except Exception:
    pass


def stop_when_orphaned():  # the loading process was killed: write no more (where prctl is missing)
    while os.getppid() == int(parent):
        time.sleep(0.1)
    os._exit(1)


threading.Thread(target=stop_when_orphaned, daemon=True).start()
try:
    store = ox.Store(store_path)
    store.bulk_load(path=source, format=getattr(ox.RdfFormat, rdf_format))
    store.flush()
    del store
except SyntaxError as exc:
    print(json.dumps({"line": exc.lineno, "syntax": exc.msg}))
    sys.exit(1)
except Exception as exc:
    print(json.dumps({"error": str(exc) or type(exc).__name__}))
    sys.exit(1)
"""


def _bulk_load_beside(store: Path, path: Path, format_name: str, foreground: Callable[[], None], *, source: Path,
                      fmt: str, lock: int) -> None:
    """Oxigraph's bulk load of ``path`` (``pyoxigraph.RdfFormat.<format_name>``) into a new store at ``store``, in
    a child process, while ``foreground`` runs here; then wait for it. The bulk loader's error is raised first
    (its syntax error names the line of ``source``; the index pass over a broken file may fail anywhere).
    An interrupt (Ctrl-C) or any other exit kills the bulk loader at once; so does the kernel when this process
    is killed outright. The child inherits the store's write lock (``lock``): the store is not free before it is
    gone."""
    loader = subprocess.Popen([sys.executable, "-c", _BULK_LOAD_SCRIPT, str(store), str(path), format_name,
                               str(os.getpid())],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(lock,))
    try:
        try:
            foreground()
        except Exception:
            failure = _bulk_load_failure(loader, source, fmt)
            if failure is not None:
                raise failure from None
            raise
        failure = _bulk_load_failure(loader, source, fmt)
        if failure is not None:
            raise failure
    finally:
        if loader.poll() is None:
            loader.kill()
            loader.wait()


def _bulk_load_failure(loader: subprocess.Popen, source: Path, fmt: str) -> KGLoadError | None:
    """Wait for the bulk loader's process; its error, if it failed."""
    out, err = loader.communicate()
    if loader.returncode == 0:
        return None
    lines = out.decode("utf-8", errors="replace").strip().splitlines()
    try:
        report = json.loads(lines[-1])
    except (IndexError, ValueError):
        report = {"error": " ".join(err.decode("utf-8", errors="replace").split())[-300:] or f"exit status {loader.returncode}"}
    if "syntax" in report:
        return rdf_syntax_error(source, fmt, report.get("line"), report["syntax"])
    if "buffer maximal size" in report["error"] and fmt in OXIGRAPH_FORMATS:
        return too_long_term_error(source, report["error"])
    return KGLoadError(f"{source}: the Oxigraph bulk load failed: {report['error']}")
