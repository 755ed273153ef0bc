"""The solver's entry point: :func:`solve` and its answer :class:`SolveResult`.

Modes (issue 7):

* ``known-redeals``: the redeal key is known, so a redeal is a deterministic
  move and the search sees through it (post-race analysis, deal selection).
  ``won`` comes with a winning line; ``lost`` is proved (the whole tree was
  searched, with exact reductions only); ``unknown`` means the budget ran out.
* ``one-layout``: the most foundation cards reachable from the layout on the
  table without redealing (what a player can plan). ``won`` means the board
  clears in this layout; ``lost`` that it provably does not (the best count
  is then exact); ``unknown`` that the budget ran out (the best count is a
  lower bound).

Every line returned is replayed through :func:`server.rules.apply` first.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from server.rules import IllegalMoveError, Move, Position, RuleSet, apply

from .board import Board, to_move
from .errors import SolverError
from .search import OutOfBudget, Search, Won

__all__ = [
    "DEFAULT_MAX_NODES",
    "MODES",
    "Mode",
    "SolveResult",
    "Verdict",
    "default_redeal_key",
    "solve",
    "verify_line",
]

Mode = Literal["known-redeals", "one-layout"]
Verdict = Literal["won", "lost", "unknown"]
MODES: Final[tuple[Mode, ...]] = ("known-redeals", "one-layout")
DEFAULT_MAX_NODES: Final = 2_000_000
"""Default node budget (positions visited); about 100–200 MB of table at most."""


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The solver's answer.

    ``verdict``: ``won`` / ``lost`` / ``unknown`` (module docstring);
    ``moves``: the winning line when won, else a line reaching
    ``best_foundation``; ``best_foundation``: most foundation cards seen
    (0–52; exact when ``exact``); ``exact``: the search was complete;
    ``nodes``: positions visited; ``seconds``: wall time.
    """

    verdict: Verdict
    mode: Mode
    moves: tuple[Move, ...]
    best_foundation: int
    exact: bool
    nodes: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """JSON form (moves in text notation)."""
        return {
            "verdict": self.verdict,
            "mode": self.mode,
            "moves": [str(m) for m in self.moves],
            "best_foundation": self.best_foundation,
            "exact": self.exact,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
        }


def default_redeal_key(deal_number: int) -> bytes:
    """A fixed, public redeal key for deal ``deal_number``: SHA-256 of
    ``b"lucie-solver-key-v1:" + decimal deal number``. Used by the benchmark
    and by ``lucie solve`` when no key is given; never by a race room."""
    return hashlib.sha256(b"lucie-solver-key-v1:" + str(deal_number).encode()).digest()


def verify_line(
    rules: RuleSet, position: Position, redeal_key: bytes, moves: Sequence[Move]
) -> Position:
    """Replay ``moves`` from ``position`` in the engine; the final position.

    :raises SolverError: a move is illegal there (a solver bug).
    """
    pos = position
    for i, move in enumerate(moves, 1):
        try:
            pos = apply(rules, pos, move, redeal_key)
        except IllegalMoveError as exc:
            raise SolverError(f"solver line does not replay: move {i} ({move}): {exc}") from None
    return pos


def solve(
    rules: RuleSet,
    position: Position,
    redeal_key: bytes | None = None,
    *,
    mode: Mode = "known-redeals",
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float = 2.0,
) -> SolveResult:
    """Search ``position`` under ``rules``.

    ``redeal_key`` is the room's key (needed in ``known-redeals`` mode while
    redeals remain); ``max_nodes`` and ``max_seconds`` bound the search.

    :raises UnsupportedRulesError: two decks or free cells.
    :raises SolverError: ``known-redeals`` without a key while redeals
        remain, an unknown mode, or a line that does not replay (a bug).
    """
    if mode not in MODES:
        raise SolverError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
    if mode == "known-redeals" and redeal_key is None and position.redeals_used < rules.redeals:
        raise SolverError("known-redeals mode needs the redeal key")
    key = redeal_key or b""
    start = time.perf_counter()
    quick_nodes = 0
    if mode == "known-redeals" and rules.merci and not position.merci_used:
        # Most deals win without the merci, and that search is far smaller:
        # try it first with half the budget.
        quick = Search(Board(rules, position, key), max_nodes=max_nodes // 2,
                       deadline=start + max_seconds / 2, merci=False)
        try:
            if quick.win():
                return _result(rules, position, key, mode, quick, True, True, start)
        except OutOfBudget:
            pass
        quick_nodes = quick.nodes
        max_nodes -= quick_nodes
    board = Board(rules, position, key)
    search = Search(board, max_nodes=max_nodes, deadline=start + max_seconds)
    complete = True
    won = False
    try:
        if mode == "known-redeals":
            won = search.win()
        else:
            search.best_in_layout()
    except OutOfBudget:
        complete = False
    except Won:
        won = True
    complete = complete and not search.capped
    search.nodes += quick_nodes
    return _result(rules, position, key, mode, search, won, complete, start)


def _result(rules: RuleSet, position: Position, key: bytes, mode: Mode, search: Search,
            won: bool, complete: bool, start: float) -> SolveResult:
    if mode == "known-redeals" and won:
        line = search.path
        best = 52
    else:
        line = search.best_path
        best = search.best
    moves = tuple(to_move(r) for r in line)
    end = verify_line(rules, position, key, moves)
    if end.foundation_cards != best:
        raise SolverError(f"solver line reaches {end.foundation_cards} cards, not {best}")
    verdict: Verdict = "won" if won else ("lost" if complete else "unknown")
    return SolveResult(verdict, mode, moves, best, complete or won, search.nodes,
                       time.perf_counter() - start)
