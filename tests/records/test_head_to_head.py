"""Head-to-head over the real authority: racers in one room and across rooms, and the
leaderboard feed at the end of a race."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from server.errors import StoreUnavailable
from server.race import RaceAuthority, RoomOptions
from server.race.errors import RacerNotFound
from server.records.head_to_head import (
    CompareDifferentDeal,
    RacerRef,
    ReplayForgedError,
    ReplayInvalidError,
    check_replay,
    compare_sources,
)
from server.records.leaderboard import leaderboard, race_over_hook
from server.records.leaderboard_memory import MemoryLeaderboardStore
from server.records.replay_file import export_replay
from server.rules.daily import daily_deal, utc_date
from server.store.memory import MemoryStore
from tests.race.helpers import ClockStore, MovableClock

from .games import record


class FrozenClock(MovableClock):
    """A clock that moves only by ``advance`` (exact race times)."""

    def now(self) -> int:
        if not hasattr(self, "frozen_ms"):
            self.frozen_ms = super().now()
        return self.frozen_ms + self.skew_ms


class FrozenClockStore(ClockStore):
    """The memory store on a :class:`FrozenClock`."""

    def __init__(self) -> None:
        super().__init__(FrozenClock())


async def _race(authority: RaceAuthority, store: ClockStore, plans: dict[str, list[str]],
                deal: int | str = 2, step_ms: int = 1000) -> tuple[str, dict[str, str]]:
    """A room on ``deal`` where each named racer plays its plan, one move per
    ``step_ms`` in turn, then resigns."""
    room, host = await authority.create_room(RoomOptions(deal=deal, countdown_s=0))  # type: ignore[arg-type]
    ids: dict[str, str] = {}
    tokens: dict[str, str] = {}
    for name in plans:
        racer, token = await authority.join(room.code, name)
        ids[name], tokens[name] = racer.id, token
    await authority.start(room.code, host)
    for i in range(max(len(p) for p in plans.values())):
        for name, plan in plans.items():
            if i < len(plan):
                store.advance(step_ms)
                await authority.move(room.code, ids[name], tokens[name], plan[i], i, f"{name}{i}")
    for name in plans:
        await authority.resign(room.code, ids[name], tokens[name])
    return room.code, ids


async def test_two_racers_in_one_room() -> None:
    store = FrozenClockStore()
    authority = RaceAuthority(store)
    code, ids = await _race(authority, store, {"ada": ["8f", "15f"], "bob": ["15f", "2-3"]})
    c = await compare_sources(authority, RacerRef(code, "ada"), RacerRef(code, ids["bob"]))
    assert (c.a.name, c.b.name) == ("ada", "bob")
    assert (c.divergence.move_index, c.divergence.a_move, c.divergence.b_move) == (1, "8f", "15f")
    assert [s.foundation_cards for s in c.a.steps] == [1, 2]
    assert [s.foundation_cards for s in c.b.steps] == [1, 1]
    a_times = [s.race_clock_ms for s in c.a.steps]
    assert a_times == [1000, 3000]  # one move each, in turn, a second apart
    assert (c.verdict.winner, c.verdict.decided_by) == ("a", "foundation_cards")
    assert c.lead.a_ms > 0 and c.lead.b_ms == 0


async def test_across_rooms_join_order_does_not_count() -> None:
    store = FrozenClockStore()
    authority = RaceAuthority(store)
    code1, _ = await _race(authority, store, {"ada": ["8f"]})
    code2, _ = await _race(authority, store, {"bob": ["8f"]})
    c = await compare_sources(authority, RacerRef(code1, "ada"), RacerRef(code2, "bob"))
    assert c.verdict.decided_by == "tie" and c.a.join_order is None
    code3, _ = await _race(authority, store, {"cy": ["11f"]}, deal=3)
    with pytest.raises(CompareDifferentDeal) as exc:
        await compare_sources(authority, RacerRef(code1, "ada"), RacerRef(code3, "cy"))
    assert exc.value.status == 409
    with pytest.raises(RacerNotFound):
        await compare_sources(authority, RacerRef(code1, "zed"), RacerRef(code1, "ada"))


async def test_live_racer_against_an_imported_replay() -> None:
    store = FrozenClockStore()
    authority = RaceAuthority(store)
    code, _ = await _race(authority, store, {"ada": ["8f", "15f"]})
    rep = (await authority.replay(code, (await authority.get_room(code)).racers[0].id))
    imported = check_replay(rep.model_dump(mode="json"))
    c = await compare_sources(authority, RacerRef(code, "ada"), imported)
    assert c.divergence.move_index is None and c.verdict.decided_by == "tie"


def test_check_replay_codes() -> None:
    doc = export_replay(record([("8f", 10)]))
    with pytest.raises(ReplayInvalidError) as invalid:
        check_replay({**doc, "redeal_key": "nothex"})
    assert (invalid.value.code, invalid.value.status) == ("replay/invalid", 400)
    doc["result"]["foundation_cards"] = 52
    with pytest.raises(ReplayForgedError) as forged:
        check_replay(doc)
    assert (forged.value.code, forged.value.status) == ("replay/forged", 422)
    assert forged.value.to_json()["details"]["field"] == "result.foundation_cards"


async def test_finished_races_feed_the_leaderboards() -> None:
    store = FrozenClockStore()
    authority = RaceAuthority(store)
    boards = MemoryLeaderboardStore()
    authority.race_over_hooks.append(race_over_hook(boards))
    today = utc_date(await store.clock.now_ms())
    await _race(authority, store, {"ada": ["r"], "bob": []}, deal="daily")
    rows = await leaderboard(boards, "belle-lucie", "daily", today)
    # no card for either; bob made fewer moves
    assert [(r.rank, r.result.name, r.result.moves) for r in rows] == [(1, "bob", 0),
                                                                        (2, "ada", 1)]
    assert {r.result.deal_number for r in rows} == {daily_deal("belle-lucie", today)}
    assert len(await leaderboard(boards, "belle-lucie", "all-time")) == 2
    assert await leaderboard(boards, "belle-lucie", "daily", date(2000, 1, 1)) == []


async def test_unranked_rooms_do_not_feed() -> None:
    store = MemoryStore()
    authority = RaceAuthority(store)
    boards = MemoryLeaderboardStore()
    authority.race_over_hooks.append(race_over_hook(boards))
    room, host = await authority.create_room(RoomOptions(deal=2, countdown_s=0, ranked=False))
    racer, token = await authority.join(room.code, "ada")
    await authority.start(room.code, host)
    await authority.resign(room.code, racer.id, token)
    assert (await authority.standings(room.code)).final
    assert await leaderboard(boards, "belle-lucie", "all-time") == []


async def test_hint_rooms_and_the_servers_bots_do_not_feed() -> None:
    store = MemoryStore()
    authority = RaceAuthority(store)
    boards = MemoryLeaderboardStore()
    authority.race_over_hooks.append(race_over_hook(boards))
    room, host = await authority.create_room(RoomOptions(deal=2, countdown_s=0, hints=True))
    racer, token = await authority.join(room.code, "ada")
    await authority.start(room.code, host)
    await authority.resign(room.code, racer.id, token)
    assert await leaderboard(boards, "belle-lucie", "all-time") == []
    room, host = await authority.create_room(RoomOptions(deal=2, countdown_s=0))
    bot, bot_token = await authority.join(room.code, "bot-Ada", bot=True)
    racer, token = await authority.join(room.code, "ada")
    assert bot.bot and not racer.bot
    await authority.start(room.code, host)
    for rid, tok in ((racer.id, token), (bot.id, bot_token)):
        await authority.resign(room.code, rid, tok)
    rows = await leaderboard(boards, "belle-lucie", "all-time")
    assert [r.result.name for r in rows] == ["ada"]


class _DownBoards(MemoryLeaderboardStore):
    async def submit(self, board: str, member: str, score: int, entry: dict[str, Any]) -> bool:
        raise StoreUnavailable("redis: connection refused")


async def test_a_leaderboard_store_failure_does_not_break_the_race() -> None:
    store = MemoryStore()
    authority = RaceAuthority(store)
    authority.race_over_hooks.append(race_over_hook(_DownBoards()))
    room, host = await authority.create_room(RoomOptions(deal=2, countdown_s=0))
    racer, token = await authority.join(room.code, "ada")
    await authority.start(room.code, host)
    await authority.resign(room.code, racer.id, token)
    assert (await authority.standings(room.code)).final
