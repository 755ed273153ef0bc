"""uvicorn's httptools HTTP protocol, without the reference cycle a WebSocket
upgrade leaves behind, and with bounds on what a connection may cost before
it has sent a request.

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

**Request heads are bounded** (issue 33), by
:class:`~server.runtime.http_limits.HttpLimits`
(``LUCIE_MAX_HEADER``, ``LUCIE_HEADER_TIMEOUT_S``,
``LUCIE_HTTP_CONNECTIONS_PER_ADDRESS``). httptools has no limit of its own:
it joins the pieces of a header that has not ended yet in its own buffer
(four connections each sending 48 MiB of one unfinished header grew a server
by 183 MB), and uvicorn's public size knob (``h11_max_incomplete_event_size``)
is for its h11 protocol only. So:

* **size** — the bytes fed to the parser while a request head is incomplete
  are counted; past ``max_header`` the parser gets no more, the client gets
  431 ``request/headers_too_large`` (JSON) and the connection is closed. The
  first head of a connection is counted exactly; a later one (kept alive or
  pipelined) from the first read after its first byte, so it may exceed the
  limit by at most what that read held;
* **time** — a connection that has not sent a complete request head within
  ``header_timeout_s`` of opening (or of the first byte of its next request)
  is closed: slow and silent clients hold nothing for long. Between requests
  the keep-alive timeout (``LUCIE_KEEP_ALIVE_S``) applies, as before;
* **count** — each client address may hold ``per_address`` open HTTP
  connections; a new one beyond that is answered 429 ``rate/limited`` with
  ``Retry-After`` at once and closed. The address is the TCP peer's:
  connections from a trusted proxy (``LUCIE_TRUSTED_PROXIES``) carry many
  clients and are not counted (the proxy bounds its own). An upgraded
  connection leaves the count: it is a room socket, counted by
  :mod:`server.api.admission`.

A refusal (431, 429, and the 400 of a request that does not parse) is a JSON
error as every other (``server/errors.py``). It is written, then the write
side is shut; what the client still sends is read and dropped for up to
:data:`LINGER_S` — closing a socket with unread data would send a reset,
which can destroy the answer before the client reads it — then the
connection is cut.
"""

from __future__ import annotations

import asyncio
import http
import json
import logging
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.errors import RaceError, RateLimited, RequestHeadersTooLarge, RequestInvalid
from server.runtime import metrics
from server.runtime.http_limits import HttpLimits

__all__ = ["LINGER_S", "HttpLimits", "UpgradeHttpToolsProtocol", "http_protocol_class"]

log = logging.getLogger("server.runtime")

LINGER_S = 1.0
"""How long a refused connection's input is drained before it is cut (s)."""

def _answer(error: RaceError, headers: tuple[tuple[bytes, bytes], ...] = ()) -> bytes:
    """The bytes of a closing JSON error answer (no Date: the caller adds
    the server's default headers)."""
    body = json.dumps({"error": error.to_json()}, separators=(",", ":")).encode()
    phrase = http.HTTPStatus(error.status).phrase
    head = [f"HTTP/1.1 {error.status} {phrase}\r\n".encode(),
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"cache-control: no-store\r\n",
            b"x-content-type-options: nosniff\r\n",
            b"connection: close\r\n"]
    head += [name + b": " + value + b"\r\n" for name, value in headers]
    return b"".join(head) + b"\r\n" + body


class UpgradeHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that upgrades GET requests only, lets go of
    its parser once upgraded, and holds connections to :attr:`limits`
    (module docstring). :func:`http_protocol_class` makes the class a server
    runs, with its limits and its own count of connections per address."""

    limits: ClassVar[HttpLimits] = HttpLimits()
    open_by_address: ClassVar[Counter[str]] = Counter()
    """Open HTTP connections per counted client address (per class: per server)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_left: int | None = self.limits.max_header
        """Bytes the request head being read may still take (``None``: not reading one)."""
        self._heads = 0  # complete request heads so far
        self._head_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None  # the address this connection counts under
        self._refused: asyncio.TimerHandle | None = None  # set: answered, draining

    # -- the connection's life ------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits = self.limits
        host = self.client[0] if self.client else None
        if host is not None and limits.counts(host):
            if self.open_by_address[host] >= limits.per_address:
                metrics.HTTP_CONNECTIONS_CUT.labels("address_cap").inc()
                log.debug("refused an HTTP connection of %s: %d open", host,
                          limits.per_address)
                self._refuse(RateLimited(
                    f"at most {limits.per_address} open HTTP connections per address; "
                    "close one or retry", {"retry_after_ms": 1000, "limit": limits.per_address}),
                    ((b"retry-after", b"1"),))
                return
            self.open_by_address[host] += 1
            self._counted = host
        self._head_timer = self.loop.call_later(limits.header_timeout_s, self._head_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        if self._refused is not None:
            self._refused.cancel()
        self._uncount()
        super().connection_lost(exc)

    def _uncount(self) -> None:
        host, self._counted = self._counted, None
        if host is not None:
            left = self.open_by_address[host] - 1
            if left > 0:
                self.open_by_address[host] = left
            else:
                del self.open_by_address[host]

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            metrics.HTTP_CONNECTIONS_CUT.labels("header_timeout").inc()
            log.debug("closed an HTTP connection: no complete request head in %.1f s",
                      self.limits.header_timeout_s)
            self.transport.close()

    def _refuse(self, error: RaceError, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
        """Answer ``error`` and end the connection (module docstring)."""
        self._stop_head_timer()
        transport = self.transport
        if self._refused is not None or transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            transport.close()  # an answer to a request before this one is under way
            return
        transport.write(_answer(error, (*self.server_state.default_headers, *headers)))
        self._refused = self.loop.call_later(LINGER_S, transport.abort)
        if transport.can_write_eof():
            transport.write_eof()
        else:
            transport.close()

    # -- reading --------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        while True:
            if self._refused is not None:
                return  # drained: the answer is out, the connection ends
            left = self._head_left
            if left is None or self.parser is None or len(data) <= left:
                if left is not None:
                    self._head_left = left - len(data)
                super().data_received(data)
                return
            # the head may take ``left`` more bytes: feed those, and see whether it ended
            heads, self._head_left = self._heads, 0
            if left:
                super().data_received(data[:left])
            if self._heads == heads:
                if self.parser is not None and not self.transport.is_closing():
                    limit = self.limits.max_header
                    metrics.HTTP_CONNECTIONS_CUT.labels("headers_too_large").inc()
                    log.debug("refused a request head over %d bytes", limit)
                    self._refuse(RequestHeadersTooLarge(
                        f"the request head (request line and header fields) is over {limit} "
                        "bytes", {"limit": limit}))
                return
            data = data[left:]
            if not data or self.parser is None or self.transport.is_closing():
                return  # upgraded (uvicorn drops what follows the handshake) or closed

    def send_400_response(self, msg: str) -> None:
        # a request that does not parse: the JSON error every answer has
        self._refuse(RequestInvalid("invalid HTTP request"))

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_left is None:  # a next request of a kept-alive connection
            self._head_left = self.limits.max_header
        if self._head_timer is None and self._refused is None:
            self._head_timer = self.loop.call_later(self.limits.header_timeout_s,
                                                    self._head_timed_out)

    def on_headers_complete(self) -> None:
        self._head_left = None
        self._heads += 1
        self._stop_head_timer()
        super().on_headers_complete()

    # -- the upgrade ----------------------------------------------------------

    def _should_upgrade(self) -> bool:
        return self.scope["method"] == "GET" and super()._should_upgrade()

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # from here on the WebSocket protocol owns the transport; nothing parses
        # HTTP on this object again, and the connection is a room socket
        self.parser = None  # type: ignore[assignment]
        self._stop_head_timer()
        self._uncount()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.parser is None:
            # a response to a request pipelined before the upgrade: the socket
            # is the WebSocket's now, so no keep-alive timeout may close it
            self._unset_keepalive_if_required()


def http_protocol_class(given: HttpLimits) -> type[UpgradeHttpToolsProtocol]:
    """The protocol class of one server: :class:`UpgradeHttpToolsProtocol`
    with the ``given`` limits and a count of open connections per address of
    its own."""

    class ServerHttpProtocol(UpgradeHttpToolsProtocol):
        __doc__ = UpgradeHttpToolsProtocol.__doc__

    ServerHttpProtocol.limits = given
    ServerHttpProtocol.open_by_address = Counter()
    return ServerHttpProtocol
