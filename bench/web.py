"""The browser client (issue 19) in Debian's headless Chromium, on loopback.

* **page weight**: bytes the home page loads on a first visit (the HTML, every
  module, the stylesheet, the icon: the Resource Timing API's decoded body
  sizes), and the size of every file the client ships (``server/web/static``,
  the rules page's markdown renderer and rule book included). Target: all
  files ≤ 150 KB uncompressed.
* **board**: time from navigation to an interactive board (the racer's game
  drawn, controls live) for a racer who opens ``/r/CODE`` of a running race,
  median of 10 loads.
* **moves**: 200 moves made through the page (a legal move, then ``u``)
  — move sent → ack received, and → the new board drawn (two animation
  frames after the ack) — p50 / p99 ms, from the page's own timing hook.

One ``lucie-server`` process (memory store) and one Chromium share the
machine's cores: the figures are a ceiling of what a real browser sees.
``quick=True``: 3 loads and 40 moves.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from bench._chromium import chromium
from bench.server import _port, _spawn, _stop

__all__ = ["run"]

STATIC = Path(__file__).resolve().parents[1] / "server" / "web" / "static"
WEIGHT_TARGET_KB = 150


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _room(url: str) -> tuple[str, dict[str, Any]]:
    """A racing room with one racer: its code and the racer's stored identity."""
    created = httpx.post(url + "/api/v1/rooms", json={"countdown_s": 0, "time_limit_s": 3600,
                                                      "visibility": "private"}).json()
    code = created["room"]["code"]
    joined = httpx.post(f"{url}/api/v1/rooms/{code}/racers", json={"name": "bench"}).json()
    httpx.post(f"{url}/api/v1/rooms/{code}/start",
               headers={"Authorization": f"Bearer {created['host_token']}"})
    return code, {"racer": joined["racer"]["id"], "token": joined["token"], "name": "bench"}


def _measure(url: str, quick: bool) -> list[str]:
    driver = chromium(1440, 900)
    try:
        driver.set_script_timeout(120)
        driver.get(url + "/")
        deadline = time.monotonic() + 20
        rooms_js = "return document.querySelectorAll('#public-rooms li').length"
        while not driver.execute_script(rooms_js):
            if time.monotonic() > deadline:
                raise RuntimeError("the home page did not load")
            time.sleep(0.05)
        sizes = driver.execute_script("""
            const nav = performance.getEntriesByType('navigation')[0];
            return [nav.decodedBodySize, ...performance.getEntriesByType('resource')
              .filter(r => r.name.includes('/static/')).map(r => r.decodedBodySize)];""")
        first_load = sum(sizes)
        shipped = sum(f.stat().st_size for f in STATIC.rglob("*")
                      if f.is_file() and f.name != "README.md")
        code, me = _room(url)
        driver.execute_script("localStorage.setItem(arguments[0], arguments[1])",
                              f"lucie.v1.racer.{code}", json.dumps(me))
        loads = []
        for _ in range(3 if quick else 10):
            driver.get(f"{url}/r/{code}")
            deadline = time.monotonic() + 20
            while (at := driver.execute_script("return window.__lucie.boardAt")) is None:
                if time.monotonic() > deadline:
                    raise RuntimeError("no board")
                time.sleep(0.02)
            loads.append(float(at))
        count = 40 if quick else 200
        timings = driver.execute_async_script("""
            const [count, done] = [arguments[0], arguments[arguments.length - 1]];
            const hooks = window.__lucie; const out = [];
            (async () => {
              for (let i = 0; i < count; i++) {
                const move = i % 2 ? 'u' : hooks.legal.find(m => m !== 'r' && m !== 'a');
                const r = await hooks.move(move);
                if (!r.ok) return done({error: r.code + ': ' + r.message, at: i});
                out.push([r.ack_ms, r.drawn_ms]);
              }
              done(out);
            })();""", count)
        if isinstance(timings, dict):
            raise RuntimeError(f"move refused: {timings}")
        ack = [t[0] for t in timings]
        drawn = [t[1] for t in timings]
    finally:
        driver.quit()
    return [
        f"page weight: first load {first_load / 1024:.1f} KB ({len(sizes)} files), every "
        f"shipped file {shipped / 1024:.1f} KB (target ≤ {WEIGHT_TARGET_KB} KB: "
        f"{'ok' if shipped <= WEIGHT_TARGET_KB * 1024 else 'OVER'})",
        f"navigation → interactive board: median {statistics.median(loads):.0f} ms, "
        f"max {max(loads):.0f} ms ({len(loads)} loads)",
        f"move → ack: p50 {_pct(ack, 0.5):.1f} ms, p99 {_pct(ack, 0.99):.1f} ms; "
        f"move → drawn: p50 {_pct(drawn, 0.5):.1f} ms, p99 {_pct(drawn, 0.99):.1f} ms "
        f"({len(timings)} moves)",
    ]


def run(quick: bool) -> list[str]:
    """Start a server, measure, stop it; the lines of figures."""
    port = _port()
    proc: subprocess.Popen[bytes] = _spawn(
        "from server.app import main; raise SystemExit(main())", port,
        {"LUCIE_CREATE_PER_MIN": "6000", "LUCIE_JOIN_PER_MIN": "6000"})
    try:
        return _measure(f"http://127.0.0.1:{port}", quick)
    finally:
        _stop(proc)


if __name__ == "__main__":
    print("\n".join(run("--quick" in sys.argv)))
