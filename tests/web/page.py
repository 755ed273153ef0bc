"""How the browser tests (and ``python -m bench web``) read and drive the page, with
no hook in the page's code (docs/web.md, "How the tests read the page"):

* what the page shows anyway: the room's state on the room's frame
  (``.room[data-state]``), the board's game version and status on the board
  (``.board[data-version]``, ``[data-status]``), the cards' names (ARIA), the
  live region's lines (``#live``), the focus;
* the public API with the racer's own token from ``localStorage`` (the legal
  moves, the server's game);
* moves through the page's own move line (``#move-input``);
* two test-only scripts put into the page from here, never served by the
  server: :data:`SOCKET_PROBE` (every event the room socket receives, kept in
  ``sessionStorage`` across reloads; a way to drop the socket as a network
  would) and :data:`LIVE_PROBE` (every line the live region says).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

__all__ = [
    "LIVE_PROBE",
    "SOCKET_PROBE",
    "board_position",
    "board_status",
    "board_version",
    "drop_socket",
    "events_seen",
    "focused",
    "install_probes",
    "legal_moves",
    "room_state",
    "said",
    "server_game",
    "stored_racer",
    "type_move",
    "until",
]

Driver = Any

SOCKET_PROBE = """
(() => {
  const KEY = 'lucie.test.events';
  const Native = window.WebSocket;
  window.__probeSockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__probeSockets.push(this);
      this.addEventListener('message', (m) => {
        try {
          const msg = JSON.parse(m.data);
          if (msg.t !== 'event') return;
          const log = JSON.parse(sessionStorage.getItem(KEY) || '[]');
          log.push(msg.d.seq);
          sessionStorage.setItem(KEY, JSON.stringify(log));
        } catch (e) { /* not JSON */ }
      });
    }
  };
  window.__probeDrop = () => {
    for (const ws of window.__probeSockets) {
      if (ws.readyState === Native.OPEN) ws.close(3000, 'drop');
    }
  };
})();
"""
"""Records the ``seq`` of every event the page's room sockets receive (in
``sessionStorage``, so a reload keeps the list) and gives ``__probeDrop()``, which
closes the open sockets as a failing network does (code 3000): the page must
show its banner and resume."""

LIVE_PROBE = """
(() => {
  window.__said = [];
  window.__countdownShown = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType === 1 && n.parentElement?.id === 'live') window.__said.push(n.textContent);
    }
    const c = document.querySelector('.countdown');
    if (c && !c.hidden && c.textContent && !window.__countdownShown.includes(c.textContent)) {
      window.__countdownShown.push(c.textContent);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
})();
"""
"""Records every line added to the page's live region (``#live``), in order, and the
texts the countdown showed (``__countdownShown``)."""


def until(what: Callable[[], Any], timeout: float = 15.0, message: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {message or what}")
        time.sleep(0.02)


def _js(driver: Driver, script: str, *args: Any) -> Any:
    return driver.execute_script(script, *args)


def install_probes(driver: Driver) -> None:
    """Put the probes into every page this browser opens from now on."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                           {"source": SOCKET_PROBE + LIVE_PROBE})


def room_state(driver: Driver) -> str | None:
    """The room's state as the page shows it (``waiting``, ``racing``, ``over``…)."""
    state = _js(driver, "return document.querySelector('.room')?.dataset.state ?? null")
    return None if state is None else str(state)


def board_version(driver: Driver, board: str = ".play .board") -> int | None:
    """The version of the game the board shows, None before it shows one."""
    v = _js(driver, "return document.querySelector(arguments[0])?.dataset.version ?? null", board)
    return None if v in (None, "") else int(v)


def board_status(driver: Driver, board: str = ".play .board") -> str | None:
    status = _js(driver, "return document.querySelector(arguments[0])?.dataset.status ?? null",
                 board)
    return None if status is None else str(status)


def stored_racer(driver: Driver, code: str) -> dict[str, Any]:
    """The racer's identity the page stored for room ``code`` (id, token, name)."""
    saved: dict[str, Any] = _js(driver, "return JSON.parse(localStorage.getItem(arguments[0]))",
                                f"lucie.v1.racer.{code}")
    assert saved, f"no racer stored for {code}"
    return saved


def server_game(url: str, driver: Driver, code: str) -> dict[str, Any]:
    """The racer's game as the server has it (GET …/game with the page's token)."""
    saved = stored_racer(driver, code)
    game: dict[str, Any] = httpx.get(
        f"{url}/api/v1/rooms/{code}/racers/{saved['racer']}/game",
        headers={"Authorization": f"Bearer {saved['token']}"}, timeout=10).json()
    return game


def legal_moves(url: str, driver: Driver, code: str) -> list[str]:
    return list(server_game(url, driver, code)["legal_moves"])


def type_move(driver: Driver, move: str) -> None:
    """Send a move through the page's move line, as typing it and Enter does."""
    _js(driver, """const input = document.getElementById('move-input');
        input.value = arguments[0]; input.form.requestSubmit();""", move)


def events_seen(driver: Driver) -> list[int]:
    """The seq of every event the page's sockets received (:data:`SOCKET_PROBE`)."""
    return list(_js(driver, "return JSON.parse(sessionStorage.getItem(arguments[0]) || '[]')",
                    "lucie.test.events"))


def drop_socket(driver: Driver) -> None:
    _js(driver, "window.__probeDrop()")


def said(driver: Driver) -> list[str]:
    """The live region's lines since the page loaded (:data:`LIVE_PROBE`)."""
    return list(_js(driver, "return window.__said"))


def focused(driver: Driver) -> dict[str, Any]:
    """The focused element: its tag, role, accessible label, id and text."""
    found: dict[str, Any] = _js(driver, """const a = document.activeElement;
        return a ? { tag: a.tagName.toLowerCase(), role: a.getAttribute('role'),
                     label: a.getAttribute('aria-label'), id: a.id, text: a.textContent,
                     row: a.dataset.row ?? null, col: a.dataset.col ?? null } : null;""")
    return found


def board_position(driver: Driver, board: str) -> dict[str, Any]:
    """The fans (cards bottom to top) and the foundations' top cards (None: empty) that
    the board under ``board`` shows."""
    shown: dict[str, Any] = _js(driver, """const b = document.querySelector(arguments[0]);
        return {
          fans: [...b.querySelectorAll('.fan-cards')].map((row) =>
            [...row.querySelectorAll('.card')].map((c) => c.dataset.card)),
          foundations: [...b.querySelectorAll('.foundations [role=gridcell]')].map((c) =>
            c.dataset.card ?? null) };""", board)
    return shown
