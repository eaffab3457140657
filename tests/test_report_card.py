"""The report card across KGs (benchmarks/report_card.py) holds its committed baseline: no KG x method of it answers
more than one question fewer right than benchmarks/report_card_baseline.json (offline answers are deterministic;
floats differ a little between CPUs). Needs the full data (KG_AGENT_DATA); a gain raises the baseline in the same
commit (`python benchmarks/report_card.py --write-baseline`)."""

from __future__ import annotations

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
