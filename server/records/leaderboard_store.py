"""Leaderboard storage: best score per member of a board, behind one small interface.

A board is a named set of members (a player name, or name + deal), each with
its best **score** — an integer where smaller is better — and the JSON entry
that earned it. :func:`encode_score` packs a result into a score that orders
by rules.md "Race ranking" (more foundation cards, earlier reach time, fewer
moves) and fits a Redis sorted-set score exactly (< 2**53). Equal scores
keep the one submitted first, and list in submission order (the leaderboard's
"earlier join").

Backends: :mod:`server.records.leaderboard_memory` (embedded default) and
:mod:`server.records.leaderboard_redis` (sorted sets), chosen by the app with
:func:`server.app.leaderboards_of`, beside the room store (in its Redis, on its client).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "MAX_ENTRIES",
    "MAX_FOUNDATION_CARDS",
    "MAX_MOVES",
    "MAX_REACH_MS",
    "BoardEntry",
    "LeaderboardStore",
    "decode_score",
    "encode_score",
]

MAX_FOUNDATION_CARDS: Final = (1 << 7) - 1
MAX_REACH_MS: Final = (1 << 31) - 1
"""Reach times are capped here (about 24.8 days)."""
MAX_MOVES: Final = (1 << 15) - 1
"""Move counts are capped here."""
MAX_ENTRIES: Final = 10_000
"""A board keeps at most this many best members (older, worse ones drop off)."""


def encode_score(foundation_cards: int, reach_time_ms: int | None, moves: int) -> int:
    """The sorted-set score of a result: smaller is better.

    ``(127 − foundation_cards) << 46 | min(reach_time_ms, 2**31 − 1) << 15 |
    min(moves, 2**15 − 1)``; ``reach_time_ms`` ``None`` counts as 0.

    :raises ValueError: a negative figure or more than 127 foundation cards.
    """
    reach = reach_time_ms or 0
    if not 0 <= foundation_cards <= MAX_FOUNDATION_CARDS or reach < 0 or moves < 0:
        raise ValueError(f"result out of range: {foundation_cards}, {reach_time_ms}, {moves}")
    return ((MAX_FOUNDATION_CARDS - foundation_cards) << 46 | min(reach, MAX_REACH_MS) << 15
            | min(moves, MAX_MOVES))


def decode_score(score: int) -> tuple[int, int, int]:
    """``(foundation_cards, reach_time_ms, moves)`` of :func:`encode_score` (capped values)."""
    return (MAX_FOUNDATION_CARDS - (score >> 46), (score >> 15) & MAX_REACH_MS,
            score & MAX_MOVES)


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One member's best on a board: score, JSON entry, and submission order ``seq``."""

    member: str
    score: int
    seq: int
    entry: dict[str, Any]


class LeaderboardStore(ABC):
    """Best score per member of each board; all methods may raise ``StoreUnavailable``."""

    @abstractmethod
    async def submit(self, board: str, member: str, score: int, entry: dict[str, Any]) -> bool:
        """Keep ``(score, entry)`` for ``member`` if it is better (smaller) than its
        current one or it has none, then trim the board to its ``max_entries``
        best; atomic. Returns whether it was kept (and not trimmed away)."""

    @abstractmethod
    async def top(self, board: str, limit: int) -> list[BoardEntry]:
        """The ``limit`` best members, by score then submission order."""

    @abstractmethod
    async def get(self, board: str, member: str) -> BoardEntry | None:
        """A member's best, or ``None``."""

    @abstractmethod
    async def size(self, board: str) -> int:
        """Members on the board."""

    @abstractmethod
    async def remove(self, board: str, member: str) -> bool:
        """Take ``member`` off ``board`` (a moderator's ``assisted`` verdict,
        docs/fair-play.md); whether it was there."""

    @abstractmethod
    async def bar(self, player_id: str) -> None:
        """Results of this player no longer feed any board (``assisted``)."""

    @abstractmethod
    async def unbar(self, player_id: str) -> None:
        """The player's results feed the boards again (``cleared`` after ``assisted``)."""

    @abstractmethod
    async def barred(self, player_ids: set[str]) -> set[str]:
        """Which of ``player_ids`` are barred."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections."""
