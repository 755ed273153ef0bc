"""uvicorn's httptools HTTP protocol, without the reference cycle a WebSocket
upgrade leaves behind.

After the upgrade the transport belongs to the WebSocket protocol, so the HTTP
protocol's ``connection_lost`` — where uvicorn drops its parser — never runs:
the parser (its callbacks are the protocol's bound methods) and the protocol
keep each other alive, with the flow control, headers and buffers they hold
(~23 objects per socket). The server freezes survivors every second
(:mod:`server.gcpolicy`), so every upgraded socket's leftovers waited for the
full collection: 330 sockets' worth per 30 s per process under the load test,
the only cyclic garbage left there (issue 8).
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["UpgradeHttpToolsProtocol"]


class UpgradeHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that lets go of its parser once upgraded."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # from here on the WebSocket protocol owns the transport; nothing parses
        # HTTP on this object again
        self.parser = None  # type: ignore[assignment]
