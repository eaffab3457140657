"""What the KG says its relations mean reaches the model (issue 23, item 2): a property's description
(``schema:description`` on Wikidata's property entities, ``rdfs:comment`` ...) is listed beside the relation names in
ToG's and ToG-2's relation-pruning prompts, sent to a real OpenAI-compatible HTTP server; a KG that describes none
leaves the prompts as they were."""

from __future__ import annotations

from pathlib import Path

from langchain_openai import ChatOpenAI

from kg_agent.graphs import create_graph
from kg_agent.kg import load_kg
from kg_agent.steps import decided
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.shared.decider import MAX_DESCRIPTION_CHARS, relation_meanings
from tests.llm_responders import well_behaved
from tests.openai_server import OpenAICompatibleServer

STYLES = Path(__file__).resolve().parent / "fixtures" / "styles"
#: the description of ``wd:P57`` in the Wikidata style fixture (Wikidata's own)
DIRECTOR = "director: director(s) of film, TV-series, stageplay, video game or similar"


def _chat(server: OpenAICompatibleServer) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", max_retries=0)


def _relation_prompts(style: str, question: str) -> list[str]:
    kg = load_kg(next((STYLES / style).glob("kg.*")))
    with OpenAICompatibleServer(responder=well_behaved(relation="director")) as server:
        create_graph("tog", kg, model=_chat(server)).compile().invoke({"question": question})
        return [r.prompt_text for r in server.chat_requests if prompt_node(r.prompt_text) == "prune_relations"]


def test_tog_tells_the_model_what_the_kg_says_its_relations_mean():
    prompts = _relation_prompts("wikidata", "who directed [The Last Tide]")
    assert prompts
    meanings = [line for line in prompts[0].splitlines() if line.startswith("Relation meanings: ")]
    assert len(meanings) == 1 and DIRECTOR in meanings[0]
    assert "cast_member: actor in the subject production" in meanings[0]
    assert prompts[0].index("Relations: ") < prompts[0].index("Relation meanings: ")  # the names are listed as before


def test_a_kg_without_descriptions_leaves_the_prompt_as_it_was():
    prompts = _relation_prompts("plain", "who directed [The Last Tide]")
    assert prompts and not any("Relation meanings" in prompt for prompt in prompts)
    relations_line = [line for line in prompts[0].splitlines() if line.startswith("Relations: ")][-1]
    assert prompts[0].splitlines()[prompts[0].splitlines().index(relations_line) + 1] == "A: "


def test_tog2_lists_the_meanings_of_the_relations_it_offers():
    from kg_agent.tools.tog2.frontier import new_frontier_item
    from kg_agent.tools.tog2.prune_relations import LLMCombinedRelationPruner, candidate_relations

    kg = load_kg(next((STYLES / "wikidata").glob("kg.*")))
    [film] = kg.find_entities("The Last Tide")
    frontier = [new_frontier_item(film)]
    candidates = [candidate_relations(kg, frontier[0])]
    with OpenAICompatibleServer(responder=lambda prompt: '{"The Last Tide": {"director": 1.0}}') as server:
        pruner = LLMCombinedRelationPruner(_chat(server), kg=kg, structured_output="text")
        decided(pruner.choose, "who directed [The Last Tide]", frontier, candidates, width=1)
        (request,) = server.chat_requests
    assert DIRECTOR in request.prompt_text


def test_long_descriptions_are_cut_and_unknown_relations_add_nothing():
    kg = load_kg(next((STYLES / "wikidata").glob("kg.*")))
    assert relation_meanings(None, ["director"]) == ""
    assert relation_meanings(kg, ["no_such_relation"]) == ""
    kg.store.names.descriptions[kg.relation_iri("director")] = "x" * 1000
    line = relation_meanings(kg, ["director", "no_such_relation"])
    assert line == "Relation meanings: director: " + "x" * (MAX_DESCRIPTION_CHARS - 3) + "...\n"
