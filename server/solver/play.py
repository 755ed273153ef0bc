"""Playing as a player must: plan each layout, then redeal (issue 7's "one layout" play).

A player sees the layout on the table but not what a redeal will bring, so
:func:`play_layouts` searches each layout in ``one-layout`` mode, plays the
line to the most foundation cards, then redeals (with the room's key, which
it never looks at before the redeal is taken) while redeals remain. In the
last layout the merci, where the rule set has it, is part of the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.rules import REDEAL, Move, Position, RuleSet, apply

from .solve import solve

__all__ = ["LayoutPlay", "play_layouts"]


@dataclass(frozen=True, slots=True)
class LayoutPlay:
    """Result of :func:`play_layouts`.

    ``moves``: the whole line played (redeals included); ``foundation``:
    cards on the foundations at the end (0–52); ``won``; ``per_layout``: the
    foundation count after each layout; ``nodes``, ``seconds``: search
    totals; ``exact``: every layout's search was complete.
    """

    moves: tuple[Move, ...]
    foundation: int
    won: bool
    per_layout: tuple[int, ...]
    nodes: int
    seconds: float
    exact: bool


def play_layouts(
    rules: RuleSet,
    position: Position,
    redeal_key: bytes,
    *,
    max_seconds_per_layout: float = 2.0,
    max_nodes_per_layout: int = 1_000_000,
) -> LayoutPlay:
    """Play from ``position`` planning one layout at a time (module docstring).

    :raises UnsupportedRulesError: two decks or free cells.
    """
    moves: list[Move] = []
    per_layout: list[int] = []
    nodes = 0
    seconds = 0.0
    exact = True
    pos = position
    while True:
        res = solve(rules, pos, None, mode="one-layout", max_nodes=max_nodes_per_layout,
                    max_seconds=max_seconds_per_layout)
        nodes += res.nodes
        seconds += res.seconds
        exact = exact and res.exact
        for m in res.moves:
            pos = apply(rules, pos, m, redeal_key)
        moves.extend(res.moves)
        per_layout.append(pos.foundation_cards)
        if pos.foundation_cards == rules.cards or pos.redeals_used >= rules.redeals:
            break
        pos = apply(rules, pos, REDEAL, redeal_key)
        moves.append(REDEAL)
    return LayoutPlay(tuple(moves), pos.foundation_cards, pos.foundation_cards == rules.cards,
                      tuple(per_layout), nodes, seconds, exact)
