"""Seeing the reasoning: one answered question as a self-contained HTML page.

``render_html(result, graph=app)`` draws the subgraph the method explored (topic entities on the left,
one column per hop) with the first answer's reasoning paths highlighted, lists the answers, plans,
warnings and LLM usage, and shows the method's state machine: LangGraph's Mermaid source
(``app.get_graph().draw_mermaid()``) plus a drawing of the same nodes and edges.

The page needs no network: no external scripts, styles, fonts or images (a Content-Security-Policy
forbids them), the drawings are inline SVG laid out here, deterministically, and one small inline script
lets a click on an answer highlight that answer's paths instead. Every text from the state (labels,
relations, IRIs, documents) is HTML-escaped.

    kg-agent ask "who directed the films that [Tom Hanks] starred in" --method tog --html out.html
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["render_html", "write_html", "explored_subgraph", "state_machine", "Subgraph"]

#: Most entities drawn in the subgraph; the answers' paths come first, then the other explored paths.
DEFAULT_MAX_NODES = 80
#: Most answers listed (and made clickable).
MAX_ANSWERS = 50

# Layout of the subgraph drawing (SVG user units = CSS pixels).
_COL_GAP = 300
_NODE_W = 180
_NODE_H = 26
_ROW_GAP = 36
_MARGIN = 24
_LABEL_CHARS = 27


def _e(value: Any) -> str:
    """Text or attribute value, escaped for HTML and inline SVG (``<``, ``&``, both quotes)."""
    return html.escape("" if value is None else str(value), quote=True)


def _short(text: str, limit: int = _LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# --------------------------------------------------------------------------------------------------
# The explored subgraph


@dataclass
class Subgraph:
    """Entities and triples to draw, with each entity's hop depth and the walks that reach them."""

    #: entity id -> label, in first-seen order
    nodes: dict[str, str] = field(default_factory=dict)
    #: entity id -> smallest hop count from a topic entity over the drawn walks
    depth: dict[str, int] = field(default_factory=dict)
    #: canonical key (head, relation, tail) -> drawn edge {source, target, relation}
    edges: dict[tuple[str, str, str], dict] = field(default_factory=dict)
    topic: list[str] = field(default_factory=list)
    #: walks left out because the drawing reached its node limit
    omitted: int = 0
    drawn: int = 0


def _canonical(head: str, relation: str, tail: str) -> tuple[str, str, str]:
    """One key per KG fact: ``a -^r-> b`` is the same fact as ``b -r-> a``."""
    if relation.startswith("^"):
        return (tail, relation[1:], head)
    return (head, relation, tail)


def _walk(record: Mapping[str, Any]) -> tuple[dict | None, list[dict]]:
    """(start entity, triples) of a walk (:class:`~kg_agent.kg.walks.Walk`: a path, a chain, a ToG-2 item), as
    far as a result read from a file has them."""
    triples = [t for t in (record.get("steps") or []) if isinstance(t, Mapping) and t.get("head") and t.get("tail")]
    start = record.get("start")
    if not isinstance(start, Mapping) and triples:
        start = triples[0]["head"]
    if not isinstance(start, Mapping) and isinstance(record.get("entity"), Mapping):
        start = record["entity"]
    return (dict(start) if isinstance(start, Mapping) else None), triples


def _walk_keys(record: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, str, str]]]:
    start, triples = _walk(record)
    nodes = [str(start["id"])] if start and "id" in start else []
    keys = []
    for t in triples:
        head, tail = str(t["head"]["id"]), str(t["tail"]["id"])
        nodes += [head, tail]
        keys.append(_canonical(head, str(t.get("relation", "")), tail))
    return list(dict.fromkeys(nodes)), keys


def _walks(result: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    """Every explored walk, most important first: answers' paths (first answer first), paths, chains."""
    for answer in result.get("answers") or []:
        yield from answer.get("paths") or []
    yield from result.get("paths") or []
    yield from result.get("chains") or []


def explored_subgraph(result: Mapping[str, Any], *, max_nodes: int = DEFAULT_MAX_NODES) -> Subgraph:
    """The entities and triples of a result state's paths and chains, capped at ``max_nodes`` entities."""
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    sub = Subgraph()
    for entity in result.get("topic_entities") or []:
        if isinstance(entity, Mapping) and "id" in entity and len(sub.nodes) < max_nodes:
            eid = str(entity["id"])
            sub.nodes.setdefault(eid, str(entity.get("label", eid)))
            sub.depth[eid] = 0
            sub.topic.append(eid)
    seen_walks: set[tuple] = set()
    for record in _walks(result):
        if not isinstance(record, Mapping):
            continue
        start, triples = _walk(record)
        if start is None or "id" not in start:
            continue
        signature = (str(start["id"]), *(_canonical(str(t["head"]["id"]), str(t.get("relation", "")),
                                                    str(t["tail"]["id"])) for t in triples))
        if signature in seen_walks:
            continue
        seen_walks.add(signature)
        entities = [start] + [t["tail"] for t in triples]
        new = {str(e["id"]) for e in entities} - set(sub.nodes)
        if len(sub.nodes) + len(new) > max_nodes:
            sub.omitted += 1
            continue
        sub.drawn += 1
        for hop, entity in enumerate(entities):
            eid = str(entity["id"])
            sub.nodes.setdefault(eid, str(entity.get("label", eid)))
            sub.depth[eid] = min(sub.depth.get(eid, hop), hop)
        for t in triples:
            head, tail, relation = str(t["head"]["id"]), str(t["tail"]["id"]), str(t.get("relation", ""))
            sub.nodes.setdefault(head, str(t["head"].get("label", head)))
            sub.depth.setdefault(head, 0)
            sub.edges.setdefault(_canonical(head, relation, tail),
                                 {"source": head, "target": tail, "relation": relation})
    return sub


def _layout(sub: Subgraph) -> tuple[dict[str, tuple[float, float]], float, float]:
    """Node centre positions: column = hop depth, order within a column by the mean row of the
    neighbours in earlier columns (barycentre), ties by first-seen order. Deterministic."""
    columns: dict[int, list[str]] = {}
    for eid in sub.nodes:
        columns.setdefault(sub.depth.get(eid, 0), []).append(eid)
    neighbours: dict[str, set[str]] = {eid: set() for eid in sub.nodes}
    for edge in sub.edges.values():
        neighbours[edge["source"]].add(edge["target"])
        neighbours[edge["target"]].add(edge["source"])
    first_seen = {eid: i for i, eid in enumerate(sub.nodes)}
    row: dict[str, float] = {}
    ordered: dict[int, list[str]] = {}
    for col in sorted(columns):
        def key(eid: str, col: int = col) -> tuple[float, int]:
            earlier = [row[n] for n in neighbours[eid] if n in row and sub.depth.get(n, 0) < col]
            return (sum(earlier) / len(earlier) if earlier else math.inf, first_seen[eid])

        members = columns[col] if col == 0 else sorted(columns[col], key=key)
        ordered[col] = members
        for i, eid in enumerate(members):
            row[eid] = i
    tallest = max((len(m) for m in ordered.values()), default=1)
    height = 2 * _MARGIN + tallest * _ROW_GAP + 30
    positions: dict[str, tuple[float, float]] = {}
    for col, members in ordered.items():
        offset = (tallest - len(members)) * _ROW_GAP / 2
        for i, eid in enumerate(members):
            positions[eid] = (_MARGIN + _NODE_W / 2 + col * _COL_GAP, _MARGIN + 30 + offset + i * _ROW_GAP + _ROW_GAP / 2)
    columns_used = (max(ordered) + 1) if ordered else 1
    width = 2 * _MARGIN + _NODE_W + (columns_used - 1) * _COL_GAP
    return positions, width, height


def _edge_geometry(src: tuple[float, float], dst: tuple[float, float]) -> tuple[str, float, float]:
    """SVG path data from one node box to another, and where its label goes."""
    (x1, y1), (x2, y2) = src, dst
    half = _NODE_W / 2
    if abs(x1 - x2) < 1:  # same column: an arc on the right of the column
        sx, ex = x1 + half, x2 + half
        bulge = 40 + min(abs(y2 - y1) / 4, 80)
        d = f"M{sx:.1f},{y1:.1f} C{sx + bulge:.1f},{y1:.1f} {ex + bulge:.1f},{y2:.1f} {ex + 4:.1f},{y2:.1f}"
        return d, sx + bulge * 0.75 + 4, (y1 + y2) / 2 + 4
    direction = 1 if x2 > x1 else -1
    sx, ex = x1 + direction * half, x2 - direction * (half + 2)
    mid = (sx + ex) / 2
    d = f"M{sx:.1f},{y1:.1f} C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {ex:.1f},{y2:.1f}"
    # the label sits just before the target, where the curve runs level: edges fanning out of a hub
    # then keep their labels apart (one per target row)
    return d, ex - direction * 15, y2


def _subgraph_svg(sub: Subgraph, highlight_nodes: set[str], highlight_edges: set[tuple[str, str, str]],
                  answer_ids: set[str], node_ids: dict[str, str], edge_ids: dict[tuple, str]) -> str:
    positions, width, height = _layout(sub)
    out = [f'<svg id="subgraph" class="subgraph" xmlns="http://www.w3.org/2000/svg" role="img" '
           f'aria-label="explored subgraph" width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">',
           '<defs>'
           '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" '
           'orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker>'
           '<marker id="arrow-hl" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" '
           'orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" class="arrowhead-hl"/></marker>'
           '</defs>']
    columns = sorted({sub.depth.get(eid, 0) for eid in sub.nodes})
    for col in columns:
        x = _MARGIN + _NODE_W / 2 + col * _COL_GAP
        caption = "topic entities" if col == 0 else f"hop {col}"
        out.append(f'<text class="column-caption" x="{x:.0f}" y="{_MARGIN + 8}" text-anchor="middle">{_e(caption)}</text>')
    # label slots: distinct relations into one target go above, then below its incoming line
    slots: dict[tuple[str, str], int] = {}
    per_target: dict[str, int] = {}
    for edge in sub.edges.values():
        slot_key = (edge["target"], edge["relation"])
        if slot_key not in slots:
            slots[slot_key] = per_target.get(edge["target"], 0)
            per_target[edge["target"]] = slots[slot_key] + 1
    # highlighted edges last so they are drawn on top
    ordered_edges = sorted(sub.edges.items(), key=lambda kv: kv[0] in highlight_edges)
    for key, edge in ordered_edges:
        src, dst = positions[edge["source"]], positions[edge["target"]]
        d, lx, ly = _edge_geometry(src, dst)
        slot = slots[(edge["target"], edge["relation"])]
        ly += -5 if slot % 2 == 0 else 13
        ly += (slot // 2) * (-10 if slot % 2 == 0 else 10)
        anchor = "middle" if abs(src[0] - dst[0]) < 1 else ("end" if dst[0] > src[0] else "start")
        hl = key in highlight_edges
        cls = "edge answer-path" if hl else "edge"
        head, tail = sub.nodes[edge["source"]], sub.nodes[edge["target"]]
        out.append(
            f'<g class="{cls}" id="{edge_ids[key]}" data-relation="{_e(edge["relation"])}">'
            f'<title>{_e(head)} -&gt; {_e(edge["relation"])} -&gt; {_e(tail)}</title>'
            f'<path d="{d}" marker-end="url(#{"arrow-hl" if hl else "arrow"})"/>'
            f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}">{_e(_short(edge["relation"], 32))}</text></g>')
    for eid, label in sub.nodes.items():
        x, y = positions[eid]
        classes = ["node"]
        if eid in sub.topic:
            classes.append("topic")
        if eid in answer_ids:
            classes.append("answer")
        if eid in highlight_nodes:
            classes.append("answer-path")
        out.append(
            f'<g class="{" ".join(classes)}" id="{node_ids[eid]}" data-entity="{_e(eid)}">'
            f'<title>{_e(label)} ({_e(eid)})</title>'
            f'<rect x="{x - _NODE_W / 2:.1f}" y="{y - _NODE_H / 2:.1f}" width="{_NODE_W}" height="{_NODE_H}" rx="6"/>'
            f'<text x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle">{_e(_short(label))}</text></g>')
    out.append("</svg>")
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# The state machine


def state_machine(graph: Any) -> dict:
    """Nodes and edges of a LangGraph graph: a compiled graph, its ``get_graph()``, or such a dict.

    Returns ``{"nodes": [{"id", "name"}], "edges": [{"source", "target", "conditional", "label"}]}``.
    """
    if isinstance(graph, Mapping):
        nodes = [{"id": str(n["id"]), "name": str(n.get("name", n["id"]))} for n in graph.get("nodes", [])]
        edges = [{"source": str(e["source"]), "target": str(e["target"]), "conditional": bool(e.get("conditional")),
                  "label": e.get("label")} for e in graph.get("edges", [])]
        return {"nodes": nodes, "edges": edges}
    if hasattr(graph, "get_graph") and not hasattr(graph, "edges"):
        graph = graph.get_graph()
    if not (hasattr(graph, "nodes") and hasattr(graph, "edges")):
        raise TypeError(f"expected a compiled LangGraph graph or its get_graph(), got {type(graph).__name__}")
    nodes = [{"id": str(node_id), "name": str(getattr(node, "name", node_id))} for node_id, node in graph.nodes.items()]
    edges = [{"source": str(e.source), "target": str(e.target), "conditional": bool(e.conditional),
              "label": e.data if isinstance(e.data, str) else None} for e in graph.edges]
    return {"nodes": nodes, "edges": edges}


def _state_machine_svg(machine: dict) -> str:
    """An arc diagram: the nodes top to bottom in the graph's order, edges to the next node straight down,
    longer forward edges as arcs on the right, edges back (loops) as arcs on the left; conditional dashed."""
    nodes = machine["nodes"]
    index = {n["id"]: i for i, n in enumerate(nodes)}
    node_w, node_h, gap = 170, 30, 56
    centre = 260
    top = 20
    height = top * 2 + max(len(nodes) - 1, 0) * gap + node_h
    width = centre * 2
    y_of = lambda i: top + i * gap + node_h / 2  # noqa: E731
    out = [f'<svg id="state-machine" class="state-machine" xmlns="http://www.w3.org/2000/svg" role="img" '
           f'aria-label="state machine" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           '<defs><marker id="sm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>']
    right_level = left_level = 0
    for edge in machine["edges"]:
        if edge["source"] not in index or edge["target"] not in index:
            continue
        i, j = index[edge["source"]], index[edge["target"]]
        y1, y2 = y_of(i), y_of(j)
        cls = "sm-edge conditional" if edge["conditional"] else "sm-edge"
        if j == i + 1:
            d = f"M{centre},{y1 + node_h / 2:.1f} L{centre},{y2 - node_h / 2 - 3:.1f}"
            lx, ly, anchor = centre + 6, (y1 + y2) / 2 + 4, "start"
        elif j > i:
            right_level += 1
            x = centre + node_w / 2
            bulge = 30 + 22 * (j - i) + 6 * (right_level % 3)
            d = f"M{x:.1f},{y1:.1f} C{x + bulge:.1f},{y1:.1f} {x + bulge:.1f},{y2:.1f} {x + 3:.1f},{y2:.1f}"
            lx, ly, anchor = x + bulge * 0.75 + 4, (y1 + y2) / 2, "start"
        else:
            left_level += 1
            x = centre - node_w / 2
            bulge = 30 + 22 * (i - j) + 6 * (left_level % 3)
            d = f"M{x:.1f},{y1:.1f} C{x - bulge:.1f},{y1:.1f} {x - bulge:.1f},{y2:.1f} {x - 3:.1f},{y2:.1f}"
            lx, ly, anchor = x - bulge * 0.75 - 4, (y1 + y2) / 2, "end"
        title = f'{edge["source"]} -> {edge["target"]}' + (" (conditional)" if edge["conditional"] else "")
        label = f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}">{_e(edge["label"])}</text>' if edge.get("label") else ""
        out.append(f'<g class="{cls}" data-source="{_e(edge["source"])}" data-target="{_e(edge["target"])}">'
                   f'<title>{_e(title)}</title><path d="{d}" marker-end="url(#sm-arrow)"/>{label}</g>')
    for i, node in enumerate(nodes):
        y = y_of(i)
        terminal = node["id"] in {"__start__", "__end__"}
        cls = "sm-node terminal" if terminal else "sm-node"
        rx = node_h / 2 if terminal else 6
        out.append(f'<g class="{cls}" data-node="{_e(node["id"])}"><title>{_e(node["name"])}</title>'
                   f'<rect x="{centre - node_w / 2}" y="{y - node_h / 2:.1f}" width="{node_w}" height="{node_h}" rx="{rx}"/>'
                   f'<text x="{centre}" y="{y + 5:.1f}" text-anchor="middle">{_e(_short(node["name"], 24))}</text></g>')
    out.append("</svg>")
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# The page

_CSS = """
:root { --hl: #d9480f; --hl-fill: #fff1e6; --ink: #1f2933; --muted: #7b8794; --line: #9aa5b1; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink);
       margin: 0; padding: 20px 28px 40px; background: #fafbfc; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 26px 0 8px; }
.meta { color: var(--muted); margin: 0 0 12px; }
.question { font-size: 17px; margin: 8px 0 4px; }
.panel { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 12px 16px; }
.scroll { overflow: auto; }
.answers-box { max-height: 260px; overflow: auto; }
ol.answers { margin: 0; padding-left: 26px; display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
              column-gap: 36px; }
ol.answers li { margin: 1px 0; justify-self: start; }
.answer-item { cursor: pointer; border-radius: 4px; padding: 1px 4px; }
.answer-item:hover { background: #f0f4f8; }
.answer-item.selected { background: var(--hl-fill); outline: 1px solid var(--hl); }
.answer-item .score, .small { color: var(--muted); font-size: 12px; }
.ungrounded { color: #b42318; font-size: 12px; }
ul.paths { margin: 4px 0; padding-left: 20px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.legend { display: flex; gap: 18px; align-items: center; color: var(--muted); font-size: 12px; margin-bottom: 6px; flex-wrap: wrap; }
.swatch { display: inline-block; width: 14px; height: 10px; border-radius: 3px; margin-right: 5px; vertical-align: middle; border: 1.5px solid; }
.sw-topic { background: #e3f2fd; border-color: #1565c0; } .sw-answer { background: #e8f5e9; border-color: #2e7d32; }
.sw-path { background: var(--hl-fill); border-color: var(--hl); }
svg text { font-family: system-ui, "DejaVu Sans", sans-serif; }
.subgraph .column-caption { font-size: 12px; fill: var(--muted); font-weight: 600; }
.subgraph .node rect { fill: #fff; stroke: #9aa5b1; stroke-width: 1.2; }
.subgraph .node text { font-size: 12px; fill: var(--ink); }
.subgraph .node.topic rect { fill: #e3f2fd; stroke: #1565c0; }
.subgraph .node.answer rect { fill: #e8f5e9; stroke: #2e7d32; }
.subgraph .node.answer-path rect { stroke: var(--hl); stroke-width: 2.5; }
.subgraph .node.answer-path text { font-weight: 700; }
.subgraph .edge path { fill: none; stroke: #c3cad3; stroke-width: 1.1; }
.subgraph .edge text { font-size: 10px; fill: #9aa5b1; paint-order: stroke; stroke: #fafbfc; stroke-width: 3px; }
.subgraph .edge.answer-path path { stroke: var(--hl); stroke-width: 2.6; }
.subgraph .edge.answer-path text { fill: var(--hl); font-size: 11.5px; font-weight: 700; }
.subgraph .edge:hover path { stroke: #52606d; } .subgraph .edge:hover text { fill: #52606d; }
.arrowhead { fill: #9aa5b1; } .arrowhead-hl { fill: var(--hl); }
.machine { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; }
.state-machine .sm-node rect { fill: #f2f0ff; stroke: #7c6fd6; stroke-width: 1.3; }
.state-machine .sm-node.terminal rect { fill: #fff; stroke-dasharray: 0; }
.state-machine .sm-node text { font-size: 13px; }
.state-machine .sm-edge path { fill: none; stroke: #52606d; stroke-width: 1.3; }
.state-machine .sm-edge.conditional path { stroke-dasharray: 5 4; }
.state-machine .sm-edge text { font-size: 11px; fill: #52606d; }
pre.mermaid-source { background: #f5f7fa; border: 1px solid #e4e7eb; border-radius: 6px; padding: 10px; font-size: 12px; max-height: 420px; overflow: auto; }
table { border-collapse: collapse; font-size: 13px; } td, th { border-bottom: 1px solid #e4e7eb; padding: 3px 10px 3px 0; text-align: left; }
ul.warnings li { color: #8a4b00; }
details summary { cursor: pointer; color: #3e4c59; }
.doc-text { color: #52606d; font-size: 12.5px; }
"""  # noqa: E501 (prompt text kept verbatim)

# Clicking an answer moves the "answer-path" highlight to that answer's drawn paths.
_JS = """
(function () {
  "use strict";
  var items = document.querySelectorAll(".answer-item");
  var pathLists = document.querySelectorAll(".answer-paths");
  function select(item) {
    document.querySelectorAll("#subgraph .answer-path").forEach(function (el) { el.classList.remove("answer-path"); });
    (item.getAttribute("data-highlight") || "").split(" ").forEach(function (id) {
      var el = id && document.getElementById(id);
      if (el) { el.classList.add("answer-path"); }
    });
    items.forEach(function (other) { other.classList.toggle("selected", other === item); });
    var index = item.getAttribute("data-answer");
    pathLists.forEach(function (list) { list.hidden = list.getAttribute("data-answer") !== index; });
  }
  items.forEach(function (item) {
    item.addEventListener("click", function () { select(item); });
    item.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(item); }
    });
  });
  document.documentElement.setAttribute("data-view-ready", "1");
})();
"""


def _answer_elements(answer: Mapping[str, Any], sub: Subgraph) -> tuple[set[str], set[tuple[str, str, str]]]:
    nodes: set[str] = set()
    edges: set[tuple[str, str, str]] = set()
    for path in answer.get("paths") or []:
        if not isinstance(path, Mapping):
            continue
        walk_nodes, keys = _walk_keys(path)
        if keys and all(k in sub.edges for k in keys):
            edges.update(keys)
            nodes.update(n for n in walk_nodes if n in sub.nodes)
    entity = answer.get("entity_id")
    if entity is not None and str(entity) in sub.nodes and (nodes or not answer.get("paths")):
        nodes.add(str(entity))
    return nodes, edges


def _usage_html(usage: Mapping[str, Any]) -> str:
    if not usage or not usage.get("calls"):
        return '<p class="small">No LLM calls (offline deciders).</p>'
    head = (f'<p>{_e(usage.get("calls"))} LLM calls, {_e(usage.get("prompt_tokens", 0))} prompt + '
            f'{_e(usage.get("completion_tokens", 0))} completion tokens</p>')
    by_node = usage.get("by_node") or {}
    if not isinstance(by_node, Mapping) or not by_node:
        return head
    rows = "".join(
        f'<tr><td>{_e(node)}</td><td>{_e(v.get("calls", 0))}</td><td>{_e(v.get("prompt_tokens", 0))}</td>'
        f'<td>{_e(v.get("completion_tokens", 0))}</td></tr>'
        for node, v in by_node.items() if isinstance(v, Mapping))
    return head + f'<table><tr><th>node</th><th>calls</th><th>prompt</th><th>completion</th></tr>{rows}</table>'


def _number(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else _e(value)


def render_html(result: Mapping[str, Any], *, graph_mermaid: str | None = None, graph: Any = None,
                title: str | None = None, method: str | None = None, max_nodes: int = DEFAULT_MAX_NODES) -> str:
    """A self-contained HTML page of one result state (what a method graph's ``invoke`` returned).

    ``graph``: the compiled graph (or its ``get_graph()``) whose state machine to draw; its Mermaid
    source is taken from it unless ``graph_mermaid`` is given. ``max_nodes`` caps the entities drawn.
    """
    if not isinstance(result, Mapping):
        raise TypeError(f"result must be the state dict a method graph returned, got {type(result).__name__}")
    machine = state_machine(graph) if graph is not None else None
    if graph_mermaid is None and graph is not None:
        drawable = graph.get_graph() if hasattr(graph, "get_graph") and not hasattr(graph, "edges") else graph
        if hasattr(drawable, "draw_mermaid"):
            graph_mermaid = drawable.draw_mermaid()
    question = str(result.get("question") or "")
    title = title or (f"kg-agent: {question}" if question else "kg-agent reasoning")

    sub = explored_subgraph(result, max_nodes=max_nodes)
    node_ids = {eid: f"n{i}" for i, eid in enumerate(sub.nodes)}
    edge_ids = {key: f"e{i}" for i, key in enumerate(sub.edges)}
    answers = [a for a in (result.get("answers") or []) if isinstance(a, Mapping)]
    answer_ids = {str(a["entity_id"]) for a in answers if a.get("entity_id") is not None}
    hl_nodes, hl_edges = _answer_elements(answers[0], sub) if answers else (set(), set())

    parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
             # Nothing may load from anywhere: the page is complete as it is.
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
             'style-src \'unsafe-inline\'; script-src \'unsafe-inline\'; img-src data:">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f'<title>{_e(title)}</title><style>{_CSS}</style></head><body>',
             f'<h1>{_e(title)}</h1>']
    meta = []
    if method:
        meta.append(f"method: {_e(method)}")
    if result.get("stop_reason"):
        meta.append(f"stopped: {_e(result['stop_reason'])}")
    topics = ", ".join(_e(e.get("label", e.get("id"))) for e in result.get("topic_entities") or [] if isinstance(e, Mapping))
    meta.append(f"topic entities: {topics or '(none)'}")
    if question:
        parts.append(f'<p class="question">{_e(question)}</p>')
    parts.append(f'<p class="meta">{" · ".join(meta)}</p>')

    # Answers
    parts.append(f'<h2>Answers ({len(answers)})</h2><div class="panel answers-box">')
    if not answers:
        parts.append("<p>No answer.</p>")
    else:
        parts.append('<ol class="answers">')
        for i, answer in enumerate(answers[:MAX_ANSWERS]):
            nodes, edges = _answer_elements(answer, sub) if i else (hl_nodes, hl_edges)
            ids = sorted(node_ids[n] for n in nodes) + sorted(edge_ids[k] for k in edges)
            flag = "" if answer.get("grounded", True) else ' <span class="ungrounded">not supported by the knowledge graph</span>'
            score = f' <span class="score">{_number(answer["score"])}</span>' if "score" in answer else ""
            n_paths = len(answer.get("paths") or [])
            extra = f' <span class="small">{n_paths} path{"s" if n_paths != 1 else ""}</span>' if n_paths else ""
            selected = " selected" if i == 0 else ""
            parts.append(f'<li class="answer-item{selected}" tabindex="0" data-answer="{i}" data-highlight="{_e(" ".join(ids))}">'
                         f'{_e(answer.get("answer", ""))}{score}{extra}{flag}</li>')
        parts.append("</ol>")
        if len(answers) > MAX_ANSWERS:
            parts.append(f'<p class="small">... and {len(answers) - MAX_ANSWERS} more answers.</p>')
    parts.append("</div>")

    # Reasoning paths of each answer (the selected one shown)
    if answers:
        parts.append('<h2>Reasoning paths of the selected answer</h2><div class="panel">')
        for i, answer in enumerate(answers[:MAX_ANSWERS]):
            hidden = "" if i == 0 else " hidden"
            texts = [p.get("text") or "" for p in answer.get("paths") or [] if isinstance(p, Mapping)]
            chunks = [c for c in answer.get("chunks") or [] if isinstance(c, Mapping)]
            body = "".join(f"<li>{_e(t)}</li>" for t in texts[:20])
            if len(texts) > 20:
                body += f'<li class="small">... {len(texts) - 20} more</li>'
            body += "".join(f'<li>document: {_e(c.get("title") or c.get("id") or "")}</li>' for c in chunks[:5])
            if answer.get("note"):
                body += f'<li class="small">{_e(answer["note"])}</li>'
            parts.append(f'<div class="answer-paths" data-answer="{i}"{hidden}><strong>{_e(answer.get("answer", ""))}</strong>'
                         f'<ul class="paths">{body or "<li>(no supporting path)</li>"}</ul></div>')
        parts.append("</div>")

    # Explored subgraph
    parts.append(f'<h2>Explored subgraph ({len(sub.nodes)} entities, {len(sub.edges)} triples)</h2><div class="panel">')
    parts.append('<div class="legend"><span><span class="swatch sw-topic"></span>topic entity</span>'
                 '<span><span class="swatch sw-answer"></span>answer</span>'
                 '<span><span class="swatch sw-path"></span>reasoning paths of the selected answer (click an answer above)</span>'
                 '<span>hover an edge or entity for its full text</span></div>')
    if sub.omitted:
        parts.append(f'<p class="small">{sub.omitted} more explored paths are not drawn (limit {max_nodes} entities); '
                     f'the answers\' paths come first.</p>')
    parts.append(f'<div class="scroll">{_subgraph_svg(sub, hl_nodes, hl_edges, answer_ids, node_ids, edge_ids)}</div></div>')

    # Plans (RoG)
    plans = [p for p in result.get("plans") or [] if isinstance(p, Mapping)]
    if plans:
        rows = "".join(f'<tr><td><code>{_e(p.get("text") or " -> ".join(p.get("relations") or []))}</code></td>'
                       f'<td>{_number(p.get("score", ""))}</td><td>{_e(p.get("source", ""))}</td></tr>' for p in plans)
        parts.append('<h2>Plans</h2><div class="panel"><table><tr><th>relation path</th><th>score</th><th>source</th></tr>'
                     f'{rows}</table></div>')

    # Explored chains (ToG family)
    chains = [c for c in result.get("chains") or [] if isinstance(c, Mapping)]
    if chains:
        rows = "".join(
            f'<tr><td>{_e(c.get("depth", ""))}</td><td>{_number(c.get("score", ""))}</td>'
            f'<td><code>{_e(c.get("text", ""))}</code></td></tr>'
            for c in chains[:200])
        parts.append(f'<h2>Explored chains ({len(chains)})</h2><div class="panel"><details><summary>show</summary>'
                     f'<table><tr><th>depth</th><th>score</th><th>chain</th></tr>{rows}</table></details></div>')

    # Documents (ToG-2)
    documents = [d for d in result.get("documents") or [] if isinstance(d, Mapping)]
    if documents:
        items = "".join(f'<li><strong>{_e(d.get("title") or d.get("id") or "")}</strong> '
                        f'<span class="doc-text">{_e(_short(str(d.get("text") or ""), 300))}</span></li>' for d in documents[:30])
        parts.append(f'<h2>Documents ({len(documents)})</h2><div class="panel"><details><summary>show</summary>'
                     f'<ul>{items}</ul></details></div>')

    # Warnings and usage
    warnings = [str(w) for w in result.get("warnings") or []]
    parts.append('<h2>Warnings</h2><div class="panel">' + (
        '<ul class="warnings">' + "".join(f"<li>{_e(w)}</li>" for w in warnings) + "</ul>" if warnings
        else '<p class="small">None.</p>') + "</div>")
    parts.append('<h2>LLM usage</h2><div class="panel">' + _usage_html(result.get("usage") or {}) + "</div>")

    # State machine
    if machine is not None or graph_mermaid:
        parts.append('<h2>State machine</h2><div class="panel machine">')
        if machine is not None:
            edge_items = "".join(
                f'<li>{_e(e["source"])} &rarr; {_e(e["target"])}'
                + (' <span class="small">(conditional)</span>' if e["conditional"] else "")
                + (f' <span class="small">{_e(e["label"])}</span>' if e.get("label") else "") + "</li>"
                for e in machine["edges"])
            parts.append(f'<div>{_state_machine_svg(machine)}<p class="small">Dashed: conditional edges.</p></div>'
                         f'<div><strong>Edges</strong><ul class="sm-edges">{edge_items}</ul></div>')
        if graph_mermaid:
            parts.append('<div style="flex:1 1 320px"><strong>Mermaid</strong> <span class="small">'
                         '(<code>get_graph().draw_mermaid()</code>; paste into any Mermaid renderer)</span>'
                         f'<pre class="mermaid-source">{_e(graph_mermaid)}</pre></div>')
        parts.append("</div>")

    parts.append(f"<script>{_JS}</script></body></html>\n")
    return "".join(parts)


def write_html(path: str | Path, result: Mapping[str, Any], *, app: Any = None, graph_mermaid: str | None = None,
               title: str | None = None, method: str | None = None, max_nodes: int = DEFAULT_MAX_NODES) -> Path:
    """Write :func:`render_html` of ``result`` to ``path`` (UTF-8); ``app`` is the compiled graph that made it."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give a file name for the HTML page")
    page = render_html(result, graph_mermaid=graph_mermaid, graph=app, title=title, method=method, max_nodes=max_nodes)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path


