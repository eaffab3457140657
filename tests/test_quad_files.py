"""A KG published as TriG or N-Quads with its facts in named graphs (tests/fixtures/apiaries, invented): the KG is
the union of the file's graphs on the memory and the Oxigraph backend, each triple once, a blank node one node in
every graph, and a question is answered from it (before, only the default graph was read: an empty KG)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.kg import open_kg

FIXTURES = Path(__file__).parent / "fixtures" / "apiaries"
AP = "http://example.org/apiary/"


def _open(source: Path, backend: str, tmp_path: Path):
    if backend == "memory":
        return open_kg(source)
    return open_kg(source, backend="oxigraph", store_path=tmp_path / "store")


@pytest.mark.parametrize("name", ["apiaries.trig", "apiaries.nq"])
@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
def test_every_named_graph_is_part_of_the_kg(tmp_path, name, backend):
    kg = _open(FIXTURES / name, backend, tmp_path)
    # 17 distinct triples: the keeper stated in two graphs counts once
    assert len(kg) == 17
    assert kg.label(AP + "heathfield") == "Heathfield Apiary"
    assert kg.neighbors(AP + "heathfield", "keeper") == [AP + "marta"]
    # the hive count's blank node is written in one graph and described in another: one node
    (count,) = kg.neighbors(AP + "heathfield", "hiveCount")
    assert sorted(kg.relations(count, direction="out")) == ["hives", "year"]


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph])
def test_a_question_over_a_trig_dump_is_answered(tmp_path, backend, create):
    kg = _open(FIXTURES / "apiaries.trig", backend, tmp_path)
    result = create(kg).compile().invoke({"question": "Who keeps Orchard Row Apiary?"})
    assert [answer["answer"] for answer in result["answers"]][:1] == ["Ilse Brandt"]
    assert result["answers"][0]["grounded"]


def test_kg_agent_load_of_a_trig_file_then_ask(tmp_path):
    store = tmp_path / "store"
    load = subprocess.run([sys.executable, "-m", "kg_agent.cli", "load", str(FIXTURES / "apiaries.trig"),
                           "--store", str(store)], capture_output=True, text=True, timeout=300)
    assert load.returncode == 0, load.stderr[-2000:]
    ask = subprocess.run([sys.executable, "-m", "kg_agent.cli", "ask", "Which village is Heathfield Apiary in?",
                          "--kg", str(store), "--model", "none"], capture_output=True, text=True, timeout=300)
    assert ask.returncode == 0, ask.stderr[-2000:]
    assert "Lowdale" in ask.stdout.split("Answers:", 1)[1]


def test_a_syntax_error_in_a_named_graph_names_the_line(tmp_path):
    from kg_agent.kg.errors import KGLoadError

    broken = tmp_path / "broken.trig"
    broken.write_text("@prefix ap: <http://example.org/apiary/> .\nap:g {\n  ap:a ap:p ap:b .\n  ap:a ap:p \"open\n}\n",
                      encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"broken\.trig:\d+: cannot parse as trig"):
        open_kg(broken, backend="oxigraph", store_path=tmp_path / "store")
    assert not (tmp_path / "store").exists()
