"""The computer racer's move choice: a simple, legal, deterministic strategy.

Order of preference (issue 5):

1. a foundation move (the first top card that can go up);
2. a useful build: a tableau move after which, within one more build,
   autoplay puts more cards on the foundations (two-ply look-ahead with the
   engine in :mod:`server.rules`);
3. the redeal, while redeals remain;
4. the merci (to a foundation first), where the rules allow it;
5. any build that leads to a position not seen before (no cycles);
6. nothing: the bot is stuck and concedes.

The server validates every move; the engine only helps choose.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.rules import (
    FOUNDATION,
    IllegalMoveError,
    Move,
    Position,
    RuleSet,
    apply,
    autoplay_moves,
    legal_moves,
)

__all__ = ["choose_move"]


def _gain(rules: RuleSet, pos: Position) -> int:
    """Foundation cards autoplay reaches from ``pos``."""
    return autoplay_moves(rules, pos)[1].foundation_cards


def _builds(rules: RuleSet, pos: Position) -> list[Move]:
    return [m for m in legal_moves(rules, pos) if m.kind == "play" and m.target != FOUNDATION]


def _after(rules: RuleSet, pos: Position, move: Move) -> Position | None:
    try:
        return apply(rules, pos, move)
    except IllegalMoveError:
        return None


def choose_move(rules: RuleSet, pos: Position, seen: Iterable[Position] = ()) -> Move | None:
    """The bot's next move in ``pos`` under ``rules``, or ``None`` when stuck.

    ``seen``: positions already visited this layout; builds back into them
    are skipped so the bot never loops. The move is legal in ``pos`` by the
    engine's rules; undo and autoplay are never chosen.
    """
    moves = list(legal_moves(rules, pos))
    for m in moves:
        if m.kind == "play" and m.target == FOUNDATION:
            return m
    visited = set(seen)
    base = pos.foundation_cards
    best: tuple[int, Move] | None = None
    for m in _builds(rules, pos):
        nxt = _after(rules, pos, m)
        if nxt is None or nxt in visited:
            continue
        score = _gain(rules, nxt) * 4
        if score <= base * 4:
            # one more build: does it open a foundation move?
            score = max((_gain(rules, p2) * 4 - 1 for m2 in _builds(rules, nxt)
                         if (p2 := _after(rules, nxt, m2)) is not None), default=0)
        if score > base * 4 and (best is None or score > best[0]):
            best = (score, m)
    if best is not None:
        return best[1]
    for m in moves:
        if m.kind == "redeal":
            return m
    mercis = [m for m in moves if m.kind == "merci"]
    if mercis:
        return next((m for m in mercis if m.target == FOUNDATION), mercis[0])
    for m in _builds(rules, pos):
        nxt = _after(rules, pos, m)
        if nxt is not None and nxt not in visited:
            return m
    return None
