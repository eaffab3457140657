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
