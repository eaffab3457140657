"""Offline RoG on the real benchmark data (skipped when ../shared/data is absent).

The three planners on MetaQA (full 130k-triple KB) and WebQSP (per-question Freebase subgraphs):
the gold answer must be among the answers.
"""

from __future__ import annotations

import random

import pytest

from kg_agent.eval.datasets import load_metaqa, load_rog_jsonl, split_lines
from kg_agent.eval.metrics import normalize_answer
from kg_agent.graphs.rog import create_rog_graph
from kg_agent.kg import kg_from_triples, load_kg
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import ExemplarPlanner, SimilarityPlanner

pytestmark = pytest.mark.full_data


@pytest.fixture(scope="module")
def metaqa_kg(data_dir):
    return load_kg(data_dir / "metaqa" / "kb.txt")


@pytest.fixture(scope="module")
def metaqa_split(data_dir):
    """Per hop: 150 training and 8 held-out questions from disjoint halves of the dev lines (seeded)."""
    split = {}
    for hop in (1, 2, 3):
        folder = data_dir / "metaqa" / f"{hop}-hop"
        questions = load_metaqa(folder / "qa_dev.txt", only_lines=folder / f"{hop}hop_dev_some_gold_reachable.idx")
        train, test = split_lines(questions, 0.5, seed=0)
        random.Random(hop).shuffle(train)
        random.Random(hop + 10).shuffle(test)
        split[hop] = (train[:150], test[:8])
    return split


@pytest.fixture(scope="module")
def exemplar_planner(metaqa_kg, metaqa_split):
    train = [q for hop in (1, 2, 3) for q in metaqa_split[hop][0]]
    return ExemplarPlanner(metaqa_kg).fit(Exemplar(q.extra["raw"], q.answers, q.topic_entities) for q in train)


def found(result: dict, gold: list[str]) -> bool:
    names = {normalize_answer(a["answer"]) for a in result["answers"]}
    return any(normalize_answer(g) in names for g in gold)


@pytest.mark.parametrize("hop", [1, 2, 3])
def test_exemplar_planner_answers_held_out_metaqa_questions(metaqa_kg, metaqa_split, exemplar_planner, hop):
    app = create_rog_graph(metaqa_kg, planner=exemplar_planner).compile()
    _, test = metaqa_split[hop]
    hits = [found(app.invoke({"question": q.extra["raw"]}), q.answers) for q in test]
    assert sum(hits) >= len(test) - 1, f"{hop}-hop: gold found for {sum(hits)} of {len(test)}"
    train_ids = {q.id for q in metaqa_split[hop][0]}
    assert not train_ids & {q.id for q in test}


def test_similarity_planner_answers_real_metaqa_questions(metaqa_kg):
    app = create_rog_graph(metaqa_kg, planner=SimilarityPlanner(metaqa_kg)).compile()
    result = app.invoke({"question": "what movies did [Tom Hanks] act in"})
    assert result["plans"][0]["relations"] == ["^starred_actors"]
    assert found(result, ["Forrest Gump"]) and found(result, ["Big"])


def test_llm_planner_on_full_kb_with_scripted_model(metaqa_kg):
    """The planning prompt lists the relations walkable from the entity; the model picks from them."""

    def respond(prompt: str) -> str:
        if prompt_node(prompt) == "plan":
            assert "^starred_actors" in prompt and "in_language" in prompt
            return "<PATH> ^starred_actors <SEP> in_language </PATH>"
        path_lines = [line for line in prompt.splitlines() if " -> in_language -> " in line]
        return f"['{path_lines[0].rsplit(' -> ', 1)[1]}', 'Klingon']"

    model = ScriptedChatModel(responder=respond)
    result = create_rog_graph(metaqa_kg, model=model).compile().invoke(
        {"question": "what languages are the films that [Tom Hanks] acted in"}
    )
    first, second = result["answers"]
    assert first["grounded"] and first["paths"][0]["text"].startswith("Tom Hanks -> ^starred_actors -> ")
    assert second["answer"] == "Klingon" and not second["grounded"]


@pytest.fixture(scope="module")
def webqsp(data_dir):
    return load_rog_jsonl(data_dir / "webqsp" / "rog_webqsp_18q.jsonl")


def test_webqsp_jamaica_language_hand_checked_path(webqsp):
    question = next(q for q in webqsp if q.id == "WebQTest-0")
    kg = kg_from_triples(question.extra["graph"], name=question.id)
    planner = ExemplarPlanner(kg, collection="webqsp_test").fit(
        [Exemplar("what does [Jamaica] speak", question.answers, ["Jamaica"])]
    )
    app = create_rog_graph(kg, planner=planner).compile()
    result = app.invoke({"question": question.question, "topic_entities": question.topic_entities})
    # Freebase stores the fact both ways; either direction is the hand-checked path
    assert result["plans"][0]["relations"] in (["location.country.languages_spoken"], ["^language.human_language.countries_spoken_in"])
    assert set(question.answers) <= {a["answer"] for a in result["answers"]}  # the subgraph also lists "English Language"


# WebQSP questions whose one-hop Freebase relation the zero-shot planner ranks first (hand-checked:
# language.human_language.countries_spoken_in, law.invention.inventor, location.location.time_zones,
# people.person.parents, government.government.government_for). Over all 16 answerable questions it
# finds the gold answer for 6 (docs/benchmarks.md); the other 10 need a trained or LLM planner.
ZERO_SHOT_WEBQSP = ["WebQTest-0", "WebQTest-8", "WebQTest-19", "WebQTest-21", "WebQTest-22"]


@pytest.mark.parametrize("question_id", ZERO_SHOT_WEBQSP)
def test_similarity_planner_on_webqsp_subgraphs(webqsp, question_id):
    """Zero-shot planning over Freebase relation names finds the gold answer on hand-checked questions."""
    question = next(q for q in webqsp if q.id == question_id)
    kg = kg_from_triples(question.extra["graph"], name=question.id)
    app = create_rog_graph(kg, planner=SimilarityPlanner(kg, max_hops=1), k=3).compile()
    result = app.invoke({"question": question.question, "topic_entities": question.topic_entities})
    assert found(result, question.answers), (question.question, result["plans"][:1])
