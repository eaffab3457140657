"""A path query from a hub is bounded in memory on Oxigraph, and a call's KG reads stop at its deadline.

The graph is generated: films, each of one genre ("Drama" holds half of them) and three of 3,000 actors, as in
MetaQA's KB. Six relations from "Drama" (``^has_genre starred_actors ^starred_actors has_genre ^has_genre
starred_actors``) once made Oxigraph join the later steps over the whole graph before its first row (nested
``OPTIONAL``s): 2 GB in a minute here, 5.6 GB over MetaQA's KB, and no way to stop it from Python.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kg_agent.kg import KGQueryError, build_oxigraph, load_kg, open_oxigraph, retrieve_paths
from kg_agent.kg.deadline import ReadStopped, reads_until

HUB_PATH = ("^has_genre", "starred_actors", "^starred_actors", "has_genre", "^has_genre", "starred_actors")
DRAMA = "https://kg-agent.dev/entity/Drama"


@pytest.fixture(scope="module")
def cast_kb(tmp_path_factory) -> Path:
    rng = random.Random(0)
    path = tmp_path_factory.mktemp("cast") / "kb.txt"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(4000):
            handle.write(f"Film {i}|has_genre|{'Drama' if i % 2 == 0 else rng.choice(['Comedy', 'Western', 'Horror'])}\n")
            handle.writelines(f"Film {i}|starred_actors|Actor {a}\n" for a in rng.sample(range(3000), 3))
    return path


@pytest.fixture(scope="module")
def cast_store(cast_kb, tmp_path_factory) -> Path:
    return build_oxigraph(cast_kb, tmp_path_factory.mktemp("cast-store") / "store")


#: Runs the hub retrieval in a process whose address space is capped at 3 GB: the hash joins went past it.
CAPPED_RETRIEVAL = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from kg_agent.kg import open_oxigraph, retrieve_paths
with open_oxigraph(sys.argv[1]) as kg:
    found = retrieve_paths(kg, [sys.argv[2]], sys.argv[3:], max_paths=200)
    print(json.dumps({"paths": [p.text() for p in found.paths], "truncated": found.truncated}))
"""


def test_a_long_path_from_a_hub_is_read_in_bounded_memory_and_matches_the_memory_store(cast_kb, cast_store):
    run = subprocess.run([sys.executable, "-c", CAPPED_RETRIEVAL, str(cast_store), DRAMA, *HUB_PATH],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    on_oxigraph = json.loads(run.stdout)
    memory = retrieve_paths(load_kg(cast_kb), [DRAMA], HUB_PATH, max_paths=200)
    assert on_oxigraph == {"paths": [p.text() for p in memory.paths], "truncated": True} and memory.truncated


def test_reads_stop_once_the_deadline_has_passed(cast_store):
    with open_oxigraph(cast_store) as kg:
        with reads_until(time.monotonic() - 1), pytest.raises(ReadStopped, match="stopped at the call's deadline"):
            retrieve_paths(kg, [DRAMA], HUB_PATH, max_paths=200)
        assert isinstance(ReadStopped("x"), KGQueryError)  # a KG error: callers report it like a failed query
        with reads_until(time.monotonic() + 600):  # a deadline not reached changes nothing
            assert len(retrieve_paths(kg, [DRAMA], HUB_PATH[:2], max_paths=200).paths) == 200
        assert retrieve_paths(kg, [DRAMA], HUB_PATH, max_paths=200).truncated  # outside the block: no deadline
