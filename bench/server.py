"""Race server throughput (issue 3): one ``lucie-server`` process on loopback.

* **moves**: 200 racers in 25 rooms (8 each, undo allowed), each on its own
  WebSocket, moving as fast as acks return (a legal move, then ``u``, so a
  game never ends); accepted moves/s and p50/p99 ack latency (ms).
  Targets: ≥ 2,000 moves/s, p99 ≤ 50 ms.
* **echo baseline**: the same clients against a bare uvicorn + Starlette
  WebSocket echo server (same stack, no application work), messages/s;
  the ratio moves/s ÷ echo msgs/s must be ≥ 0.3.
* **idle**: 5,000 idle spectator sockets held by the server; its resident
  memory (RSS, from ``/proc``) with them, target ≤ 200 MB, and per socket
  ((RSS with them − RSS before) ÷ sockets), target ≤ 20 KB (issue 23).

Every figure is printed beside its target, with the load average at the
start (the machine may be shared: compare runs of one sitting).

The load generator runs in worker processes (fork) beside the server; on a
small machine they share its cores, so the figures are a floor.
``quick=True`` runs 2 s per phase with 500 idle sockets.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import orjson

__all__ = ["ENV", "echo_app", "run"]

REPO = Path(__file__).resolve().parents[1]
ROOMS, PER_ROOM = 25, 8
ENV = {"LUCIE_WS_RATE": "1000000", "LUCIE_WS_BURST": "1000000",
       "LUCIE_HTTP_RATE": "1000000", "LUCIE_HTTP_BURST": "1000000",
       "LUCIE_SEND_QUEUE": "4096",
       # every client is on one address: lift the per-address budgets and caps
       "LUCIE_JOIN_PER_MIN": "60000", "LUCIE_JOIN_BURST": "100000",
       "LUCIE_CREATE_PER_MIN": "60000", "LUCIE_CREATE_BURST": "100000",
       "LUCIE_WAITING_ROOMS_PER_ADDRESS": "100000",
       "LUCIE_SOCKETS_PER_ADDRESS": "100000", "LUCIE_SPECTATORS_PER_ROOM": "100000",
       "LUCIE_HTTP_CONNECTIONS_PER_ADDRESS": "100000"}
"""The servers' settings for the benchmarks (``bench.redis`` too): no rate limits."""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ports(n: int) -> list[int]:
    """``n`` distinct free ports (each held while the next is chosen: two calls
    of :func:`_port` may give the same one)."""
    held = [socket.socket() for _ in range(n)]
    try:
        for s in held:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in held]
    finally:
        for s in held:
            s.close()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def echo_app() -> Any:
    """A bare Starlette WebSocket echo app (the baseline)."""
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            return

    return Starlette(routes=[WebSocketRoute("/echo", echo)])


def _spawn(code: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    full = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | env
    proc = subprocess.Popen([sys.executable, "-c", code, "--port", str(port),
                             "--log-level", "warning"], cwd=REPO, env=full,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


# -- load generator (worker processes) ---------------------------------------------


async def _racer(url: str, room: str, racer: str, token: str, game: dict[str, Any],
                 stop_at: float, lat: list[float]) -> int:
    from websockets.asyncio.client import connect

    done = 0
    version = game["version"]
    legal = game["legal_moves"]
    async with connect(f"{url}/api/v1/rooms/{room}/ws", max_queue=None, compression=None,
                       additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        await ws.recv()  # welcome
        n = 0
        while time.perf_counter() < stop_at:
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
                    raise RuntimeError(text[:300])
            lat.append(time.perf_counter() - t0)
            ack = orjson.loads(text)["d"]
            version = ack["version"]
            if version % 2 == 0:
                legal = ack["game"]["legal_moves"]
            done += 1
    return done


async def _echoer(url: str, stop_at: float, lat: list[float]) -> int:
    from websockets.asyncio.client import connect

    done = 0
    payload = json.dumps({"t": "move", "d": {"move": "3f", "expected_version": 10,
                                             "client_move_id": "12"}})
    async with connect(f"{url}/echo", compression=None) as ws:
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            await ws.send(payload)
            await ws.recv()
            lat.append(time.perf_counter() - t0)
            done += 1
    return done


def _worker(kind: str, url: str, seats: list[Any], seconds: float) -> tuple[int, list[float]]:
    async def main() -> tuple[int, list[float]]:
        lat: list[float] = []
        stop_at = time.perf_counter() + seconds
        if kind == "race":
            jobs = [_racer(url, *seat, stop_at, lat) for seat in seats]
        else:
            jobs = [_echoer(url, stop_at, lat) for _ in seats]
        counts = await asyncio.gather(*jobs)
        return sum(counts), lat

    return _run_loop(main())


def _run_loop(coro: Any) -> Any:
    """Run ``coro`` on uvloop when installed (uvicorn[standard] brings it), else asyncio."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


async def _idle(url: str, room: str, n: int, ready: Any, release: Any) -> int:
    from websockets.asyncio.client import connect

    socks = []
    try:
        for i in range(n):
            ws = await connect(f"{url}/api/v1/rooms/{room}/ws", ping_interval=None,
                               compression=None)
            await ws.recv()
            socks.append(ws)
            if i % 500 == 499:
                await asyncio.sleep(0)
        ready.put(len(socks))
        while not release.is_set():
            await asyncio.sleep(0.1)
        return len(socks)
    finally:
        await asyncio.gather(*(s.close() for s in socks), return_exceptions=True)


def _idle_worker(url: str, room: str, n: int, ready: Any, release: Any) -> int:
    return int(_run_loop(_idle(url, room, n, ready, release)))


def _measure(kind: str, url: str, seats: list[Any], seconds: float,
             workers: int) -> tuple[float, float, float]:
    chunks = [seats[i::workers] for i in range(workers)]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        futures = [pool.submit(_worker, kind, url, c, seconds) for c in chunks]
        results = [f.result() for f in futures]
    total = sum(r[0] for r in results)
    lat = sorted(x for r in results for x in r[1])
    p50 = statistics.median(lat) * 1000
    p99 = lat[int(len(lat) * 0.99)] * 1000
    return total / seconds, p50, p99


def _setup(url: str) -> list[tuple[str, str, str, dict[str, Any]]]:
    seats = []
    with httpx.Client(base_url=url + "/api/v1", timeout=30) as http:
        for r in range(ROOMS):
            created = http.post("/rooms", json={"deal": 1000 + r, "countdown_s": 0,
                                                "capacity": PER_ROOM, "time_limit_s": 3600})
            room, host = created.json()["room"]["id"], created.json()["host_token"]
            joined = [http.post(f"/rooms/{room}/racers", json={"name": f"r{i}"}).json()
                      for i in range(PER_ROOM)]
            http.post(f"/rooms/{room}/start", headers={"Authorization": f"Bearer {host}"})
            for j in joined:
                racer = j["racer"]["id"]
                game = http.get(f"/rooms/{room}/racers/{racer}/game",  # the racer's own
                                headers={"Authorization": f"Bearer {j['token']}"}).json()
                seats.append((room, racer, j["token"], game))
    return seats


def run(quick: bool) -> list[str]:
    """Run the three phases; lines of figures with their targets and ratios."""
    seconds = 2.0 if quick else 8.0
    idle_n = 500 if quick else 5000
    workers = 2
    env = ENV
    lines = []
    port = _port()
    server = _spawn("from server.app import main; raise SystemExit(main())", port, env)
    url = f"http://127.0.0.1:{port}"
    try:
        seats = _setup(url)
        load = os.getloadavg()[0]
        cpu0 = _cpu_s(server.pid)
        rate, p50, p99 = _measure("race", url.replace("http", "ws"), seats, seconds, workers)
        cpu = _cpu_s(server.pid) - cpu0
        lines.append(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start")
        lines.append(f"moves: {rate:,.0f} accepted moves/s (target ≥ 2,000) with "
                     f"{len(seats)} racers in {ROOMS} rooms; ack p50 {p50:.1f} ms, "
                     f"p99 {p99:.1f} ms (target ≤ 50)")
        per_move = cpu / (rate * seconds) * 1000
        lines.append(f"server CPU: {per_move:.2f} ms per accepted move (each also fans out "
                     f"{PER_ROOM} progress events) → ≈ {1000 / per_move:,.0f} moves/s per "
                     f"core; server busy {cpu / seconds:.0%} of one core")
    finally:
        _stop(server)
    port = _port()
    server = _spawn("from server.app import main; raise SystemExit(main())", port, env)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url + "/api/v1") as http:
            watch = http.post("/rooms", json={"deal": 1}).json()["room"]["id"]
        before = _rss_mb(server.pid)
        per = idle_n // workers
        ctx = multiprocessing.get_context("fork")
        with ctx.Manager() as manager, ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            ready, release = manager.Queue(), manager.Event()
            futures = [pool.submit(_idle_worker, url.replace("http", "ws"), watch, per,
                                   ready, release) for _ in range(workers)]
            held = sum(ready.get(timeout=300) for _ in range(workers))
            time.sleep(1.0)  # let the server settle with every socket open
            held_rss = _rss_mb(server.pid)
            release.set()
            for f in futures:
                f.result()
        per_socket = (held_rss - before) * 1024 / max(1, held)
        lines.append(f"idle: {held:,} idle sockets held in {held_rss:.0f} MB RSS "
                     f"(+{held_rss - before:.0f} MB over a fresh server's {before:.0f} MB; "
                     f"target 5,000 in ≤ 200 MB); {per_socket:.1f} KB per idle socket "
                     f"(target ≤ 20 KB)")
    finally:
        _stop(server)
    port = _port()
    code = ("import sys, uvicorn; from bench.server import echo_app; "
            "uvicorn.run(echo_app(), host='127.0.0.1', port=int(sys.argv[2]), "
            "log_level='warning', ws_per_message_deflate=False)")
    echo = _spawn(code, port, {})
    try:
        cpu0 = _cpu_s(echo.pid)
        erate, ep50, ep99 = _measure("echo", f"ws://127.0.0.1:{port}", list(range(200)),
                                     seconds, workers)
        ecpu = _cpu_s(echo.pid) - cpu0
    finally:
        _stop(echo)
    lines.append(f"echo baseline: {erate:,.0f} msgs/s, p50 {ep50:.1f} ms, p99 {ep99:.1f} ms; "
                 f"{ecpu / (erate * seconds) * 1000:.3f} ms CPU per echo, "
                 f"busy {ecpu / seconds:.0%}")
    lines.append(f"ratio moves/echo: {rate / erate:.2f} (target ≥ 0.3)")
    return lines


if __name__ == "__main__":
    print("\n".join(run("--quick" in sys.argv)))
