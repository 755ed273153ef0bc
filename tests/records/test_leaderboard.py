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


async def test_an_assisted_players_results_leave_the_boards_and_stay_off() -> None:
    from dataclasses import dataclass
    from datetime import UTC, datetime

    from server.records.board_upkeep import forget_player_results
    from server.records.leaderboard import feed_race

    store = MemoryLeaderboardStore()
    await record_result(store, RULES, _result("cheat", 52, 1_000, 60), DAY)
    await record_result(store, RULES, _result("cheat", 45, 1_000, 60, deal_number=7), DAY)
    await record_result(store, RULES, _result("ada", 40, 5_000, 80), DAY)
    noon = int(datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp() * 1000)
    removed = await forget_player_results(store, "p-cheat", [
        {"variant": "belle-lucie", "deal_number": DAILY, "name": "cheat", "created_ms": noon,
         "ended_at_ms": noon + 60_000}])
    assert removed == 2  # the all-time best on that deal and the day's best
    assert [r.result.name for r in await leaderboard(store, "belle-lucie", "daily", DAY)] \
        == ["ada"]
    all_time = await leaderboard(store, "belle-lucie", "all-time")
    assert [(r.result.name, r.result.deal_number) for r in all_time] == [
        ("cheat", 7), ("ada", DAILY)]  # a deal outside the verdict's races stays

    @dataclass
    class Room:
        id: str = "r1"
        code: str = "AAAAAA"
        rules: dict[str, object] | None = None
        deal_number: int = 99
        ranked: bool = True
        created_ms: int = noon
        ended_ms: int | None = noon + 1

    @dataclass
    class Racer:
        name: str
        player: str | None
        final: bool = True
        status: str = "won"
        foundation_cards: int = 52
        reach_time_ms: int | None = 100
        moves: int = 70
        bot: bool = False

    room = Room(rules=RULES.to_json())
    kept = await feed_race(store, room, [Racer("cheat", "p-cheat"), Racer("ada", "p-ada")])
    assert kept == 1  # barred from now on
    top = (await leaderboard(store, "belle-lucie", "all-time"))[0]
    assert (top.result.name, top.result.deal_number) == ("ada", 99)
