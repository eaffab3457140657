"""The load's index pass and label file run with Python's garbage collector paused
(kg_agent/kg/loading/collector_paused.py), and a label key without a digit is its own joined form without trying the
joining pattern (kg_agent/kg/terms.py ``joined_key``): both speed the load up (issue 48) and change nothing it writes.

The KG is tests/fixtures/ropeways/ (invented): lifts whose names hold digits written with and without a space, and
Arabic-Indic digits."""

from __future__ import annotations

import gc
import re
import sqlite3
from pathlib import Path

import pytest

from kg_agent.kg import build_oxigraph
from kg_agent.kg.loading.collector_paused import collector_paused
from kg_agent.kg.store_folder import LABEL_INDEX_FILE, SIDECAR_DIR
from kg_agent.kg.terms import joined_key, label_keys

ROPEWAYS = Path(__file__).parent / "fixtures" / "ropeways" / "ropeways.nt"
EX = "http://example.org/ropeway/"


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_paused_restores_the_collector_as_it_was(enabled):
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(KeyError), collector_paused():
            raise KeyError("a failed pass")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_load_leaves_the_collector_enabled(tmp_path):
    assert gc.isenabled()
    build_oxigraph(ROPEWAYS, tmp_path / "store")
    assert gc.isenabled()


def test_joined_key_is_the_patterns_result_with_and_without_digits():
    pattern = re.compile(r"(?<=[^\W\d_]) (?=\d)|(?<=\d) (?=[^\W\d_])")  # the rule joined_key states
    for key in ["gondola 7", "chair4", "sessel \u0663", "panorama kabinenbahn", "7 summit", "old bullwheel",
                "lift 12 b", "", "a 1 2 b", "\u0663 ridge"]:
        assert joined_key(key) == pattern.sub("", key), key


def test_the_label_file_of_a_load_keeps_joined_keys_ropeways(tmp_path):
    store = build_oxigraph(ROPEWAYS, tmp_path / "store")
    connection = sqlite3.connect(store / SIDECAR_DIR / LABEL_INDEX_FILE)
    try:
        rows = {(norm, node) for norm, node in connection.execute("SELECT norm, node FROM labels")}
    finally:
        connection.close()
    assert {("gondola 7", f"{EX}g7"), ("gondola7", f"{EX}g7"), ("chair4", f"{EX}c4"),
            ("sessel \u0663", f"{EX}s3"), ("sessel\u0663", f"{EX}s3"), ("panorama kabinenbahn", f"{EX}pk"),
            ("old bullwheel chairlift", f"{EX}ob"), ("old bullwheel", f"{EX}ob")} <= rows
    assert ("panoramakabinenbahn", f"{EX}pk") not in rows
    # the label file's keys are label_keys' own, label by label
    assert {norm for norm, node in rows if node == f"{EX}ob"} == set(label_keys("Old Bullwheel (chairlift)"))
