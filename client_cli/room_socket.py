"""The WebSocket half of the client library: :class:`RoomConnection`.

One connection per client per room (docs/protocol.md, "WebSocket"). It
authenticates on the upgrade with ``Authorization: Bearer <token>`` — so the
room's spectator cap never turns it away — or connects as a spectator
without a token (past the cap it is closed 1008 ``rate/limited`` and tries
again, as after a drop), yields the room's messages as typed values,
sends moves and matches their acknowledgements by ``client_move_id``, and
reconnects by itself when the socket drops or its path goes silent (a ping
without a pong): it resumes with ``?since=<last seq seen>``, re-sends every
move not yet acknowledged (the server answers a repeated id with its first
answer and applies nothing), and reports the outage as
:class:`~client_cli.room_messages.ConnectionState` messages for the user
interface. This module is the connection's state (socket, resume point,
moves in flight, reconnection loop); the message types and frame decoding
are in :mod:`client_cli.room_messages`. Usage::

    async with RoomConnection(url, "ABCD", token) as conn:
        async for msg in conn:  # Welcome, RoomEvent, Snapshot, ...; ends when
            ...                 # the room closes; raises RoomGone / ServerUnreachable
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from .errors import ApiError, MoveRefused, ProtocolError, RoomGone, ServerUnreachable
from .rest import new_move_id, server_url
from .room_messages import (
    ConnectionState,
    Decoded,
    RoomEvent,
    ServerError,
    ServerMessage,
    Snapshot,
    Welcome,
    decode,
    decode_frame,
)
from .views import AckView

__all__ = ["RoomConnection", "ws_url"]

CLOSE_ROOM_NOT_FOUND = 4004
CLOSE_POLICY = 1008

_END = object()


def ws_url(base: str, room: str, since: int | None) -> str:
    """The room's WebSocket URL for server ``base`` (``http`` → ``ws``)."""
    url = server_url(base)
    url = "ws" + url[4:] if url.startswith("http") else url
    out = f"{url}/api/v1/rooms/{quote(room, safe='')}/ws"
    return out if since is None else f"{out}?since={since}"


class RoomConnection:
    """A self-healing WebSocket to one room (see the module docstring).

    ``token``: a racer's token, or ``None`` to watch. ``give_up_after``:
    seconds of failed reconnection before the iteration ends with
    :class:`ServerUnreachable`. ``backoff``: first wait between attempts
    (doubles up to ``max_backoff``). ``ping_interval``: seconds between pings;
    one without a pong within the next period is a lost connection (a silent
    path is noticed within two periods).
    """

    def __init__(self, url: str | None, room: str, token: str | None = None, *,
                 give_up_after: float = 120.0, backoff: float = 0.2,
                 max_backoff: float = 3.0, open_timeout: float = 5.0,
                 ping_interval: float = 5.0) -> None:
        self.url = server_url(url)
        self.room = room
        self.token = token
        self.give_up_after, self.open_timeout = give_up_after, open_timeout
        self.backoff, self.max_backoff = backoff, max_backoff
        self.ping_interval = ping_interval
        self.last_seq: int | None = None
        self.racer_id: str | None = None
        self.connected = False
        self._ws: ClientConnection | None = None
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._pending: dict[str, tuple[dict[str, Any], asyncio.Future[AckView]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._error: ApiError | None = None
        self._room_closed = False
        self.on_message: Callable[[ServerMessage], None] | None = None

    # lifecycle ---------------------------------------------------------
    async def __aenter__(self) -> RoomConnection:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Connect for the first time and start reading.

        :raises ServerUnreachable: nothing answers at the URL.
        :raises RoomGone: the room does not exist.
        :raises ApiError: the token was refused (``auth/invalid_token``).
        """
        self._ws = await self._connect()
        self.connected = True
        self._task = asyncio.create_task(self._run(), name=f"room-socket-{self.room}")

    async def close(self) -> None:
        """Close the socket and stop reconnecting; pending moves fail."""
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self._fail_pending(ApiError("client/closed", "the connection was closed"))
        self._queue.put_nowait(_END)

    async def drop(self) -> None:
        """Close the current socket as if the network failed (it reconnects); for tests."""
        if self._ws is not None:
            await self._ws.close(code=1001, reason="client drop")

    # sending -----------------------------------------------------------
    async def move(self, move: str | dict[str, Any], expected_version: int,
                   client_move_id: str | None = None, timeout: float = 15.0) -> AckView:
        """Send a move and wait for the server's answer.

        The move is re-sent after a reconnection until it is answered.

        :raises MoveRefused: the server refused it (``code``, ``message``, ``game``).
        :raises ApiError: ``client/timeout`` (no answer within ``timeout`` s) or
            ``client/closed``.
        """
        cid = client_move_id or new_move_id()
        payload = {"t": "move", "d": {"move": move, "expected_version": expected_version,
                                      "client_move_id": cid}}
        fut: asyncio.Future[AckView] = asyncio.get_running_loop().create_future()
        self._pending[cid] = (payload, fut)
        try:
            await self._send(payload)
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            raise ApiError("client/timeout", "the server did not answer the move in time") from None
        finally:
            self._pending.pop(cid, None)

    async def ready(self, ready: bool = True) -> None:
        """Tell the room whether we are ready (fire and forget)."""
        await self._send({"t": "ready", "d": {"ready": ready}})

    async def resign(self) -> None:
        """Resign (fire and forget; a ``finished`` event follows)."""
        await self._send({"t": "resign"})

    async def _send(self, payload: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None or not self.connected:
            return  # pending moves are re-sent on reconnection
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(payload))

    # receiving ---------------------------------------------------------
    def __aiter__(self) -> AsyncIterator[ServerMessage]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[ServerMessage]:
        while True:
            item = await self._queue.get()
            if item is _END:
                self._queue.put_nowait(_END)  # later iterations end at once too
                if self._error is not None:
                    raise self._error
                return
            yield item

    def _emit(self, msg: ServerMessage) -> None:
        if self.on_message is not None:
            self.on_message(msg)
        self._queue.put_nowait(msg)

    async def _connect(self) -> ClientConnection:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        url = ws_url(self.url, self.room, self.last_seq)
        try:
            # websockets' keepalive: a pong missing for ping_timeout fails the
            # connection at once (no closing handshake on a dead path)
            return await connect(url, additional_headers=headers, open_timeout=self.open_timeout,
                                 max_size=2**22, ping_interval=self.ping_interval,
                                 ping_timeout=self.ping_interval,
                                 close_timeout=min(2.0, self.ping_interval))
        except InvalidStatus as exc:
            status = exc.response.status_code
            if status == 404:
                raise RoomGone("room/not_found", f"no room {self.room!r} on {self.url}",
                               status=404) from None
            if status in (401, 403):
                code, message = _refusal(exc.response.body)
                raise ApiError(code or "auth/invalid_token",
                               message or "the server refused this racer's token",
                               status=status) from None
            raise ServerUnreachable(self.url, f"HTTP {status} on the room socket") from None
        except InvalidURI:
            raise ApiError("client/bad_url", f"not a server URL: {self.url}") from None
        except (OSError, EOFError, TimeoutError, InvalidHandshake) as exc:
            # EOFError: websockets < 15 raises it bare when the peer (a load
            # balancer, a proxy) closes before the HTTP status line; newer ones
            # wrap it in InvalidMessage. Either way the server may come back
            raise ServerUnreachable(self.url, type(exc).__name__) from None

    async def _run(self) -> None:
        try:
            while not self._closing:
                reason = await self._read()
                self.connected = False
                if self._closing or self._error is not None or self._room_closed:
                    break
                self._emit(ConnectionState(False, reason))
                if not await self._reconnect():
                    break
        except Exception as exc:  # a bug here must end the iteration, not hang it
            self._error = ProtocolError(f"the room connection failed: {exc!r}")
        finally:
            self.connected = False
            self._fail_pending(self._error or ApiError("client/closed", "the connection ended"))
            self._queue.put_nowait(_END)

    async def _reconnect(self) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.give_up_after
        wait = self.backoff
        attempt = 0
        while not self._closing:
            attempt += 1
            await asyncio.sleep(wait)
            try:
                self._ws = await self._connect()
            except ServerUnreachable as exc:
                if loop.time() >= deadline:
                    self._error = exc
                    return False
                self._emit(ConnectionState(False, f"reconnecting: {exc.message}", attempt))
                wait = min(wait * 2, self.max_backoff)
                continue
            except ApiError as exc:
                self._error = exc
                return False
            self.connected = True
            self._emit(ConnectionState(True, "reconnected", attempt))
            for payload, fut in list(self._pending.values()):
                if not fut.done():
                    await self._send(payload)
            return True
        return False

    async def _read(self) -> str:
        """Read until the socket ends; returns why it ended."""
        ws = self._ws
        assert ws is not None
        try:
            async for raw in ws:
                self._dispatch(raw)
        except ConnectionClosed:
            pass
        code, reason = ws.close_code, ws.close_reason or ""
        said = reason.partition(":")[0] if "/" in reason.partition(":")[0] else ""
        if code == CLOSE_ROOM_NOT_FOUND:
            self._error = RoomGone("room/not_found", f"room {self.room!r} is gone")
        elif code == CLOSE_POLICY and self.last_seq is None and said != "rate/limited":
            self._error = ApiError(said or "auth/invalid_token", reason or "refused")
        if not code:
            return "connection lost"
        return f"connection lost (close code {code}: {reason})" if reason \
            else f"connection lost (close code {code})"

    def _dispatch(self, raw: str | bytes) -> None:
        frame = decode_frame(raw)
        if frame is None:
            return  # not the protocol: ignore rather than crash
        try:
            msg = decode(*frame)
        except (ProtocolError, KeyError, TypeError, ValueError):
            return
        if msg is not None:
            self._handle(msg)

    def _seen(self, seq: int) -> bool:
        if self.last_seq is not None and seq <= self.last_seq:
            return True
        self.last_seq = seq
        return False

    def _handle(self, msg: Decoded) -> None:
        """Keep the resume state, answer pending moves and emit the rest."""
        if isinstance(msg, Welcome):
            self.racer_id = msg.racer
            if self.last_seq is None:
                self.last_seq = msg.room.seq
            self._emit(msg)
        elif isinstance(msg, RoomEvent):
            if self._seen(msg.seq):
                return
            if msg.type == "closed":
                self._room_closed = True
            self._emit(msg)
        elif isinstance(msg, Snapshot):
            self.last_seq = msg.seq
            self._emit(msg)
        elif isinstance(msg, AckView):
            entry = self._pending.get(msg.client_move_id)
            if entry is not None and not entry[1].done():
                entry[1].set_result(msg)
            else:
                self._emit(msg)
        elif isinstance(msg, MoveRefused):
            cid = msg.client_move_id
            entry = self._pending.get(cid) if isinstance(cid, str) else None
            if entry is not None and not entry[1].done():
                entry[1].set_exception(msg)
            else:
                self._emit(ServerError(msg.code, msg.message))
        else:
            self._emit(msg)

    def _fail_pending(self, err: ApiError) -> None:
        for _, fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
                fut.exception()  # mark retrieved: no "never retrieved" warning


def _refusal(body: bytes | bytearray | None) -> tuple[str, str]:
    """The ``(code, message)`` of a refused upgrade's JSON error (empty when it has none)."""
    try:
        error = json.loads(body or b"")["error"]
        return str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        return "", ""
