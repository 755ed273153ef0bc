"""What the service asks of the solver: hints, par, difficulty, winnable deals.

All of these are plain synchronous functions bounded by a time budget; the
server calls them through :class:`~server.solver.pool.SolverPool` so that
they never run on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from server.rules import REDEAL, Move, Position, RuleSet, deal, is_legal, legal_moves

from .play import play_layouts
from .solve import solve

__all__ = [
    "Difficulty",
    "DifficultyLabel",
    "difficulty",
    "hint",
    "par",
    "proved_winnable",
]

DifficultyLabel = Literal["easy", "medium", "hard", "very hard", "unwinnable"]
_MEDIUM: Final = 40
_HARD: Final = 26


def hint(
    rules: RuleSet,
    position: Position,
    redeal_key: bytes | None = None,
    *,
    max_seconds: float = 1.0,
) -> Move | None:
    """A good legal move in ``position``, or ``None`` when there is none.

    Without ``redeal_key`` (a racer's hint: the key is the room's secret)
    the hint is the first move of the line to the most foundation cards in
    this layout, else the redeal when redeals remain, else any legal move.
    With the key (post-race analysis) a winning line's first move comes
    first. The move returned is always legal (checked in the engine).

    :raises UnsupportedRulesError: two decks or free cells.
    """
    candidates: list[Move] = []
    if redeal_key is not None:
        res = solve(rules, position, redeal_key, mode="known-redeals",
                    max_seconds=max_seconds / 2)
        if res.verdict == "won" and res.moves:
            candidates.append(res.moves[0])
    res = solve(rules, position, None, mode="one-layout", max_seconds=max_seconds)
    if res.moves and res.best_foundation > position.foundation_cards:
        candidates.append(res.moves[0])
    candidates.append(REDEAL)
    candidates.extend(legal_moves(rules, position))
    for move in candidates:
        if is_legal(rules, position, move):
            return move
    return None


def par(
    rules: RuleSet, deal_number: int, redeal_key: bytes, *, max_seconds: float = 2.0
) -> int:
    """Par of a deal: the most foundation cards reachable with these redeals.

    52 when the known-redeals search wins; otherwise the best count it
    found (a lower bound when the search ran out of time).

    :raises InvalidDealNumberError: bad deal number.
    :raises UnsupportedRulesError: two decks or free cells.
    """
    res = solve(rules, deal(rules, deal_number), redeal_key, mode="known-redeals",
                max_seconds=max_seconds)
    return rules.cards if res.verdict == "won" else res.best_foundation


def proved_winnable(
    rules: RuleSet, deal_number: int, redeal_key: bytes, *, max_seconds: float = 2.0
) -> bool:
    """Whether the solver proves the deal winnable with these redeals in time.

    :raises InvalidDealNumberError: bad deal number.
    :raises UnsupportedRulesError: two decks or free cells.
    """
    res = solve(rules, deal(rules, deal_number), redeal_key, mode="known-redeals",
                max_seconds=max_seconds)
    return res.verdict == "won"


@dataclass(frozen=True, slots=True)
class Difficulty:
    """A deal's difficulty rating.

    ``score`` 0 (trivial) … 100 (hopeless): the share of the 52 cards that
    planned play (:func:`~server.solver.play.play_layouts`: the best line in
    each layout, redeals unknown) leaves off the foundations. ``label``:
    ``easy`` (planned play wins), ``medium`` (≥ 40 cards), ``hard``
    (≥ 26), ``very hard`` (fewer), ``unwinnable`` (proved lost even
    knowing the redeals). ``first_layout``: most cards in the first layout;
    ``planned``: planned play's count; ``par``: known-redeals par.
    """

    score: int
    label: DifficultyLabel
    first_layout: int
    planned: int
    par: int

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"score": self.score, "label": self.label, "first_layout": self.first_layout,
                "planned": self.planned, "par": self.par}


def difficulty(
    rules: RuleSet, deal_number: int, redeal_key: bytes, *, max_seconds: float = 2.0
) -> Difficulty:
    """Rate deal ``deal_number`` under ``rules`` and ``redeal_key`` (see :class:`Difficulty`).

    :raises InvalidDealNumberError: bad deal number.
    :raises UnsupportedRulesError: two decks or free cells.
    """
    start = deal(rules, deal_number)
    known = solve(rules, start, redeal_key, mode="known-redeals", max_seconds=max_seconds)
    played = play_layouts(rules, start, redeal_key, max_seconds_per_layout=max_seconds / 3)
    first = played.per_layout[0] if played.per_layout else start.foundation_cards
    par_value = rules.cards if known.verdict == "won" else known.best_foundation
    label: DifficultyLabel
    if known.verdict == "lost":
        label = "unwinnable"
    elif played.won:
        label = "easy"
    elif played.foundation >= _MEDIUM:
        label = "medium"
    elif played.foundation >= _HARD:
        label = "hard"
    else:
        label = "very hard"
    score = round(100 * (rules.cards - played.foundation) / rules.cards)
    return Difficulty(score, label, first, played.foundation, par_value)
