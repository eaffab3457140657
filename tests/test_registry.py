"""The method registry: one list of names and create_graph(method, kg, **options) for the CLI, server, eval and view."""

from __future__ import annotations

import pytest

from kg_agent.graphs import METHODS, create_graph
from kg_agent.graphs.registry import method_name, options_for


def test_one_spelling_of_each_method():
    assert METHODS == ("rog", "tog", "tog-i", "tog2")
    assert method_name("tog_i") == method_name("ToG-I") == "tog-i"
    with pytest.raises(ValueError, match="unknown method 'tog3'.*rog, tog, tog-i, tog2"):
        method_name("tog3")


def test_create_graph_builds_each_method_with_its_own_options(kg):
    nodes = {method: set(create_graph(method, kg).nodes) for method in METHODS}
    assert {"plan", "retrieve", "answer"} <= nodes["rog"]
    assert {"prune_relations", "prune_entities", "verify"} <= nodes["tog"]
    assert {"instructions", "integrate"} <= nodes["tog-i"] and "instructions" not in nodes["tog"]
    assert {"topic_prune", "clue_query", "examine"} <= nodes["tog2"]
    result = create_graph("tog", kg, width=1, depth=1).compile().invoke({"question": "who directed [Forrest Gump]"})
    assert result["answers"][0]["answer"] == "Robert Zemeckis"
    assert all(len(chain["steps"]) <= 1 for chain in result["chains"])  # depth=1 reached the factory


def test_an_option_the_method_does_not_take_is_named(kg):
    with pytest.raises(TypeError, match="'tog' takes no option k;.*width"):
        create_graph("tog", kg, k=3)
    assert options_for("tog", {"k": 3, "width": 2, "documents": None}) == {"width": 2}
    assert options_for("tog2", {"k": 3, "width": 2, "documents": None}) == {"width": 2, "documents": None}
