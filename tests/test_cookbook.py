"""Every cookbook recipe runs, offline, as a user would run it: ``python cookbook/<recipe>.py`` from the
project root, in a subprocess of this Python, with no OpenAI key in its environment. The assertions are
on what the recipe prints.

Recipes that talk to a server get a real one started here: the SPARQL endpoint of ``tests/sparql_server.py``
(pyoxigraph behind the SPARQL 1.1 Protocol) and the OpenAI-compatible chat server of
``tests/openai_server.py``. The MetaQA recipe needs the benchmark data and is skipped without it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kg_agent.tools.prompts import prompt_node
from tests.conftest import PROJECT_ROOT
from tests.openai_server import OpenAICompatibleServer, count_words
from tests.sparql_server import SparqlServer, store_from_graph

COOKBOOK = PROJECT_ROOT / "cookbook"
RECIPES = sorted(p.name for p in COOKBOOK.glob("[0-9][0-9]_*.py"))
#: Environment variables that would make a recipe leave its offline path.
ONLINE_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_MODEL", "KG_AGENT_MODEL",
                    "KG_AGENT_SPARQL_URL")


def run_recipe(name: str, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> str:
    """Run a recipe like a user (from the project root) and return its standard output; it must exit 0."""
    environment = {k: v for k, v in os.environ.items() if k not in ONLINE_VARIABLES}
    environment.update(env or {})
    done = subprocess.run([sys.executable, str(COOKBOOK / name), *args], cwd=PROJECT_ROOT, env=environment,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (
        f"{name} exited with {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}")
    return done.stdout


# ---------------------------------------------------------------------------------------------- documentation
def test_every_recipe_is_explained_short_and_listed():
    assert len(RECIPES) == 11, RECIPES
    cookbook_readme = (COOKBOOK / "README.md").read_text(encoding="utf-8")
    main_readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    tested = Path(__file__).read_text(encoding="utf-8")
    for name in RECIPES:
        source = (COOKBOOK / name).read_text(encoding="utf-8")
        docstring = ast.get_docstring(ast.parse(source))
        assert docstring and "Run" in docstring and f"cookbook/{name}" in docstring, \
            f"{name}: its docstring should say what it shows and how to run it"
        assert len(source.splitlines()) <= 80, f"{name} is longer than 80 lines"
        assert f"({name})" in cookbook_readme, f"cookbook/README.md does not link {name}"
        assert f"(cookbook/{name})" in main_readme, f"README.md does not link cookbook/{name}"
        assert f'"{name}"' in tested, f"{name} is not run by this test file"


# ---------------------------------------------------------------------------------------------- recipes
def test_01_quickstart():
    out = run_recipe("01_quickstart.py")
    assert "<PATH> ^starred_actors <SEP> directed_by </PATH>" in out
    assert "  Ron Howard\n    because Tom Hanks -> ^starred_actors -> Apollo 13 -> directed_by -> Ron Howard" in out


def test_02_your_own_kg_from_turtle_then_oxigraph():
    out = run_recipe("02_your_own_kg.py")
    assert "'Dune' is https://example.org/library/book/dune" in out  # the file's own IRIs are kept
    in_memory, on_disk = out.split("From the Oxigraph store")
    expected = ("Tacoma  (https://example.org/library/place/tacoma)\n"
                "    because Dune -> author -> Frank Herbert -> place_of_birth -> Tacoma")
    assert expected in in_memory and expected in on_disk
    assert "(oxigraph, 40 triples)" in on_disk
    assert not list(COOKBOOK.rglob("*.oxigraph")), "the store belongs in a temporary folder"


def test_03_remote_sparql_without_an_endpoint_explains_and_exits_0():
    out = run_recipe("03_remote_sparql.py")
    assert "No SPARQL endpoint given" in out and "oxigraph serve-read-only" in out
    assert "KG_AGENT_SPARQL_URL" in out


def test_03_remote_sparql_against_a_running_endpoint():
    from kg_agent.kg import open_kg

    with SparqlServer(store_from_graph(open_kg().graph)) as server:
        out = run_recipe("03_remote_sparql.py", env={"KG_AGENT_SPARQL_URL": server.url})
        queries = len(server.queries)
    assert f"Endpoint {server.url}: 2935 triples (sparql backend)" in out
    assert "  Ron Howard\n    because Tom Hanks -> ^starred_actors -> Apollo 13 -> directed_by -> Ron Howard" in out
    printed = int(re.search(r"SPARQL queries sent to the endpoint: (\d+)", out).group(1))
    assert 0 < printed <= queries  # the endpoint really was asked (the triple count is one more query)


def test_04_rog_in_front_of_a_scripted_chat_model():
    out = run_recipe("04_rog_with_your_chat_model.py")
    assert "Chat model: ScriptedChatModel" in out
    context_reply = out.split("1. with_rog_context: the model's reply\n")[1].splitlines()[0]
    assert context_reply.startswith("Answers: ") and "Ron Howard" in context_reply
    assert "  <PATH> ^starred_actors <SEP> directed_by </PATH>  (llm)" in out
    assert "  Ron Howard: Tom Hanks -> ^starred_actors -> Apollo 13 -> directed_by -> Ron Howard" in out
    assert "LLM: 2 calls," in out


def _like_a_model(prompt: str) -> str:
    """What the OpenAI-compatible test server answers: RoG's plan, or the directors on the paths shown."""
    if prompt_node(prompt) == "plan":
        return "<PATH> ^starred_actors <SEP> directed_by </PATH>"
    paths = [line.split(" -> ") for line in prompt.splitlines() if " -> " in line]
    return "\n".join(dict.fromkeys(p[-1] for p in paths if p[-2] == "directed_by"))


def test_04_rog_in_front_of_chat_openai_on_a_real_http_server():
    with OpenAICompatibleServer(responder=_like_a_model, api_key="sk-cookbook") as server:
        out = run_recipe("04_rog_with_your_chat_model.py",
                         env={"KG_AGENT_MODEL": "openai:gpt-4o-mini", "OPENAI_BASE_URL": server.base_url,
                              "OPENAI_API_KEY": "sk-cookbook"})
        requests = server.chat_requests
    assert "Chat model: ChatOpenAI" in out
    assert len(requests) == 3  # with_rog_context: 1 call; the graph: plan + answer
    context, plan, answer = (r.prompt_text for r in requests)
    assert context.startswith("Reasoning paths retrieved from the knowledge graph")
    assert "Tom Hanks -> ^starred_actors -> Apollo 13 -> directed_by -> Ron Howard" in context
    assert "^starred_actors" in plan and "directed_by" in plan  # RoG's planning prompt lists the walkable relations
    assert "  <PATH> ^starred_actors <SEP> directed_by </PATH>  (llm)" in out
    assert "  Ron Howard: Tom Hanks -> ^starred_actors -> Apollo 13 -> directed_by -> Ron Howard" in out
    # the usage printed is what the server reported (it counts words), not an estimate
    reported = f"LLM: 2 calls, {count_words(plan) + count_words(answer)} prompt + "
    assert reported in out, out


def test_05_tools_in_a_tool_calling_agent():
    out = run_recipe("05_tools_in_an_agent.py")
    assert ("Tools: search_entities, entity_relations, neighbours, answer_from_knowledge_graph, "
            "kg_reasoning_paths") in out
    assert "  search_entities -> " in out and '"label": "Tom Hanks"' in out
    assert "  kg_reasoning_paths -> Tom Hanks -> ^starred_actors -> " in out
    assert "  answer_from_knowledge_graph -> Answers (" in out
    assert out.rstrip().splitlines()[-1] == (
        "Agent: Tom Hanks has worked with Ron Howard, Steven Spielberg, Nora Ephron and others. "
        "For example: Tom Hanks -> ^starred_actors -> Apollo 13 -> directed_by -> Ron Howard")


def test_06_chatbot_with_memory_links_the_follow_up():
    out = run_recipe("06_chatbot_with_memory.py")
    first, second = out.split("User: ")[1:3]
    assert "Bot:  Forrest Gump\n" in first and "(about: Winston Groom)" in first
    assert second.startswith("and who directed it?")
    assert "Bot:  Robert Zemeckis" in second and "(about: Forrest Gump)" in second  # the previous turn's answer
    assert "holds 4 messages: human ai human ai" in out


def test_07_tog2_cites_the_chunk_the_kg_lacks():
    out = run_recipe("07_tog2_over_your_documents.py")
    assert "Indexed 3 documents as 3 chunks, 3 linked to entities" in out
    dune, earthsea = out.split("\nQuestion: ")[1:3]
    assert "Answer: Hugo Award\n  from the KG: Dune -> author -> Frank Herbert -> award_received -> Hugo Award" in dune
    assert "Answer: Hugo Award\n  from the document 'Ursula K. Le Guin': Ursula Kroeber Le Guin" in earthsea


@pytest.mark.full_data
def test_08_evaluate_on_metaqa(data_dir):
    out = run_recipe("08_evaluate_on_metaqa.py", env={"KG_AGENT_DATA": str(data_dir)})
    assert "60 questions (20 per hop)" in out
    rows = {" ".join(cells[:2]) if cells[1].startswith("[") else cells[0]: cells
            for cells in (line.split() for line in out.splitlines()) if cells and cells[0] in {"rog", "ceiling"}}
    assert {"rog", "ceiling", "rog [1-hop]", "rog [3-hop]", "ceiling [2-hop]"} <= set(rows), out
    assert rows["rog"][4] == "60" and rows["rog [2-hop]"][5] == "20"  # n
    hits = {name: float(rows[name][5]) for name in ("rog", "ceiling")}  # strict H@1, percent
    assert 0 < hits["rog"] <= hits["ceiling"] <= 100  # the gold relation path is the upper bound
    assert f"RoG: strict Hits@1 {hits['rog']:.1f}%" in out


def test_08_evaluate_on_metaqa_without_data_says_where_it_looked(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k not in ONLINE_VARIABLES}
    environment["KG_AGENT_DATA"] = str(tmp_path)
    done = subprocess.run([sys.executable, str(COOKBOOK / "08_evaluate_on_metaqa.py")], cwd=PROJECT_ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and f"MetaQA not found in {tmp_path / 'metaqa'}" in done.stderr


def test_09_export_rog_training_data():
    out = run_recipe("09_export_rog_training_data.py")
    assert "4 questions: 4 planning and 4 reasoning examples written" in out
    assert "'who directed the films written by Winston Groom' -> <PATH> ^written_by <SEP> directed_by </PATH>" in out
    record = json.loads(out[out.index("{"):])
    assert record["output"] == "Robert Zemeckis"
    assert "Winston Groom -> ^written_by -> Forrest Gump -> directed_by -> Robert Zemeckis" in record["instruction"]


def test_10_mcp_agent_uses_the_server_through_langchain_mcp():
    pytest.importorskip("fastmcp", reason="langchain.mcp needs FastMCP: pip install 'langchain[mcp]' (dev extra)")
    out = run_recipe("10_mcp_agent.py")
    assert "MCP tools: search_entities, entity_relations, neighbours, retrieve_paths, ask" in out
    assert ("  neighbours -> error: Error executing tool neighbours: 'Winston Grom' is not an entity of the "
            "knowledge graph (closest labels: 'Winston Groom')") in out  # the tool error went back to the model
    assert "  ask -> answers: Robert Zemeckis (grounded: True)" in out
    assert out.rstrip().splitlines()[-1] == (
        "Agent: Robert Zemeckis. Because: Winston Groom -> ^written_by -> Forrest Gump -> directed_by -> Robert Zemeckis")


def test_11_create_agent_with_the_grounding_middleware():
    out = run_recipe("11_grounding_middleware.py")
    assert "Chat model: ScriptedChatModel" in out
    dune, neuromancer = out.split("\nUser:  ")[1:3]
    assert "Agent: Frank Herbert received the Hugo Award and the Nebula Award.\n" in dune  # grounded: kept
    assert "  'Hugo Award': grounded\n  'Nebula Award': grounded" in dune
    assert ("Agent: Conway\nBecause: Neuromancer -> author -> William Gibson -> place_of_birth -> Conway\n"
            "  'William Gibson was born in Vancouver': NOT supported by the KG\n"
            "  (replaced the model's reply: 'William Gibson was born in Vancouver.')") in neuromancer
