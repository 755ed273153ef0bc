"""The load of ``bench/capacity.py``: rooms, human-pace racers, spectators.

Every socket goes through one URL (HAProxy's), so its round robin spreads the
sockets of each room over the processes behind it. The generator runs in
worker processes (fork), each an event loop on uvloop when installed.

* :func:`setup`: rooms of 8 racers (undo allowed, no countdown, 1 h limit),
  started, each racer's game read once (its version and legal moves).
* :func:`human_pace`: every racer sends one move every 2 s ± 25 % (a legal
  move, then ``u``, so a game never ends), from a random offset; spectators
  (one per 20 racers) watch rooms. After a warm-up, the acks of the moves
  sent inside the window are timed (send to ack on the racer's socket).
  A racer whose ack is late sends its next move when the ack comes.
* :func:`full_speed`: ``bench.server``'s racers, a move as soon as the last
  ack came (closed loop), as ``bench/redis.py`` measures.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from bench.redis import _measure_split
from bench.server import _run_loop

__all__ = ["PERIOD_S", "PER_ROOM", "Pace", "Seat", "children_cpu_s", "full_speed", "human_pace",
           "setup"]

PER_ROOM = 8
PERIOD_S = 2.0
Seat = tuple[str, str, str, dict[str, Any]]
"""(room id, racer id, racer token, the racer's game: ``version``, ``legal_moves``)."""


def children_cpu_s() -> float:
    """CPU seconds of this process's children that ended and were waited for
    (the generator's workers, once their pool has shut down)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# -- rooms -------------------------------------------------------------------------


async def _room(http: httpx.AsyncClient, deal: int) -> list[Seat]:
    created = (await http.post("/rooms", json={
        "deal": deal, "countdown_s": 0, "capacity": PER_ROOM, "time_limit_s": 3600})).json()
    room, host = created["room"]["id"], created["host_token"]
    joined = [(await http.post(f"/rooms/{room}/racers", json={"name": f"r{i}"})).json()
              for i in range(PER_ROOM)]
    started = await http.post(f"/rooms/{room}/start",
                              headers={"Authorization": f"Bearer {host}"})
    started.raise_for_status()
    seats = []
    for j in joined:
        racer, token = j["racer"]["id"], j["token"]
        game = (await http.get(f"/rooms/{room}/racers/{racer}/game",
                               headers={"Authorization": f"Bearer {token}"})).json()
        seats.append((room, racer, token, {"version": game["version"],
                                           "legal_moves": game["legal_moves"]}))
    return seats


def setup(url: str, racers: int, first_deal: int) -> list[Seat]:
    """``racers`` (rounded up to rooms of 8) seated in started rooms, through ``url``."""
    async def main() -> list[Seat]:
        limit = asyncio.Semaphore(16)
        async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=60) as http:
            async def one(deal: int) -> list[Seat]:
                async with limit:
                    return await _room(http, deal)
            rooms = -(-racers // PER_ROOM)
            done = await asyncio.gather(*(one(first_deal + r) for r in range(rooms)))
        return [seat for room in done for seat in room]

    return list(asyncio.run(main()))


# -- human pace (worker processes) -------------------------------------------------


@dataclass
class _Window:
    start: float
    end: float
    lat: list[float]
    errors: int = 0
    late_sends: int = 0


async def _paced(ws: Any, game: dict[str, Any], window: _Window, offset: float) -> None:
    version, legal = game["version"], game["legal_moves"]
    due = window.start - PERIOD_S + offset  # the first move comes during the warm-up
    n = 0
    while True:
        due += PERIOD_S * random.uniform(0.75, 1.25)
        if due >= window.end:
            break
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        move = "u" if version % 2 else legal[n % len(legal)]
        n += 1
        t0 = time.perf_counter()
        await ws.send(orjson.dumps({"t": "move", "d": {
            "move": move, "expected_version": version, "client_move_id": str(n)}}).decode())
        while True:
            text = await ws.recv()
            if text.startswith('{"t":"ack"'):
                break
            if text.startswith('{"t":"refused"') or text.startswith('{"t":"error"'):
                window.errors += 1  # nothing changed: this racer stops here
                game["version"], game["legal_moves"] = version, legal
                return
        if t0 >= window.start:
            window.lat.append(time.perf_counter() - t0)
            window.late_sends += wait < 0
        ack = orjson.loads(text)["d"]
        version = ack["version"]
        if version % 2 == 0:
            legal = ack["game"]["legal_moves"]
    game["version"], game["legal_moves"] = version, legal


async def _spectate(ws: Any, end: float) -> None:
    while time.perf_counter() < end:
        try:
            await asyncio.wait_for(ws.recv(), timeout=max(0.01, end - time.perf_counter()))
        except TimeoutError:
            return


async def _paced_main(url: str, seats: list[Seat], watch: list[str], warmup: float,
                      seconds: float, barrier: Any) -> tuple[list[float], int, int,
                                                             list[dict[str, Any]]]:
    from websockets.asyncio.client import connect

    limit = asyncio.Semaphore(64)

    async def open_ws(room: str, token: str | None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with limit:
            ws = await connect(f"{url}/api/v1/rooms/{room}/ws", max_queue=None,
                               compression=None, additional_headers=headers,
                               open_timeout=60)
            await ws.recv()  # welcome
            return ws

    racers = await asyncio.gather(*(open_ws(s[0], s[2]) for s in seats))
    viewers = await asyncio.gather(*(open_ws(room, None) for room in watch))
    await asyncio.to_thread(barrier.wait, 300)  # every worker connected: the load starts
    start = time.perf_counter() + warmup
    window = _Window(start, start + seconds, [])
    games = [dict(s[3]) for s in seats]
    try:
        await asyncio.gather(
            *(_paced(ws, g, window, random.uniform(0, PERIOD_S))
              for ws, g in zip(racers, games, strict=True)),
            *(_spectate(ws, window.end) for ws in viewers))
    finally:
        await asyncio.gather(*(ws.close() for ws in [*racers, *viewers]),
                             return_exceptions=True)
    return window.lat, window.errors, window.late_sends, games


def _paced_worker(url: str, seats: list[Seat], watch: list[str], warmup: float,
                  seconds: float, barrier: Any) -> Any:
    return _run_loop(_paced_main(url, seats, watch, warmup, seconds, barrier))


@dataclass
class Pace:
    """One human-pace measurement."""

    racers: int
    spectators: int
    moves: int
    rate: float
    p50_ms: float
    p99_ms: float
    late_sends: int
    errors: int
    generator_cpu_s: float


def human_pace(url: str, seats: list[Seat], *, warmup: float, seconds: float,
               workers: int) -> Pace:
    """Every seat at human pace through ``url`` (ws://) for ``warmup + seconds``;
    the seats' games are brought up to date for the next run."""
    rooms = sorted({s[0] for s in seats})
    watch = [rooms[i % len(rooms)] for i in range(len(seats) // 20)]
    chunks = [list(range(len(seats)))[i::workers] for i in range(workers)]
    cpu0 = children_cpu_s()
    ctx = multiprocessing.get_context("fork")
    with ctx.Manager() as manager, ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        barrier = manager.Barrier(workers)
        futures = [pool.submit(_paced_worker, url, [seats[i] for i in chunk],
                               watch[w::workers], warmup, seconds, barrier)
                   for w, chunk in enumerate(chunks)]
        results = [f.result() for f in futures]
    lat = sorted(x for r in results for x in r[0])
    for chunk, (_, _, _, games) in zip(chunks, results, strict=True):
        for i, game in zip(chunk, games, strict=True):
            seats[i][3].update(game)
    if not lat:
        raise RuntimeError("no move was acked at human pace")
    return Pace(len(seats), len(watch), len(lat), len(lat) / seconds,
                statistics.median(lat) * 1000, lat[int(len(lat) * 0.99)] * 1000,
                sum(r[2] for r in results), sum(r[1] for r in results),
                children_cpu_s() - cpu0)


def full_speed(url: str, seats: list[Seat], *, seconds: float,
               workers: int) -> tuple[float, float, float, int]:
    """``(moves/s, ack p50 ms, p99 ms, moves)`` with every seat moving as fast as
    its acks return (``bench.server``'s racers), ``workers`` processes on ``url``."""
    return _measure_split([url] * workers, seats, seconds)
