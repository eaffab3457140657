"""What kg-agent may do in an Oxigraph store folder: one writer at a time (a lock), and delete only its own files.

The lock is ``<store>/kg-agent/write.lock``, held with ``flock`` by ``kg-agent load`` (:func:`build_oxigraph
<kg_agent.kg.loading.oxigraph_build.build_oxigraph>`) and by its bulk loader's process, which inherits it: the kernel releases it
when both have exited, however they ended (``kill -9`` too). The file says which process took it; a lock file left
by a process that is gone holds no lock and is taken over. A second writer is refused at once with
:class:`StoreBusy`, and a reader opening a store that is being built for the first time is told so.

A file is kg-agent's own when the store's completion marker lists it (the files the load wrote), or when it is
one Oxigraph's RocksDB or kg-agent's sidecar writes while the store is used (RocksDB's log and manifest files, the
label and vector caches, their SQLite journals). Anything else is the user's: :func:`foreign_files` names it, and a
folder holding it is never replaced.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kg_agent.kg.errors import KGLoadError

#: kg-agent's files inside an Oxigraph store folder (RocksDB ignores them).
SIDECAR_DIR = "kg-agent"
#: Written last by a load: a folder without it was never completely loaded. It lists the files the load wrote.
COMPLETE_MARKER = "complete.json"
#: ``flock``-ed by the one process writing the store; holds its process id.
LOCK_FILE = "write.lock"
RELATION_INDEX_FILE = "relation_index.json"
LABEL_INDEX_FILE = "labels.sqlite"
#: the KG profile (:mod:`kg_agent.kg.profile`): the predicates the data names its things with
PROFILE_FILE = "profile.json"
#: the offline deciders' text embeddings (:class:`kg_agent.tools.shared.similarity.VectorFile`)
VECTOR_CACHE_FILE = "vectors.sqlite"
#: the questions the KG taught the ``taught`` planner (:mod:`kg_agent.tools.rog.taught_store`), made at its first use
TAUGHT_FILE = "taught.json"
#: what the offline deciders measured on the KG at their first use (:mod:`kg_agent.kg.measured_cache`)
MEASURED_FILE = "measured.sqlite"

#: The files Oxigraph's RocksDB writes in a store folder over its life (reopening a store writes new ones).
_ROCKSDB_FILE = re.compile(r"^(CURRENT|IDENTITY|LOCK|LOG|LOG\.old\.\d+|MANIFEST-\d+|OPTIONS-\d+(\.dbtmp)?"
                           r"|\d+\.(sst|log|blob|dbtmp))$")
#: The sidecar files kg-agent writes while a store is used, with their SQLite journals and half-written copies.
_SIDECAR_FILES = frozenset({COMPLETE_MARKER, LOCK_FILE, RELATION_INDEX_FILE, LABEL_INDEX_FILE, PROFILE_FILE,
                            VECTOR_CACHE_FILE, TAUGHT_FILE, MEASURED_FILE})
_SIDECAR_SUFFIX = re.compile(r"(\.\d+\.partial|\.partial)?(-wal|-shm|-journal)?$")


class StoreBusy(KGLoadError):
    """Another process is writing the store folder (it holds the folder's lock)."""


def lock_path(store: Path) -> Path:
    return store / SIDECAR_DIR / LOCK_FILE


def lock_holder(store: Path) -> int | None:
    """The id of the process holding ``store``'s write lock, or None when no process holds it."""
    try:
        fd = os.open(lock_path(store), os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _recorded_pid(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _recorded_pid(fd: int) -> int | None:
    text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    return int(text) if text.isdigit() else None


def busy_message(store: Path, pid: int) -> str:
    who = f"process {pid}" if pid > 0 else "another process"
    return (f"{store}: another kg-agent load ({who}) is writing this store; wait until it ends, or choose another "
            "folder for the store")


@contextmanager
def write_lock(store: Path) -> Iterator[int]:
    """Hold ``store``'s write lock (the folder, the folders above it and its sidecar are made if missing); yields the lock's file
    descriptor, which a child process keeps the lock with (``pass_fds``). Raises :class:`StoreBusy` at once if
    another process holds it. On leaving, the lock file is removed, and so are the folders made for it if they
    hold nothing else."""
    made = [folder for folder in (*reversed(store.parents), store, store / SIDECAR_DIR) if not os.path.lexists(folder)]
    for folder in made:
        folder.mkdir()
    path = lock_path(store)
    fd = -1
    try:
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _recorded_pid(fd) or -1
                os.close(fd)
                fd = -1
                raise StoreBusy(busy_message(store, pid)) from None
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # else the holder removed or replaced the file between our open and our lock: try again
                break
            os.close(fd)
            fd = -1
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield fd
    finally:
        if fd >= 0:
            try:
                if os.path.exists(path) and os.stat(path).st_ino == os.fstat(fd).st_ino:
                    os.unlink(path)  # while still held: a process that opened it meanwhile sees it gone and retries
            finally:
                os.close(fd)
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass


def is_own_file(relative: Path, listed: frozenset[str]) -> bool:
    """Whether a file at ``relative`` (to the store folder) is one kg-agent wrote (``listed`` by the marker or
    named as RocksDB's or kg-agent's sidecar files are)."""
    text = relative.as_posix()
    if text in listed:
        return True
    parts = relative.parts
    if len(parts) == 1:
        return bool(_ROCKSDB_FILE.match(parts[0]))
    return len(parts) == 2 and parts[0] == SIDECAR_DIR and _SIDECAR_SUFFIX.sub("", parts[1]) in _SIDECAR_FILES


def listed_files(store: Path) -> frozenset[str]:
    """The files the completion marker of ``store`` lists as written by its load (none for an older store)."""
    import json

    try:
        marker = json.loads((store / SIDECAR_DIR / COMPLETE_MARKER).read_text(encoding="utf-8"))
        files = marker.get("files") or []
    except (OSError, ValueError, AttributeError):
        return frozenset()
    return frozenset(str(name) for name in files if isinstance(name, str))


def written_files(store: Path) -> list[str]:
    """Every file under ``store`` (relative, POSIX), for the completion marker of a load that wrote them all."""
    return sorted(path.relative_to(store).as_posix() for path in store.rglob("*") if path.is_file() or path.is_symlink())


def foreign_files(store: Path) -> list[str]:
    """What in the folder ``store`` kg-agent did not write (files, links, other folders), relative and sorted."""
    listed = listed_files(store)
    foreign = []
    for root, dirs, files in os.walk(store):
        here = Path(root).relative_to(store)
        for name in files:
            if not is_own_file(here / name, listed):
                foreign.append((here / name).as_posix())
        for name in list(dirs):
            relative = here / name
            if (store / relative).is_symlink() or relative.as_posix() != SIDECAR_DIR:
                foreign.append(relative.as_posix() + "/")
                dirs.remove(name)
    return sorted(foreign)


def foreign_files_text(store: Path, foreign: list[str], shown: int = 5) -> str:
    names = ", ".join(foreign[:shown]) + (f" and {len(foreign) - shown} more" if len(foreign) > shown else "")
    return f"{store} holds files kg-agent did not write ({names})"


def remove_own_files(folder: Path) -> list[str]:
    """Delete the files kg-agent wrote in ``folder`` (a store moved aside), then the folder if it is empty; returns
    what was left (the user's files that came in meanwhile), relative."""
    listed = listed_files(folder)
    for root, _, files in os.walk(folder):
        here = Path(root).relative_to(folder)
        for name in files:
            if is_own_file(here / name, listed):
                (folder / here / name).unlink(missing_ok=True)
    for sub in (folder / SIDECAR_DIR, folder):
        try:
            sub.rmdir()
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                raise
    return foreign_files(folder) if folder.exists() else []
