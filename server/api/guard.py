"""Requests no route may see: paths that name nothing.

:class:`Guard` is a pure ASGI middleware (inside
:class:`~server.api.observe.Observe`, so what it refuses is logged and
counted like any answer). It answers 404 ``request/not_found`` (JSON) before
routing when the path holds a control character (``%00``, ``%0a``, … decoded
by the server) or a character that stands for undecodable bytes (a ``%ff``
that is not UTF-8 decodes to U+FFFD): no route, page or static file has such
a name, and the static files' lookup failed with a server error on a NUL
(``GET /static/%00`` was a 500 with two tracebacks in the log). A socket with
such a path is refused.

Anything else passes through untouched, at the cost of one regular
expression search per request (no wrapper, no frame held by an open socket).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

from server.errors import RouteNotFound

from .errors import error_answer

__all__ = ["Guard"]

_NAMES_NOTHING: Final = re.compile("[\x00-\x1f\x7f\ufffd]")
"""Characters no path the server serves contains (module docstring)."""


class Guard:
    """The middleware (module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # not a coroutine itself (as Observe): no frame more held by each open socket
        kind = scope["type"]
        if kind in ("http", "websocket"):
            path: str = scope["path"]
            if _NAMES_NOTHING.search(path):
                if kind == "websocket":
                    return send({"type": "websocket.close", "code": 1008})
                return error_answer(RouteNotFound("Not Found"))(scope, receive, send)
        return self.app(scope, receive, send)
