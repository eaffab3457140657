"""Start fast (issue 48 item 2): importing kg_agent and building the command line's flags imports none of the heavy
libraries; they are imported when used. A module list, not a time (speed is in docs/benchmarks.md section 16)."""

from __future__ import annotations

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


def test_names_are_still_there_when_asked_for():
    loaded = top_level_modules("from kg_agent.kg import open_kg; from kg_agent.llm import call_llm; "
                               "from kg_agent.graphs import create_rog_graph")
    assert {"rdflib", "langchain_core", "langgraph"} <= loaded
