"""Daily and all-time boards: who goes on which board, and in which order."""

from __future__ import annotations

from datetime import date

import pytest

from server.records.leaderboard import (
    LeaderboardResult,
    all_time_board,
    counts_for_boards,
    daily_board,
    leaderboard,
    record_result,
)
from server.records.leaderboard_memory import MemoryLeaderboardStore
from server.rules import get_variant
from server.rules.daily import daily_deal

DAY = date(2026, 11, 30)
RULES = get_variant("belle-lucie")
DAILY = daily_deal("belle-lucie", DAY)


def _result(name: str, cards: int, reach: int | None, moves: int,
            deal_number: int = DAILY) -> LeaderboardResult:
    return LeaderboardResult(name, "belle-lucie", deal_number, cards, reach, moves, "won")


async def test_daily_result_goes_on_both_boards() -> None:
    store = MemoryLeaderboardStore()
    kept = await record_result(store, RULES, _result("ada", 52, 90_000, 120), DAY)
    assert kept == [all_time_board("belle-lucie"), daily_board("belle-lucie", DAY)]
    other_day = await record_result(store, RULES, _result("bob", 52, 1, 1, 7), DAY)
    assert other_day == [all_time_board("belle-lucie")]


async def test_daily_order_and_ties() -> None:
    store = MemoryLeaderboardStore()
    for r in (_result("slow", 52, 95_000, 100), _result("cards", 40, 10_000, 80),
              _result("fast", 52, 80_000, 130), _result("lean", 52, 80_000, 110),
              _result("tie1", 40, 10_000, 80)):
        await record_result(store, RULES, r, DAY)
    # a worse second try is not kept; a better one replaces the first
    assert await record_result(store, RULES, _result("slow", 51, 1, 1), DAY) == []
    rows = await leaderboard(store, "belle-lucie", "daily", DAY)
    assert [(r.rank, r.result.name) for r in rows] == [
        (1, "lean"), (2, "fast"), (3, "slow"), (4, "cards"), (5, "tie1")]
    assert rows[0].to_json() == {"rank": 1, **_result("lean", 52, 80_000, 110).to_json()}
    assert await leaderboard(store, "belle-lucie", "daily", date(2026, 12, 1)) == []


async def test_all_time_is_best_per_name_and_deal() -> None:
    store = MemoryLeaderboardStore()
    await record_result(store, RULES, _result("ada", 30, 5_000, 50, deal_number=7), DAY)
    await record_result(store, RULES, _result("ada", 31, 9_000, 50, deal_number=7), DAY)
    await record_result(store, RULES, _result("ada", 20, 5_000, 50, deal_number=8), DAY)
    rows = await leaderboard(store, "belle-lucie", "all-time")
    assert [(r.result.name, r.result.deal_number, r.result.foundation_cards)
            for r in rows] == [("ada", 7, 31), ("ada", 8, 20)]
    assert len(await leaderboard(store, "belle-lucie", "all-time", limit=1)) == 1


async def test_overridden_rules_and_blank_names_feed_no_board() -> None:
    store = MemoryLeaderboardStore()
    easy = RULES.with_overrides(redeals=5)
    assert not counts_for_boards(easy) and counts_for_boards(RULES)
    assert await record_result(store, easy, _result("ada", 52, 1, 1), DAY) == []
    assert await record_result(store, RULES, _result("  ", 52, 1, 1), DAY) == []
    assert await leaderboard(store, "belle-lucie", "all-time") == []


async def test_bad_queries_refused() -> None:
    store = MemoryLeaderboardStore()
    with pytest.raises(ValueError, match="date"):
        await leaderboard(store, "belle-lucie", "daily")
    with pytest.raises(ValueError, match="unknown variant"):
        await leaderboard(store, "chess", "all-time")
