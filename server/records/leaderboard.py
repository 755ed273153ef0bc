"""Daily and all-time leaderboards per variant, fed by finished race results.

Boards (names inside the leaderboard store):

- ``daily:<variant>:<YYYY-MM-DD>`` — results on that date's daily deal
  (:mod:`server.rules.daily`); one entry per player name, their best;
- ``all:<variant>`` — every deal; one entry per player name + deal number,
  the best on that deal.

Only results of the plain variant count: a room whose rule set overrides
``redeals``, ``merci`` or ``undo`` feeds no board (its results would not be
comparable). Order: rules.md "Race ranking" — more foundation cards,
earlier reach time, fewer moves, then who got the result first (the
leaderboard's "earlier join"); see :func:`~server.records.leaderboard_store.encode_score`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Final, Literal, Protocol

from server.errors import StoreError
from server.rules import RuleSet, get_variant
from server.rules.daily import daily_deal, utc_date

from .leaderboard_store import LeaderboardStore, encode_score

__all__ = [
    "MAX_LIMIT",
    "BoardKind",
    "FinalResult",
    "FinishedRace",
    "LeaderboardResult",
    "LeaderboardRow",
    "all_time_board",
    "counts_for_boards",
    "daily_board",
    "feed_race",
    "leaderboard",
    "race_over_hook",
    "record_result",
]

BoardKind = Literal["daily", "all-time"]
MAX_LIMIT: Final = 100
"""Most rows one leaderboard read returns."""
MAX_NAME: Final = 64
_FED_STATUSES: Final = frozenset({"won", "stuck", "resigned", "timed_out"})
log = logging.getLogger(__name__)


class FinishedRace(Protocol):
    """What the boards read of a finished room (the authority's room record)."""

    @property
    def id(self) -> str: ...
    @property
    def code(self) -> str: ...
    @property
    def rules(self) -> dict[str, Any]: ...
    @property
    def deal_number(self) -> int: ...
    @property
    def ranked(self) -> bool: ...
    @property
    def created_ms(self) -> int: ...
    @property
    def ended_ms(self) -> int | None: ...


class FinalResult(Protocol):
    """What the boards read of one racer's result (the authority's racer view)."""

    @property
    def name(self) -> str: ...
    @property
    def final(self) -> bool: ...
    @property
    def status(self) -> str: ...
    @property
    def foundation_cards(self) -> int: ...
    @property
    def reach_time_ms(self) -> int | None: ...
    @property
    def moves(self) -> int: ...
    @property
    def bot(self) -> bool: ...
    @property
    def player(self) -> str | None: ...


def daily_board(variant: str, day: date) -> str:
    """The daily board's name for ``variant`` on UTC date ``day``."""
    return f"daily:{variant}:{day.isoformat()}"


def all_time_board(variant: str) -> str:
    """The all-time board's name for ``variant``."""
    return f"all:{variant}"


@dataclass(frozen=True, slots=True)
class LeaderboardResult:
    """A final race result offered to the boards.

    ``reach_time_ms`` and ``finished_at_ms`` are race-clock ms and Unix ms;
    ``room`` is the room's short code or id (shown, not used for order).
    """

    name: str
    variant: str
    deal_number: int
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    status: str
    room: str = ""
    finished_at_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON object with the same field names."""
        return {"name": self.name, "variant": self.variant, "deal_number": self.deal_number,
                "foundation_cards": self.foundation_cards, "reach_time_ms": self.reach_time_ms,
                "moves": self.moves, "status": self.status, "room": self.room,
                "finished_at_ms": self.finished_at_ms}


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One row of a board read: 1-based ``rank`` and the result."""

    rank: int
    result: LeaderboardResult

    def to_json(self) -> dict[str, Any]:
        """``{"rank", **result}``."""
        return {"rank": self.rank, **self.result.to_json()}


def counts_for_boards(rules: RuleSet) -> bool:
    """Whether results under ``rules`` feed the boards: the plain variant, no overrides."""
    try:
        return rules == get_variant(rules.id)
    except ValueError:
        return False


async def record_result(
    store: LeaderboardStore, rules: RuleSet, result: LeaderboardResult, day: date
) -> list[str]:
    """Offer a final result to the all-time board and, when its deal is the daily
    deal of ``day`` (UTC), to that daily board. Returns the boards where it became
    the player's best ([] when ``rules`` are not the plain variant or it is no better).

    :raises StoreUnavailable: the leaderboard store cannot be reached.
    """
    if not counts_for_boards(rules) or result.variant != rules.id:
        return []
    name = result.name.strip()[:MAX_NAME]
    if not name:
        return []
    score = encode_score(result.foundation_cards, result.reach_time_ms, result.moves)
    entry = result.to_json() | {"name": name}
    kept: list[str] = []
    board = all_time_board(rules.id)
    if await store.submit(board, json.dumps([name, result.deal_number]), score, entry):
        kept.append(board)
    if result.deal_number == daily_deal(rules.id, day):
        board = daily_board(rules.id, day)
        if await store.submit(board, name, score, entry):
            kept.append(board)
    return kept


async def leaderboard(
    store: LeaderboardStore, variant: str, kind: BoardKind, day: date | None = None,
    limit: int = 20,
) -> list[LeaderboardRow]:
    """The best ``limit`` rows (at most :data:`MAX_LIMIT`) of a board, ranked.

    ``day`` is required for ``kind="daily"``.

    :raises UnknownVariantError: unknown variant.
    :raises ValueError: daily board without a day.
    :raises StoreUnavailable: the leaderboard store cannot be reached.
    """
    get_variant(variant)
    if kind == "daily":
        if day is None:
            raise ValueError("a daily leaderboard needs a date")
        board = daily_board(variant, day)
    else:
        board = all_time_board(variant)
    entries = await store.top(board, max(1, min(limit, MAX_LIMIT)))
    rows = []
    for rank, e in enumerate(entries, 1):
        d = e.entry
        rows.append(LeaderboardRow(rank, LeaderboardResult(
            name=str(d.get("name", "")), variant=str(d.get("variant", variant)),
            deal_number=int(d.get("deal_number", 0)),
            foundation_cards=int(d.get("foundation_cards", 0)),
            reach_time_ms=d.get("reach_time_ms"), moves=int(d.get("moves", 0)),
            status=str(d.get("status", "")), room=str(d.get("room", "")),
            finished_at_ms=int(d.get("finished_at_ms", 0)))))
    return rows


async def feed_race(
    store: LeaderboardStore, room: FinishedRace, racers: Sequence[FinalResult]
) -> int:
    """Offer every final result of a finished race to the boards; returns how many
    were kept on some board.

    Skipped: unranked rooms (ghost and hint rooms), results that are not
    final, racers who left, the server's computer racers, players a
    moderator found ``assisted`` (:meth:`LeaderboardStore.bar`). The daily board is
    the one of the UTC date the room was created on when its deal is that
    date's daily deal, else of the date the race ended.

    :raises StoreUnavailable: the leaderboard store cannot be reached.
    """
    if not room.ranked:
        return 0
    rules = RuleSet.from_json(room.rules)
    day = utc_date(room.created_ms)
    if room.deal_number != daily_deal(rules.id, day) and room.ended_ms is not None:
        day = utc_date(room.ended_ms)
    kept = 0
    barred = await store.barred({r.player for r in racers if r.player})
    for racer in racers:
        if not racer.final or racer.status not in _FED_STATUSES or racer.bot:
            continue
        if racer.player is not None and racer.player in barred:
            continue  # an `assisted` verdict (docs/fair-play.md)
        result = LeaderboardResult(
            name=racer.name, variant=rules.id, deal_number=room.deal_number,
            foundation_cards=racer.foundation_cards, reach_time_ms=racer.reach_time_ms,
            moves=racer.moves, status=racer.status, room=room.code,
            finished_at_ms=room.ended_ms or 0)
        if await record_result(store, rules, result, day):
            kept += 1
    return kept


def race_over_hook(
    store: LeaderboardStore,
) -> Callable[[FinishedRace, Sequence[FinalResult]], Awaitable[None]]:
    """A race-over hook for the authority (``authority.race_over_hooks``) that feeds
    the boards; a store failure is logged, never raised into the race."""

    async def hook(room: FinishedRace, racers: Sequence[FinalResult]) -> None:
        try:
            await feed_race(store, room, racers)
        except StoreError:
            log.warning("leaderboards: results of room %s not recorded (store down)", room.id)

    return hook

