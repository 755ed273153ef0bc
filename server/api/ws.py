"""The room WebSocket ``/api/v1/rooms/{room}/ws[?since=SEQ]`` (docs/protocol.md).

Every socket receives the room's events; a racer's socket (``Authorization:
Bearer`` header, or an ``auth`` message) also sends moves and gets acks, and
reports its page's focus losses (``focus``, answered by nothing).
Each connection has one receiver (decode → one authority call) and one
sender draining a bounded queue (:mod:`server.api.hub`), so acks and events
go out in order and a slow client is closed (4000) without stalling others.
The sender task starts with the first item to send: an idle socket holds
none. While nothing is queued and the sender idles, an ack or the next
event is written at once instead (:meth:`Connection._direct`, through the
protocol's ``lucie.send_text_now`` scope extension): no task switch and no
ASGI layers per frame, the same order and bytes. The endpoint (admission, ``since``, the token) is
:mod:`server.api.ws_endpoint`.

Close codes: the registry's for each error code (:data:`server.errors.REGISTRY`),
4000 too slow. A move the store could not take is refused with
``store/unavailable`` and ``details.retry_after_ms``: resend it with the same
client move id.

Size: one connection is one class (its slots shared by the receiver, the
sender, the direct path and each client message's handling); split, each part
would reach into the others' state.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.errors import (
    CLOSE_TOO_SLOW,
    AuthForbidden,
    AuthInvalidToken,
    AuthMissing,
    EventsTooOld,
    RaceError,
    RateLimited,
    RequestInvalid,
    RequestTooLarge,
    RoomNotFound,
    ServiceError,
    StoreError,
)
from server.race.authority import RaceAuthority
from server.race.views import RoomView
from server.runtime import metrics
from server.runtime.event_seq import GAP, OLD, EventCursor
from server.runtime.settings import Settings
from server.runtime.ws_budget import BUDGET
from server.runtime.ws_protocol import SEND_TEXT_NOW

from . import ws_out as out
from .admission import SocketTicket
from .errors import socket_store_error, validation_details
from .hub import Hub, Item, Listener
from .models import (
    AuthIn,
    FocusIn,
    MoveIn,
    PingIn,
    ReadyIn,
    ResignIn,
    client_message,
    json_object_problem,
)
from .observe import SocketNote, note_socket, observed_move, socket_note
from .ratelimit import TokenBucket

__all__ = ["Connection", "close_args"]

log = logging.getLogger("server.api.ws")

_GONE = (WebSocketDisconnect, OSError)
"""Errors that only mean the peer went away (uvicorn's ClientDisconnected is an OSError)."""


def close_args(cls: type[ServiceError], text: str = "") -> tuple[int, str]:
    """The registry's close code of ``cls`` and its reason (the code, then ``text``)."""
    assert cls.close is not None, f"{cls.code} closes no socket"
    return cls.close, f"{cls.code}: {text}" if text else cls.code


class Connection:
    __slots__ = (
        "_context",
        "_kick",
        "_note",
        "_received",
        "_send_now",
        "_sender_task",
        "authority",
        "bucket",
        "hub",
        "listener",
        "racer_id",
        "room_id",
        "seen",
        "settings",
        "ticket",
        "token",
        "ws",
    )

    def __init__(self, ws: WebSocket, room_id: str, racer_id: str | None,
                 token: str | None, ticket: SocketTicket | None = None) -> None:
        state = ws.app.state
        self.ws = ws
        self.authority: RaceAuthority = state.authority
        self.hub: Hub = state.hub
        self.settings: Settings = state.settings
        self.room_id = room_id
        self.racer_id = racer_id
        self.token = token
        self.ticket = ticket
        """What admission counts this socket as (a spectator gives its slot back at ``auth``)."""
        self.listener = Listener(self.settings.send_queue, self._slow)
        # the message budget: the protocol's, which counts every frame as it
        # parses them (pings too: server.runtime.ws_protocol), else our own
        counted = (ws.scope.get("extensions") or {}).get(BUDGET)
        self.bucket: TokenBucket | None = None if counted is not None else TokenBucket(
            self.settings.ws_rate, self.settings.ws_burst)
        self.seen = EventCursor()
        """The last room event this socket sent (or its welcome or snapshot showed)."""
        self._received = 0.0  # when the message being handled arrived (perf_counter)
        self._sender_task: asyncio.Task[None] | None = None
        self._kick: asyncio.Task[None] | None = None
        self._context: contextvars.Context | None = None
        self._send_now: Callable[[str], bool] | None = None
        self._note: SocketNote | None = None

    def _slow(self) -> None:
        """The send queue overflowed: stop the sender (it may be blocked on a
        full socket buffer) and close with 4000 in the background."""
        log.info("closing a slow socket of room %s", self.room_id)
        metrics.SLOW_SOCKETS.inc()
        if self._sender_task is not None:
            self._sender_task.cancel()
        self._kick = asyncio.create_task(self._force_close(CLOSE_TOO_SLOW,
                                                           "too slow: send queue full"))

    async def _force_close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code, reason), 2.0)

    def push(self, msg: out.ServerOut) -> None:
        """Queue ``msg`` for this socket (:func:`server.api.ws_out.encode`)."""
        self.listener.push(("msg", 0, out.encode(msg)))

    async def _welcome(self, room: RoomView | None = None) -> None:
        if room is None:
            room = await self.authority.get_room(self.room_id, self.token)
        self.seen.took(room.seq)
        await self.ws.send_text(out.encode(out.welcome(self.racer_id, room)))

    async def _snapshot(self) -> None:
        room = await self.authority.get_room(self.room_id, self.token)
        self.seen.took(room.seq)
        await self.ws.send_text(out.encode(out.snapshot(room)))

    async def _catch_up(self, until: int | None) -> None:
        """Send the logged events after the last one sent (up to ``until``), or a
        snapshot when they were trimmed."""
        try:
            events = await self.authority.events_since(self.room_id, self.seen.last)
        except EventsTooOld:
            await self._snapshot()
            return
        for event in events:
            if until is not None and event["seq"] > until:
                break
            await self.ws.send_text(out.encode(out.event(event)))
            self.seen.took(event["seq"])

    async def run(self, since: int | None) -> None:
        await self.hub.attach(self.room_id, self.listener)
        try:
            room = await self.authority.get_room(self.room_id, self.token)
            if since is not None and since > room.seq:  # no client saw such an event
                await self.ws.close(*close_args(RequestInvalid, f"since {since} is after the "
                                                            f"room's last event ({room.seq})"))
                return
            await self._welcome(room)
            del room  # not held for the socket's life: ~4 KB per idle socket (issue 23)
            note_socket(self.ws.scope, self.room_id, self.racer_id)
            if since is not None and since != self.seen.last:
                now = self.seen.last
                self.seen.took(since)
                await self._catch_up(now)
            # the receiver runs in this coroutine (one task less per socket); it
            # returns when the peer goes, or after asking the sender to close.
            # The sender starts with the first item to send (_start_sender)
            self._context = contextvars.copy_context()
            send_now = (self.ws.scope.get("extensions") or {}).get(SEND_TEXT_NOW)
            if send_now is not None:  # not under wsproto or the legacy protocol
                self._send_now, self._note = send_now, socket_note()
                self.listener.direct = self._direct
            self.listener.arm(self._start_sender)
            try:
                await self._receiver()
            finally:
                sender = self._start_sender()
                if self.listener.dead and not sender.done():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(sender), 2.0)
                sender.cancel()
                await asyncio.gather(sender, return_exceptions=True)
                if sender.cancelled() and self.listener.closing is not None \
                        and self._kick is None:
                    # the sender was stuck behind a peer that stopped reading,
                    # before the close: send it now (it does not wait for the peer)
                    await self._force_close(*self.listener.closing)
            if self._kick is not None:
                await self._kick
                return
            exc = None if sender.cancelled() else sender.exception()
            if exc is not None and not isinstance(exc, _GONE):
                raise exc
        finally:
            self.hub.detach(self.room_id, self.listener)
            # break the cycles through this connection (its tasks' tracebacks
            # hold it; the listener holds its overflow method): a closed socket
            # is then freed at once, not left to the full collection (issue 8)
            self._sender_task = self._kick = self._context = self._send_now = self._note = None
            self.listener.release()

    def _direct(self, item: Item) -> bool:
        """Send ``item`` at once, as the sender would, when that needs no wait:
        the next event or a direct message, the socket open and writable
        (:meth:`Listener.push` asks only while nothing is queued and the
        sender is idle, so the order is kept). ``False``: queue it. One
        task switch and the ASGI layers less per frame (issue 23)."""
        kind, seq, text = item
        send_now = self._send_now
        if kind == "event":
            place = self.seen.place(seq)
            if place == OLD:
                return True  # already sent (a catch-up had it)
            if place == GAP or send_now is None or not send_now(text):
                return False
            self.seen.took(seq)
        elif kind != "msg" or send_now is None or not send_now(text):
            return False
        if self._note is not None:
            self._note.sent += 1
        return True

    def _start_sender(self) -> asyncio.Task[None]:
        """The sender task, started in the socket's context with the first item
        to send: an idle socket holds no task for it (issue 23)."""
        if self._sender_task is None:
            self.listener.arm(None)
            self._sender_task = asyncio.create_task(self._sender(), context=self._context)
        return self._sender_task

    async def _sender(self) -> None:
        listener = self.listener
        while True:
            kind, seq, text = await listener.get()
            if kind == "event":
                place = self.seen.place(seq)
                if place == OLD:
                    continue
                if place == GAP:
                    await self._catch_up(seq - 1)
                await self.ws.send_text(text)
                self.seen.took(seq)
            elif kind == "msg":
                await self.ws.send_text(text)
            elif kind == "resync":
                await self._snapshot()
            elif kind == "gone":
                await self.ws.close(*close_args(RoomNotFound, "the room is gone"))
                return
            elif kind == "close":
                await self.ws.close(seq, text)
                return

    async def _receiver(self) -> None:
        limit = self.settings.max_message
        while True:
            message = await self.ws.receive()
            self._received = time.perf_counter()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            if self.bucket is not None and not self.bucket.take():
                self.listener.close(*close_args(RateLimited, "too many messages"))
                return
            if len(raw) > limit:
                self.listener.close(*close_args(RequestTooLarge, f"messages are at most {limit} B"))
                return
            problem = json_object_problem(raw)
            if problem is not None:
                self.push(out.error(RequestInvalid.code,
                                    f"not a valid client message: {problem}"))
                continue
            try:
                msg = client_message(raw)
            except ValidationError as exc:
                errors = validation_details(exc, tagged=True)[:5]
                self.push(out.error(RequestInvalid.code, "not a valid client message",
                                    {"errors": errors}))
                continue
            try:
                await self._handle(msg)
            except RaceError as exc:
                self.push(out.error_of(exc))
            except StoreError as exc:
                self.push(out.error(**socket_store_error(exc)))

    async def _handle(self, msg: Any) -> None:
        if isinstance(msg, PingIn):
            self.push(out.pong())
        elif isinstance(msg, MoveIn):
            body = msg.d
            if self.racer_id is None:
                metrics.move_refused("ws", AuthMissing.code)
                self.push(out.refused(body.client_move_id, AuthMissing.code,
                                      "spectators cannot move; send auth first"))
                return
            try:
                ack = await observed_move("ws", self._received, self.authority.move(
                    self.room_id, self.racer_id, self.token, body.move, body.expected_version,
                    body.client_move_id))
            except RaceError as exc:
                self.push(out.refused(body.client_move_id, exc.code, exc.message,
                                      game=exc.details.get("game")))
                return
            except StoreError as exc:  # not applied (or applied: resending answers it)
                self.push(out.refused(body.client_move_id, **socket_store_error(exc)))
                return
            self.push(out.ack(ack))
        elif isinstance(msg, AuthIn):
            if self.racer_id is not None:
                self.push(out.error(AuthForbidden.code, "this socket is already a racer's"))
                return
            try:
                _, racer_id = await self.authority.authenticate(self.room_id, msg.d.token)
            except RaceError:
                self.listener.close(*close_args(AuthInvalidToken))
                return
            self.racer_id, self.token = racer_id, msg.d.token
            if self.ticket is not None:
                self.ws.app.state.admission.racer_now(self.ticket)
            note_socket(self.ws.scope, self.room_id, racer_id)
            room = await self.authority.get_room(self.room_id, self.token)
            self.push(out.welcome(racer_id, room))
        elif isinstance(msg, ReadyIn | ResignIn | FocusIn):
            if self.racer_id is None:
                self.push(out.error(AuthMissing.code, "racers only"))
                return
            if isinstance(msg, ReadyIn):
                await self.authority.set_ready(self.room_id, self.racer_id, self.token,
                                               msg.d.ready)
            elif isinstance(msg, ResignIn):
                await self.authority.resign(self.room_id, self.racer_id, self.token)
            else:  # counted (or not) in silence: no answer, no event
                await self.authority.focus_lost(self.room_id, self.racer_id, self.token)
