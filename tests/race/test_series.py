"""Series of races (issue 21, item 3) over the real memory store: the next race's
room made when one ends (racers seated, countdown running), racers who leave
scoring 0 after, the table's rule (cards, then time, ties share a rank),
early ends, and the table's lazy repair of a missing next room."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis.asyncio as aioredis

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.race.series import series_table
from server.race.views import RacerView, SeriesView
from server.store.redis import RedisStore

from .helpers import ClockStore, pick_move


def _view(rid: str, order: int, cards: int, reach: int | None,
          status: str = "resigned") -> RacerView:
    return RacerView(id=rid, name=rid.upper(), join_order=order, ready=False, status=status,
                     foundation_cards=cards, moves=1, redeals_used=0, merci_used=False,
                     reach_time_ms=reach, finished_ms=0, final=True)  # type: ignore[arg-type]


def test_the_table_rule() -> None:
    first = [_view("a", 1, 0, None), _view("b", 2, 0, None), _view("c", 3, 0, None),
             _view("d", 4, 0, None)]
    races = [
        [_view("a", 1, 10, 5_000), _view("b", 2, 12, 9_000), _view("c", 3, 10, 4_000),
         _view("d", 4, 3, None, "left")],
        [_view("a", 1, 8, 7_000), _view("b", 2, 6, 1_000), _view("c", 3, 8, 8_000)],
        None,  # not over yet
    ]
    table = series_table(first, races)
    by = {r.racer: r for r in table}
    assert (by["a"].foundation_cards, by["a"].time_ms) == (18, 12_000)
    assert (by["b"].foundation_cards, by["b"].time_ms) == (18, 10_000)
    assert (by["c"].foundation_cards, by["c"].time_ms) == (18, 12_000)
    assert (by["d"].foundation_cards, by["d"].time_ms) == (3, 0)  # null reach time counts 0
    # more cards first, then less time; a and c tie on both: one rank, join order
    assert [(r.rank, r.racer) for r in table] == [(1, "b"), (2, "a"), (2, "c"), (4, "d")]
    assert by["d"].left and not by["a"].left
    assert by["d"].races[1] is not None and by["d"].races[1].status == "absent"
    assert by["d"].races[1].foundation_cards == 0 and by["a"].races[2] is None


async def _play_and_resign(race: RaceAuthority, room: str, racers: list[tuple[str, str]],
                           moves: dict[str, int], *, leave: str | None = None) -> None:
    rules = (await race.get_room(room)).rules.model_dump()
    for racer, token in racers:
        if racer == leave:
            await race.leave(room, racer, token)
            continue
        for i in range(moves.get(racer, 0)):
            game = (await race.game(room, racer, token)).model_dump(mode="json")
            move = pick_move(rules, game)
            if move is None or game["final"]:
                break
            await race.move(room, racer, token, move, game["version"], f"{room}-{i}")
        view = await race.get_room(room)
        if not next(r for r in view.racers if r.id == racer).final:
            await race.resign(room, racer, token)


async def _next(race: RaceAuthority, store: ClockStore, room: str) -> str:
    """The series' next room, made by the race-over hook (in the background)."""
    await race.rematches.idle()
    view = await race.get_room(room)
    assert view.rematch is not None
    store.advance(1)  # its countdown (break 0 + countdown 0) is over
    assert (await race.get_room(view.rematch.room)).state == "racing"
    return view.rematch.room


def _expected(rooms: list[list[RacerView]], ids: list[str]) -> list[tuple[int, str, int, int]]:
    """The rule of docs/protocol.md, "Series", computed here independently."""
    totals = {}
    for rid in ids:
        cards = time = 0
        for views in rooms:
            mine = next((v for v in views if v.id == rid), None)
            if mine is not None:
                cards += mine.foundation_cards
                time += mine.reach_time_ms or 0
        totals[rid] = (cards, time)
    order = sorted(ids, key=lambda r: (-totals[r][0], totals[r][1], ids.index(r)))
    out = []
    for i, rid in enumerate(order):
        rank = out[-1][0] if out and totals[out[-1][1]] == totals[rid] else i + 1
        out.append((rank, rid, *totals[rid]))
    return out


async def test_a_three_race_series_to_the_end(race: RaceAuthority, store: ClockStore) -> None:
    created, host = await race.create_room(RoomOptions(
        deal=7, countdown_s=0, capacity=4, time_limit_s=600, visibility="public",
        series_races=3, series_break_s=0))
    assert created.series is not None and (created.series.id, created.series.race,
                                           created.series.races) == (created.id, 1, 3)
    joined = [await race.join(created.id, n) for n in ("Ada", "Bob", "Cy")]
    racers = [(r.id, t) for r, t in joined]
    ids = [r for r, _ in racers]
    await race.start(created.id, host)
    await _play_and_resign(race, created.id, racers, {ids[0]: 6, ids[1]: 3, ids[2]: 9})
    second = await _next(race, store, created.id)
    view = await race.get_room(second)
    assert view.series is not None and (view.series.id, view.series.race) == (created.id, 2)
    assert [r.id for r in view.racers] == ids and view.rematch_of is not None
    assert (view.rules, view.capacity, view.time_limit_ms) == (
        created.rules, 4, 600_000)
    events = await store.events.events_since(created.id, 0)
    assert events[-1]["type"] == "rematch" and events[-1]["series"] == {
        "id": created.id, "race": 2, "races": 3}
    # the same tokens act in the next room; the host's token hosts it too
    mid = await race.series(second)
    assert mid.state == "running" and mid.played == 1 and not mid.final
    assert [(x.race, x.room) for x in mid.rooms] == [(1, created.id), (2, second), (3, None)]
    # race 2: Cy leaves during it (scores what he had, then 0)
    await _play_and_resign(race, second, racers, {ids[0]: 2, ids[1]: 8}, leave=ids[2])
    third = await _next(race, store, second)
    assert [r.id for r in (await race.get_room(third)).racers] == ids[:2]  # Cy is out
    with pytest.raises(err.RoomNotWaiting):
        await race.rematch(second, racers[2][1])  # he cannot come back
    await _play_and_resign(race, third, racers[:2], {ids[0]: 4, ids[1]: 4})
    await race.rematches.idle()
    done: SeriesView = await race.series(third)  # by any room of it
    assert done.state == "over" and done.final and done.played == 3
    assert [x.room for x in done.rooms] == [created.id, second, third]
    rooms = [(await race.get_room(r)).racers for r in (created.id, second, third)]
    assert [(r.rank, r.racer, r.foundation_cards, r.time_ms) for r in done.table] == \
        _expected(rooms, ids)
    cy = next(r for r in done.table if r.racer == ids[2])
    assert cy.left and cy.races[2] is not None and cy.races[2].status == "absent"
    assert cy.races[1] is not None and cy.races[1].status == "left"
    # the last race's room makes no next race; a rematch of it starts a new series
    assert (await race.get_room(third)).rematch is None
    again = await race.rematch(third, racers[0][1])
    assert again.room.series is not None and again.room.series.race == 1
    assert again.room.series.id == again.room.id and again.room.series.races == 3
    assert (await race.series(created.code)).rooms[2].room == third  # unchanged


async def test_out_of_range_and_unknown(race: RaceAuthority) -> None:
    for n in (1, 10):
        with pytest.raises(err.RequestInvalid):
            await race.create_room(RoomOptions(series_races=n))
    single, _ = await race.create_room(RoomOptions())
    for ref in (single.id, "NOSUCH", "x"):
        with pytest.raises(err.SeriesNotFound):
            await race.series(ref)


async def test_a_missing_next_room_is_made_when_the_table_is_read(
        race: RaceAuthority, store: ClockStore) -> None:
    """The process that ended the race died before its hook ran: reading the
    table makes the next race's room (once)."""
    race.race_over_hooks.remove(race.rematches.race_over)
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, series_races=2,
                                                    series_break_s=0))
    racer, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await race.resign(room.id, racer.id, token)
    assert (await race.get_room(room.id)).rematch is None
    view = await race.series(room.id)
    assert view.state == "running" and view.rooms[1].room is not None
    assert (await race.series(room.id)).rooms[1].room == view.rooms[1].room  # made once
    # a racer's offer also follows the series rather than making a plain rematch
    seat = await race.rematch(room.id, token)
    assert seat.room.id == view.rooms[1].room and seat.host_token is None


async def test_early_ends_stop_the_series(race: RaceAuthority, store: ClockStore) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, series_races=3,
                                                    series_break_s=0))
    racer, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await race.leave(room.id, racer.id, token)  # the only racer leaves: nobody goes on
    await race.rematches.idle()
    view = await race.series(room.id)
    assert view.state == "stopped" and view.final and view.played == 1
    assert [x.room for x in view.rooms][1:] == [None, None]
    # the host closes the second race: its results count, no third race
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, series_races=3,
                                                    series_break_s=0))
    racer, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await race.resign(room.id, racer.id, token)
    second = await _next(race, store, room.id)
    await race.close(second, host)  # the first room's host token hosts the series
    await race.rematches.idle()
    view = await race.series(room.id)
    assert view.state == "stopped" and view.played == 2 and view.rooms[2].room is None
    assert view.table[0].races[1] is not None


@pytest.mark.redis
async def test_the_next_race_is_made_once_over_redis() -> None:
    """Two authorities on the real Redis (as two processes) both making the
    series' next room at once — the race-over hook in one, the table's repair
    in the other, several times over: one next room, every racer in it."""
    prefix = f"test:{secrets.token_hex(6)}:"
    url = f"redis://127.0.0.1:6379/0?prefix={prefix}"
    stores = [RedisStore.from_url(url), RedisStore.from_url(url)]
    try:
        one, two = (RaceAuthority(s) for s in stores)
        for a in (one, two):
            a.race_over_hooks.remove(a.rematches.race_over)
        room, host = await one.create_room(RoomOptions(deal=7, countdown_s=0, series_races=2,
                                                       series_break_s=0))
        racers = [await one.join(room.id, n) for n in ("Ada", "Bob", "Cy")]
        await one.start(room.id, host)
        for r, t in racers:
            await two.resign(room.id, r.id, t)
        links = await asyncio.gather(*(a.rematches.follow(room.id) for a in (one, two) * 3),
                                     *(a.series(room.id) for a in (two, one)))
        made = {link.room for link in links[:6] if link is not None}
        assert len(made) == 1
        (second,) = made
        assert [x.rooms[1].room for x in links[6:]] == [second, second]  # type: ignore[union-attr]
        view = await two.get_room(second)
        assert [r.id for r in view.racers] == [r.id for r, _ in racers]
        kinds = [e["type"] for e in await stores[0].events.events_since(room.id, 0)]
        assert kinds.count("rematch") == 1
        ids = set(await stores[0].rooms.room_ids())
        assert ids == {room.id, second}  # the losers' rooms are gone
    finally:
        for s in stores:
            await s.close()
        client = aioredis.Redis.from_url("redis://127.0.0.1:6379/0")
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_everyone_leaving_during_the_break_stops_the_series(
        race: RaceAuthority, store: ClockStore) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, series_races=3,
                                                    series_break_s=30))
    racer, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await race.resign(room.id, racer.id, token)
    await race.rematches.idle()
    second = (await race.get_room(room.id)).rematch
    assert second is not None and (await race.get_room(second.room)).state == "countdown"
    await race.leave(second.room, racer.id, token)  # during the break
    view = await race.series(room.id)
    assert view.state == "stopped" and view.played == 1
    store.advance(3 * 3_600_000)  # the empty room vanishes (the first one waits for the archive)
    await race.tick()
    view = await race.series(room.id)
    assert view.state == "stopped" and view.rooms[1].room is None
