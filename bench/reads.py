"""Costly reads (issue 33): a comparison of two 20,000-move games, kept once the
race is over, while 4 clients hammer it — and what a probe ``GET /rooms`` waits.

One ``lucie-server`` process (embedded) on loopback. Two racers each play
20,000 log entries (a move and its undo, over their room socket; the socket's
rate raised for the setup), then resign. Measured:

* the first comparison (computed, then kept) — the cost the tester measured at
  0.6 s of the event loop and 3.2 MB per request, uncached;
* 4 client processes asking for it again and again for ``seconds`` (each
  answer read whole as sent — gzip accepted, as HTTP clients do): its latency
  p50 / p99 (target p99 ≤ 20 ms), answers per second;
* meanwhile a probe ``GET /rooms`` every 20 ms: its p50 / p99 (target p99 ≤ 50
  ms), against the same probe on the idle server (the yardstick).

``quick=True``: 2,000 entries per racer, 2 s of hammering.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import httpx
import orjson

from .server import _port, _spawn, _stop

__all__ = ["run"]


async def _fill(url: str, room: str, racer: str, token: str, entries: int) -> None:
    from websockets.asyncio.client import connect

    ws_url = url.replace("http", "ws", 1)
    async with connect(f"{ws_url}/api/v1/rooms/{room}/ws", max_queue=None, compression=None,
                       additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        await ws.recv()
        legal: list[str] = []
        async with httpx.AsyncClient(base_url=url + "/api/v1") as http:
            legal = (await http.get(f"/rooms/{room}/racers/{racer}/game",
                                    headers={"Authorization": f"Bearer {token}"})).json()[
                "legal_moves"]
        play = next(m for m in legal if m not in ("r", "redeal"))
        for version in range(entries):
            await ws.send(orjson.dumps({"t": "move", "d": {
                "move": "u" if version % 2 else play, "expected_version": version,
                "client_move_id": str(version)}}).decode())
            while True:
                text = str(await ws.recv())
                if text.startswith('{"t":"ack"'):
                    break
                if text.startswith(('{"t":"refused"', '{"t":"error"')):
                    raise RuntimeError(text[:300])


async def _hammer(url: str, path: str, seconds: float) -> list[float]:
    """One client asking again and again, reading each answer whole as sent
    (gzip accepted, like any HTTP client; not decoded: a client's own work)."""
    lat: list[float] = []
    stop_at = time.perf_counter() + seconds
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            async with http.stream("GET", path) as r:
                assert r.status_code == 200
                async for _ in r.aiter_raw():
                    pass
            lat.append(time.perf_counter() - t0)
    return lat


def _hammer_process(args: tuple[str, str, float]) -> list[float]:
    return asyncio.run(_hammer(*args))


async def _probe(url: str, stop_at: float, lat: list[float]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            await http.get("/api/v1/rooms")
            lat.append(time.perf_counter() - t0)
            await asyncio.sleep(0.02)


def _ms(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def _main(url: str, entries: int, seconds: float) -> list[str]:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=30) as http:
        made = (await http.post("/rooms", json={"deal": 5, "countdown_s": 0,
                                                "time_limit_s": 4 * 3600})).json()
        code, host = made["room"]["code"], made["host_token"]
        seats: dict[str, Any] = {n: (await http.post(f"/rooms/{code}/racers",
                                                     json={"name": n})).json()
                                 for n in ("ada", "bob")}
        await http.post(f"/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"})
        t0 = time.perf_counter()
        await asyncio.gather(*(_fill(url, code, s["racer"]["id"], s["token"], entries)
                               for s in seats.values()))
        filled = time.perf_counter() - t0
        for s in seats.values():
            await http.post(f"/rooms/{code}/racers/{s['racer']['id']}/resign",
                            headers={"Authorization": f"Bearer {s['token']}"})
        idle: list[float] = []
        await _probe(url, time.perf_counter() + 1.0, idle)
        path = f"/api/v1/rooms/{code}/compare/ada/bob"
        t0 = time.perf_counter()
        first = await http.get(path.removeprefix("/api/v1"))
        first_s = time.perf_counter() - t0
        size = len(first.content)
    probe: list[float] = []
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(4) as pool:  # 4 client processes: the clients' work is theirs
        hammers = [loop.run_in_executor(pool, _hammer_process, (url, path, seconds))
                   for _ in range(4)]
        await asyncio.sleep(0.5)  # the workers started
        await _probe(url, time.perf_counter() + seconds - 1.0, probe)
        lat = [x for got in await asyncio.gather(*hammers) for x in got]
    answers = len(lat)
    p99, probe_p99 = _ms(lat, 99), _ms(probe, 99)
    return [
        f"two games of {entries:,} log entries each, played in {filled:.1f} s",
        f"first comparison (computed, then kept): {first_s * 1000:.0f} ms, "
        f"{size / 1e6:.1f} MB",
        f"kept comparison, 4 clients for {seconds:.0f} s: p50 {_ms(lat, 50):.1f} ms, "
        f"p99 {p99:.1f} ms ({answers / seconds:.0f} answers/s; target p99 <= 20 ms: "
        f"{'ok' if p99 <= 20 else 'MISSED'})",
        f"probe GET /rooms meanwhile: p50 {_ms(probe, 50):.1f} ms, p99 {probe_p99:.1f} ms "
        f"(idle server: p50 {_ms(idle, 50):.1f} ms, p99 {_ms(idle, 99):.1f} ms; "
        f"target p99 <= 50 ms: {'ok' if probe_p99 <= 50 else 'MISSED'})",
        f"probe p50 ratio to idle: {statistics.median(probe) / statistics.median(idle):.1f}x",
    ]


def run(quick: bool) -> list[str]:
    """Fill, compare, hammer and probe (module docstring); the printed lines."""
    port = _port()
    env = {"LUCIE_WS_RATE": "100000", "LUCIE_WS_BURST": "100000",
           "LUCIE_HTTP_RATE": "100000", "LUCIE_HTTP_BURST": "100000"}
    server = _spawn("from server.app import main; raise SystemExit(main())", port, env)
    try:
        return asyncio.run(_main(f"http://127.0.0.1:{port}", 2_000 if quick else 20_000,
                                 2.0 if quick else 10.0))
    finally:
        _stop(server)
