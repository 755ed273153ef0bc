"""Quick race across processes (docs/protocol.md, "Quick race"): 200 clients
call ``POST /quick`` at once against two ``lucie-server`` processes on one
Redis — each lands in exactly one room, no room holds more than its capacity,
every room starts by itself on time; then again with one process killed
(``kill -9``) mid-way: the other starts the lobbies on time, nobody who got
an answer is lost."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from server.race.quick_state import FILL_GRACE_MS

from .cluster import Cluster

pytestmark = [pytest.mark.redis, pytest.mark.timeout(60)]

CALLERS = 200
CAPACITY = 6
WAIT_S = 1.5
FILL_S = 3.0
ENV = {"LUCIE_QUICK_WAIT_S": str(WAIT_S), "LUCIE_QUICK_FILL_S": str(FILL_S),
       "LUCIE_QUICK_CAPACITY": str(CAPACITY), "LUCIE_BOT_THINK_MS": "1000"}


@pytest.fixture
def pair() -> Iterator[Cluster]:
    cluster = Cluster(2, **ENV)
    yield cluster
    cluster.stop()


@dataclass
class Calls:
    """What the clients were answered: room and racer of each, and when."""

    seats: dict[str, tuple[str, float]] = field(default_factory=dict)
    """racer id → (room id, wall-clock time of the answer)."""
    lost: int = 0
    """Calls whose answer never came (their process died): tried again elsewhere."""

    def rooms(self) -> dict[str, list[float]]:
        """room id → answer times of its racers, in order."""
        out: dict[str, list[float]] = {}
        for room, at in self.seats.values():
            out.setdefault(room, []).append(at)
        return {room: sorted(times) for room, times in out.items()}


async def _call_all(urls: list[str], calls: Calls, *, kill: Any = None) -> None:
    """``CALLERS`` quick-race calls at once, spread over ``urls``; a call whose
    process died is made again on the first URL. ``kill``: called (it must not
    block) once the last URL's process has answered a tenth of its calls; the
    clients then send at most 25 at a time per process, so that calls are in
    flight, and some not sent yet, when it dies (a server answers faster than
    this test reads the answers)."""
    most = 25 if kill is not None else CALLERS
    limits = httpx.Limits(max_connections=most, max_keepalive_connections=most)
    clients = [httpx.AsyncClient(base_url=u + "/api/v1", timeout=20, limits=limits)
               for u in urls]
    answered = [0] * len(urls)

    async def call(i: int) -> None:
        at = i % len(clients)
        while True:
            try:
                got = await clients[at].post("/quick", json={"variant": "belle-lucie",
                                                             "name": f"q{i}"})
                break
            except httpx.TransportError:  # its process was killed: go to the other
                calls.lost += 1
                at = 0
        assert got.status_code == 201, got.text
        body = got.json()
        assert body["racer"]["id"] not in calls.seats
        calls.seats[body["racer"]["id"]] = (body["room"]["id"], time.time())
        answered[at] += 1
        if kill is not None and at == len(urls) - 1 and \
                answered[at] == CALLERS // len(urls) // 10:
            kill()

    try:
        await asyncio.gather(*(call(i) for i in range(CALLERS)))
    finally:
        for client in clients:
            await client.aclose()


def _countdown_start(view: dict[str, Any], now: float) -> float:
    """When the room's countdown started (wall clock; the servers' clock is this
    machine's), from a view read at ``now``: the start minus the countdown."""
    countdown = view["countdown_ms"] / 1000
    if view["state"] == "countdown":
        return now + view["starts_in_ms"] / 1000 - countdown
    assert view["state"] == "racing", view["state"]
    return now - view["race_clock_ms"] / 1000 - countdown


async def _check(url: str, calls: Calls) -> None:
    """Every answered racer in exactly its room, no room above capacity, every
    room started by itself on time (two racers or more: ``WAIT_S`` after the
    second answer, plus 2 s; alone: after computer racers came)."""
    assert len(calls.seats) == CALLERS
    rooms = calls.rooms()
    started: dict[str, float] = {}
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        async with asyncio.timeout(WAIT_S + FILL_S + FILL_GRACE_MS / 1000 + 8):
            while len(started) < len(rooms):
                views = await asyncio.gather(*(http.get(f"/rooms/{r}") for r in rooms
                                               if r not in started))
                now = time.time()
                for got in views:
                    view = got.json()
                    assert got.status_code == 200, got.text
                    assert len(view["racers"]) <= CAPACITY
                    if view["state"] != "waiting":
                        started[view["id"]] = _countdown_start(view, now)
                if len(started) < len(rooms):
                    await asyncio.sleep(0.05)
        seen: dict[str, str] = {}
        ghosts = 0
        for room in rooms:
            view = (await http.get(f"/rooms/{room}")).json()
            assert len(view["racers"]) <= CAPACITY
            for racer in view["racers"]:
                if racer["id"] in calls.seats:
                    assert racer["id"] not in seen  # in one room only
                    seen[racer["id"]] = room
                elif not racer["name"].startswith("bot-"):
                    ghosts += 1  # seated by a call whose answer was lost
        assert ghosts <= calls.lost
        assert {rid: room for rid, (room, _) in calls.seats.items()} == seen
        for room, times in rooms.items():
            if len(times) >= 2:
                due = times[1] + WAIT_S + 2
            else:
                due = times[0] + FILL_S + FILL_GRACE_MS / 1000 + 2
            assert started[room] <= due, (room, times, started[room])
        # no lobby with racers is left waiting, not even one only a lost call joined
        async with asyncio.timeout(FILL_S + FILL_GRACE_MS / 1000 + 4):
            while True:
                listed = (await http.get("/rooms")).json()["rooms"]
                if not [r for r in listed if r["quick"] is not None and r["racers"]]:
                    break
                await asyncio.sleep(0.1)


async def test_two_hundred_callers_on_two_processes(pair: Cluster) -> None:
    calls = Calls()
    started = time.monotonic()
    await _call_all(pair.urls, calls)
    assert time.monotonic() - started < 20
    rooms = calls.rooms()
    assert sorted(len(t) for t in rooms.values()) == [2] + [6] * 33  # one after another
    await _check(pair.urls[0], calls)


async def test_two_hundred_callers_with_a_process_killed_mid_way(pair: Cluster) -> None:
    # first a lobby of two whose joins the doomed process wrote
    pair_room: list[tuple[str, float]] = []
    async with httpx.AsyncClient(base_url=pair.urls[1] + "/api/v1", timeout=10) as http:
        for name in ("ann", "bob"):
            got = await http.post("/quick", json={"variant": "trefoil", "name": name})
            assert got.status_code == 201, got.text
            pair_room.append((got.json()["room"]["id"], time.time()))
    calls = Calls()
    await _call_all(pair.urls, calls,
                    kill=lambda: pair.procs[1].send_signal(signal.SIGKILL))
    assert pair.procs[1].wait(5) == -signal.SIGKILL  # it died mid-way, calls in flight
    assert calls.lost > 0
    (room, _), (same, second) = pair_room
    assert room == same
    async with httpx.AsyncClient(base_url=pair.urls[0] + "/api/v1", timeout=10) as http:
        async with asyncio.timeout(max(0.1, second + WAIT_S + 2 - time.time())):
            while (view := (await http.get(f"/rooms/{room}")).json())["state"] == "waiting":
                await asyncio.sleep(0.05)  # the survivor's sweep starts it on time
    assert [r["name"] for r in view["racers"]] == ["ann", "bob"]
    await _check(pair.urls[0], calls)
