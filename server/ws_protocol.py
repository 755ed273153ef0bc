"""uvicorn's WebSocket protocols, without the reference cycle a closed socket
leaves behind.

Both sans-I/O WebSocket libraries parse frames in a generator that holds its
own protocol object: websockets' ``ServerProtocol.parser`` (``parse()``, then
``discard()`` after a close frame) and wsproto's ``FrameProtocol._parse_more``.
The generator only finishes when the library is fed the end of the stream,
which uvicorn never does (``eof_received`` and ``connection_lost`` leave the
parser as it is). So every closed socket — a clean close, a FIN, a reset —
left the parser, its protocol, the handshake request and headers in a cycle
(~14 objects). The server freezes survivors every second
(:mod:`server.gcpolicy`), so they waited for the full collection every ten
minutes: a client resetting sockets in a loop grew a server by ~3.8 KB per
socket, 126 MB after 20,000 (issue 8).

Here ``connection_lost`` closes the parser generator: nothing parses on a lost
connection, and the protocol is then freed by reference counting with its
socket. :func:`ws_protocol_class` maps ``LUCIE_WS_IMPL`` to the class uvicorn
runs; the legacy ``websockets`` implementation is passed through unchanged.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["SansIOProtocol", "ws_protocol_class"]


class SansIOProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets (sans-I/O) protocol; a lost connection ends its parser."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.conn.parser.close()


def ws_protocol_class(ws_impl: str) -> Any:
    """uvicorn's ``ws`` setting for ``LUCIE_WS_IMPL`` (``auto``: websockets,
    sans-I/O, as uvicorn's own ``auto`` picks it when websockets is installed,
    which it is: a dependency)."""
    if ws_impl == "wsproto":  # an optional library: imported only when asked for
        return _wsproto_protocol()
    return SansIOProtocol if ws_impl in ("auto", "websockets-sansio") else ws_impl


def _wsproto_protocol() -> type:
    from uvicorn.protocols.websockets.wsproto_impl import WSProtocol

    class WSProtoProtocol(WSProtocol):
        """uvicorn's wsproto protocol; a lost connection ends its frame parser."""

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            # wsproto has no public way to end its parser: reach the generator,
            # and leave the cycle to the collector if a release renames it
            parser = getattr(getattr(self.conn.connection, "_proto", None), "_parse_more", None)
            if parser is not None:
                parser.close()

    return WSProtoProtocol
