"""A damaged document index, a term too long for the RDF parser and a full disk, each said in one plain line with
exit status 2 (issue 47, item 4): the file, what is wrong, what to do; no traceback, nothing half-written left."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kg_agent.cli import main
from kg_agent.kg.loading.samples import sample_documents_path

QUESTION = "what movies did [Tom Hanks] star in"


def run_cli(capsys, *args: str) -> tuple[int, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return status, captured.err


@pytest.fixture(scope="module")
def plot_index(tmp_path_factory) -> Path:
    index = tmp_path_factory.mktemp("docs") / "index"
    assert main(["ingest", "--docs", str(sample_documents_path()), "--index", str(index)]) == 0
    return index


def truncated(database: Path) -> None:
    os.truncate(database, 100_000)


def overwritten_header(database: Path) -> None:
    with database.open("r+b") as handle:
        handle.write(b"\0" * 4096)


@pytest.mark.parametrize("damage", [truncated, overwritten_header])
def test_a_damaged_document_index_is_named_with_what_to_do(plot_index, tmp_path, capsys, damage):
    index = tmp_path / "index"
    shutil.copytree(plot_index, index)
    damage(index / "chroma.sqlite3")
    status, err = run_cli(capsys, "ask", QUESTION, "--method", "tog2", "--docs", str(index))
    assert status == 2
    assert err.startswith(f"kg-agent: error: {index / 'chroma.sqlite3'}: the document index is damaged or is not a "
                          "Chroma index (")
    assert f"delete the folder {index} and rebuild it with `kg-agent ingest --docs FILE --index {index}`" in err
    assert len(err.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def huge_literal(tmp_path_factory) -> Path:
    """Line 2 holds a 17 MB literal: more than Oxigraph's parser buffers (16 MiB)."""
    path = tmp_path_factory.mktemp("huge") / "huge.nt"
    with path.open("w", encoding="utf-8") as handle:
        handle.write('<http://e.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "A" .\n')
        handle.write('<http://e.org/a> <http://e.org/p> "' + "x" * 17_000_000 + '" .\n')
    return path


@pytest.mark.parametrize("command", ["ask", "load"])
def test_a_term_too_long_for_the_parser_is_named_by_line(huge_literal, tmp_path, capsys, command):
    args = ["ask", "what is [A]", "--kg", str(huge_literal)] if command == "ask" else \
        ["load", str(huge_literal), "--store", str(tmp_path / "store")]
    status, err = run_cli(capsys, *args)
    assert status == 2
    assert err == (f"kg-agent: error: {huge_literal}:2: a term is longer than 16,777,216 bytes, more than the RDF "
                   "parser reads at once; shorten that literal or leave the triple out\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.fixture()
def small_disk(tmp_path) -> Path:
    """A 400 kB tmpfs (needs root: skipped otherwise)."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(folder)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)  # chromadb keeps its client (and file) open


def test_ingest_on_a_full_disk_says_so_and_leaves_no_index(small_disk, capsys):
    index = small_disk / "index"
    status, err = run_cli(capsys, "ingest", "--docs", str(sample_documents_path()), "--index", str(index))
    assert status == 2
    assert err.startswith(f"kg-agent: error: {index / 'chroma.sqlite3'}: the disk is full (database or disk is full); "
                          "free some space and run the ingest again")
    assert len(err.strip().splitlines()) == 1
    assert list(small_disk.iterdir()) == []  # the index this ingest began is gone
