"""Who may reach the MCP server: loopback addresses (served without a token, with DNS-rebinding protection) and the
shared bearer token (checked, and verified in constant time by :class:`StaticTokenVerifier`)."""

import hmac
import ipaddress

from kg_agent.mcp.flags import MIN_TOKEN_CHARS


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1) or ``localhost``."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name, a wildcard spelled otherwise, garbage: not loopback
        return False


def url_host(host: str) -> str:
    """``host`` as a URL writes it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def server_origin(host: str, port: int) -> str:
    """``http://host:port``."""
    return f"http://{url_host(host)}:{port}"


def checked_token(token: str, what: str = "the token") -> str:
    """``token`` when it can be a bearer token: printable ASCII without spaces, at least :data:`MIN_TOKEN_CHARS`
    characters; else a ``ValueError`` naming ``what``."""
    if not token or not all("!" <= char <= "~" for char in token):
        raise ValueError(f"{what} must be printable ASCII without spaces")
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"{what} is {len(token)} characters long; use at least {MIN_TOKEN_CHARS}, e.g. from "
                         "python -c 'import secrets; print(secrets.token_urlsafe(32))'")
    return token


class StaticTokenVerifier:
    """The MCP SDK's ``TokenVerifier`` for one shared bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = checked_token(token).encode()

    async def verify_token(self, token: str):
        """An ``AccessToken`` for the right token, ``None`` (HTTP 401) for any other."""
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="kg-agent-mcp-token", scopes=[])
        return None


def loopback_security(host: str):
    """The SDK's DNS-rebinding protection for a loopback ``host``: only Host and Origin headers naming a loopback
    address are served (the SDK turns it on by itself only for 127.0.0.1, ::1 and localhost)."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(dict.fromkeys(["127.0.0.1", "localhost", "[::1]", url_host(host)]))
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[f"{name}:*" for name in names],
                                     allowed_origins=[f"http://{name}:*" for name in names])
