"""The browser client (issue 19) in Debian's headless Chromium, on loopback.

* **page weight**: bytes the home page loads on a first visit (the HTML, every
  module, the stylesheet, the icon: the Resource Timing API's decoded body
  sizes), the bytes a race page transfers on a first visit with an empty cache
  (``transferSize``: headers and bodies as sent; the server compresses
  nothing today), and the size of every file the client ships
  (``server/web/static``, the rules page's markdown renderer and rule book
  included). Target: all files ≤ 150 KB uncompressed.
* **board**: time from navigation to an interactive board (the racer's game
  drawn, controls live) for a racer who opens ``/r/CODE`` of a running race,
  median of 10 loads.
* **moves**: 200 moves made through the page's move line (a legal move, then
  ``u``) — move sent → ack received, and → the new board drawn (two animation
  frames after the board shows the ack's version) — p50 / p99 ms.

The page has no timing hook: the figures come from :data:`PROBE`, a script this
benchmark puts into the page (CDP ``Page.addScriptToEvaluateOnNewDocument``)
that notes when the room socket receives an ack and when the board first shows a
game (its ``data-version``).

One ``lucie-server`` process (memory store) and one Chromium share the
machine's cores: the figures are a ceiling of what a real browser sees.
``quick=True``: 3 loads and 40 moves.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
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


PROBE = """
(() => {
  const Native = window.WebSocket;
  window.__benchAckAt = null;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (m) => {
        if (m.data.startsWith('{"t":"ack"')) window.__benchAckAt = performance.now();
      });
    }
  };
  window.__benchBoardAt = null;
  const seen = new MutationObserver(() => {
    if (!document.querySelector('.play .board[data-version]')) return;
    seen.disconnect();
    requestAnimationFrame(() => { window.__benchBoardAt = performance.now(); });
  });
  seen.observe(document, { childList: true, subtree: true, attributes: true });
})();
"""
"""The benchmark's view into the page: the time an ack arrives, and the frame the
board first shows a game in."""

MOVES = """
const [first, count, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const board = () => document.querySelector('.play .board');
const input = document.getElementById('move-input');
const frame = () => new Promise((r) => requestAnimationFrame(r));
(async () => {
  const out = [];
  for (let i = 0; i < count; i++) {
    const v = Number(board().dataset.version);
    const shown = new Promise((resolve) => {
      const mo = new MutationObserver(() => {
        if (Number(board().dataset.version) > v) { mo.disconnect(); resolve(); }
      });
      mo.observe(board(), { attributes: true, attributeFilter: ['data-version'] });
    });
    window.__benchAckAt = null;
    const t0 = performance.now();
    input.value = i % 2 ? 'u' : first; input.form.requestSubmit();
    const late = new Promise((r) => setTimeout(() => r('late'), 10000));
    if (await Promise.race([shown, late]) === 'late') {
      return done({ error: document.querySelector('.msg').textContent, at: i });
    }
    await frame(); await frame();
    out.push([window.__benchAckAt - t0, performance.now() - t0]);
    // the next move as a task of its own, as typing is, not in a frame's rendering steps
    await new Promise((r) => setTimeout(r, 0));
  }
  done(out);
})();
"""
"""Moves through the move line: the measured times of each, or the error shown."""


def _race_page_transfer(url: str, code: str, me: dict[str, Any]) -> tuple[int, int]:
    """Bytes a race page transfers on a first visit with an empty cache, and its files."""
    driver = chromium(390, 844, mobile=True)
    try:
        driver.get(url + "/static/icon.svg")  # the origin, to store the racer's token
        driver.execute_script("localStorage.setItem(arguments[0], arguments[1])",
                              f"lucie.v1.racer.{code}", json.dumps(me))
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        driver.get(f"{url}/r/{code}")
        deadline = time.monotonic() + 20
        while not driver.execute_script("return !!document.querySelector('.play .board .card')"):
            if time.monotonic() > deadline:
                raise RuntimeError("no board")
            time.sleep(0.05)
        time.sleep(0.5)  # the last modules the board's first frame did not wait for
        sizes = driver.execute_script("""
            const nav = performance.getEntriesByType('navigation')[0];
            return [nav.transferSize, ...performance.getEntriesByType('resource')
              .filter(r => r.name.includes('/static/')).map(r => r.transferSize)];""")
        return sum(sizes), len(sizes)
    finally:
        driver.quit()


def _measure(url: str, quick: bool) -> list[str]:
    driver = chromium(1440, 900)
    try:
        driver.set_script_timeout(120)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
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
        race_transfer, race_files = _race_page_transfer(url, code, me)
        driver.execute_script("localStorage.setItem(arguments[0], arguments[1])",
                              f"lucie.v1.racer.{code}", json.dumps(me))
        loads = []
        for _ in range(3 if quick else 10):
            driver.get(f"{url}/r/{code}")
            deadline = time.monotonic() + 20
            while (at := driver.execute_script("return window.__benchBoardAt")) is None:
                if time.monotonic() > deadline:
                    raise RuntimeError("no board")
                time.sleep(0.02)
            loads.append(float(at))
        count = 40 if quick else 200
        game = httpx.get(f"{url}/api/v1/rooms/{code}/racers/{me['racer']}/game",
                         headers={"Authorization": f"Bearer {me['token']}"}).json()
        # a move and its undo: the same position, the same legal move, every other time
        first = next(m for m in game["legal_moves"] if m not in ("r", "a"))
        timings = driver.execute_async_script(MOVES, first, count)
        if isinstance(timings, dict):
            raise RuntimeError(f"move refused: {timings}")
        ack = [t[0] for t in timings]
        drawn = [t[1] for t in timings]
    finally:
        driver.quit()
    return [
        f"page weight: first load {first_load / 1024:.1f} KB ({len(sizes)} files), every "
        f"shipped file {shipped / 1024:.1f} KB (target ≤ {WEIGHT_TARGET_KB} KB: "
        f"{'ok' if shipped <= WEIGHT_TARGET_KB * 1024 else 'OVER'}); first load of a race "
        f"page {race_transfer / 1024:.1f} KB transferred ({race_files} files, empty cache)",
        f"navigation → interactive board: median {statistics.median(loads):.0f} ms, "
        f"max {max(loads):.0f} ms ({len(loads)} loads)",
        f"move → ack: p50 {_pct(ack, 0.5):.1f} ms, p99 {_pct(ack, 0.99):.1f} ms; "
        f"move → drawn: p50 {_pct(drawn, 0.5):.1f} ms, p99 {_pct(drawn, 0.99):.1f} ms "
        f"({len(timings)} moves)",
    ]


def run(quick: bool) -> list[str]:
    """Start a server (its archive in a folder of its own: not the user's, which another
    checkout may have migrated further), measure, stop it; the lines of figures."""
    port = _port()
    with tempfile.TemporaryDirectory(prefix="bench-web-") as data:
        proc: subprocess.Popen[bytes] = _spawn(
            "from server.app import main; raise SystemExit(main())", port,
            {"LUCIE_CREATE_PER_MIN": "6000", "LUCIE_JOIN_PER_MIN": "6000",
             "LUCIE_DATA_DIR": data})
        try:
            return _measure(f"http://127.0.0.1:{port}", quick)
        finally:
            _stop(proc)


if __name__ == "__main__":
    print("\n".join(run("--quick" in sys.argv)))
