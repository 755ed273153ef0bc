"""The Locust scenario: racers racing real deals, and spectators (issue 8).

Users (pick them by class name on the Locust command line):

- ``HumanRacer`` — creates or joins a room (:mod:`infra.load.pool`), opens
  the room WebSocket, waits for the start, then races the deal with legal
  moves from its own game view's ``legal_moves`` (asked with its token;
  :mod:`infra.load.moves`) at one move every ``LOAD_HUMAN_PACE_S`` seconds
  (2 s) until the game is final, and goes again in a new room.
- ``BotRacer`` — the same at bot pace (``LOAD_BOT_PACE_S``, 0.2 s).
- ``Spectator`` — watches a racing room's events for up to ``LOAD_WATCH_S``.
- ``IdleRacer`` — joins a room and holds its WebSocket open, never moving
  (idle connections per process).

Every move is timed from send to its ack (matched by client move id) and
reported as a Locust request ``WS move (human|bot)``; a refusal, a timeout or
a dropped socket is a failure. Racers reconnect with ``?since=`` with
probability ``LOAD_RECONNECT`` after each move (``WS reconnect``).

Environment: ``LOAD_HOSTS`` (comma-separated base URLs; users spread over
them, default Locust's ``--host``), ``LOAD_ROOM_SIZE`` (8), ``LOAD_FILL_WAIT_S``
(3), ``LOAD_CREATE_WAIT_S`` (2: how long a racer waits for a room being created
before creating one), ``LOAD_ACK_TIMEOUT_S`` (10), ``LOAD_BOTS`` / ``LOAD_SPECTATORS`` (fixed
numbers of those users), ``LOAD_SEED``.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from typing import Any

import gevent
from locust import FastHttpUser, constant, task
from locust.env import Environment

from infra.load.moves import choose_move
from infra.load.pool import Room, RoomPool
from infra.load.roomsocket import RoomSocket, ws_url

__all__ = ["BotRacer", "HumanRacer", "IdleRacer", "Spectator"]


def _env(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


HOSTS = [h for h in os.environ.get("LOAD_HOSTS", "").split(",") if h]
ROOM_SIZE = int(_env("LOAD_ROOM_SIZE", 8))
FILL_WAIT_S = _env("LOAD_FILL_WAIT_S", 3)
ACK_TIMEOUT_S = _env("LOAD_ACK_TIMEOUT_S", 10)
RECV_TIMEOUT_S = _env("LOAD_RECV_TIMEOUT_S", 15)
RECONNECT = _env("LOAD_RECONNECT", 0.01)
WATCH_S = _env("LOAD_WATCH_S", 30)
CREATE_WAIT_S = _env("LOAD_CREATE_WAIT_S", 2)
POOL = RoomPool()
_host_cycle = itertools.cycle(HOSTS) if HOSTS else None
_rng = random.Random(os.environ.get("LOAD_SEED"))
_ids = itertools.count(1)


class _RoomUser(FastHttpUser):
    """Shared REST and WebSocket plumbing (abstract)."""

    abstract = True
    wait_time = constant(0)

    def __init__(self, environment: Environment) -> None:
        if _host_cycle is not None:
            self.host = next(_host_cycle)
        super().__init__(environment)
        self.rng = random.Random(_rng.random())
        self.name = f"load-{os.getpid()}-{next(_ids)}"
        self.sock: RoomSocket | None = None

    def on_stop(self) -> None:
        """Close the socket when Locust stops the user."""
        self._close()

    def _close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _report(self, name: str, start: float, error: str | None = None,
                length: int = 0, elapsed_ms: float | None = None) -> None:
        if elapsed_ms is None:
            elapsed_ms = (time.perf_counter() - start) * 1000
        self.environment.events.request.fire(
            request_type="WS", name=name, response_time=elapsed_ms, response_length=length,
            exception=None if error is None else RuntimeError(error), context={})

    def _connect(self, room_id: str, token: str | None, name: str,
                 since: int | None = None) -> bool:
        """Open the room socket and wait for its welcome; report it as ``name``."""
        start = time.perf_counter()
        try:
            sock = RoomSocket(ws_url(self.host or "", room_id, since), token, RECV_TIMEOUT_S)
        except Exception as exc:  # connection refused, handshake refused, timeout
            self._report(name, start, f"{type(exc).__name__}: {exc}")
            return False
        if not sock.welcome.wait(RECV_TIMEOUT_S):
            sock.close()
            self._report(name, start, "no welcome")
            return False
        self.sock = sock
        self._report(name, start)
        return True

    def _create(self, capacity: int) -> tuple[Room, str, str, str] | None:
        """Create a room and join it as its host: (room, host token, racer id, token)."""
        with self.client.post("/api/v1/rooms", name="POST /rooms", catch_response=True,
                              json={"deal": "random", "capacity": capacity, "undo": False,
                                    "countdown_s": 1, "time_limit_s": 1800}) as r:
            if r.status_code != 201:
                r.failure(f"status {r.status_code}")
                return None
            body = r.json()
        view = body["room"]
        room = Room(view["id"], view["code"], view["rules"], capacity)
        joined = self._join(room)
        if joined is None:
            return None
        POOL.add(room)
        return room, body["host_token"], joined[0], joined[1]

    def _join(self, room: Room) -> tuple[str, str] | None:
        with self.client.post(f"/api/v1/rooms/{room.code}/racers",
                              name="POST /rooms/{room}/racers", catch_response=True,
                              json={"name": self.name}) as r:
            if r.status_code == 409:  # the host started meanwhile: not an error of the server
                r.success()
                return None
            if r.status_code != 201:
                r.failure(f"status {r.status_code}")
                return None
            body = r.json()
        return body["racer"]["id"], body["token"]

    def _seat(self, capacity: int) -> tuple[Room, str | None, str, str] | None:
        """A seat: join a waiting room of this process, else create one (and host it)."""
        deadline = time.monotonic() + CREATE_WAIT_S
        room = POOL.take_seat()
        while room is None and POOL.creating and time.monotonic() < deadline:
            gevent.sleep(0.05)
            room = POOL.take_seat()
        if room is None:
            POOL.creating += 1
            try:
                return self._create(capacity)
            finally:
                POOL.creating -= 1
        joined = self._join(room)
        if joined is None:
            POOL.give_back(room)
            return None
        room.joined += 1
        return room, None, joined[0], joined[1]


class _Racer(_RoomUser):
    """A racer racing one room after another (abstract: the pace is the subclass's)."""

    abstract = True
    pace_s = 2.0
    label = "human"

    @task
    def race(self) -> None:
        """Seat, connect, start (host), race the deal to a final result."""
        seat = self._seat(ROOM_SIZE)
        if seat is None:
            gevent.sleep(1)
            return
        room, host_token, racer_id, token = seat
        try:
            if not self._connect(room.id, token, "ws connect"):
                return
            if host_token is not None:
                self._start(room, host_token)
            start = time.perf_counter()
            assert self.sock is not None
            if not self.sock.started.wait(FILL_WAIT_S + 15):
                self._report("race start", start, "no start event")
                return
            self._play(room, racer_id, token)
        finally:
            self._close()
            if host_token is not None:
                POOL.finished(room)

    def _start(self, room: Room, host_token: str) -> None:
        deadline = time.monotonic() + FILL_WAIT_S
        while room.seats < room.capacity and time.monotonic() < deadline:
            gevent.sleep(0.1)
        POOL.close(room)
        settle = time.monotonic() + 2
        while room.joined < room.seats - 1 and time.monotonic() < settle:
            gevent.sleep(0.05)
        with self.client.post(f"/api/v1/rooms/{room.id}/start", name="POST /rooms/{room}/start",
                              headers={"Authorization": f"Bearer {host_token}"},
                              catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"status {r.status_code}")

    def _game(self, room: Room, racer_id: str, token: str) -> dict[str, Any] | None:
        """The racer's own game, live: asked with its token (fair play: without
        one, a board during the race is the spectators' delayed view)."""
        with self.client.get(f"/api/v1/rooms/{room.id}/racers/{racer_id}/game",
                             name="GET /rooms/{room}/racers/{racer}/game",
                             headers={"Authorization": f"Bearer {token}"},
                             catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"status {r.status_code}")
                return None
            game: dict[str, Any] = r.json()
            return game

    def _play(self, room: Room, racer_id: str, token: str) -> None:
        game = self._game(room, racer_id, token)
        gevent.sleep(self.rng.uniform(0, self.pace_s))
        n = 0
        while game is not None and not game["final"] and self.sock is not None:
            move = choose_move(game, self.rng)
            if move is None:
                return
            n += 1
            kind, data, elapsed, length = self.sock.move(
                move, game["version"], f"{racer_id[-12:]}-{n}", ACK_TIMEOUT_S)
            name = f"move ({self.label})"
            if kind == "ack" and data is not None:
                self._report(name, 0, length=length, elapsed_ms=elapsed)
                game = data["game"]
            elif kind == "refused" and data is not None:
                self._report(name, 0, f"refused {data.get('code')}", length, elapsed)
                game = data.get("game") or self._game(room, racer_id, token)
            else:
                self._report(name, 0, kind, elapsed_ms=elapsed)
                if not self._reconnect(room, token):
                    return
                game = self._game(room, racer_id, token)
                continue
            if self.rng.random() < RECONNECT and not self._reconnect(room, token):
                return
            pace = self.pace_s * self.rng.uniform(0.75, 1.25)
            gevent.sleep(max(0.0, pace - elapsed / 1000))

    def _reconnect(self, room: Room, token: str) -> bool:
        since = self.sock.last_seq if self.sock is not None else None
        self._close()
        return self._connect(room.id, token, "ws reconnect", since)


class HumanRacer(_Racer):
    """A racer at human pace: one move every ``LOAD_HUMAN_PACE_S`` (2 s) on average."""

    pace_s = _env("LOAD_HUMAN_PACE_S", 2.0)
    label = "human"


class BotRacer(_Racer):
    """A racer at bot pace: one move every ``LOAD_BOT_PACE_S`` (0.2 s) on average."""

    fixed_count = int(_env("LOAD_BOTS", 0))
    pace_s = _env("LOAD_BOT_PACE_S", 0.2)
    label = "bot"


class Spectator(_RoomUser):
    """Watches a racing room of this process for up to ``LOAD_WATCH_S`` seconds."""

    fixed_count = int(_env("LOAD_SPECTATORS", 0))

    @task
    def watch(self) -> None:
        """Connect to a racing room as a spectator; report events seen as ``watch``."""
        room = POOL.racing_room()
        if room is None:
            gevent.sleep(1)
            return
        try:
            if not self._connect(room.id, None, "ws connect (spectator)"):
                gevent.sleep(1)
                return
            assert self.sock is not None
            start = time.perf_counter()
            self.sock.over.wait(WATCH_S * self.rng.uniform(0.5, 1.5))
            self._report("watch (spectator)", start, length=self.sock.events)
        finally:
            self._close()


class IdleRacer(_RoomUser):
    """Joins a room (never started) and holds its WebSocket open without moving."""

    @task
    def hold(self) -> None:
        """Seat and connect once; afterwards only check the socket is still open."""
        if self.sock is not None:
            if self.sock.closed:
                self._report("idle socket", time.perf_counter(), "closed by the server")
                self._close()
            gevent.sleep(1)
            return
        seat = self._seat(64)
        if seat is None:
            gevent.sleep(1)
            return
        room, _, _, token = seat
        self._connect(room.id, token, "ws connect (idle)")
