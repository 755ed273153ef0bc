"""Quick races on the real authority and memory store (a movable clock):
matchmaking through the forming-lobby pointers, the lobbies' own start (full,
``wait`` after the second racer, computer racers for a racer alone), rating
bands and their widening, stale pointers, names."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RaceConfig
from server.race.quick import CREATE_GRACE_MS
from server.race.quick_state import QuickConfig, band_of
from server.race.timers import deadline

from .helpers import ClockStore

pytestmark = pytest.mark.timeout(30)

QUICK = QuickConfig(capacity=6, wait_ms=20_000, fill_ms=30_000, bots=3, countdown_s=3,
                    band_width=5.0, widen_ms=10_000)


@pytest.fixture
async def race(store: ClockStore) -> AsyncIterator[RaceAuthority]:
    auth = RaceAuthority(store, RaceConfig(bot_think_ms=0, quick=QUICK))
    yield auth
    await auth.bots.aclose()


async def test_six_callers_land_in_one_room_that_starts_by_itself(
        race: RaceAuthority, store: ClockStore) -> None:
    seats = [await race.quick("belle-lucie", f"racer{i}") for i in range(6)]
    rooms = {room.id for room, _, _ in seats}
    assert len(rooms) == 1
    first, _, token = seats[0]
    assert first.state == "waiting" and first.capacity == 6 and first.visibility == "public"
    assert first.time_limit_ms == 600_000 and first.quick is not None
    assert first.quick.band == 0 and 29_000 <= (first.quick.bots_in_ms or 0) <= 30_000
    assert seats[1][0].quick is not None
    assert 19_000 <= (seats[1][0].quick.starts_in_ms or 0) <= 20_000
    last = seats[-1][0]
    assert last.state == "countdown" and last.quick is None  # full: started in the join
    assert len(last.racers) == 6 and len({r.id for _, r, _ in seats}) == 6
    store.advance(3_000)
    view = await race.get_room(first.id, token)
    assert view.state == "racing" and view.deal_number is not None
    # the next caller opens the next lobby
    nxt, _, _ = await race.quick("belle-lucie", "racer7")
    assert nxt.id not in rooms and nxt.state == "waiting"


async def test_two_racers_start_wait_after_the_second_joined(
        race: RaceAuthority, store: ClockStore) -> None:
    room, _, _ = await race.quick("trefoil", "ada")
    store.advance(5_000)
    await race.quick("trefoil", "bob")
    store.advance(19_000)
    assert await race.tick() == 0  # not due yet
    assert (await race.get_room(room.id)).state == "waiting"
    store.advance(1_000)
    assert await race.tick() == 1  # the sweep starts it (any process's)
    view = await race.get_room(room.id)
    assert view.state == "countdown" and [r.name for r in view.racers] == ["ada", "bob"]
    # its pointer was retired: the next caller opens a new lobby
    other, _, _ = await race.quick("trefoil", "cy")
    assert other.id != room.id


async def test_a_racer_alone_gets_bots_then_the_race_starts(
        race: RaceAuthority, store: ClockStore) -> None:
    room, ann, token = await race.quick("belle-lucie", "ann")
    store.advance(29_000)
    await race.tick()
    assert len((await race.get_room(room.id)).racers) == 1
    store.advance(1_000)
    await race.tick()
    view = await race.get_room(room.id)
    assert view.state == "countdown" and view.quick is None
    assert [r.name for r in view.racers] == ["ann", "bot-Ada", "bot-Bix", "bot-Cog"]
    assert race.bots.running == 3
    store.advance(3_000)
    assert (await race.get_room(room.id, token)).state == "racing"
    await race.resign(room.id, ann.id, token)


async def test_bots_alone_after_their_racer_left_do_not_race(
        race: RaceAuthority, store: ClockStore) -> None:
    """The racer alone leaves during the countdown their computer racers brought:
    the countdown is cancelled and nothing starts it again (the bots raced alone
    to the time limit)."""
    room, ann, token = await race.quick("belle-lucie", "ann")
    store.advance(30_000)
    await race.tick()
    assert (await race.get_room(room.id)).state == "countdown"
    await race.leave(room.id, ann.id, token)
    view = await race.get_room(room.id)
    assert view.state == "waiting" and [r.name for r in view.racers] == [
        "bot-Ada", "bot-Bix", "bot-Cog"]
    for _ in range(3):
        store.advance(10_000)
        await race.tick()
        assert (await race.get_room(room.id)).state == "waiting"
    bob, bob_token = await race.join(room.code, "bob")  # someone comes: they race
    store.advance(5_000)
    await race.tick()
    store.advance(3_000)
    view = await race.get_room(room.id, bob_token)
    assert view.state == "racing" and len(view.racers) == 4
    await race.resign(room.id, bob.id, bob_token)


async def test_bots_come_once_when_two_processes_sweep_at_once(store: ClockStore) -> None:
    a = RaceAuthority(store, RaceConfig(bot_think_ms=0, quick=QUICK))
    b = RaceAuthority(store, RaceConfig(bot_think_ms=0, quick=QUICK))
    try:
        room, _, _ = await a.quick("belle-lucie", "ann")
        store.advance(30_000)
        await asyncio.gather(a.tick(), b.tick(), a.get_room(room.id), b.get_room(room.id))
        view = await a.get_room(room.id)
        assert len(view.racers) == 4 and view.state == "countdown"
        assert a.bots.running + b.bots.running == 3
    finally:
        await a.bots.aclose()
        await b.bots.aclose()


async def test_without_bots_a_racer_alone_waits_for_people(store: ClockStore) -> None:
    race = RaceAuthority(store, RaceConfig(quick=QuickConfig(bots=0)))
    room, _, _ = await race.quick("belle-lucie", "ann")
    assert room.quick is not None and room.quick.bots_in_ms is None
    store.advance(600_000)
    await race.tick()
    assert (await race.get_room(room.id)).state == "waiting"
    same, _, _ = await race.quick("belle-lucie", "bob")
    assert same.id == room.id and same.quick is not None
    assert 19_000 <= (same.quick.starts_in_ms or 0) <= 20_000


async def test_a_leaver_leaves_the_other_alone_and_bots_come(
        race: RaceAuthority, store: ClockStore) -> None:
    room, ann, ann_token = await race.quick("belle-lucie", "ann")
    await race.quick("belle-lucie", "bob")
    store.advance(10_000)
    await race.leave(room.id, ann.id, ann_token)
    got = await store.rooms.get_room(room.id)
    assert got is not None
    from server.race.state import RoomRecord
    record = RoomRecord.model_validate(got.data)
    assert deadline(record) == record.quick.alone_ms + 30_000  # type: ignore[union-attr]
    store.advance(20_000)  # 30 s after ann came alone
    await race.tick()
    view = await race.get_room(room.id)
    assert view.state == "countdown" and view.racers[0].name == "bob"
    assert len(view.racers) == 4


async def test_rating_bands_and_their_widening(race: RaceAuthority, store: ClockStore) -> None:
    assert [band_of(r, 5.0) for r in (None, 0.0, 4.99, 5.0, 12.5, -0.1)] == [0, 0, 0, 1, 2, -1]
    anon, _, _ = await race.quick("belle-lucie", "anon")
    strong, _, _ = await race.quick("belle-lucie", "strong", "p1", 12.0)  # band 2
    assert strong.id != anon.id and strong.quick is not None and strong.quick.band == 2
    # band 1: its own band has no lobby; bands 0 and 2 have not waited 10 s yet
    mid, _, _ = await race.quick("belle-lucie", "mid", "p2", 7.0)
    assert mid.id not in (anon.id, strong.id) and mid.quick is not None
    # a new band-1 racer prefers its own band's lobby
    mid2, _, _ = await race.quick("belle-lucie", "mid2", "p3", 6.0)
    assert mid2.id == mid.id
    # band 3 after 10 s: band 2's lobby (1 band away) takes them; band 0's does not
    store.advance(10_000)
    b3, _, _ = await race.quick("belle-lucie", "b3", "p4", 16.0)
    assert b3.id == strong.id
    # band 2's lobby took a neighbour; band 0's is two bands from band 2: not yet
    store.advance(5_000)
    far, _, _ = await race.quick("belle-lucie", "far", "p5", 23.0)  # band 4
    assert far.id not in (anon.id, strong.id, mid.id)
    store.advance(5_000)  # band 0's lobby waited 20 s: band 2 may join it
    assert (await race.get_room(anon.id)).state == "waiting"
    near, _, _ = await race.quick("belle-lucie", "two", "p6", 10.0)
    assert near.id == strong.id  # its own band's lobby first
    await race.quick("belle-lucie", "x", "p7", 10.0)
    await race.quick("belle-lucie", "y", "p8", 10.0)
    await race.quick("belle-lucie", "z", "p9", 10.0)  # band 2's lobby is full now
    assert (await race.get_room(strong.id)).state == "countdown"
    # band 1's lobby (two racers since 0 s) starts at 20 s; band 0's has waited
    # 20 s: two bands away is near enough now
    two_away, _, _ = await race.quick("belle-lucie", "w", "p10", 10.0)
    assert two_away.id == anon.id
    assert (await race.get_room(mid.id)).state == "countdown"


async def test_names_and_players_in_one_lobby(race: RaceAuthority) -> None:
    room, first, _ = await race.quick("belle-lucie", "Ada")
    _, second, _ = await race.quick("belle-lucie", "ada")
    assert (first.name, second.name) == ("Ada", "ada 2")
    long = "x" * 24
    await race.quick("belle-lucie", long)
    _, numbered, _ = await race.quick("belle-lucie", long)
    assert numbered.name == "x" * 22 + " 2"
    await race.quick("belle-lucie", "Grace", "pG", 1.0)
    with pytest.raises(err.RacerNameTaken):  # the player waits in that lobby already
        await race.quick("belle-lucie", "Grace", "pG", 1.0)
    with pytest.raises(err.RequestInvalid):
        await race.quick("no-such-variant", "Ada")
    with pytest.raises(err.RequestInvalid):
        await race.quick("belle-lucie", "\x00")
    assert len((await race.get_room(room.id)).racers) == 5


async def test_a_vanished_or_started_lobby_is_retired(
        race: RaceAuthority, store: ClockStore) -> None:
    room, _, _ = await race.quick("belle-lucie", "ann")
    await store.rooms.expire_room(room.id, 0)  # gone (expired, say)
    store.advance(CREATE_GRACE_MS)
    again, bob, bob_token = await race.quick("belle-lucie", "bob")
    assert again.id != room.id and len(again.racers) == 1
    # a lobby started by its racers (every one ready) takes nobody more: the
    # next caller's seat there is refused, the pointer retired, a new lobby opens
    _, cy, cy_token = await race.quick("belle-lucie", "cy")
    await race.set_ready(again.id, bob.id, bob_token, True)
    await race.set_ready(again.id, cy.id, cy_token, True)
    assert (await race.get_room(again.id)).state == "countdown"
    third, _, _ = await race.quick("belle-lucie", "dee")
    assert third.id not in (room.id, again.id) and len(third.racers) == 1


async def test_two_hundred_callers_at_once_fill_lobbies_one_after_another(
        store: ClockStore) -> None:
    a = RaceAuthority(store, RaceConfig(quick=QUICK))
    b = RaceAuthority(store, RaceConfig(quick=QUICK))
    seats = await asyncio.gather(*((a if i % 2 else b).quick("belle-lucie", f"r{i}")
                                   for i in range(200)))
    by_room: dict[str, set[str]] = {}
    for room, racer, _ in seats:
        by_room.setdefault(room.id, set()).add(racer.id)
    assert len(by_room) == 34
    views = {rid: await a.get_room(rid) for rid in by_room}
    assert sorted(len(v.racers) for v in views.values()) == [2] + [6] * 33
    assert sum(len(v.racers) for v in views.values()) == 200
    for rid, view in views.items():
        assert {r.id for r in view.racers} == by_room[rid]
        assert view.state == ("waiting" if len(view.racers) == 2 else "countdown")


async def test_a_rematch_of_a_quick_race_is_a_plain_room(
        race: RaceAuthority, store: ClockStore) -> None:
    room, ann, ann_token = await race.quick("belle-lucie", "ann")
    _, bob, bob_token = await race.quick("belle-lucie", "bob")
    store.advance(20_000)
    await race.tick()
    store.advance(3_000)
    await race.resign(room.id, ann.id, ann_token)
    await race.resign(room.id, bob.id, bob_token)
    assert (await race.get_room(room.id)).state == "over"
    again = await race.rematch(room.id, ann_token)
    assert again.room.quick is None and again.host_token is not None
    store.advance(60_000)  # no lobby deadline: it waits for its host
    await race.tick()
    assert (await race.get_room(again.room.id)).state == "waiting"
