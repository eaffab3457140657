"""The ``kg-agent mcp`` command line: its flags and the limits they name. The server (:mod:`kg_agent.mcp.server`,
the MCP SDK, the KG and the methods) is imported only when the command runs, so ``kg-agent --help`` does not load it.
"""

from __future__ import annotations

import argparse

from kg_agent.kg.naming import add_endpoint_args, add_file_args, add_naming_args
from kg_agent.llm.models import add_model_request_args, positive_seconds

#: Seconds a tool call may take (wall clock, from its arrival) before it is stopped with a tool error.
DEFAULT_TOOL_TIMEOUT = 30.0
#: Environment variable holding the bearer token of ``kg-agent mcp --transport http``.
TOKEN_ENV = "KG_AGENT_MCP_TOKEN"
#: Shortest bearer token accepted (characters); ``secrets.token_urlsafe(32)`` gives 43.
MIN_TOKEN_CHARS = 16


def add_mcp_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``mcp`` sub-command's parser (its flags) to ``kg-agent``'s sub-parsers; the caller sets its handler."""
    parser = subparsers.add_parser("mcp", help="serve the KG tools and methods to MCP clients (stdio or streamable HTTP)")
    parser.add_argument("--kg", help="KG file, Oxigraph store folder or SPARQL endpoint URL (default: the bundled sample movie KG)")
    parser.add_argument("--backend", choices=("memory", "oxigraph"), default=None, help="for a KG file: memory (default) or oxigraph")
    parser.add_argument("--kg-cache", metavar="FILE", default=None, help="for a SPARQL endpoint: SQLite cache file")
    add_naming_args(parser)
    add_file_args(parser)
    add_endpoint_args(parser)
    parser.add_argument("--model", default=None,
                        help="chat model for ask, e.g. openai:gpt-4o-mini ('none': offline); default: KG_AGENT_MODEL "
                        "if set, else offline (an API key in the environment alone never selects a model)")
    add_model_request_args(parser)
    parser.add_argument("--docs", help="ToG-2: document index folder, documents JSONL, or Chroma server URL")
    parser.add_argument("--tool-timeout", type=positive_seconds, default=DEFAULT_TOOL_TIMEOUT, metavar="SECONDS",
                        help="wall-clock seconds each tool call may take; a call past it is stopped with a tool error "
                        f"and the server keeps serving (default {DEFAULT_TOOL_TIMEOUT:g})")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="stdio (default, for clients that start the server) or streamable HTTP at /mcp")
    parser.add_argument("--host", default="127.0.0.1",
                        help="http: address to listen on (default 127.0.0.1); any but a loopback address needs a token")
    parser.add_argument("--port", type=int, default=8000, help="http: port (default 8000)")
    parser.add_argument("--token-file", metavar="PATH", default=None,
                        help=f"http: clients must send 'Authorization: Bearer TOKEN', TOKEN being the first line of PATH "
                        f"(default: the {TOKEN_ENV} environment variable; at least {MIN_TOKEN_CHARS} characters). "
                        "Without a token the server serves only on a loopback address")
    return parser
