"""Running ``kg-agent mcp`` (:func:`cmd_mcp`; its flags are :mod:`kg_agent.mcp.flags`): the token it serves with,
the KG and model it opens, the transport it serves on."""

import argparse
import os
import sys

import anyio

from kg_agent.kg.errors import KGError
from kg_agent.kg.naming import endpoint_options, file_options, naming_options
from kg_agent.mcp.access import checked_token, is_loopback, server_origin
from kg_agent.mcp.flags import TOKEN_ENV, add_mcp_parser
from kg_agent.mcp.http_edge import serve_http
from kg_agent.mcp.scheduling import MAX_CLIENT_CALLS
from kg_agent.mcp.server import create_server


def served_revisions() -> str:
    """The MCP protocol revisions the SDK serves, in words: the stateless one(s), and the handshake era's range."""
    from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    return (f"MCP protocol revisions {', '.join(reversed(MODERN_PROTOCOL_VERSIONS))} and, by the initialize handshake, "
            f"{HANDSHAKE_PROTOCOL_VERSIONS[-1]} back to {HANDSHAKE_PROTOCOL_VERSIONS[0]}")


def register(subparsers) -> None:
    """Add the ``mcp`` sub-command (:func:`kg_agent.mcp.flags.add_mcp_parser`) to ``kg-agent``'s sub-parsers."""
    add_mcp_parser(subparsers).set_defaults(handler=cmd_mcp)


def http_token(args: argparse.Namespace) -> str | None:
    """The bearer token of ``--transport http``: the first line of ``--token-file``, else ``KG_AGENT_MCP_TOKEN``
    (``None``: neither); a ``ValueError`` in the command's words when it is unusable."""
    if args.token_file is None:
        token = os.environ.get(TOKEN_ENV, "").strip()
        return checked_token(token, f"the token in {TOKEN_ENV}") if token else None
    try:
        with open(args.token_file, encoding="utf-8") as file:
            token = file.readline().strip()
    except OSError as exc:
        raise ValueError(f"cannot read the token file {args.token_file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"the token file {args.token_file} is not UTF-8 text") from None
    if not token:
        raise ValueError(f"the token file {args.token_file} has no token on its first line")
    return checked_token(token, f"the token in {args.token_file}")


def serving_token(args: argparse.Namespace) -> str | None:
    """The token the command serves with; a ``ValueError`` when it must not serve (checked before the KG loads)."""
    if args.transport != "http":
        if args.token_file is not None:
            raise ValueError("--token-file applies to --transport http only")
        return None
    token = http_token(args)
    if token is None and not is_loopback(args.host):
        raise ValueError(f"refusing to serve on {args.host} without a token: set {TOKEN_ENV} or --token-file")
    return token


def cmd_mcp(args: argparse.Namespace) -> int:
    from kg_agent.kg import open_kg
    from kg_agent.llm.models import resolve_model_args

    try:
        token = serving_token(args)
    except ValueError as exc:
        print(f"kg-agent mcp: {exc}", file=sys.stderr)
        return 2
    http = args.transport == "http"
    kg = open_kg(args.kg, backend=args.backend, cache_path=args.kg_cache, **naming_options(args), **file_options(args),
                 **endpoint_options(args))
    model = resolve_model_args(args)
    server = create_server(kg, model=model, documents=args.docs, host=args.host if http else "127.0.0.1", port=args.port,
                           token=token, tool_timeout=args.tool_timeout, client_calls=MAX_CLIENT_CALLS if http else None)
    where = f"{server_origin(args.host, args.port)}/mcp" + (", bearer token required" if token else "") if http else "stdio"
    print(f"kg-agent mcp: {kg.name} ({len(kg)} triples), {'model ' + type(model).__name__ if model else 'offline'}, "
          f"tool timeout {args.tool_timeout:g} s, serving on {where} ({served_revisions()})", file=sys.stderr, flush=True)
    if http and token is None:
        print(f"kg-agent mcp: note: no token, so any program on this machine may call the tools; set {TOKEN_ENV} or "
              "--token-file to require one", file=sys.stderr, flush=True)
    if http:
        anyio.run(serve_http, server, args.host, args.port)
    else:
        server.run("stdio")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m kg_agent.mcp [options]`` (:mod:`kg_agent.mcp.__main__`): the same as ``kg-agent mcp [options]``."""
    parser = argparse.ArgumentParser(prog="kg_agent.mcp")
    register(parser.add_subparsers(dest="command", required=True))
    try:
        return cmd_mcp(parser.parse_args(["mcp", *(sys.argv[1:] if argv is None else argv)]))
    except (KGError, ValueError, FileNotFoundError) as exc:
        print(f"kg-agent mcp: error: {exc}", file=sys.stderr)
        return 2
