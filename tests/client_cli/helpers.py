"""Small helpers for the live client tests."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable

from client_cli.api import GameView

__all__ = ["keys", "non_legal_build", "play_moves", "until"]


async def until(pred: Callable[[], object], timeout: float = 8.0, what: str = "") -> None:
    """Wait (polling every 20 ms) until ``pred()`` is true; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or pred}")
        await asyncio.sleep(0.02)


def non_legal_build(game: GameView) -> str:
    """A fan-to-fan move between two non-empty fans that is not legal now."""
    fans = [i + 1 for i, f in enumerate(game.position.fans) if f]
    legal = set(game.legal_moves)
    for a in fans:
        for b in fans:
            if a != b and f"{a}-{b}" not in legal:
                return f"{a}-{b}"
    raise AssertionError("every build is legal?")


def play_moves(game: GameView) -> list[str]:
    """The legal fan moves (``3f``, ``3-7``) of ``game``."""
    return [m for m in game.legal_moves if re.fullmatch(r"\d+(f|-\d+)", m)]




def keys(text: str) -> list[str]:
    """Pilot key names that type ``text``."""
    return [{" ": "space", "-": "minus"}.get(ch, ch) for ch in text]
