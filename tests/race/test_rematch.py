"""Rematch (issue 21, item 2) over the real memory store: the first offer makes
the next room, later offers take seats in it, concurrent offers make exactly one,
refusals (409 before the end, 401/403 for non-racers), the chain's links."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis.asyncio as aioredis

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.race.rematch import host_token_for
from server.store.redis import RedisStore

from .helpers import ClockStore


async def finished(race: RaceAuthority, names: list[str],
                   **opts: object) -> tuple[str, str, list[tuple[str, str]]]:
    """A room whose race is over (every racer resigned): id, host token, (racer, token)s."""
    options = RoomOptions(**{"deal": 7, "countdown_s": 0, **opts})  # type: ignore[arg-type]
    room, host = await race.create_room(options)
    racers = [await race.join(room.id, n) for n in names]
    await race.start(room.id, host)
    if isinstance(race.store, ClockStore):
        race.store.advance(room.countdown_ms)
    for r, token in racers:
        await race.resign(room.id, r.id, token)
    assert (await race.get_room(room.id)).state == "over"
    return room.id, host, [(r.id, t) for r, t in racers]


async def test_the_first_offer_makes_the_room_and_later_ones_join(
        race: RaceAuthority, store: ClockStore) -> None:
    old, old_host, [(ada, ada_t), (bob, bob_t), _] = await finished(
        race, ["Ada", "Bob", "Cy"], capacity=5, time_limit_s=300, visibility="private",
        hints=True, countdown_s=4, spectator_delay_s=30)
    first = await race.rematch(old, bob_t)
    new = first.room
    # bob's seat: same racer id and token, the host of the new room (a derived token)
    assert first.racer.id == bob and first.token == bob_t and first.racer.join_order == 1
    assert first.host_token == host_token_for(bob_t, new.id) != bob_t
    assert new.state == "waiting" and [r.id for r in new.racers] == [bob]
    assert new.rematch_of is not None and new.rematch_of.room == old and new.rematch is None
    assert new.deal_number is not None and new.deal_number != 7  # a new random deal
    # same rules and options
    before = await race.get_room(old)
    assert (new.rules, new.capacity, new.time_limit_ms, new.visibility, new.countdown_ms,
            new.hints, new.spectator_delay_ms) == (
        before.rules, 5, 300_000, "private", 4_000, True, 30_000)
    # the old room links to it, in its view and in a rematch event
    assert before.rematch is not None and (before.rematch.room, before.rematch.code) == (
        new.id, new.code)
    events = await store.events.events_since(old, 0)
    assert events[-1]["type"] == "rematch" and events[-1]["rematch"] == {
        "room": new.id, "code": new.code} and events[-1]["series"] is None
    # a later offer takes a seat, a repeated one answers alike
    second = await race.rematch(before.code, ada_t)
    assert second.room.id == new.id and second.racer.id == ada and second.token == ada_t
    assert second.host_token is None and second.racer.join_order == 2
    again = await race.rematch(old, bob_t)
    assert again.room.id == new.id and again.host_token == first.host_token
    assert again.racer == first.racer
    assert [r.id for r in (await race.get_room(new.id)).racers] == [bob, ada]
    # the racers act in the new room with their old tokens, the creator hosts it
    await race.set_ready(new.id, ada, ada_t, True)
    with pytest.raises(err.AuthInvalidToken):
        await race.start(new.id, old_host)  # the old host token is not this room's
    started = await race.start(new.id, first.host_token)
    assert started.state == "countdown"
    kinds = [e["type"] for e in await store.events.events_since(new.id, 0)]
    assert kinds[:3] == ["created", "joined", "joined"]


async def test_a_latecomer_after_the_start_is_refused(race: RaceAuthority) -> None:
    old, _, [(_, a_t), (_, b_t)] = await finished(race, ["Ada", "Bob"])
    made = await race.rematch(old, a_t)
    assert made.host_token is not None
    await race.start(made.room.id, made.host_token)
    with pytest.raises(err.RoomNotWaiting):
        await race.rematch(old, b_t)
    assert (await race.rematch(old, a_t)).room.id == made.room.id  # still hers


async def test_refusals(race: RaceAuthority, store: ClockStore) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    racer, token = await race.join(room.id, "Ada")
    with pytest.raises(err.RoomNotOver):
        await race.rematch(room.id, token)  # waiting
    await race.start(room.id, host)
    with pytest.raises(err.RoomNotOver):
        await race.rematch(room.code, token)  # racing
    with pytest.raises(err.AuthMissing):
        await race.rematch(room.id, None)
    await race.resign(room.id, racer.id, token)
    for bad in (host, "x" * 32):  # the host (not a racer here), a stranger
        with pytest.raises(err.AuthInvalidToken):
            await race.rematch(room.id, bad)
    with pytest.raises(err.RoomNotFound):
        await race.rematch("NOROOM", token)
    closed, closer = await race.create_room(RoomOptions())
    _, c_token = await race.join(closed.id, "Bob")
    await race.close(closed.id, closer)
    with pytest.raises(err.RoomNotOver):  # closed before its start: there was no race
        await race.rematch(closed.id, c_token)
    # nothing was made by any refusal
    assert (await race.get_room(room.id)).rematch is None
    assert len(await store.rooms.room_ids()) == 2


async def test_a_race_closed_by_its_host_may_be_rematched(race: RaceAuthority) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    _, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await race.close(room.id, host)
    made = await race.rematch(room.id, token)
    assert made.room.rematch_of is not None and made.room.rematch_of.room == room.id


async def test_concurrent_offers_make_exactly_one_room(
        race: RaceAuthority, store: ClockStore, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [f"r{i}" for i in range(8)]
    old, _, racers = await finished(race, names, visibility="public", capacity=9)
    before = set(await store.rooms.room_ids())
    # the memory store never suspends: make every store call yield first, so that
    # the offers interleave as they do on Redis (each reads the old room unlinked)
    made: list[str] = []
    for part, names_ in ((store.rooms, ("get_room", "save_room", "claim_code")),):
        for name in names_:
            method = getattr(part, name)

            async def yielding(*args: object, _m: object = method, _n: str = name,
                               **kwargs: object) -> object:
                await asyncio.sleep(0)
                if _n == "save_room" and args[2] == 0:
                    made.append(str(args[0]))
                return await _m(*args, **kwargs)  # type: ignore[operator]

            monkeypatch.setattr(part, name, yielding)
    answers = await asyncio.gather(*(race.rematch(old, t) for _, t in racers))
    assert len(made) == 8  # every offer made a room: they all raced for the link
    rooms = {a.room.id for a in answers}
    assert len(rooms) == 1
    (new,) = rooms
    assert set(await store.rooms.room_ids()) - before == {new}  # the losers' rooms are gone
    view = await race.get_room(new)
    assert sorted(r.id for r in view.racers) == sorted(r for r, _ in racers)
    assert sorted(r.join_order for r in view.racers) == list(range(1, 9))
    assert [a.host_token is not None for a in answers].count(True) == 1
    events = await store.events.events_since(old, 0)
    assert [e["type"] for e in events].count("rematch") == 1
    assert [r.id for r in await race.list_rooms()] == [new]  # the winner's is listed
    assert set(await store.indexes.lobby_room_ids()) == {new}


async def test_the_chain_is_walkable_both_ways(race: RaceAuthority) -> None:
    first, _, [(_, token)] = await finished(race, ["Ada"])
    chain = [first]
    for _ in range(3):
        made = await race.rematch(chain[-1], token)
        assert made.host_token is not None
        await race.start(made.room.id, made.host_token)
        await race.resign(made.room.id, made.racer.id, token)
        chain.append(made.room.id)
    # forward from the first room
    walked, ref = [], first
    while ref is not None:
        walked.append(ref)
        view = await race.get_room(ref)
        ref = view.rematch.room if view.rematch else None
    assert walked == chain
    # backward from the last one
    walked, ref = [], chain[-1]
    while ref is not None:
        walked.append(ref)
        view = await race.get_room(ref)
        ref = view.rematch_of.room if view.rematch_of else None
    assert walked == chain[::-1]


async def test_a_stranger_may_take_a_seat_in_a_public_rematch_first(
        race: RaceAuthority) -> None:
    """The rematch room is an ordinary room: seats are not reserved."""
    old, _, [(_, a_t), (_, b_t)] = await finished(race, ["Ada", "Bob"], capacity=2)
    made = await race.rematch(old, a_t)
    await race.join(made.room.id, "bob")  # a stranger takes the name and the last seat
    with pytest.raises(err.RoomFull):
        await race.rematch(old, b_t)


@pytest.mark.redis
async def test_concurrent_offers_on_two_authorities_over_redis() -> None:
    """Two authorities, each with its own Redis connection (as two processes), and
    every racer offering at once, half on each: one next room, everyone in it."""
    prefix = f"test:{secrets.token_hex(6)}:"
    url = f"redis://127.0.0.1:6379/0?prefix={prefix}"
    stores = [RedisStore.from_url(url), RedisStore.from_url(url)]
    try:
        one, two = (RaceAuthority(s) for s in stores)
        kept: set[str] = set()
        for attempt in range(3):  # three rooms, three rounds of racing offers
            old, _, racers = await finished(one, [f"r{i}" for i in range(8)],
                                            visibility="public")
            answers = await asyncio.gather(*(
                (one if i % 2 else two).rematch(old, t) for i, (_, t) in enumerate(racers)))
            assert len({a.room.id for a in answers}) == 1, attempt
            new = answers[0].room.id
            view = await two.get_room(new)
            assert sorted(r.id for r in view.racers) == sorted(r for r, _ in racers)
            assert [a.host_token is not None for a in answers].count(True) == 1
            linked = await one.get_room(old)
            assert linked.rematch is not None and linked.rematch.room == new
            kinds = [e["type"] for e in await stores[0].events.events_since(old, 0)]
            assert kinds.count("rematch") == 1
            # the rooms that lost the link are gone, codes and all
            kept |= {old, new}
            ids = set(await stores[0].rooms.room_ids())
            assert kept <= ids
            assert [i for i in ids - kept if await stores[1].rooms.get_room(i)] == []
    finally:
        for s in stores:
            await s.close()
        client = aioredis.Redis.from_url("redis://127.0.0.1:6379/0")
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
        await client.aclose()
