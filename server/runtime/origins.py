"""The room socket's ``Origin`` rule (``LUCIE_ALLOWED_ORIGINS``; docs/protocol.md,
"WebSocket").

A browser sends the ``Origin`` of the page that opens a WebSocket, and any
page may open one to any server: without this rule, every page a visitor
had open could fill a room's spectator sockets from the visitor's address.
:class:`OriginRule` lets in an upgrade without ``Origin`` (not a browser:
the terminal client, bots, curl), and one whose ``Origin`` is listed, or is
the server's own when ``self`` is listed (the default): the ``Host`` the
request came to, with the scheme of the connection — ``https`` behind a
trusted proxy's ``X-Forwarded-Proto: https`` (uvicorn's proxy headers, as
for the client address: ``LUCIE_TRUSTED_PROXIES``). ``*`` lets in any.

Origins are compared as RFC 6454 serializes them: scheme and host in lower
case, the scheme's default port left out (``HTTPS://Race.Example:443`` is
``https://race.example``).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["OriginRule", "normalize"]

_DEFAULT_PORT = {"http": 80, "https": 443}
_SCHEME_OF = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def normalize(origin: str) -> str | None:
    """``origin`` as ``scheme://host[:port]`` (lower case, no default port);
    ``None`` when it is not an ``http``/``https`` origin (``null``, a path,
    a user, a bad port)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in _DEFAULT_PORT or not host or parts.path or parts.query \
            or parts.fragment or parts.username is not None or "@" in parts.netloc:
        return None
    if ":" in host:  # IPv6
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORT[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


@dataclass(frozen=True, slots=True)
class OriginRule:
    """Which ``Origin`` may open a room socket (module docstring)."""

    own: bool
    """The server's own origin is allowed (``self``; the default)."""
    anyone: bool
    """Every origin is (``*``)."""
    listed: frozenset[str]
    """These origins are (normalized)."""

    @classmethod
    def parse(cls, text: str) -> OriginRule:
        """The rule of ``LUCIE_ALLOWED_ORIGINS`` = ``text``: origins, ``self``
        or ``*``, comma-separated; empty: ``self``.

        :raises ValueError: naming an entry that is none of those.
        """
        entries = [e.strip() for e in text.split(",") if e.strip()]
        listed = set()
        for entry in entries:
            if entry in ("self", "*"):
                continue
            found = normalize(entry.removesuffix("/"))
            if found is None:
                raise ValueError(f"{entry!r} is not an origin (scheme://host[:port], "
                                 "http or https), self or *")
            listed.add(found)
        return cls(own=not entries or "self" in entries, anyone="*" in entries,
                   listed=frozenset(listed))

    def allows(self, origin: str | None, scheme: str, host: str | None) -> bool:
        """Whether an upgrade with ``Origin`` = ``origin`` (``None``: none sent)
        may proceed; ``scheme`` is the request's (``ws``/``wss``, or what a
        trusted proxy said), ``host`` its ``Host`` header."""
        if origin is None or self.anyone:
            return True
        found = normalize(origin)
        if found is None:
            return False
        if found in self.listed:
            return True
        if not self.own or not host or scheme not in _SCHEME_OF:
            return False
        return found == normalize(f"{_SCHEME_OF[scheme]}://{host}")
