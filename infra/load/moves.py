"""Pick a racer's next legal move from a Game view with :mod:`server.rules`.

The choice is cheap (the load generator shares the CPU with the server) and
always terminates with undo off: a foundation move first, then a random
build, then the redeal; ``None`` when stuck. In one-deck down-in-suit
building a card built on its successor can only move on to the foundation,
so builds never cycle.
"""

from __future__ import annotations

import random
from typing import Any

from server.rules import FOUNDATION, RuleSet, legal_moves, position_from_json

__all__ = ["choose_move", "ruleset"]

_RULES: dict[str, RuleSet] = {}


def ruleset(rules_json: dict[str, Any]) -> RuleSet:
    """The :class:`RuleSet` of a room's ``rules`` object (cached by variant name)."""
    key = repr(sorted(rules_json.items()))
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = RuleSet.from_json(rules_json)
    return rules


def choose_move(rules: RuleSet, game: dict[str, Any],
                rng: random.Random | None = None) -> str | None:
    """The next move (text notation) for the Game view ``game``, or ``None`` when stuck.

    Legal moves come from the engine on ``game["position"]``; undo, autoplay
    and merci are never chosen.
    """
    rng = rng or random.Random()
    foundation, builds, redeal = [], [], None
    for move in legal_moves(rules, position_from_json(game["position"])):
        if move.kind == "play":
            (foundation if move.target == FOUNDATION else builds).append(move)
        elif move.kind == "redeal":
            redeal = move
    if foundation:
        return str(foundation[0])
    if builds:
        return str(rng.choice(builds))
    return None if redeal is None else str(redeal)
