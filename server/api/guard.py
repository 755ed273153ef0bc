"""Requests no route may see: paths that name nothing, and the metrics listener's.

:class:`Guard` is a pure ASGI middleware (inside
:class:`~server.api.observe.Observe`, so what it refuses is logged and
counted like any answer). It answers 404 ``request/not_found`` (JSON) before
routing when

* the path holds a control character (``%00``, ``%0a``, … decoded by the
  server) or a character that stands for undecodable bytes (a ``%ff`` that is
  not UTF-8 decodes to U+FFFD): no route, page or static file has such a
  name, and the static files' lookup failed with a server error on a NUL
  (``GET /static/%00`` was a 500 with two tracebacks in the log);
* the request came in on the metrics listener (``LUCIE_METRICS_PORT``,
  :mod:`server.runtime.metrics_port`) for anything but ``/metrics``: that port
  serves the scrape only (a socket there is refused).

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
    """The middleware (module docstring); ``metrics_port``: the metrics
    listener's port (``None``: there is none)."""

    def __init__(self, app: ASGIApp, metrics_port: int | None = None) -> None:
        self.app = app
        self.metrics_port = metrics_port

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # not a coroutine itself (as Observe): no frame more held by each open socket
        kind = scope["type"]
        if kind in ("http", "websocket"):
            path: str = scope["path"]
            if _NAMES_NOTHING.search(path) or (
                    self.metrics_port is not None and self._on_metrics_port(scope)
                    and not (kind == "http" and path == "/metrics")):
                if kind == "websocket":
                    return send({"type": "websocket.close", "code": 1008})
                return error_answer(RouteNotFound("Not Found"))(scope, receive, send)
        return self.app(scope, receive, send)

    def _on_metrics_port(self, scope: Scope) -> bool:
        server = scope.get("server")
        return server is not None and server[1] == self.metrics_port
