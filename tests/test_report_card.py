"""The report card across KGs (benchmarks/report_card.py) holds its committed baseline: no KG x method of it answers
more than one question fewer right than benchmarks/report_card_baseline.json (offline answers are deterministic;
floats differ a little between CPUs). Needs the full data (KG_AGENT_DATA); a gain raises the baseline in the same
commit (`python benchmarks/report_card.py --write-baseline`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.full_data
def test_no_kg_of_the_report_card_falls_below_its_baseline(data_dir, tmp_path):
    if not (data_dir / "realkgs").is_dir():
        pytest.skip(f"no realkgs folder under {data_dir}")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report_card.py"), "--data", str(data_dir),
                           "--out", str(tmp_path), "--check"], capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:] + "\n" + done.stdout


def test_the_committed_real_kg_over_an_oxigraph_store_holds_its_baseline(tmp_path):
    """A user's path, ``kg-agent load FILE --store DIR`` then ``kg-agent eval --kg DIR``, on the real KG committed with
    the repository (so it runs on a fresh clone): its ``@oxigraph`` rows hold their baseline as the memory rows do
    (about two minutes; the other KGs' store rows: ``--backend oxigraph`` by hand, docs/report_card.md)."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report_card.py"), "--data", str(empty),
                           "--only", "iswc-conferences", "--backend", "oxigraph", "--out", str(tmp_path / "card"),
                           "--check"], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:] + "\n" + done.stdout
    assert "| iswc-conferences | oxigraph | rog |" in done.stdout


def _report_card():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report_card
    finally:
        sys.path.pop(0)
    return report_card


def test_real_kgs_and_style_fixtures_committed_are_on_the_card_without_the_data_folder(tmp_path):
    found = _report_card().suites(tmp_path)  # an empty data folder: a fresh clone without ../shared
    committed = sorted(p.name for p in (ROOT / "benchmarks" / "realkgs").iterdir() if (p / "questions.jsonl").exists())
    styles = sorted(f"style-{p.name}" for p in (ROOT / "tests" / "fixtures" / "styles").iterdir() if p.is_dir())
    assert committed and len(styles) == 7 and sorted(found) == sorted(committed + styles)
    for style in styles:
        args = found[style]
        assert args[args.index("--questions") + 1].endswith("questions_plain.jsonl")
    for name in committed:
        args = found[name]
        assert args[args.index("--questions") + 1] == str(ROOT / "benchmarks" / "realkgs" / name / "questions.jsonl")
        assert Path(args[args.index("--kg") + 1]).parent == ROOT / "benchmarks" / "realkgs" / name


@pytest.mark.parametrize("make_gold", sorted((ROOT / "benchmarks" / "realkgs").glob("*/make_gold.py")),
                         ids=lambda p: p.parent.name)
def test_committed_real_kg_answers_are_what_their_sparql_gives_on_the_kg_file(make_gold):
    done = subprocess.run([sys.executable, str(make_gold)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_card_runs_a_kg_over_an_oxigraph_store_loaded_as_a_user_loads_it_and_reuses_the_store(tmp_path):
    """``--backend oxigraph``: ``kg-agent load FILE --store DIR`` once per file and loading code, then ``kg-agent eval
    --kg DIR``; its rows are keyed ``<kg>@oxigraph`` beside the memory rows, which keep their keys (and baseline)."""
    card = _report_card()
    out, empty = tmp_path / "card", tmp_path / "no-data"
    empty.mkdir()
    argv = ["--data", str(empty), "--only", "style-skos", "--methods", "rog", "--out", str(out),
            "--backend", "memory", "--backend", "oxigraph"]
    assert card.main(argv) == 0
    rows = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert sorted(rows) == ["style-skos", "style-skos@oxigraph"]
    assert rows["style-skos@oxigraph"]["rog"]["all"]["n"] == rows["style-skos"]["rog"]["all"]["n"] > 0
    [store] = (out / "stores").iterdir()
    assert (store / "kg-agent").is_dir()
    results = json.loads((out / "style-skos-oxigraph-rog.json").read_text(encoding="utf-8"))
    assert results["config"]["kg"] == str(store)  # evaluated over the store, not the file
    built = (store / "kg-agent" / "complete.json").read_text(encoding="utf-8")  # names the load (its build)
    assert card.main(argv[:-4] + ["--backend", "oxigraph"]) == 0  # a rerun reuses the store
    assert [p.name for p in (out / "stores").iterdir()] == [store.name]
    assert (store / "kg-agent" / "complete.json").read_text(encoding="utf-8") == built
    assert card.split_key("style-skos@oxigraph") == ("style-skos", "oxigraph")
    assert card.split_key("style-skos") == ("style-skos", "memory")
