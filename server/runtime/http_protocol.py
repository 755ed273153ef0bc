"""uvicorn's httptools HTTP protocol, without the reference cycle a WebSocket
upgrade leaves behind.

After the upgrade the transport belongs to the WebSocket protocol, so the HTTP
protocol's ``connection_lost`` — where uvicorn drops its parser — never runs:
the parser (its callbacks are the protocol's bound methods) and the protocol
keep each other alive, with the flow control, headers and buffers they hold
(~23 objects per socket). The server freezes survivors every second
(:mod:`server.runtime.gcpolicy`), so every upgraded socket's leftovers waited for the
full collection: 330 sockets' worth per 30 s per process under the load test,
the only cyclic garbage left there (issue 8).

The WebSocket opening handshake is a GET (RFC 6455 §4.1). uvicorn upgraded
any method that carried the Upgrade headers, and the WebSocket library then
refused the request without a word: the client hung. Another method is now
served as the plain HTTP request it is (405 on a socket's path).

A request pipelined before the upgrade request is answered after it; uvicorn
then armed its keep-alive timeout (5 s) on this object, which closed the
transport under the WebSocket. No timeout is armed once upgraded.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["UpgradeHttpToolsProtocol"]


class UpgradeHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that upgrades GET requests only, and lets
    go of its parser once upgraded (module docstring)."""

    def _should_upgrade(self) -> bool:
        return self.scope["method"] == "GET" and super()._should_upgrade()

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # from here on the WebSocket protocol owns the transport; nothing parses
        # HTTP on this object again
        self.parser = None  # type: ignore[assignment]

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.parser is None:
            # a response to a request pipelined before the upgrade: the socket
            # is the WebSocket's now, so no keep-alive timeout may close it
            self._unset_keepalive_if_required()
