"""A room WebSocket for Locust users: websocket-client on gevent, one reader greenlet.

The reader takes every message as soon as it arrives (so an ack is timed
when it reaches the client, not when the user next looks), answers the
server's pings (websocket-client does that inside ``recv``), tracks the
room sequence number for reconnects, and hands acks and refusals to the
greenlet waiting on their client move id. Every receive has a timeout, so
a dead server never hangs a run. Importing this module needs gevent
(Locust's monkey-patching makes websocket-client cooperative).
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

import gevent
import orjson
import websocket
from gevent.event import AsyncResult, Event

__all__ = ["MoveOutcome", "RoomSocket", "ws_url"]

_SEQ = re.compile(r'"seq":(\d+)')
_TYPE = re.compile(r'"type":"(\w+)"')
_OVER = ("race_over", "closed")

MoveOutcome = tuple[str, dict[str, Any] | None, float, int]
"""``(kind, data, elapsed_ms, length)``: kind ``ack``, ``refused``, ``timeout``
or ``closed``; data the ack/refusal body; elapsed from send to receipt."""


def ws_url(base: str, room_id: str, since: int | None = None) -> str:
    """``ws://…/api/v1/rooms/{room}/ws[?since=N]`` for the HTTP base URL ``base``."""
    url = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
    url = f"{url.rstrip('/')}/api/v1/rooms/{room_id}/ws"
    return url if since is None else f"{url}?since={since}"


class RoomSocket:
    """One connection to a room, as a racer (``token``) or a spectator."""

    def __init__(self, url: str, token: str | None, timeout_s: float) -> None:
        header = [f"Authorization: Bearer {token}"] if token else []
        self.ws = websocket.create_connection(url, timeout=timeout_s, header=header,
                                              skip_utf8_validation=True)
        self.welcome, self.started, self.over = Event(), Event(), Event()
        self.last_seq = 0
        self.events = 0
        self.closed = False
        self._pending: dict[str, AsyncResult] = {}
        self._reader = gevent.spawn(self._read)

    def _read(self) -> None:
        try:
            while not self.closed:
                try:
                    raw = self.ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                except (websocket.WebSocketException, OSError):
                    break
                if not raw:
                    if not self.ws.connected:
                        break
                    continue
                self._dispatch(raw if isinstance(raw, str) else raw.decode(), time.perf_counter())
        finally:
            self.closed = True
            self.over.set()
            for result in self._pending.values():
                result.set(("closed", None, time.perf_counter(), 0))
            self._pending.clear()

    def _dispatch(self, raw: str, now: float) -> None:
        if raw.startswith('{"t":"event"'):  # the bulk: other racers' progress, parsed lightly
            self.events += 1
            seq = _SEQ.search(raw)
            if seq is not None:
                self.last_seq = max(self.last_seq, int(seq.group(1)))
            kind = _TYPE.search(raw)
            if kind is not None:
                if kind.group(1) == "started":
                    self.started.set()
                elif kind.group(1) in _OVER:
                    self.over.set()
            return
        msg = orjson.loads(raw)
        t, d = msg.get("t"), msg.get("d") or {}
        if t in ("ack", "refused"):
            result = self._pending.pop(d.get("client_move_id"), None)
            if result is not None:
                result.set((t, d, now, len(raw)))
        elif t in ("welcome", "snapshot"):
            room = d["room"]
            self.last_seq = max(self.last_seq, int(room["seq"]))
            if room["state"] == "racing":
                self.started.set()
            elif room["state"] in ("over", "closed"):
                self.over.set()
            self.welcome.set()

    def move(self, move: str, version: int, client_move_id: str,
             timeout_s: float) -> MoveOutcome:
        """Send a move and wait for its ack or refusal (matched by ``client_move_id``)."""
        result: AsyncResult = AsyncResult()
        self._pending[client_move_id] = result
        body = {"t": "move", "d": {"move": move, "expected_version": version,
                                   "client_move_id": client_move_id}}
        start = time.perf_counter()
        try:
            self.ws.send(orjson.dumps(body).decode())
        except (websocket.WebSocketException, OSError):
            self._pending.pop(client_move_id, None)
            return "closed", None, (time.perf_counter() - start) * 1000, 0
        try:
            kind, data, at, length = result.get(timeout=timeout_s)
        except gevent.Timeout:
            self._pending.pop(client_move_id, None)
            return "timeout", None, (time.perf_counter() - start) * 1000, 0
        return kind, data, (at - start) * 1000, length

    def close(self) -> None:
        """Stop the reader and close the connection (bounded: never blocks long)."""
        self.closed = True
        self._reader.kill(block=True, timeout=2)
        with contextlib.suppress(websocket.WebSocketException, OSError):
            self.ws.close(timeout=1)
