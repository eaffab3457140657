"""A LangChain agent using kg-agent's MCP server through `langchain.mcp` (LangChain 1.5's MCP client, on FastMCP's).

`kg-agent mcp` serves the read-only KG lookups and the reasoning methods (`ask`) to any MCP client. Here
`MCPAdapter` starts it over stdio, turns its tools into LangChain tools, and
`create_agent` uses them. A bad call (a misspelt name) comes back to the model as a tool error naming the
closest labels, and the model corrects itself; the server keeps serving.

The model is the one KG_AGENT_MODEL names (e.g. `openai:gpt-4o-mini`), else a scripted tool-calling model that makes the
calls a real model would make. Needs `langchain[mcp]` (dev extra). Run from the project root:

    python cookbook/10_mcp_agent.py
"""

import asyncio
import json
import os
import sys
import warnings

from fastmcp.client.transports import StdioTransport
from langchain.agents import create_agent
from langchain_core._api import LangChainBetaWarning
from langchain_core.messages import AIMessage, HumanMessage

from kg_agent.llm.scripted import ScriptedChatModel

warnings.filterwarnings("ignore", category=LangChainBetaWarning)  # langchain.mcp is in beta
from langchain.mcp import MCPAdapter  # noqa: E402

# `kg-agent mcp` as an MCP client starts it (here through this Python, with this environment)
SERVER = StdioTransport(sys.executable, ["-m", "kg_agent.cli", "mcp"], env=dict(os.environ))


def final_answer(prompt: str) -> str:
    """After the tool calls: answer from the last `ask` result (its JSON is in the conversation)."""
    best = json.JSONDecoder().raw_decode(prompt, prompt.rindex('{\n  "question"'))[0]["answers"][0]
    return f"{best['answer']}. Because: {best['paths'][0]}"


def call(name: str, **args) -> dict:  # a tool call the scripted model makes
    return {"name": name, "args": args, "id": f"call_{name}"}


if os.environ.get("KG_AGENT_MODEL"):  # a model only when named, e.g. openai:gpt-4o-mini (an API key alone is not used)
    from kg_agent.llm.models import resolve_chat_model

    model = resolve_chat_model(os.environ["KG_AGENT_MODEL"]) or sys.exit("KG_AGENT_MODEL names no chat model")
else:
    model = ScriptedChatModel([
        AIMessage("", tool_calls=[call("neighbours", entity="Winston Grom", relation="^written_by")]),
        AIMessage("", tool_calls=[call("ask", question="who directed the films written by [Winston Groom]")]),
    ], responder=final_answer)


def show(message) -> str:
    """A tool result in one line: the error, the answers of `ask` (from its structured content), or the text."""
    if message.status == "error":
        text = " ".join(b.get("text", "") for b in message.content) if isinstance(message.content, list) else message.content
        return "error: " + " ".join(text.split())[:150]
    structured = (message.artifact or {}).get("structured_content") or {}
    if "answers" in structured:
        return "answers: " + ", ".join(f"{a['answer']} (grounded: {a['grounded']})" for a in structured["answers"])
    return json.dumps(structured)[:150]


async def main() -> None:
    async with MCPAdapter(SERVER) as adapter:  # one server process for the whole conversation
        tools = await adapter.list_tools()
        print("MCP tools:", ", ".join(tool.name for tool in tools))
        agent = create_agent(model, tools)
        result = await agent.ainvoke({"messages": [HumanMessage("Who directed the films written by Winston Groom?")]})
    for message in result["messages"]:
        for tool_call in getattr(message, "tool_calls", None) or []:
            print(f"Agent calls {tool_call['name']}({tool_call['args']})")
        if message.type == "tool":
            print(f"  {message.name} -> {show(message)}")
    print(f"\nAgent: {result['messages'][-1].content}")


asyncio.run(main())
