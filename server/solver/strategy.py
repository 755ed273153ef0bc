"""The computer racer's move choice: a simple, legal, deterministic strategy.

Shared by the bots that race from a terminal (``lucie bot``, ``lucie play
--bots``: ``client_cli.bot``) and those the server runs for a room created
with ``bots`` (``server.race.bots``): both import it from here, beside the
solver, since the server must not import the client.

Order of preference (issue 5):

1. a foundation move (the first top card that can go up);
2. a useful build: a tableau move after which, within one more build,
   autoplay puts more cards on the foundations (two-ply look-ahead with the
   engine in :mod:`server.rules`);
3. the redeal, while redeals remain;
4. the merci (to a foundation first), where the rules allow it;
5. any build that leads to a position not seen before (no cycles);
6. nothing: the bot is stuck and concedes.

Each bot has a :class:`Style` (from its name, so deterministic): a seeded
``random.Random`` breaks ties between equally good moves, and a look-ahead
depth (one or two builds) sets how far it looks for a useful build. Two
bots on the same deal so play different games; without a style the choice
is the first best move (the engine's order).

The server validates every move; the engine only helps choose. Bots are
named by :func:`bot_name` (``bot-Ada``, ``bot-Bix``…), and the name gives
the style.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

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

__all__ = ["BOT_NAMES", "Style", "bot_name", "choose_move", "scored_builds"]

BOT_NAMES = ("Ada", "Bix", "Cog", "Dot", "Eon", "Fizz", "Gus", "Hex")
"""Names given to bots, with a ``bot-`` prefix."""


def bot_name(index: int) -> str:
    """The ``index``-th bot's display name (``bot-Ada``, ``bot-Bix``…)."""
    base = BOT_NAMES[index % len(BOT_NAMES)]
    return f"bot-{base}" if index < len(BOT_NAMES) else f"bot-{base}{index // len(BOT_NAMES)}"


@dataclass(slots=True)
class Style:
    """A bot's way of playing: ``rng`` breaks ties, ``lookahead`` (1 or 2) is how many
    builds ahead it looks for one that lets autoplay put more cards up."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    lookahead: int = 2

    @classmethod
    def for_name(cls, name: str) -> Style:
        """The style of the bot called ``name`` (the same name, the same style)."""
        rng = random.Random(f"lucie-bot:{name}")
        return cls(rng, 2 if rng.random() < 0.75 else 1)

    def pick(self, moves: Sequence[Move]) -> Move:
        """One of ``moves`` (non-empty), chosen by this style's generator."""
        return moves[0] if len(moves) == 1 else self.rng.choice(list(moves))


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


def scored_builds(rules: RuleSet, pos: Position, visited: Collection[Position] = (),
                  lookahead: int = 2) -> list[tuple[int, Move]]:
    """Every build (a tableau move) from ``pos`` to a position not in ``visited``,
    in the engine's order, with its score: 4 × the foundation cards autoplay
    reaches after it; when that is no gain and ``lookahead`` ≥ 2, 4 × the most
    it reaches after one more build, less 1 (a gain two builds away ranks just
    below the same gain one build away). A build scores above
    ``4 × pos.foundation_cards`` exactly when it leads to more cards up."""
    base = pos.foundation_cards * 4
    out: list[tuple[int, Move]] = []
    for m in _builds(rules, pos):
        nxt = _after(rules, pos, m)
        if nxt is None or nxt in visited:
            continue
        score = _gain(rules, nxt) * 4
        if score <= base and lookahead >= 2:
            # one more build: does it open a foundation move?
            score = max((_gain(rules, p2) * 4 - 1 for m2 in _builds(rules, nxt)
                         if (p2 := _after(rules, nxt, m2)) is not None), default=0)
        out.append((score, m))
    return out


def choose_move(rules: RuleSet, pos: Position, seen: Iterable[Position] = (),
                style: Style | None = None) -> Move | None:
    """The bot's next move in ``pos`` under ``rules``, or ``None`` when stuck.

    ``seen``: positions already visited this layout; builds back into them
    are skipped so the bot never loops. ``style``: how this bot breaks ties
    and how far it looks (default: the first best move, two builds ahead).
    The move is legal in ``pos`` by the engine's rules; undo and autoplay
    are never chosen.
    """
    def pick(options: Sequence[Move]) -> Move:
        return style.pick(options) if style is not None else options[0]

    lookahead = style.lookahead if style is not None else 2
    moves = list(legal_moves(rules, pos))
    ups = [m for m in moves if m.kind == "play" and m.target == FOUNDATION]
    if ups:
        return pick(ups)
    scored = scored_builds(rules, pos, set(seen), lookahead)
    best_score = pos.foundation_cards * 4
    best: list[Move] = []
    for score, m in scored:
        if score > best_score:
            best_score, best = score, [m]
        elif score == best_score and best:
            best.append(m)
    if best:
        return pick(best)
    for m in moves:
        if m.kind == "redeal":
            return m
    mercis = [m for m in moves if m.kind == "merci"]
    if mercis:
        return pick([m for m in mercis if m.target == FOUNDATION] or mercis)
    if scored:
        return pick([m for _, m in scored])
    return None
