"""KGRetriever: RoG's reasoning paths as LangChain Documents; LangChain's standard retriever suite."""

from __future__ import annotations

import asyncio
import functools

import pytest
from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from langchain_tests.integration_tests import RetrieversIntegrationTests

from kg_agent import KGRetriever
from kg_agent.kg import open_kg
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools.rog.plan import Plan, PlanOutcome, make_planner

QUESTION = "who directed the films that [Tom Hanks] starred in"
ZEMECKIS_PATH = "Tom Hanks -> ^starred_actors -> Forrest Gump -> directed_by -> Robert Zemeckis"


@functools.lru_cache(maxsize=1)
def sample_kg():
    return open_kg()  # the bundled sample movie KG


@pytest.fixture(scope="module")
def kg():
    return sample_kg()


def test_documents_are_reasoning_paths_with_metadata(kg):
    docs = KGRetriever(kg=kg, max_documents=100).invoke(QUESTION)
    assert docs and all(isinstance(d, Document) for d in docs)
    by_text = {d.page_content: d for d in docs}
    doc = by_text[ZEMECKIS_PATH]
    meta = doc.metadata
    assert meta["relations"] == ["^starred_actors", "directed_by"]
    assert meta["relation_path"] == "<PATH> ^starred_actors <SEP> directed_by </PATH>"
    assert meta["entity_labels"] == ["Tom Hanks", "Forrest Gump", "Robert Zemeckis"]
    assert meta["entity_ids"] == [kg.find_entities(label)[0].id for label in meta["entity_labels"]]
    assert (meta["start"], meta["answer"]) == ("Tom Hanks", "Robert Zemeckis")
    assert (meta["start_id"], meta["answer_id"]) == (meta["entity_ids"][0], meta["entity_ids"][-1])
    assert meta["plan_rank"] == 0 and meta["plan_score"] > 0 and meta["plan_source"] == "similarity"
    assert doc.id and len({d.id for d in docs}) == len(docs)  # stable, distinct ids
    assert len(by_text) == len(docs)  # no duplicate paths
    ranks = [d.metadata["plan_rank"] for d in docs]
    assert ranks == sorted(ranks)  # best plan first


def test_max_documents_caps_and_invoke_overrides_it(kg):
    retriever = KGRetriever(kg=kg, max_documents=4)
    assert len(retriever.invoke(QUESTION)) == 4
    assert len(retriever.invoke(QUESTION, max_documents=2)) == 2
    first_plan_only = retriever.invoke(QUESTION, max_documents=1000, k=1)
    assert {d.metadata["plan_rank"] for d in first_plan_only} == {0}
    assert len(first_plan_only) == 31  # a path per film and director (Larry Crowne's is Tom Hanks himself)


def test_async_gives_the_same_documents(kg):
    retriever = KGRetriever(kg=kg, max_documents=5)
    assert asyncio.run(retriever.ainvoke(QUESTION)) == retriever.invoke(QUESTION)


def test_no_entity_gives_no_documents_and_the_state_says_why(kg):
    retriever = KGRetriever(kg=kg)
    assert retriever.invoke("who directed [Zorblax Quux]") == []
    state = retriever.reasoning_state("who directed [Zorblax Quux]")
    assert any("no entity of the knowledge graph found" in w for w in state["warnings"])


def test_a_given_planner_decides_the_relation_paths(kg):
    class FixedPlanner:
        name = "fixed"

        def plan(self, question, topic_entities, *, k=3):
            return PlanOutcome([Plan(("^starred_actors",), 0.9, self.name)][:k])

    docs = KGRetriever(kg=kg, planner=FixedPlanner(), max_documents=50).invoke(QUESTION)
    assert len(docs) == 31 and "Tom Hanks -> ^starred_actors -> Forrest Gump" in [d.page_content for d in docs]
    assert {d.metadata["plan_source"] for d in docs} == {"fixed"}
    assert KGRetriever(kg=kg, planner="similarity").resolved_planner().name == "similarity"
    planner = make_planner(kg)
    assert KGRetriever(kg=kg, planner=planner).resolved_planner() is planner


def test_retriever_in_a_rag_chain(kg):
    model = ScriptedChatModel(responder=lambda prompt: "Robert Zemeckis" if ZEMECKIS_PATH in prompt else "unknown")
    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer from these knowledge-graph paths:\n{context}"),
        ("human", "{question}"),
    ])
    retriever = KGRetriever(kg=kg, max_documents=50)
    chain = (
        {"context": retriever | RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs)),
         "question": RunnableLambda(lambda q: q)}
        | prompt
        | model
    )
    assert chain.invoke(QUESTION).content == "Robert Zemeckis"


def test_retriever_does_not_write_to_the_kg(kg):
    before = set(kg.graph)
    KGRetriever(kg=kg).invoke(QUESTION)
    assert set(kg.graph) == before


# ------------------------------------------------------------------------------------------------ langchain-tests
@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore:The test <Function .* is marked with '@pytest.mark.asyncio'")
class TestKGRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self):
        return KGRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"kg": sample_kg()}

    @property
    def retriever_query_example(self) -> str:
        return QUESTION

    @property
    def num_results_arg_name(self) -> str:
        return "max_documents"  # ``k`` is RoG's number of plans, as in create_rog_graph(k=...)
