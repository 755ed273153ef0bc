"""The connection's message budget, spent by the WebSocket protocol itself
(:mod:`server.runtime.ws_protocol`, :mod:`server.runtime.ws_wsproto`).

Every frame a peer sends — text, binary, each fragment, ping and pong; not
its close — spends a token of the connection's message budget
(``LUCIE_WS_RATE`` a second, burst ``LUCIE_WS_BURST``: the class attributes
:func:`with_budget` sets), here, as it is parsed: the library answers a ping
by itself, so an app that counted only messages let a peer send ping frames
without limit (2.1 M in 8 s from one socket, a probe ``GET`` waiting 7 s:
issue 33). Past the budget the socket is closed with 1008 ``rate/limited:
too many messages``, the answers not yet written (the flood's pongs) and the
messages the app has not taken yet are dropped, and nothing more is parsed:
what the peer still sends is read and dropped (so that it pins no kernel
buffers), up to 8 MiB or 2 s, then the connection is cut off
(:meth:`Budgeted._over_budget`). The sans-I/O parser is fed a read
:data:`SLICE` bytes at a time, so a flood costs at most a slice past the
budget, not a whole read (256 KiB of pings parsed: ~170 ms of the event
loop); wsproto parses lazily. The app finds the budget in the scope
extension :data:`BUDGET` and counts nothing itself then; under the legacy
``websockets`` implementation it counts messages (pings are not counted).
"""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.frames import Frame, Opcode
from websockets.http11 import Request

from server.errors import RateLimited

from .token_bucket import TokenBucket

__all__ = ["BUDGET", "SLICE", "Budgeted", "SansIOBudget", "with_budget"]

BUDGET = "lucie.budget"
"""The ASGI scope extension of a socket whose protocol counts every frame it
receives in the connection's message budget (module docstring):
``scope["extensions"][BUDGET]`` is that :class:`TokenBucket`."""

SLICE = 4096
"""Bytes of a read fed to the sans-I/O frame parser at a time (module docstring)."""

LINGER_S = 2.0
"""How long a socket closed past its budget is kept for the peer to take the
close frame and hang up, before it is cut off."""

DROP_AT_MOST = 8 << 20
"""Bytes a socket closed past its budget may still send (read and dropped)
before it is cut off: a flooder that writes on for a few ms before it reads
its close frame still gets it (at 1 MiB some did not: the reset came first,
and an asyncio client's failed write drops what it had read but not taken)."""

OVER_BUDGET = (RateLimited.spec.close or 1008, f"{RateLimited.code}: too many messages")
"""The close of a socket past its message budget (the room socket's own words)."""


def with_budget(cls: type, budget: tuple[float, int]) -> type:
    """A subclass of the protocol class ``cls`` with the message budget
    ``(rate, burst)`` (``LUCIE_WS_RATE``, ``LUCIE_WS_BURST``): one per server."""
    rate, burst = budget
    return type(cls.__name__, (cls,), {
        "__slots__": (), "__module__": cls.__module__, "__doc__": cls.__doc__,
        "budget_rate": float(rate), "budget_burst": int(burst)})


class Budgeted:
    """The connection's message budget, spent by every frame the peer sends
    but its close (module docstring); :func:`with_budget` sets the rate. The
    protocol class sets ``_budget`` and sends the close
    (:meth:`_send_over_budget_close`)."""

    budget_rate: float = 200.0
    budget_burst: int = 400
    _cut = False
    """Past the budget: what the peer sends is read and dropped, not parsed."""
    _dropped = 0

    queue: Any  # server.runtime.ws_protocol._Inbox
    _budget: TokenBucket
    handshake_complete: bool
    close_sent: bool
    close_timer: asyncio.TimerHandle | None
    read_paused: bool
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def data_received(self, data: bytes) -> None:
        if not self._cut:
            super().data_received(data)  # type: ignore[misc]
            return
        self._dropped += len(data)
        if self._dropped > DROP_AT_MOST:
            self.transport.abort()

    def _send_over_budget_close(self, code: int, reason: str) -> None:
        raise NotImplementedError

    def _over_budget(self) -> None:
        """Close past the budget: the app's untaken messages dropped; the close
        frame sent and the sending side shut (``FIN``); what the peer sends
        from now on read and dropped unparsed (not left unread: a flooder's
        data would pin kernel buffers, megabytes a socket, and unread data
        turns a close into a reset that can lose the close frame); cut off
        after :data:`LINGER_S`, or :data:`DROP_AT_MOST` bytes more. A peer
        that takes the close and hangs up ends it at once."""
        self._cut = True
        self.queue.drop_received()
        if not self.handshake_complete:  # frames before the upgrade's answer
            self.transport.abort()
            return
        if not self.close_sent:
            code, reason = OVER_BUDGET
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code,
                                   "reason": reason})
            self._send_over_budget_close(code, reason)
            self.close_sent = True
        if self.transport.is_closing():
            return
        if self.read_paused:  # uvicorn paused it for the app: read on, to drop
            self.read_paused = False
            self.transport.resume_reading()
        if self.transport.can_write_eof():
            self.transport.write_eof()
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = self.loop.call_later(LINGER_S, self.transport.abort)


class SansIOBudget(Budgeted):
    """The budget in uvicorn's websockets (sans-I/O) protocol: reads fed to
    the parser a :data:`SLICE` at a time, uvicorn's dispatch of the parsed
    frames with each one but a close spending a token first."""

    conn: Any  # websockets' ServerProtocol
    transport: Any  # server.runtime.ws_protocol.CorkedTransport
    # uvicorn's handlers (WebSocketsSansIOProtocol), dispatched to below
    handle_connect: Any
    handle_text: Any
    handle_bytes: Any
    handle_cont: Any
    handle_ping: Any
    handle_pong: Any
    handle_close: Any

    def data_received(self, data: bytes) -> None:
        if self._cut or len(data) <= SLICE:
            super().data_received(data)
            return
        for at in range(0, len(data), SLICE):  # module docstring
            super().data_received(data[at:at + SLICE])
            if self.transport.is_closing():
                return
            if self._cut:  # past the budget: the rest of this read is dropped
                super().data_received(data[at + SLICE:])
                return

    def handle_events(self) -> None:
        # uvicorn's dispatch, each frame but a close spending the budget first
        budget = self._budget
        for event in self.conn.events_received():
            if isinstance(event, Request):
                self.handle_connect(event)
                continue
            if not isinstance(event, Frame):
                continue
            opcode = event.opcode
            if opcode is not Opcode.CLOSE and not budget.take():
                self._over_budget()
                return
            if opcode is Opcode.TEXT:
                self.handle_text(event)
            elif opcode is Opcode.BINARY:
                self.handle_bytes(event)
            elif opcode is Opcode.CONT:
                self.handle_cont(event)
            elif opcode is Opcode.PING:
                self.handle_ping()
            elif opcode is Opcode.PONG:
                self.handle_pong(event)
            else:
                self.handle_close(event)

    def _send_over_budget_close(self, code: int, reason: str) -> None:
        self.conn.data_to_send()  # the flood's answers (pongs): not sent
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
