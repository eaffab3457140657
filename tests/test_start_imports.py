"""Start fast (issue 48 item 2): importing kg_agent and building the command line's flags imports none of the heavy
libraries; they are imported when used, and a question imports only what it uses. The ``kg-agent`` program keeps what
its set-up made out of the garbage collector's walks. Module lists and collector states, not times (speed is in
docs/benchmarks.md section 16)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("langchain", "langchain_core", "langgraph", "langsmith", "chromadb", "onnxruntime", "matplotlib", "mcp",
         "rdflib", "pyoxigraph", "numpy")

REPORT = """
import json, sys
{code}
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}})))
"""


def top_level_modules(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", REPORT.format(code=code)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("code", [
    "import kg_agent",
    "import kg_agent.kg, kg_agent.llm, kg_agent.graphs",
    "from kg_agent.cli import build_parser; build_parser()",  # what kg-agent --help and every command parse with
])
def test_start_imports_no_heavy_library(code):
    assert top_level_modules(code) & set(HEAVY) == set()


ASKED = """
import json, sys
from kg_agent.cli import main
status = main(["ask", "who directed [5 Centimeters Per Second]", "--kg", sys.argv[1]])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory, fixtures_dir) -> Path:
    from kg_agent.cli import main

    store = tmp_path_factory.mktemp("start") / "store"
    assert main(["load", str(fixtures_dir / "kg" / "metaqa_slice.txt"), "--store", str(store)]) == 0
    return store


def test_asking_over_a_store_imports_only_what_the_question_uses(store):
    """``kg-agent ask`` over an Oxigraph store (offline): the method's graph (LangGraph) and MiniLM (onnxruntime),
    not the rdflib view of the store (oxrdflib, rdflib's SPARQL engine: ~0.1 s), Chroma, the MCP SDK, LangChain's
    agents or chat models (~40 ms: no model is asked), an OpenAI client, matplotlib, the language tables (langcodes,
    ~30 ms: the question names no language) or numpy's masked arrays (~10 ms)."""
    done = subprocess.run([sys.executable, "-c", ASKED, str(store)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] == 0 and "Makoto Shinkai" in done.stdout
    modules = set(report["modules"])
    assert {"langgraph", "onnxruntime", "pyoxigraph"} <= modules
    unused = {"oxrdflib", "rdflib.plugins.sparql", "chromadb", "mcp", "langchain", "langchain_openai", "openai",
              "matplotlib", "langchain_core.language_models.chat_models", "langcodes", "numpy.ma"}
    assert modules & unused == set()


PROGRAM = """
import gc, sys
from kg_agent.cli import main
sys.argv = ["kg-agent", "ask", "who directed [5 Centimeters Per Second]", "--kg", sys.argv[1]]
status = main()
print(status, gc.isenabled(), gc.get_freeze_count() > 0)
"""


def test_the_program_keeps_its_set_up_out_of_collections_and_a_call_from_code_leaves_them_alone(store):
    """The ``kg-agent`` program freezes what its set-up made (modules, KG, graph: they live until it exits); a
    program or test calling ``main([...])`` keeps its collector as it was."""
    from kg_agent.cli import main

    done = subprocess.run([sys.executable, "-c", PROGRAM, str(store)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "0 True True"
    frozen = gc.get_freeze_count()
    assert main(["ask", "who directed [5 Centimeters Per Second]", "--kg", str(store)]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_names_are_still_there_when_asked_for():
    loaded = top_level_modules("from kg_agent.kg import open_kg; from kg_agent.llm import call_llm; "
                               "from kg_agent.graphs import create_rog_graph")
    assert {"rdflib", "langchain_core", "langgraph"} <= loaded
