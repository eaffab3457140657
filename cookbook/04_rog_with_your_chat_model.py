"""RoG planning and retrieval in front of the chat model you already use.

Two ways, as in the RoG paper:

1. `with_rog_context(chat_model, kg)` wraps an unmodified chat model (RoG's "plug-and-play" set-up,
   Table 4): the offline planner retrieves reasoning paths for the question, a system message puts
   them in front of the conversation, and your model answers. One model call per question.
2. `create_rog_graph(kg, model=chat_model, planner="llm")`: the model also writes the relation-path
   plans (RoG's planning prompt, grounded in the KG's relations), then answers from the paths; answers
   not supported by any path are flagged.

The chat model is the one KG_AGENT_MODEL names (`openai:gpt-4o-mini`; OPENAI_API_KEY, and OPENAI_BASE_URL for
any OpenAI-compatible server: vLLM, Ollama, llama.cpp ...), else a scripted stand-in that replies the
way a model would, so the recipe runs offline. Run from the project root:

    python cookbook/04_rog_with_your_chat_model.py
    KG_AGENT_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=sk-... python cookbook/04_rog_with_your_chat_model.py
"""

import os
import sys

from kg_agent.graphs import create_rog_graph, with_rog_context
from kg_agent.kg import open_kg
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools.prompts import prompt_node


def stand_in(prompt: str) -> str:
    """Offline stand-in for a chat model: plans like RoG, answers from the reasoning paths it is shown."""
    if prompt_node(prompt) == "plan":  # which decider wrote the prompt (matched against its template)
        return "<PATH> ^starred_actors <SEP> directed_by </PATH>\n<PATH> ^starred_actors </PATH>"
    paths = [line.split(" -> ") for line in prompt.splitlines() if " -> " in line]
    directors = dict.fromkeys(p[-1] for p in paths if p[-2] == "directed_by")
    return "Answers: " + ", ".join(directors) if directors else "I don't know."


if os.environ.get("KG_AGENT_MODEL"):  # a model only when named, e.g. openai:gpt-4o-mini (an API key alone is not used)
    from kg_agent.llm.models import resolve_chat_model

    chat_model = resolve_chat_model(os.environ["KG_AGENT_MODEL"]) or sys.exit("KG_AGENT_MODEL names no chat model")
else:
    chat_model = ScriptedChatModel(responder=stand_in)
print(f"Chat model: {type(chat_model).__name__}")

kg = open_kg()
question = "who directed the films that [Tom Hanks] starred in"

# 1. Your chat model, unchanged, with RoG's reasoning paths in front of it.
chain = with_rog_context(chat_model, kg)
reply = chain.invoke(question)  # also takes a list of messages, like the model itself
print(f"\n1. with_rog_context: the model's reply\n{reply.content}")

# 2. The model plans too: RoG with planner="llm" (falls back to the offline planner if the reply is unusable).
app = create_rog_graph(kg, model=chat_model, planner="llm").compile()
result = app.invoke({"question": question})
print("\n2. create_rog_graph(planner='llm')\nPlans:")
for plan in result["plans"]:
    print(f"  {plan['text']}  ({plan['source']})")
print("Answers:")
for answer in result["answers"][:5]:
    support = answer["paths"][0]["text"] if answer["grounded"] else "not supported by the knowledge graph"
    print(f"  {answer['answer']}: {support}")
usage = result["usage"]
print(f"LLM: {usage['calls']} calls, {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion tokens")
