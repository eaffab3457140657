"""Who may use the LangGraph server: LangGraph's own custom-auth hook (``"auth"`` in ``langgraph.json``).

* With ``KG_AGENT_SERVER_TOKEN`` set (at least 16 printable characters), every request must carry
  ``Authorization: Bearer <token>`` (compared in constant time); otherwise HTTP 401. The same hook runs on
  ``langgraph dev`` and on a deployed LangGraph server.
* Without it, the server answers only requests addressed to a loopback host (``Host`` localhost, 127.0.0.0/8 or
  ``[::1]``) and sent from no other site (no ``Origin``, or a loopback one); otherwise HTTP 403. A web page the user
  visits cannot drive it, even through DNS rebinding.

``langgraph.json`` sets ``disable_studio_auth`` (``langgraph dev`` would otherwise let any request that says
``x-auth-scheme: langsmith`` through without this check) and an empty CORS origin list (``http.cors``; LangGraph's
default answers every origin with ``access-control-allow-origin: *``): list the origins a browser client may use
there, or in the ``CORS_CONFIG`` environment variable (``{"allow_origins": ["https://app.example"]}``).
"""

from __future__ import annotations

import hmac
import os

from langgraph_sdk import Auth

from kg_agent.mcp.access import is_loopback
from kg_agent.mcp.flags import MIN_TOKEN_CHARS

#: Environment variable holding the bearer token every request must carry.
TOKEN_ENV = "KG_AGENT_SERVER_TOKEN"

auth = Auth()


def server_token() -> str | None:
    """The token from the environment, checked: ``None`` when unset; a ValueError when too short or not printable."""
    token = (os.environ.get(TOKEN_ENV) or "").strip()
    if not token:
        return None
    if len(token) < MIN_TOKEN_CHARS or not token.isascii() or not token.isprintable() or " " in token:
        raise ValueError(f"{TOKEN_ENV} must be at least {MIN_TOKEN_CHARS} printable ASCII characters without spaces")
    return token


server_token()  # a bad token stops the server at start-up, named


def host_name(value: str) -> str:
    """The host of a ``Host`` header or of an origin's authority, without its port (``[::1]:2024`` -> ``::1``)."""
    value = value.strip()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


@auth.authenticate
async def authenticate(headers: dict, authorization: str | None) -> Auth.types.MinimalUserDict:
    token = server_token()
    if token is not None:
        scheme, _, given = (authorization or "").strip().partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise Auth.exceptions.HTTPException(status_code=401, detail=f"send 'Authorization: Bearer <{TOKEN_ENV}>'")
        return {"identity": "token holder"}
    host = (headers.get(b"host") or b"").decode("latin-1")
    origin = (headers.get(b"origin") or b"").decode("latin-1")
    origin_host = host_name(origin.split("://", 1)[-1]) if origin and origin != "null" else ""
    if not is_loopback(host_name(host)) or (origin and not is_loopback(origin_host)):
        raise Auth.exceptions.HTTPException(status_code=403, detail=f"without {TOKEN_ENV} this server answers only "
                                            "requests to a loopback address from no other site; set the token to serve others")
    return {"identity": "local"}
