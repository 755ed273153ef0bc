"""A scripted racer that can move its socket from one server process to another."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tests.e2e.wire import Api, open_socket, recv
from tests.race.helpers import pick_move

__all__ = ["Moves", "Racer", "TwoRacers", "events_of"]


def events_of(msgs: list[dict[str, Any]], after: int = 0) -> list[dict[str, Any]]:
    """The room events among socket messages, those with ``seq > after``."""
    return [m["d"] for m in msgs if m["t"] == "event" and m["d"]["seq"] > after]


class Racer:
    """One racer: its socket (to any process), every message it got, its acks."""

    def __init__(self, room: dict[str, Any], racer: str, token: str) -> None:
        self.room, self.id, self.token = room, racer, token
        self.msgs: list[dict[str, Any]] = []
        self.acked: dict[str, dict[str, Any]] = {}
        self.ws: ClientConnection | None = None
        self._cm: Any = None
        self.url = ""
        self.n = 0

    @property
    def last_seq(self) -> int:
        seqs = [m["d"]["seq"] for m in self.msgs if m["t"] == "event"]
        seqs += [m["d"]["seq"] for m in self.msgs if m["t"] == "snapshot"]
        welcome = [m["d"]["room"]["seq"] for m in self.msgs if m["t"] == "welcome"]
        return max(seqs + welcome + [0])

    async def connect(self, url: str, *, resume: bool = False) -> None:
        """Open the room socket on ``url`` (resuming after ``last_seq``)."""
        await self.close()
        self.url = url
        self._cm = open_socket(url, self.room["id"], self.token,
                               since=self.last_seq if resume else None)
        self.ws = await self._cm.__aenter__()
        welcome = await recv(self.ws)
        assert welcome["t"] == "welcome" and welcome["d"]["racer"] == self.id
        if not resume:
            self.msgs.append(welcome)

    async def close(self) -> None:
        if self._cm is not None:
            cm, self._cm, self.ws = self._cm, None, None
            with contextlib.suppress(ConnectionClosed, OSError):
                await cm.__aexit__(None, None, None)

    async def until(self, t: str, type_: str | None = None) -> dict[str, Any]:
        """The first message with ``t`` (and event ``type_``) received so far on
        any socket, else read (keeping every message) until one comes."""
        for msg in self.msgs:
            if msg["t"] == t and (type_ is None or msg["d"].get("type") == type_):
                return msg
        assert self.ws is not None
        while True:
            msg = await recv(self.ws)
            self.msgs.append(msg)
            if msg["t"] == t and (type_ is None or msg["d"].get("type") == type_):
                return msg

    async def game(self) -> dict[str, Any]:
        """The racer's own game (live: asked with its token)."""
        api = Api(self.url)
        try:
            return await api.get(  # type: ignore[no-any-return]
                f"/rooms/{self.room['id']}/racers/{self.id}/game", self.token)
        finally:
            await api.aclose()

    async def send_move(self, game: dict[str, Any], cmid: str | None = None) -> str:
        """Send the scripted move for ``game``; returns its client move id."""
        assert self.ws is not None
        move = pick_move(self.room["rules"], game)
        assert move is not None, "stuck without undo must be final"
        if cmid is None:
            self.n += 1
            cmid = f"{self.id}-{self.n}"
        await self.ws.send(json.dumps({"t": "move", "d": {
            "move": move, "expected_version": game["version"], "client_move_id": cmid}}))
        return cmid

    async def ack(self, cmid: str) -> dict[str, Any]:
        """Wait for the ack of ``cmid``; refusals and errors fail."""
        while True:
            msg = await self._next()
            if msg["t"] == "ack" and msg["d"]["client_move_id"] == cmid:
                self.acked[cmid] = msg["d"]
                return msg["d"]  # type: ignore[no-any-return]
            assert msg["t"] not in ("refused", "error"), msg

    async def _next(self) -> dict[str, Any]:
        assert self.ws is not None
        msg = await recv(self.ws)
        self.msgs.append(msg)
        return msg

    async def play(self, game: dict[str, Any], limit: int | None = None) -> dict[str, Any]:
        """Move until the result is final (or ``limit`` moves); the last game view."""
        done = 0
        while not game["final"] and (limit is None or done < limit):
            cmid = await self.send_move(game)
            game = (await self.ack(cmid))["game"]
            done += 1
        return game


class Moves:
    """One racer's moves through a failover: every ack, every refusal (time, code)."""

    def __init__(self, racer: Racer) -> None:
        self.racer = racer
        self.acked: list[int] = []  # the game version after each acknowledged move
        self.refusals: list[tuple[float, str]] = []
        self.first_ack_after: dict[float, float] = {}

    async def play(self, game: dict[str, Any], stop: asyncio.Event, pause_s: float) -> None:
        r = self.racer
        assert r.ws is not None
        while not game["final"] and not stop.is_set():
            move = pick_move(r.room["rules"], game)
            assert move is not None
            r.n += 1
            cmid = f"{r.id}-{r.n}"
            frame = json.dumps({"t": "move", "d": {
                "move": move, "expected_version": game["version"], "client_move_id": cmid}})
            while True:  # the same move, the same client move id, until it is acked
                await r.ws.send(frame)
                answer = await self._answer(cmid)
                if answer["t"] == "ack":
                    game = answer["d"]["game"]
                    self.acked.append(game["version"])
                    break
                self.refusals.append((time.monotonic(), answer["d"]["code"]))
                await asyncio.sleep(0.1)
            await asyncio.sleep(pause_s)

    async def _answer(self, cmid: str) -> dict[str, Any]:
        assert self.racer.ws is not None
        while True:
            msg = await recv(self.racer.ws)
            self.racer.msgs.append(msg)
            if msg["t"] in ("ack", "refused") and msg["d"].get("client_move_id") == cmid:
                return msg
            assert msg["t"] != "error", msg


class TwoRacers:
    """A room raced by two racers, one on each of two server processes, each
    moving on its own (:class:`Moves`, resending refused moves) while a test
    does something to Redis: :meth:`start` until each has ``warm`` moves
    acknowledged, :meth:`goes_on` until each has ``more`` besides, then
    :meth:`finish`."""

    def __init__(self, apis: list[Api], urls: list[str], deal: int, pause_s: float) -> None:
        self.apis, self.urls, self.deal, self.pause_s = apis, urls, deal, pause_s
        self.room: dict[str, Any] = {}
        self.racers: list[Racer] = []
        self.moves: list[Moves] = []
        self._stop = asyncio.Event()
        self._playing: list[asyncio.Task[None]] = []

    async def start(self, warm: int = 5) -> None:
        room, host = await self.apis[0].create(undo=False, deal=self.deal, countdown_s=1)
        joined = [await self.apis[0].join(room["code"], "Ada"),
                  await self.apis[1].join(room["code"], "Bob")]
        self.room = room
        self.racers = [Racer(room, rid, tok) for rid, tok in joined]
        for racer, url in zip(self.racers, self.urls, strict=True):
            await racer.connect(url)
        await self.apis[1].start(room["id"], host)
        for r in self.racers:
            await r.until("event", "started")
        self.moves = [Moves(r) for r in self.racers]
        games = [await r.game() for r in self.racers]
        self._playing = [asyncio.create_task(m.play(g, self._stop, self.pause_s))
                         for m, g in zip(self.moves, games, strict=True)]
        while min(len(m.acked) for m in self.moves) < warm:
            await asyncio.sleep(0.02)

    async def goes_on(self, more: int, timeout_s: float) -> None:
        """Wait until each racer has ``more`` moves acknowledged (or its game ended)."""
        before = [len(m.acked) for m in self.moves]
        async with asyncio.timeout(timeout_s):
            while any(len(m.acked) < b + more and not t.done()
                      for m, b, t in zip(self.moves, before, self._playing, strict=True)):
                await asyncio.sleep(0.05)

    async def finish(self) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
        """Stop moving; each racer's final game, and the events each socket got
        (all of the room's, read to its last)."""
        self._stop.set()
        await asyncio.gather(*self._playing)
        finals = [await r.game() for r in self.racers]
        last = (await self.apis[0].get(f"/rooms/{self.room['id']}"))["seq"]
        async with asyncio.timeout(10):
            for r in self.racers:
                while r.last_seq < last:
                    assert r.ws is not None
                    r.msgs.append(await recv(r.ws))
        for r in self.racers:
            await r.close()
        return finals, [events_of(r.msgs) for r in self.racers]
