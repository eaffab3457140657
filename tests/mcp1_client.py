"""An MCP client on the official Python SDK 1.x (``mcp<2``), run by tests/test_mcp_clients.py in its own virtualenv
(``.ci-mcp1-venv``, made by .ci/run): an older client, which opens with the ``initialize`` handshake.

    python tests/mcp1_client.py http://127.0.0.1:PORT/mcp
    python tests/mcp1_client.py stdio PYTHON -m kg_agent.cli mcp

Prints one JSON object: the negotiated protocol revision, the SDK version, the tools listed, and the results of
an ``ask`` and of a ``neighbours`` call naming an unknown entity.
"""

import json
import sys
from importlib.metadata import version

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def exercise(read, write) -> dict:
    async with ClientSession(read, write) as session:
        opened = await session.initialize()
        tools = [tool.name for tool in (await session.list_tools()).tools]
        answer = await session.call_tool("ask", {"question": "who directed the films written by [Winston Groom]"})
        unknown = await session.call_tool("neighbours", {"entity": "Tom Hankz", "relation": "directed_by"})
        return {"protocol": opened.protocolVersion, "sdk": version("mcp"), "tools": tools,
                "answers": [a["answer"] for a in answer.structuredContent["answers"]],
                "error": unknown.isError, "error_text": unknown.content[0].text}


async def main(argv: list[str]) -> dict:
    if argv[0] == "stdio":
        params = StdioServerParameters(command=argv[1], args=argv[2:])
        async with stdio_client(params) as (read, write):
            return await exercise(read, write)
    async with streamable_http_client(argv[0]) as (read, write, _):
        return await exercise(read, write)


if __name__ == "__main__":
    print(json.dumps(anyio.run(main, sys.argv[1:])))
