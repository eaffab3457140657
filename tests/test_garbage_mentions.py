"""A mention with no letter or digit names no entity, on every backend and through every method.

MetaQA's KB has a film called ``$``. Its label normalises to the empty string, as do ``!!!`` and ``🎬``, so
"who directed [!!!]" once linked to ``$`` and answered "Richard Brooks", marked grounded. Labels made only of
symbols are now indexed by their raw text, and a mention without a letter or digit links to nothing: the
result says "no entity found". The KG here is three MetaQA lines about ``$`` (``../shared/data/metaqa/kb.txt``,
lines 1-3) and a few of the sample KG's, written in MetaQA's format.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import NO_ENTITY_MESSAGE, build_oxigraph, link_entities, load_kg, open_oxigraph, open_sparql, search_entities
from tests.sparql_server import SparqlServer, store_from_graph

KB = """$|directed_by|Richard Brooks
$|has_tags|bd-r
$|in_language|German
Big|directed_by|Penny Marshall
Big|starred_actors|Tom Hanks
"""
GARBAGE = ["who directed [!!!]", "who directed [🎬]", "who directed [ ... ]", "who directed [$]", "[---] ???"]


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kb") / "kb.txt"
    path.write_text(KB, encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=["memory", "oxigraph", "endpoint"])
def kg(request, kb_file, tmp_path_factory):
    memory = load_kg(kb_file)
    if request.param == "memory":
        yield memory
    elif request.param == "oxigraph":
        kg = open_oxigraph(build_oxigraph(kb_file, tmp_path_factory.mktemp("ox") / "store"))
        yield kg
        kg.close()
    else:
        with SparqlServer(store_from_graph(memory.graph)) as server:
            yield open_sparql(server.url, timeout=10)


@pytest.mark.parametrize("question", GARBAGE)
def test_a_mention_without_a_letter_or_digit_links_nothing(kg, question):
    result = link_entities(kg, question)
    assert not result.found and result.message.startswith(NO_ENTITY_MESSAGE)


def test_real_mentions_still_link_and_a_symbol_label_is_found_by_its_own_text(kg):
    assert [e.label for e in link_entities(kg, "who directed [Big]").entities] == ["Big"]
    assert [e.label for e in search_entities(kg, "$")] == ["$"]  # the lookup tool finds it written exactly
    assert search_entities(kg, "!!!") == [] and kg.find_entities("🎬") == []


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph], ids=["rog", "tog"])
def test_methods_answer_nothing_for_a_garbage_mention(kg, factory):
    for question in ("who directed [!!!]", "who directed [🎬]"):
        result = factory(kg).compile().invoke({"question": question})
        assert result["answers"] == [], (question, result["answers"])
        assert any(NO_ENTITY_MESSAGE in w for w in result.get("warnings") or []), result.get("warnings")
