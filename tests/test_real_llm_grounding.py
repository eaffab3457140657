"""The grounding policy against a real chat model (SmolLM2-135M-Instruct served by llama.cpp, tests/local_llm.py).

Whatever the small model replies, under the default policy (``"prefer"``) no ungrounded answer is presented as
the answer: the first answer is grounded, or there is none, or every answer is flagged ``grounded: False`` and a
warning says why. Skipped with the reason when the local model is not installed.
"""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import open_kg

try:
    from local_llm import MODEL_ALIAS
    from test_cookbook import run_recipe
except ImportError:  # tests/ imported as a package
    from tests.local_llm import MODEL_ALIAS
    from tests.test_cookbook import run_recipe

pytestmark = [pytest.mark.real_llm, pytest.mark.server]

QUESTIONS = ["who directed [Forrest Gump]", "who directed the films that [Tom Hanks] starred in"]
FACTORIES = {
    "rog": lambda kg, model: create_rog_graph(kg, model=model),
    "tog": lambda kg, model: create_tog_graph(kg, model=model, depth=2),
}


@pytest.fixture(scope="module")
def kg():
    return open_kg()


@pytest.fixture
def model(local_server):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(base_url=local_server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=120,
                      max_retries=0, extra_body={"max_tokens": 128})


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("method", list(FACTORIES))
def test_default_policy_presents_no_ungrounded_answer(method, question, kg, model):
    result = FACTORIES[method](kg, model).compile().invoke({"question": question})
    answers, warnings = result["answers"], result.get("warnings") or []
    if method == "rog" and result["paths"]:
        assert answers and answers[0]["grounded"] is True, (answers[:3], warnings)
    if method == "tog" and result["stop_reason"] == "verified":
        assert answers and answers[0]["grounded"] is True, (answers[:3], warnings)
    if answers and not answers[0]["grounded"]:
        assert not any(a["grounded"] for a in answers)  # an ungrounded answer never ranks above a grounded one
        assert any("no grounded answer" in w or "without verification" in w for w in warnings), warnings
    for answer in answers:
        if answer["grounded"]:
            assert answer["paths"], answer  # a grounded answer cites the path it ends


def test_grounding_middleware_recipe_on_the_real_model(local_server):
    """cookbook/11_grounding_middleware.py with ``create_agent`` on the real model: whatever it replies, each reply
    the middleware lets through names an answer the KG's paths support, or was replaced by one that does."""
    out = run_recipe("11_grounding_middleware.py", timeout=900,
                     env={"KG_AGENT_MODEL": f"openai:{MODEL_ALIAS}", "OPENAI_BASE_URL": local_server.base_url,
                          "OPENAI_API_KEY": "sk-local"})
    assert "Chat model: ChatOpenAI" in out
    dune, neuromancer = out.split("\nUser:  ")[1:3]
    for turn, answers in ((dune, ("Hugo Award", "Nebula Award")), (neuromancer, ("Conway",))):
        reply = turn.split("Agent: ", 1)[1]
        if "(replaced the model's reply" in turn:
            assert set(reply.splitlines()[0].split(", ")) <= set(answers), turn  # RoG's answers from the paths
            assert reply.splitlines()[1].startswith("Because: "), turn  # and the path behind the first
        else:
            assert any(f"'{a}': grounded" in turn for a in answers), turn
