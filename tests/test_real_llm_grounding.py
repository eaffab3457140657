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
except ImportError:  # tests/ imported as a package
    from tests.local_llm import MODEL_ALIAS

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
