"""Pick a racer's next legal move from a Game view.

The choice is cheap (the load generator shares the CPU with the server): it
reads the view's ``legal_moves`` (the server's own list, text notation), as
a real client does, instead of generating them again. It always terminates
with undo off: a foundation move first, then a random build, then the
redeal; ``None`` when stuck. In one-deck down-in-suit building a card built
on its successor can only move on to the foundation, so builds never cycle.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["choose_move"]

_NOT_PLAYS = frozenset({"r", "u", "a"})


def choose_move(game: dict[str, Any], rng: random.Random | None = None) -> str | None:
    """The next move (text notation, docs/rules-engine.md) from the Game view
    ``game`` (its ``legal_moves``), or ``None`` when stuck.

    Plays are ``3f`` (to a foundation), ``3-7`` and ``3c`` (builds); undo
    (``u``), autoplay (``a``) and merci (``m 5H f``) are never chosen.
    """
    rng = rng or random.Random()
    builds: list[str] = []
    redeal = None
    for text in game["legal_moves"]:
        if text == "r":
            redeal = text
        elif text in _NOT_PLAYS or text.startswith("m"):
            continue
        elif text.endswith("f"):
            return str(text)
        else:
            builds.append(text)
    if builds:
        return rng.choice(builds)
    return redeal
