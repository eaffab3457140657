"""``kg-agent load`` never deletes what kg-agent did not create, says so in its own words, and stops on Ctrl-C.

The refusals run ``kg-agent``'s ``main`` in this process (the exit status and stderr a shell sees); Ctrl-C and a
killed load run the CLI as a real subprocess on a generated N-Triples file big enough to take many seconds.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kg_agent.cli import main
from kg_agent.kg import KGLoadError, build_oxigraph, open_oxigraph
from kg_agent.kg.loading.oxigraph_build import is_kg_agent_store
from kg_agent.kg.store_folder import COMPLETE_MARKER, LOCK_FILE, SIDECAR_DIR, lock_holder

PYTHON_NAMES = ("overwrite=True", "build_oxigraph", "Traceback", "Oxigraph store already exists")


@pytest.fixture()
def user_folder(kg_dir: Path, tmp_path: Path) -> Path:
    """A user's folder: their notes and their KG file."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (folder / "kb.txt").write_text((kg_dir / "metaqa_slice.txt").read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def kg_dir(fixtures_dir: Path) -> Path:
    return fixtures_dir / "kg"


def run_load(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["load", *args])
    captured = capsys.readouterr()
    for name in PYTHON_NAMES:
        assert name not in captured.err + captured.out
    return status, captured.out, captured.err


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def no_partials(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if ".partial" in p.name or ".replaced-" in p.name]


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_folder_with_a_users_files_is_refused_and_kept(user_folder, kg_dir, capsys, overwrite):
    before = files_of(user_folder)
    status, _, err = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(user_folder),
                              *(["--overwrite"] if overwrite else []))
    assert status == 2
    assert "not a kg-agent store (it holds other files); choose an empty or new folder" in err
    assert ("--overwrite only replaces a folder kg-agent created" in err) == overwrite
    assert files_of(user_folder) == before and no_partials(user_folder.parent)


def test_a_plain_folder_is_not_called_an_oxigraph_store(kg_dir, tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.jpg").write_bytes(b"\xff\xd8 a cat")
    status, _, err = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(folder))
    assert status == 2 and "not a kg-agent store" in err and "already exists" not in err
    assert (folder / "cat.jpg").read_bytes() == b"\xff\xd8 a cat"


@pytest.mark.parametrize("store", ["kb.txt", "notes.txt", ".", "..", "project-parent", "project"])
def test_the_input_file_any_file_the_current_folder_and_its_parents_are_refused(user_folder, monkeypatch, capsys, store):
    monkeypatch.chdir(user_folder)
    target = {"project-parent": str(user_folder.parent), "project": str(user_folder)}.get(store, store)
    before = files_of(user_folder)
    status, _, err = run_load(capsys, "kb.txt", "--store", target, "--overwrite")
    assert status == 2
    expected = {
        "kb.txt": "kb.txt is the input file itself; choose an empty or new folder",
        "notes.txt": "notes.txt is a file, not a folder; choose an empty or new folder",
    }.get(store, "is the current folder or one of its parents; choose an empty or new folder")
    assert expected in err
    assert files_of(user_folder) == before and no_partials(user_folder.parent)


def test_a_folder_holding_the_input_file_is_refused(user_folder, tmp_path, capsys):
    (user_folder / "notes.txt").unlink()
    before = files_of(user_folder)
    status, _, err = run_load(capsys, str(user_folder / "kb.txt"), "--store", str(user_folder), "--overwrite")
    assert status == 2 and f"{user_folder} holds the input file {user_folder / 'kb.txt'}" in err
    assert files_of(user_folder) == before and no_partials(tmp_path)


def test_the_python_api_refuses_the_same_folders(user_folder, kg_dir):
    before = files_of(user_folder)
    with pytest.raises(KGLoadError, match="not a kg-agent store"):
        build_oxigraph(kg_dir / "metaqa_slice.txt", user_folder, overwrite=True)
    with pytest.raises(KGLoadError, match="holds the input file"):
        build_oxigraph(user_folder / "kb.txt", user_folder, overwrite=True)
    with pytest.raises(KGLoadError, match="is the input file itself"):
        build_oxigraph(user_folder / "kb.txt", user_folder / "kb.txt", overwrite=True)
    assert files_of(user_folder) == before and no_partials(user_folder.parent)


def test_only_a_store_kg_agent_built_is_replaced_and_an_empty_folder_is_used(kg_dir, tmp_path, capsys):
    store = tmp_path / "store"
    store.mkdir()  # an empty folder may be used
    status, out, _ = run_load(capsys, str(kg_dir / "twowiki_slice.jsonl"), "--store", str(store))
    assert status == 0 and is_kg_agent_store(store) and f"use --kg {store}" in out
    status, _, err = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(store))
    assert status == 2 and "a kg-agent store already exists there; pass --overwrite to rebuild it" in err
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Cork") and not kg.find_entities("Combat Shock")
    status, _, _ = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(store), "--overwrite")
    assert status == 0
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Combat Shock") and not kg.find_entities("Cork")
    assert no_partials(tmp_path)


def test_a_failed_load_keeps_the_old_store(kg_dir, tmp_path, capsys):
    store = build_oxigraph(kg_dir / "metaqa_slice.txt", tmp_path / "store")
    before = files_of(store)
    broken = tmp_path / "broken.nt"
    broken.write_text("<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n<http://e.org/a> <http://e.org/p> \"open .\n",
                      encoding="utf-8")
    status, _, err = run_load(capsys, str(broken), "--store", str(store), "--overwrite")
    assert status == 2 and f"{broken}:2: cannot parse as nt" in err
    assert files_of(store) == before and no_partials(tmp_path)
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Combat Shock")


def test_a_partial_folder_kg_agent_did_not_make_is_not_removed(kg_dir, tmp_path, capsys):
    theirs = tmp_path / "store.partial"
    theirs.mkdir()
    (theirs / "draft.txt").write_text("keep me", encoding="utf-8")
    status, _, err = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(tmp_path / "store"))
    assert status == 2 and "was not made by kg-agent" in err
    assert (theirs / "draft.txt").read_text(encoding="utf-8") == "keep me" and not (tmp_path / "store").exists()


def test_missing_and_unreadable_inputs_exit_2_in_the_clis_words(kg_dir, tmp_path, capsys):
    status, _, err = run_load(capsys, str(tmp_path / "absent.nt"), "--store", str(tmp_path / "store"))
    assert status == 2 and "absent.nt: no such file" in err
    latin = tmp_path / "kb.txt"
    latin.write_bytes("A|directed_by|B\nCaf\xe9|starred_actors|D\n".encode("latin-1"))
    status, _, err = run_load(capsys, str(latin), "--store", str(tmp_path / "store"))
    assert status == 2 and f"{latin}:2:" in err and "not UTF-8" in err and "iconv -f latin1 -t utf-8" in err
    assert not (tmp_path / "store").exists() and no_partials(tmp_path)


def test_a_small_load_reports_no_rate(kg_dir, tmp_path, capsys):
    status, out, _ = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(tmp_path / "store"))
    assert status == 0 and "triples loaded in" in out and "triples/s" not in out


def test_load_help_documents_the_exit_status_and_overwrite(capsys):
    with pytest.raises(SystemExit):
        main(["load", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 loaded" in text and "2 bad input or usage" in text and "130 interrupted" in text
    assert "never any other folder" in text


# ---------------------------------------------------------------- Ctrl-C and a killed load
@pytest.fixture(scope="module")
def big_ntriples(tmp_path_factory) -> Path:
    """1.5M triples (~100 MB): Oxigraph's bulk load takes well over ten seconds on a 2-core machine."""
    path = tmp_path_factory.mktemp("big") / "big.nt"
    count = 1_500_000
    with path.open("w", encoding="utf-8") as handle:
        for start in range(0, count, 100_000):
            handle.write("".join(f"<http://e.org/e{i}> <http://e.org/r{i % 7}> <http://e.org/e{(i * 7919) % count}> .\n"
                                 for i in range(start, start + 100_000)))
    return path


def start_load(source: Path, store: Path) -> subprocess.Popen:
    # as from a terminal, whose Ctrl-C reaches the command: a test run started in the background (`pytest &` in a
    # script) ignores SIGINT, the command would inherit that, and Python then installs no KeyboardInterrupt for it
    process = subprocess.Popen([sys.executable, "-m", "kg_agent.cli", "load", str(source), "--store", str(store), "--overwrite"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    partial = store.with_name(store.name + ".partial")
    deadline = time.monotonic() + 60
    while not (partial / "CURRENT").exists():  # the bulk loader has opened the new store
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the load did not start"
        time.sleep(0.05)
    time.sleep(0.5)
    assert process.poll() is None, "the load finished before it could be interrupted"
    return process


def processes_naming(text: str) -> list[int]:
    """Processes whose command line holds ``text`` (the bulk loader's child names its store folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def old_store(kg_dir: Path, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    store = build_oxigraph(kg_dir / "metaqa_slice.txt", tmp_path / "store")
    return store, files_of(store)


def test_ctrl_c_stops_a_load_and_keeps_the_old_store(big_ntriples, kg_dir, tmp_path):
    """Ctrl-C stops the load (its bulk loader included) instead of letting it run on; how fast is not asserted here
    (about a second on an idle machine, 13.6 s once beside two llama.cpp servers): the 60 s bound only catches a hang."""
    store, before = old_store(kg_dir, tmp_path)
    process = start_load(big_ntriples, store)
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("kg-agent load did not stop within 60 s of Ctrl-C")
    assert process.returncode == 130, err
    assert f"kg-agent: interrupted; nothing was changed (the old store at {store} is kept)" in err, err
    assert "Traceback" not in err
    assert files_of(store) == before and no_partials(tmp_path)  # the lock file too is gone
    assert processes_naming(str(store) + ".partial") == []  # the bulk loader's process is gone too
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Combat Shock")


def test_a_killed_load_stops_its_bulk_loader_and_the_next_load_clears_its_leftovers(big_ntriples, kg_dir, tmp_path):
    store, before = old_store(kg_dir, tmp_path)
    partial = store.with_name(store.name + ".partial")
    process = start_load(big_ntriples, store)
    process.kill()  # no chance to clean up: the bulk loader's process notices its parent is gone
    process.communicate()
    deadline = time.monotonic() + 10
    # gone, and its files closed: a dying process leaves /proc/PID/cmdline empty before it closes its files (the lock)
    while processes_naming(str(partial)) or lock_holder(store) is not None:
        assert time.monotonic() < deadline, "the bulk loader kept writing (or holding the store) after its parent was killed"
        time.sleep(0.1)
    left = files_of(store)
    lock = f"{SIDECAR_DIR}/{LOCK_FILE}"
    assert left.pop(lock) == f"{process.pid}\n".encode()  # the stale lock: its processes are gone, so no one holds it
    assert left == before and (partial / SIDECAR_DIR).is_dir()
    assert not (partial / SIDECAR_DIR / COMPLETE_MARKER).exists()
    with open_oxigraph(store) as kg:  # the old store still opens
        assert kg.find_entities("Combat Shock")
    status = main(["load", str(kg_dir / "twowiki_slice.jsonl"), "--store", str(store), "--overwrite"])
    assert status == 0 and no_partials(tmp_path)  # kg-agent's own leftovers (DIR.partial, the stale lock) were cleared
    assert not (store / lock).exists()
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Cork")



# ---------------------------------------------------------------- one writer per store
def test_a_second_load_is_refused_at_once_and_a_reader_never_sees_a_half_written_store(big_ntriples, kg_dir, tmp_path,
                                                                                        capsys):
    """Two loads into one new store: the second is refused (exit 75, the first's process named) and changes nothing;
    a reader meanwhile is told the store is being built; the first finishes, and its marker counts what it holds."""
    store = tmp_path / "store"
    process = start_load(big_ntriples, store)
    status, _, err = run_load(capsys, str(kg_dir / "metaqa_slice.txt"), "--store", str(store), "--overwrite")
    assert status == 75, err
    assert f"{store}: another kg-agent load (process {process.pid}) is writing this store; wait until it ends" in err
    assert process.poll() is None, "the first load had ended: the refusal proves nothing"
    with pytest.raises(KGLoadError, match=f"kg-agent load \\(process {process.pid}\\) is still building this store"):
        open_oxigraph(store)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    with open_oxigraph(store) as kg:
        assert len(kg) == 1_500_000 == json.loads((store / SIDECAR_DIR / COMPLETE_MARKER).read_text())["triples"]
    assert not (store / SIDECAR_DIR / LOCK_FILE).exists() and lock_holder(store) is None and no_partials(tmp_path)


def test_a_lock_left_by_a_process_that_is_gone_is_taken_over(kg_dir, tmp_path, capsys):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    for store in (tmp_path / "new", old_store(kg_dir, tmp_path)[0]):  # a load of a new store, of an old one, killed
        (store / SIDECAR_DIR).mkdir(parents=True, exist_ok=True)
        (store / SIDECAR_DIR / LOCK_FILE).write_text(f"{gone.pid}\n", encoding="utf-8")
        assert lock_holder(store) is None
        status, _, err = run_load(capsys, str(kg_dir / "twowiki_slice.jsonl"), "--store", str(store), "--overwrite")
        assert status == 0, err
        assert not (store / SIDECAR_DIR / LOCK_FILE).exists() and no_partials(tmp_path)
        with open_oxigraph(store) as kg:
            assert kg.find_entities("Cork")


def test_a_failed_load_of_a_new_store_leaves_nothing(kg_dir, tmp_path, capsys):
    broken = tmp_path / "broken.nt"
    broken.write_text("<http://e.org/a> <http://e.org/p> \"open .\n", encoding="utf-8")
    status, _, err = run_load(capsys, str(broken), "--store", str(tmp_path / "store"))
    assert status == 2 and f"{broken}:1: cannot parse as nt" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.nt"]  # no store folder, no lock, no partial


# ---------------------------------------------------------------- --overwrite deletes only kg-agent's files
def test_overwrite_refuses_a_store_holding_the_users_files_and_names_them(kg_dir, tmp_path, capsys):
    store, _ = old_store(kg_dir, tmp_path)
    (store / "README-mine.txt").write_text("my notes on this store\n", encoding="utf-8")
    (store / SIDECAR_DIR / "queries-mine.sparql").write_text("SELECT * {}\n", encoding="utf-8")
    before = files_of(store)
    status, _, err = run_load(capsys, str(kg_dir / "twowiki_slice.jsonl"), "--store", str(store), "--overwrite")
    assert status == 2
    assert (f"{store} holds files kg-agent did not write (README-mine.txt, kg-agent/queries-mine.sparql); --overwrite "
            "replaces only a store's own files: move those out of it first") in err
    assert files_of(store) == before and no_partials(tmp_path)
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Combat Shock")


def test_files_the_user_adds_during_a_load_keep_the_old_store(kg_dir, tmp_path):
    store, _ = old_store(kg_dir, tmp_path)

    def users_file_arrives(index, sidecar, names) -> None:
        (store / "added-meanwhile.txt").write_text("mine", encoding="utf-8")

    before = files_of(store)
    with pytest.raises(KGLoadError, match=r"holds files kg-agent did not write \(added-meanwhile.txt\).*the old store is kept"):
        build_oxigraph(kg_dir / "twowiki_slice.jsonl", store, overwrite=True, beside_load=users_file_arrives)
    assert files_of(store) == {**before, "added-meanwhile.txt": b"mine"} and no_partials(tmp_path)
    with open_oxigraph(store) as kg:
        assert kg.find_entities("Combat Shock")


def test_a_store_once_opened_read_write_is_still_replaced(kg_dir, tmp_path, capsys):
    """RocksDB writes new log, manifest and options files whenever a store is opened read-write (as kg-agent did
    before it opened stores read-only): they are kg-agent's, and --overwrite replaces them."""
    import pyoxigraph as ox

    store, before = old_store(kg_dir, tmp_path)
    for _ in range(2):
        handle = ox.Store(str(store))
        handle.flush()
        del handle
    assert set(files_of(store)) - set(before)  # new RocksDB files the marker does not list
    status, _, err = run_load(capsys, str(kg_dir / "twowiki_slice.jsonl"), "--store", str(store), "--overwrite")
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_reading_a_store_writes_nothing_in_its_folder(kg_dir, tmp_path):
    store, _ = old_store(kg_dir, tmp_path)
    stamps = {path: (path.stat().st_mtime_ns, path.stat().st_size) for path in store.rglob("*")}
    for _ in range(2):
        with open_oxigraph(store) as kg:
            assert kg.find_entities("Combat Shock") and len(kg) > 0
    assert {path: (path.stat().st_mtime_ns, path.stat().st_size) for path in store.rglob("*")} == stamps
