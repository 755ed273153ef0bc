"""The boards' upkeep beyond feeding them: a moderator's ``assisted`` verdict
takes a player's results off (and bars them), and the embedded boards, which
live in memory, are fed again from the archive at start (issues 32 and 33).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from server.errors import ArchiveUnavailable, StoreError
from server.rules.daily import utc_date

from .leaderboard import MAX_NAME, all_time_board, daily_board, feed_race
from .leaderboard_store import LeaderboardStore

__all__ = ["BoardArchive", "forget_player_results", "rebuild_boards", "rebuild_from_archive"]

log = logging.getLogger("server.records.leaderboard")


async def forget_player_results(store: LeaderboardStore, player_id: str,
                                races: Sequence[dict[str, Any]]) -> int:
    """A moderator's ``assisted`` verdict (docs/fair-play.md): take the player's
    results of ``races`` (``{"variant", "deal_number", "name", "created_ms",
    "ended_at_ms"}``) off the boards — their best on each of those deals, and
    on the daily boards of those days — then bar the player from the boards.
    Returns how many entries went.

    :raises StoreUnavailable: the leaderboard store cannot be reached.
    """
    removed = 0
    for race in races:
        name = str(race["name"]).strip()[:MAX_NAME]
        variant = str(race["variant"])
        member = json.dumps([name, int(race["deal_number"])])
        removed += await store.remove(all_time_board(variant), member)
        for ms in {int(race.get("created_ms") or 0), int(race.get("ended_at_ms") or 0)} - {0}:
            removed += await store.remove(daily_board(variant, utc_date(ms)), name)
    await store.bar(player_id)
    return removed


@dataclass(frozen=True, slots=True)
class _ArchivedRoom:
    id: str
    code: str
    rules: dict[str, Any]
    deal_number: int
    ranked: bool
    created_ms: int
    ended_ms: int | None


@dataclass(frozen=True, slots=True)
class _ArchivedResult:
    name: str
    final: bool
    status: str
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    bot: bool
    player: str | None


async def rebuild_boards(store: LeaderboardStore, races: Sequence[dict[str, Any]],
                         barred: set[str]) -> int:
    """Feed the boards again from archived races (in the order they ended, as
    they were fed live): the embedded boards live in memory and would be empty
    after a restart while the archive keeps the races (issue 33). ``races``:
    ``server.archive``'s ``board_results`` documents; ``barred``: players off
    the boards (an ``assisted`` verdict). Returns the results kept.

    :raises StoreUnavailable: the leaderboard store cannot be reached.
    """
    for player_id in sorted(barred):
        await store.bar(player_id)
    kept = 0
    for race in races:
        room = race["room"]
        try:
            finished = _ArchivedRoom(
                id=str(room["id"]), code=str(room["code"]), rules=dict(room["rules"]),
                deal_number=int(room["deal_number"]), ranked=bool(room["ranked"]),
                created_ms=int(room.get("created_ms") or 0),
                ended_ms=None if room.get("ended_ms") is None else int(room["ended_ms"]))
            results = [_ArchivedResult(**r) for r in race["racers"]]
            kept += await feed_race(store, finished, results)
        except (KeyError, TypeError, ValueError) as exc:  # a race the boards cannot read
            log.warning("leaderboards: archived race %s skipped (%s)", room.get("id"),
                        type(exc).__name__)
    return kept


class BoardArchive(Protocol):
    """Where the boards' results are kept for good (``server.archive.ArchiveDb``)."""

    async def board_results(self) -> tuple[list[dict[str, Any]], set[str]]: ...


async def rebuild_from_archive(store: LeaderboardStore, archive: BoardArchive) -> None:
    """:func:`rebuild_boards` from ``archive`` (the embedded boards live in memory);
    an archive or store that does not answer is logged, never raised (the
    server starts; the boards fill from new races)."""
    started = time.perf_counter()
    try:
        races, barred = await archive.board_results()
        kept = await rebuild_boards(store, races, barred)
    except (ArchiveUnavailable, StoreError) as exc:
        log.warning("leaderboards not rebuilt from the archive: %s", exc.code)
        return
    if races:
        log.info("leaderboards rebuilt from %d archived races (%d results) in %.2f s",
                 len(races), kept, time.perf_counter() - started)
