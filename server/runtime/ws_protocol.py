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
(:mod:`server.runtime.gcpolicy`), so they waited for the full collection every ten
minutes: a client resetting sockets in a loop grew a server by ~3.8 KB per
socket, 126 MB after 20,000 (issue 8).

Here ``connection_lost`` closes the parser generator: nothing parses on a lost
connection, and the protocol is then freed by reference counting with its
socket.

Both also made a close wait, like any send, until the peer had read enough
for the transport to resume writing. A peer that stopped reading is just what
the server closes with 4000 (:mod:`server.api.ws`), so that close never went
out: the socket stayed open, with no listener, until the ping timeout (~40 s).
Here a close is written at once behind the unread data, and a peer that does
not answer it within uvicorn's close timeout (10 s) is cut off
(``transport.abort()``: a paused transport's ``close()`` would wait for the
peer to read everything first).

:func:`server.runtime.uvicorn_protocols.protocols` maps ``LUCIE_WS_IMPL`` to
the class uvicorn runs (wsproto's: :mod:`server.runtime.ws_wsproto`); the
legacy ``websockets`` implementation, which closes slow peers itself, is passed
through unchanged (its reset sockets stay in cycles until the full collection).

Frames written to one socket within one turn of the event loop go out in one
write (:class:`CorkedTransport`): a racer's ack and the progress event of the
same move, or several events of a busy room, cost one ``send`` system call
instead of one each — the writes were the largest single cost of a move's
fan-out under load (docs/capacity.md, "Latency: where an ack's time goes").
Every write of the protocol (frames, pings, pongs, the close) goes through the
same buffer, so their order is kept, and a close sends what is buffered first.
A text message on an open socket without extensions (no compression: the
default) is framed once for all its recipients (:func:`_text_frame`: a room
event goes to every socket of the room as the same bytes) and written
without the library's per-frame work. The app may write such a message
without a task switch through the ASGI scope extension
:data:`SEND_TEXT_NOW` (``scope["extensions"]["lucie.send_text_now"](text)``:
``True`` when written, ``False`` when it must use ``websocket.send``);
the room socket does for its acks and events (:mod:`server.api.ws`).

Every frame a peer sends spends the connection's message budget as it is
parsed (:class:`~server.runtime.ws_budget.Budgeted`: pings too; issue 33).
"""

from __future__ import annotations

import asyncio
import functools
import struct
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from server.errors import RequestInvalid

from .token_bucket import TokenBucket
from .ws_budget import BUDGET, SansIOBudget

__all__ = ["SEND_TEXT_NOW", "CorkedTransport", "SansIOProtocol"]

SEND_TEXT_NOW = "lucie.send_text_now"
"""The ASGI scope extension of a socket whose protocol can write a text message
without a task switch: ``scope["extensions"][SEND_TEXT_NOW](text) -> bool``."""

_NOT_UTF8 = 1007
"""Close code for socket text that is not UTF-8 (RFC 6455 "invalid frame payload
data"; ``REGISTRY["request/invalid"].also_close``)."""
assert _NOT_UTF8 in RequestInvalid.spec.also_close


class CorkedTransport:
    """A transport whose writes of one loop turn are sent as one write, on the
    next turn; ``close`` sends them first, ``abort`` drops them. Anything else
    is the wrapped transport's."""

    __slots__ = ("_buffer", "_loop", "transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._loop = loop
        self._buffer: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if self._buffer is None:
            self._buffer = [data]
            self._loop.call_soon(self.flush)
        else:
            self._buffer.append(data)

    def flush(self) -> None:
        """Send what is buffered (nothing once the transport is closing)."""
        buffer, self._buffer = self._buffer, None
        if buffer and not self.transport.is_closing():
            self.transport.write(buffer[0] if len(buffer) == 1 else b"".join(buffer))

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def write_eof(self) -> None:
        self.flush()
        self.transport.write_eof()

    def abort(self) -> None:
        self._buffer = None
        self.transport.abort()

    def get_write_buffer_size(self) -> int:
        pending = sum(map(len, self._buffer)) if self._buffer else 0
        return self.transport.get_write_buffer_size() + pending

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _ClosesWithoutWaiting:
    """A close does not wait for a peer that stopped reading, and a peer that
    does not take it is cut off (module docstring)."""

    writable: asyncio.Event
    close_sent: bool
    close_timer: asyncio.TimerHandle | None
    close_timeout: float
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    async def send(self, message: Any) -> None:
        if message["type"] == "websocket.send" and self.close_sent:
            # closed meanwhile by the protocol itself (the keepalive ping timed
            # out): the peer is gone for the app, not a server error
            raise ClientDisconnected()
        closing = message["type"] == "websocket.close"
        if closing and not self.writable.is_set():
            self.writable.set()  # nothing is sent after a close
        await super().send(message)  # type: ignore[misc]
        if closing and self.close_timer is not None:
            # uvicorn's timer closes the transport, which first waits for the
            # peer to read everything: abort instead
            self.close_timer.cancel()
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)

    async def run_asgi(self) -> None:
        await super().run_asgi()  # type: ignore[misc]
        if self.transport.get_write_buffer_size():
            # the app is done and uvicorn closes the transport, which waits for
            # a peer that may never read what is left: cut it off after a while
            self.loop.call_later(self.close_timeout, self.transport.abort)


class _Inbox:
    """uvicorn's queue of received messages (``put_nowait``, ``get``,
    ``empty``: all it calls) as a list and one future while the app waits:
    an :class:`asyncio.Queue` holds three deques and an event, ~3 KB for
    every idle socket (issue 23)."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def drop_received(self) -> None:
        """Forget the received messages the app has not taken yet."""
        self._items = [m for m in self._items if m["type"] != "websocket.receive"]

    async def get(self) -> Any:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


class _Writable:
    """uvicorn's ``writable`` event (``wait``, ``set``, ``clear``, ``is_set``)
    without the deque an :class:`asyncio.Event` allocates up front (~0.8 KB
    per idle socket; issue 23): waiters are listed only while the transport
    is paused."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = True
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        while not self._set:
            waiter = asyncio.get_running_loop().create_future()
            if self._waiters is None:
                self._waiters = []
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if self._waiters is not None and waiter in self._waiters:
                    self._waiters.remove(waiter)
        return True


_SHORT, _MEDIUM, _LONG = struct.Struct("!BB"), struct.Struct("!BBH"), struct.Struct("!BBQ")


@functools.lru_cache(maxsize=64)
def _text_frame(text: str) -> bytes:
    """The server's (unmasked) frame of a text message, made once per message
    text however many sockets it goes to: FIN + text opcode, the payload
    length in 7, 7+16 or 7+64 bits (RFC 6455, 5.2), the UTF-8 payload. The
    bytes websockets' ``Frame.serialize`` writes (tests/api/test_ws_cork.py),
    in a tenth of its time."""
    data = text.encode()
    size = len(data)
    if size < 126:
        head = _SHORT.pack(0x81, size)
    elif size < 65_536:
        head = _MEDIUM.pack(0x81, 126, size)
    else:
        head = _LONG.pack(0x81, 127, size)
    return head + data


class SansIOProtocol(SansIOBudget, _ClosesWithoutWaiting, WebSocketsSansIOProtocol):
    """uvicorn's websockets (sans-I/O) protocol; a lost connection ends its
    parser, a close does not wait for the peer to read, a text message
    that is not UTF-8 is the client's error, not the server's, the writes
    of one loop turn are one write (:class:`CorkedTransport`), and an idle
    socket holds less (:class:`_Inbox`, :class:`_Writable`; the handshake's
    response is let go once sent)."""

    # slots: an attribute more in the instance dict costs idle sockets
    __slots__ = ("_budget", "_plain")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = _Inbox()
        self.writable: _Writable = _Writable()  # type: ignore[assignment]
        self._plain = False  # accepted, no extension: text frames written directly
        self._budget = TokenBucket(self.budget_rate, self.budget_burst)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.transport = CorkedTransport(self.transport, self.loop)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.conn.parser.close()
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(SEND_TEXT_NOW, None)  # it refers back to this protocol

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if not self.close_sent:
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[SEND_TEXT_NOW] = self.send_text_now
            extensions[BUDGET] = self._budget

    def send_text_now(self, text: str) -> bool:
        """Write the text message ``text`` at once if the socket is open and
        writable (no extension, no continuation, not closing); ``False``
        when the app must send it the ASGI way (``websocket.send``)."""
        conn = self.conn
        if self._plain and self.writable._set and not self.close_sent \
                and not self.disconnected and conn.state is State.OPEN \
                and not conn.expect_continuation_frame:
            # what uvicorn and websockets would write for it (module docstring)
            self.transport.write(_text_frame(text))
            return True
        return False

    async def send(self, message: Any) -> None:
        text = message.get("text") if message["type"] == "websocket.send" else None
        if text is not None and self.send_text_now(text):
            return
        await super().send(message)
        if message["type"] == "websocket.http.response.start":
            # an upgrade refused with an HTTP answer (a 429 past a cap) ends the
            # handshake, as wsproto's protocol says; uvicorn logged an ERROR each
            self.handshake_complete = True
        if message["type"] == "websocket.accept" and self.handshake_complete:
            # from now on, what decides the direct write above can only turn it off
            self._plain = self.initial_response is None and not self.conn.extensions
            # the handshake's request and response are not read again: their
            # headers were ~5 KB held by every idle socket (issue 23); the
            # request itself stays in websockets' parser (a local of its
            # generator), so its headers are emptied
            if self.request is not None:
                self.request.headers.clear()
            self.request = self.response = None  # type: ignore[assignment]

    def send_receive_event_to_app(self) -> None:
        # uvicorn fails such a socket with 1007 too, but logs a traceback at
        # ERROR for it: bad input is not a server error (docs/protocol.md)
        if self.curr_msg_data_type == "text" and not self.close_sent:
            text = b"".join(self.frames)
            if not text.isascii():
                try:
                    text.decode()
                except UnicodeDecodeError:
                    self.frames = []
                    self.conn.send_close(_NOT_UTF8,
                                         f"{RequestInvalid.code}: text that is not UTF-8")
                    self.handle_parser_exception()
                    return
        super().send_receive_event_to_app()
