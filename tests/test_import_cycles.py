"""No import cycles among kg_agent's modules (issue 49: a house a newcomer reads in an hour).

The graph is built from the source with ``ast``: an edge for every import a module makes when it is imported -- at
its top level, including under ``if``/``try`` (``if TYPE_CHECKING:`` blocks are left out: nothing runs them) -- to
another kg_agent module. An import inside a function runs when the function is called, not at import, and is not an
edge: such lazy imports are how a module uses one that imports it. ``from package import name`` counts as importing
``package.name`` when that is a module, else ``package``; importing ``a.b.c`` imports the packages ``a`` and ``a.b``
too, except a module's own packages (they are imported before it runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kg_agent"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_time_imports(body: list[ast.stmt]):
    """The import statements run when a module with this body is imported (not in functions, classes' methods, or
    ``if TYPE_CHECKING:`` blocks)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not is_type_checking(node.test):
                yield from import_time_imports(node.body)
            yield from import_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from import_time_imports(block)
        elif isinstance(node, ast.With):
            yield from import_time_imports(node.body)
        elif isinstance(node, ast.ClassDef):  # a class body runs at import
            yield from import_time_imports(node.body)


def import_graph() -> dict[str, set[str]]:
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in import_time_imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            for target in targets:
                # importing a.b.c runs a/__init__ and a/b/__init__ too, but a module's own packages are imported
                # before it runs (or are what imports it), so they are no edge of its own
                parts = target.split(".")
                for end in range(1, len(parts) + 1):
                    prefix = ".".join(parts[:end])
                    if prefix in files and prefix != name and not name.startswith(prefix + "."):
                        graph[name].add(prefix)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first repeated last), or None."""
    done: set[str] = set()
    for root in sorted(graph):
        if root in done:
            continue
        stack = [(root, iter(sorted(graph[root])))]
        on_path = {root: 0}
        path = [root]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                del on_path[node]
                done.add(node)
                continue
            if child in on_path:
                return path[on_path[child]:] + [child]
            if child not in done:
                on_path[child] = len(path)
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_the_import_graph_is_read_from_the_source():
    graph = import_graph()
    assert "kg_agent.kg.stores.base" in graph["kg_agent.kg.stores.endpoint"]
    assert "kg_agent.kg.stores.endpoint" not in graph["kg_agent.kg.loading.sparql_endpoint"]  # a lazy import
    assert "kg_agent.mcp.access" in graph["kg_agent.server_auth"]
    assert "kg_agent.kg.loading.rdf_parsing" in graph["kg_agent.kg.loading.in_memory"]


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_kg_agent_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "an import cycle: " + " -> ".join(cycle or [])
