"""The HTML reasoning view (kg_agent/view.py, ``kg-agent ask --html``): the page's content and escaping,
and the page as headless Chromium renders it (highlighted answer path, no console errors, a screenshot)."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser

import pytest

from kg_agent import cli
from kg_agent.graphs import METHODS, create_graph, create_rog_graph
from kg_agent.kg import kg_from_triples
from kg_agent.view import explored_subgraph, render_html, state_machine, write_html
from tests.chromium import Chromium, chromium_path

QUESTION = "who directed the films that [Tom Hanks] starred in"
HOSTILE_FILM = "<img src=x onerror=alert(1)> & 'Film'"
HOSTILE_DIRECTOR = 'Dir "</script><script>window.pwned=1</script>'
HOSTILE_QUESTION = f"who directed [{HOSTILE_FILM}]"


@pytest.fixture(scope="module")
def runs(kg) -> dict:
    """method -> (compiled graph, result state) for the sample question, offline."""
    out = {}
    for method in METHODS:
        app = create_graph(method, kg).compile()
        out[method] = (app, app.invoke({"question": QUESTION}))
    return out


@pytest.fixture(scope="module")
def hostile_run():
    kg = kg_from_triples([(HOSTILE_FILM, "directed_by", HOSTILE_DIRECTOR), (HOSTILE_FILM, "release_year", "1999"),
                          ("Other <Film>", "directed_by", HOSTILE_DIRECTOR)])
    app = create_rog_graph(kg).compile()
    return app, app.invoke({"question": HOSTILE_QUESTION})


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of <script> elements."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    def with_class(self, tag: str, *classes: str) -> list[dict]:
        return [a for t, a in self.tags if t == tag and set(classes) <= set((a.get("class") or "").split())]


def parse(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


def answer_path_elements(result: dict, index: int = 0) -> tuple[set[str], set[str]]:
    """Ids of the entities on an answer's paths, and the relations of its steps."""
    entities, relations = set(), set()
    for path in result["answers"][index]["paths"]:
        entities.add(path["start"]["id"])
        for step in path["steps"]:
            entities.update({step["head"]["id"], step["tail"]["id"]})
            relations.add(step["relation"])
    return entities, relations


# --------------------------------------------------------------------------------------------------
# The HTML itself


@pytest.mark.parametrize("method", cli.METHODS)
def test_page_highlights_the_first_answers_paths(runs, method):
    app, result = runs[method]
    assert result["answers"] and result["answers"][0]["paths"], f"{method} found no supported answer to show"
    doc = parse(render_html(result, graph=app, method=method))

    entities, relations = answer_path_elements(result)
    hl_nodes = doc.with_class("g", "node", "answer-path")
    hl_edges = doc.with_class("g", "edge", "answer-path")
    assert result["answers"][0]["entity_id"] in entities
    assert {a["data-entity"] for a in hl_nodes} == entities  # every entity on the paths, nothing else
    assert {a["data-relation"] for a in hl_edges} == relations
    assert len(hl_edges) >= max(len(p["steps"]) for p in result["answers"][0]["paths"])
    assert len(doc.with_class("g", "node")) == len(explored_subgraph(result).nodes)
    if method != "tog-i":  # (offline ToG-I keeps one chain here)
        assert len(doc.with_class("g", "node")) > len(hl_nodes)  # explored but not on the answer's paths
    # the first answer is the selected one and lists exactly the highlighted element ids
    selected = doc.with_class("li", "answer-item", "selected")
    assert len(selected) == 1 and selected[0]["data-answer"] == "0"
    assert set(selected[0]["data-highlight"].split()) == {a["id"] for a in hl_nodes + hl_edges}
    # topic entities are marked
    topic_ids = {e["id"] for e in result["topic_entities"]}
    assert {a["data-entity"] for a in doc.with_class("g", "node", "topic")} <= topic_ids


@pytest.mark.parametrize("method", cli.METHODS)
def test_page_shows_the_state_machine_and_its_mermaid(runs, method):
    app, result = runs[method]
    page = render_html(result, graph=app, method=method)
    doc = parse(page)
    mermaid = app.get_graph().draw_mermaid()
    pre = doc.with_class("pre", "mermaid-source")
    assert len(pre) == 1
    assert html.escape(mermaid, quote=True) in page  # the source, verbatim once unescaped
    graph = app.get_graph()
    drawn_nodes = {a["data-node"] for a in doc.with_class("g", "sm-node")}
    assert drawn_nodes == set(graph.nodes)
    drawn_edges = {(a["data-source"], a["data-target"], "conditional" in a["class"].split()) for a in doc.with_class("g", "sm-edge")}
    assert drawn_edges == {(e.source, e.target, e.conditional) for e in graph.edges}
    if method != "rog":  # the ToG family loops through conditional edges
        assert any(conditional for *_, conditional in drawn_edges)


def test_hostile_labels_are_escaped_everywhere(hostile_run):
    app, result = hostile_run
    assert [a["answer"] for a in result["answers"]][0] == HOSTILE_DIRECTOR
    page = render_html(result, graph=app, title=f"<b>{HOSTILE_QUESTION}</b>")
    doc = parse(page)
    # the hostile strings are data, never markup: no <img>, no on* handler, one script (ours)
    assert not [t for t, _ in doc.tags if t in {"img", "b", "iframe", "object"}]
    assert not [(t, k) for t, attrs in doc.tags for k in attrs if k.startswith("on")]
    assert len(doc.scripts) == 1 and "pwned" not in doc.scripts[0]
    for raw in (HOSTILE_FILM, HOSTILE_DIRECTOR, "Other <Film>"):
        assert raw not in page
        assert html.escape(raw, quote=True) in page
    text = "".join(doc.text)
    assert HOSTILE_DIRECTOR in text and HOSTILE_FILM in text  # shown as text once parsed
    hl = doc.with_class("g", "node", "answer-path")
    assert {a["data-entity"] for a in hl} == {result["answers"][0]["entity_id"], result["topic_entities"][0]["id"]}


def test_hostile_relation_names_warnings_and_usage_are_escaped():
    evil = {"id": "urn:x:<evil>", "label": '"><svg onload=alert(1)>'}
    start = {"id": "urn:x:start", "label": "Start & <Co>"}
    step = {"head": start, "relation": "^rel<script>", "tail": evil}
    result = {
        "question": "what is <this> & 'that'?",
        "topic_entities": [start],
        "answers": [{"answer": evil["label"], "entity_id": evil["id"], "score": 0.5, "grounded": True,
                     "paths": [{"text": "Start & <Co> -> ^rel<script> -> \"><svg onload=alert(1)>", "start": start, "steps": [step]}]},
                    {"answer": "<i>guess</i>", "entity_id": None, "score": 0.1, "grounded": False, "paths": []}],
        "plans": [{"relations": ["^rel<script>"], "text": "<PATH> ^rel<script> </PATH>", "score": 0.9, "source": "llm"}],
        "warnings": ["dropped <relation> & co"],
        "usage": {"calls": 2, "prompt_tokens": 10, "completion_tokens": 3, "by_node": {"<plan>": {"calls": 2}}},
        "documents": [{"id": "d1", "title": "<h1>Doc</h1>", "text": "</pre><script>x()</script>"}],
        "stop_reason": "<done>",
    }
    page = render_html(result, graph_mermaid="graph TD;\n a[<b>x</b>] --> b;")
    doc = parse(page)
    assert len(doc.with_class("svg", "subgraph")) == 1
    assert not [(t, k) for t, attrs in doc.tags for k in attrs if k.startswith("on")]
    assert not [t for t, _ in doc.tags if t in {"b", "i"}]
    assert [t for t, _ in doc.tags].count("h1") == 1 and len(doc.scripts) == 1  # the page's own
    text = "".join(doc.text)
    for raw in ("what is <this> & 'that'?", "dropped <relation> & co", "<PATH> ^rel<script> </PATH>", "<plan>",
                "<h1>Doc</h1>", "<i>guess</i>", "a[<b>x</b>] --> b;", "<done>", "not supported by the knowledge graph"):
        assert raw in text, raw
    assert [a["data-relation"] for a in doc.with_class("g", "edge", "answer-path")] == ["^rel<script>"]
    assert "2 LLM calls" in text


def test_subgraph_is_capped_answers_paths_first(runs):
    _, result = runs["rog"]
    full = explored_subgraph(result, max_nodes=10_000)
    small = explored_subgraph(result, max_nodes=12)
    assert len(small.nodes) <= 12 < len(full.nodes) and small.omitted > 0
    entities, _ = answer_path_elements(result)
    assert entities <= set(small.nodes)
    page = render_html(result, max_nodes=12)
    assert f"{small.omitted} more explored paths are not drawn" in page
    with pytest.raises(ValueError, match="max_nodes"):
        explored_subgraph(result, max_nodes=0)


def test_layout_is_deterministic_and_columns_are_hops(runs):
    app, result = runs["tog"]
    assert render_html(result, graph=app) == render_html(result, graph=app)
    sub = explored_subgraph(result)
    for path in result["answers"][0]["paths"]:
        assert sub.depth[path["start"]["id"]] == 0
        for hop, step in enumerate(path["steps"], start=1):
            assert sub.depth[step["tail"]["id"]] <= hop


def test_state_machine_accepts_graph_or_dict_and_rejects_other_things(runs):
    app, _ = runs["tog"]
    machine = state_machine(app)
    assert machine == state_machine(app.get_graph()) == state_machine(machine)
    assert machine["nodes"][0]["id"] == "__start__" and machine["nodes"][-1]["id"] == "__end__"
    with pytest.raises(TypeError, match="compiled LangGraph graph"):
        state_machine(42)
    with pytest.raises(TypeError, match="state dict"):
        render_html(["not", "a", "state"])


def test_page_needs_no_network():
    result = {"question": "q", "answers": [], "topic_entities": []}
    page = render_html(result)
    doc = parse(page)
    csp = [a for t, a in doc.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]
    for tag, attrs in doc.tags:
        for key in ("src", "href"):
            assert key not in attrs, (tag, attrs)
    assert "No answer." in page


@pytest.mark.parametrize("method", cli.METHODS)
def test_cli_ask_html(tmp_path, capsys, method):
    out = tmp_path / "view" / f"{method}.html"
    code = cli.main(["ask", QUESTION, "--method", method, "--model", "none", "--html", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Answers:" in captured.out and str(out) in captured.err
    doc = parse(out.read_text(encoding="utf-8"))
    assert doc.with_class("g", "edge", "answer-path") and doc.with_class("g", "sm-node")
    assert f"method: {method}" in "".join(doc.text)


def test_cli_ask_html_keeps_json_stdout_clean(tmp_path, capsys):
    out = tmp_path / "view.html"
    assert cli.main(["ask", QUESTION, "--method", "tog", "--model", "none", "--json", "--html", str(out)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["answers"]
    assert out.exists()


def test_cli_ask_html_into_a_folder_is_a_clear_error(tmp_path, capsys):
    code = cli.main(["ask", QUESTION, "--method", "tog", "--model", "none", "--html", str(tmp_path)])
    assert code == 2
    assert "is a folder" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------------
# In a real browser

needs_chromium = pytest.mark.skipif(chromium_path() is None,
                                    reason="chromium is not installed (apt-get install -y chromium; .ci/run installs it)")

HIGHLIGHT_PROBE = """(() => {
  const svg = document.getElementById("subgraph");
  const box = svg.getBoundingClientRect();
  const edges = [...document.querySelectorAll("#subgraph g.edge.answer-path")];
  const nodes = [...document.querySelectorAll("#subgraph g.node.answer-path")];
  return {
    ready: document.documentElement.getAttribute("data-view-ready"),
    svgWidth: box.width, svgHeight: box.height,
    edgeIds: edges.map(e => e.id).sort(),
    nodeIds: nodes.map(n => n.id).sort(),
    nodeEntities: nodes.map(n => n.getAttribute("data-entity")),
    relations: edges.map(e => e.getAttribute("data-relation")),
    edgeStroke: edges.map(e => getComputedStyle(e.querySelector("path")).stroke),
    edgeVisible: edges.every(e => { const r = e.getBoundingClientRect(); return r.width > 0 || r.height > 0; }),
    stateNodes: document.querySelectorAll("#state-machine g.sm-node").length,
    dashed: [...document.querySelectorAll("#state-machine g.sm-edge.conditional path")].map(p => getComputedStyle(p).strokeDasharray),
    mermaid: document.querySelector("pre.mermaid-source").textContent,
    pwned: window.pwned === 1,
  };
})()"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if chromium_path() is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it)")
    with Chromium.launch(tmp_path_factory.mktemp("chromium")) as chromium:
        yield chromium


@pytest.mark.server
@needs_chromium
@pytest.mark.parametrize("method", cli.METHODS)
def test_chromium_renders_the_highlighted_answer_path(browser, runs, method, tmp_path):
    app, result = runs[method]
    page = write_html(tmp_path / "view.html", result, app=app, method=method)
    mark = len(browser.events)
    browser.open(page.resolve().as_uri())
    probe = browser.evaluate(HIGHLIGHT_PROBE)

    assert probe["ready"] == "1"  # the inline script ran to its end
    assert probe["svgWidth"] > 100 and probe["svgHeight"] > 50
    entities, relations = answer_path_elements(result)
    assert probe["edgeIds"] and probe["edgeVisible"]
    assert set(probe["nodeEntities"]) == entities
    assert set(probe["relations"]) == relations
    assert set(probe["edgeStroke"]) == {"rgb(217, 72, 15)"}  # the highlight colour, applied by the page's CSS
    assert probe["stateNodes"] == len(app.get_graph().nodes)
    assert probe["mermaid"] == app.get_graph().draw_mermaid()
    if method != "rog":
        assert probe["dashed"] and all(d != "none" for d in probe["dashed"])
    assert browser.errors(since=mark) == []
    shot = browser.screenshot(tmp_path / f"{method}.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


@pytest.mark.server
@needs_chromium
def test_chromium_click_moves_the_highlight_to_another_answer(browser, runs, tmp_path):
    app, result = runs["rog"]
    page = write_html(tmp_path / "view.html", result, app=app, method="rog")
    mark = len(browser.events)
    browser.open(page.resolve().as_uri())
    first = browser.evaluate(HIGHLIGHT_PROBE)
    wanted = browser.evaluate('document.querySelector(\'.answer-item[data-answer="1"]\').getAttribute("data-highlight")').split()
    browser.evaluate('document.querySelector(\'.answer-item[data-answer="1"]\').click()')
    second = browser.evaluate(HIGHLIGHT_PROBE)
    assert sorted(second["edgeIds"] + second["nodeIds"]) == sorted(wanted)
    assert second["edgeIds"] != first["edgeIds"]
    assert set(second["nodeEntities"]) == answer_path_elements(result, 1)[0]
    shown = browser.evaluate('[...document.querySelectorAll(".answer-paths")].filter(d => !d.hidden).map(d => d.dataset.answer)')
    assert shown == ["1"]
    assert browser.errors(since=mark) == []


@pytest.mark.server
@needs_chromium
def test_chromium_hostile_labels_stay_text(browser, hostile_run, tmp_path):
    app, result = hostile_run
    page = write_html(tmp_path / "hostile.html", result, app=app)
    mark = len(browser.events)
    browser.open(page.resolve().as_uri())
    probe = browser.evaluate(HIGHLIGHT_PROBE)
    assert probe["pwned"] is False and probe["ready"] == "1"
    assert browser.evaluate("document.querySelectorAll('img, script').length") == 1  # our script only
    assert HOSTILE_DIRECTOR in browser.evaluate("document.body.innerText")
    assert browser.errors(since=mark) == []


@pytest.mark.server
@needs_chromium
def test_chromium_error_check_is_not_vacuous(browser, tmp_path):
    """A page with a script error and a blocked network load does report errors."""
    broken = tmp_path / "broken.html"
    broken.write_text('<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
                      'script-src \'unsafe-inline\'"><img src="https://example.invalid/x.png">'
                      '<script>console.error("boom"); undefinedFunction();</script>', encoding="utf-8")
    mark = len(browser.events)
    browser.open(broken.resolve().as_uri())
    errors = browser.errors(since=mark)
    assert any("undefinedFunction" in e for e in errors)
    assert any("boom" in e for e in errors)
    assert any("Content Security Policy" in e for e in errors)
