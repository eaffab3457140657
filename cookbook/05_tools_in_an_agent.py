"""kg-agent tools in a tool-calling agent: KG lookups, a whole method as one tool, a path retriever.

Three ways to hand a knowledge graph to an agent you already have (here LangGraph's prebuilt ReAct agent):

* `kg_tools(kg)`: the node tools (search_entities, entity_relations, neighbours, plan, retrieve, answer,
  prune_relations, prune_entities, verify) as LangChain tools with argument schemas and docstrings;
* `as_tool(create_rog_graph(kg))`: a whole method as one tool, question in, answers with paths out;
* `KGRetriever(kg=kg)`: RoG's reasoning paths as Documents, for RAG chains or, wrapped with
  `create_retriever_tool`, as one more tool.

The agent's model is the one KG_AGENT_MODEL names (e.g. `openai:gpt-4o-mini`), else a scripted tool-calling model that makes
the calls a real model would make and answers from what the tools returned. Run from the project root:

    python cookbook/05_tools_in_an_agent.py
"""

import os
import sys
import warnings

from langchain_core.messages import AIMessage
from langchain_core.tools import create_retriever_tool
from langgraph.prebuilt import create_react_agent  # with langchain >= 1 installed: langchain.agents.create_agent

from kg_agent import KGRetriever
from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools import as_tool, kg_tools

kg = open_kg()
retriever = KGRetriever(kg=kg, max_documents=5)
tools = [
    *kg_tools(kg, include=["search_entities", "entity_relations", "neighbours"]),  # or all of them: kg_tools(kg)
    as_tool(create_rog_graph(kg)),  # named "answer_from_knowledge_graph"
    create_retriever_tool(retriever, "kg_reasoning_paths", "Reasoning paths from the movie KG for a question."),
]
print("Tools:", ", ".join(tool.name for tool in tools))


def final_answer(prompt: str) -> str:
    """After the tool calls: answer from the answer lines ("- answer: path") the method tool returned."""
    answers = [line[2:].partition(": ") for line in prompt.splitlines() if line.startswith("- ")]
    names = ", ".join(name for name, _, _ in answers[:3])
    return f"Tom Hanks has worked with {names} and others. For example: {answers[0][2]}"


def call(name: str, **args) -> dict:
    return {"name": name, "args": args, "id": f"call_{name}"}


if os.environ.get("KG_AGENT_MODEL"):  # a model only when named, e.g. openai:gpt-4o-mini (an API key alone is not used)
    from kg_agent.llm.models import resolve_chat_model

    model = resolve_chat_model(os.environ["KG_AGENT_MODEL"]) or sys.exit("KG_AGENT_MODEL names no chat model")
else:
    model = ScriptedChatModel([
        AIMessage("", tool_calls=[call("search_entities", text="Tom Hanks")]),
        AIMessage("", tool_calls=[
            call("kg_reasoning_paths", query="what films did [Tom Hanks] star in"),
            call("answer_from_knowledge_graph", question="who directed the films that [Tom Hanks] starred in"),
        ]),
    ], responder=final_answer)

warnings.filterwarnings("ignore", message="create_react_agent has been moved")  # LangGraph 1.x deprecation note
agent = create_react_agent(model, tools)
result = agent.invoke({"messages": [("user", "Which directors has Tom Hanks worked with?")]})

for message in result["messages"]:
    for tool_call in getattr(message, "tool_calls", None) or []:
        print(f"Agent calls {tool_call['name']}({tool_call['args']})")
    if message.type == "tool":
        lines = [line for line in message.content.splitlines() if line.strip()]
        print(f"  {message.name} -> " + " | ".join(lines[:3])[:200])
print(f"\nAgent: {result['messages'][-1].content}")
