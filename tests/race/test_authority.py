"""The race authority over the real memory store: rooms, racers, moves, ranking."""

from __future__ import annotations

import asyncio

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.rules import Move, replay

from .helpers import ClockStore, pick_move


async def _racing(race: RaceAuthority, n: int = 2, **opts: object) -> tuple[str, str, list]:
    options = RoomOptions(**{"deal": 7, "countdown_s": 0, **opts})  # type: ignore[arg-type]
    room, host = await race.create_room(options)
    racers = [await race.join(room.id, f"racer{i}") for i in range(n)]
    await race.start(room.code, host)
    return room.id, host, racers


async def test_create_join_and_views(race: RaceAuthority) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, capacity=2, visibility="public"))
    assert room.state == "waiting" and room.deal_number == 7 and len(room.code) == 6
    assert len(host) >= 32
    racer, token = await race.join(room.code.lower(), "  Ada   Lovelace ")
    assert racer.name == "Ada Lovelace" and racer.join_order == 1 and len(token) >= 32
    for same in ("ada lovelace", "Ａｄａ Ｌｏｖｅｌａｃｅ"):  # case, full-width look-alike
        with pytest.raises(err.RacerNameTaken):
            await race.join(room.id, same)
    await race.join(room.id, "Bob")
    with pytest.raises(err.RoomFull):
        await race.join(room.id, "Cy")
    listed = await race.list_rooms()
    assert room.id not in [r.id for r in listed]  # full rooms are not listed
    view = await race.get_room(room.code)
    assert [r.name for r in view.racers] == ["Ada Lovelace", "Bob"]
    assert view.seq == 3  # created, joined, joined


async def test_the_lobby_lists_waiting_public_rooms_and_reads_no_others(
        race: RaceAuthority, store: ClockStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """GET /rooms read every stored room (an hour of races: thousands); it now
    reads the lobby index, and takes rooms off it once they race."""
    raced = [(await _racing(race, n=1, visibility="public"))[0] for _ in range(30)]
    private, _ = await race.create_room(RoomOptions(visibility="private"))
    closed, closer = await race.create_room(RoomOptions(visibility="public"))
    await race.close(closed.id, closer)
    waiting, _ = await race.create_room(RoomOptions(visibility="public"))
    store.advance(10)
    newest, host = await race.create_room(RoomOptions(visibility="public", countdown_s=5))
    await race.join(newest.id, "ada")
    reads: list[str] = []
    get_room = store.rooms.get_room

    async def counted(room_id: str) -> object:
        reads.append(room_id)
        return await get_room(room_id)

    monkeypatch.setattr(store.rooms, "get_room", counted)
    assert [r.id for r in await race.list_rooms()] == [newest.id, waiting.id]
    assert sorted(reads) == sorted([newest.id, waiting.id])  # no raced, closed or private one
    assert [r.id for r in await race.list_rooms(limit=1)] == [newest.id]
    # in its countdown: unshown but kept (a racer may leave, and it waits again)
    await race.start(newest.id, host)
    assert [r.id for r in await race.list_rooms()] == [waiting.id]
    assert newest.id in await store.indexes.lobby_room_ids()
    store.advance(6_000)
    await race.tick()  # the countdown ends: it races, and leaves the lobby
    assert (await race.get_room(newest.id)).state == "racing"
    assert newest.id not in await store.indexes.lobby_room_ids()
    assert not set(raced) & set(await store.indexes.lobby_room_ids())
    assert private.id not in await store.indexes.lobby_room_ids()


async def test_bad_room_inputs(race: RaceAuthority) -> None:
    with pytest.raises(err.RequestInvalid):
        await race.create_room(RoomOptions(variant="chess"))
    with pytest.raises(err.RequestInvalid):
        await race.create_room(RoomOptions(capacity=65))
    with pytest.raises(err.RequestInvalid):
        await race.create_room(RoomOptions(deal=0))
    with pytest.raises(err.RoomNotFound):
        await race.get_room("nope")
    room, _ = await race.create_room(RoomOptions())
    with pytest.raises(err.RequestInvalid):
        await race.join(room.id, "\x00bad")
    with pytest.raises(err.RequestInvalid):
        await race.join(room.id, "x" * 25)


async def test_daily_and_random_deals(race: RaceAuthority) -> None:
    a, _ = await race.create_room(RoomOptions(deal="daily"))
    b, _ = await race.create_room(RoomOptions(deal="daily"))
    assert a.deal_number == b.deal_number
    c, _ = await race.create_room(RoomOptions())
    assert 1 <= c.deal_number <= 1_000_000_000


async def test_host_start_countdown_then_racing(race: RaceAuthority, store: ClockStore) -> None:
    room, host = await race.create_room(RoomOptions(deal=3, countdown_s=3))
    with pytest.raises(err.RoomNoRacers):
        await race.start(room.id, host)
    racer, token = await race.join(room.id, "ada")
    with pytest.raises(err.AuthInvalidToken):
        await race.start(room.id, token)
    with pytest.raises(err.AuthMissing):
        await race.start(room.id, None)
    started = await race.start(room.id, host)
    assert started.state == "countdown" and started.starts_in_ms == 3000
    again = await race.start(room.id, host)  # idempotent
    assert again.state == "countdown" and again.seq == started.seq
    with pytest.raises(err.RoomNotRacing):
        await race.move(room.id, racer.id, token, "a", 0, "m1")
    with pytest.raises(err.RoomNotWaiting):
        await race.join(room.id, "late")
    store.advance(3000)
    view = await race.get_room(room.id)
    assert view.state == "racing" and view.racers[0].status == "playing"
    events = await store.events.events_since(room.id, 0)
    assert [e["type"] for e in events] == ["created", "joined", "countdown", "started"]


async def test_all_ready_starts(race: RaceAuthority) -> None:
    room, _ = await race.create_room(RoomOptions(countdown_s=0))
    a, ta = await race.join(room.id, "a")
    b, tb = await race.join(room.id, "b")
    await race.set_ready(room.id, a.id, ta, True)
    assert (await race.get_room(room.id)).state == "waiting"
    with pytest.raises(err.AuthForbidden):
        await race.set_ready(room.id, b.id, ta, True)
    await race.set_ready(room.id, b.id, tb, True)
    assert (await race.get_room(room.id)).state == "racing"


async def test_move_checks_in_order(race: RaceAuthority) -> None:
    room_id, host, [(a, ta), (_b, tb)] = await _racing(race)
    game = await race.game(room_id, a.id, ta)
    assert game.version == 0 and game.legal_moves
    with pytest.raises(err.AuthMissing):
        await race.move(room_id, a.id, None, "1f", 0, "x")
    with pytest.raises(err.AuthInvalidToken):
        await race.move(room_id, a.id, "forged-token", "1f", 0, "x")
    with pytest.raises(err.AuthForbidden):
        await race.move(room_id, a.id, tb, "1f", 0, "x")  # another racer's move
    with pytest.raises(err.AuthForbidden):
        await race.move(room_id, a.id, host, "1f", 0, "x")
    with pytest.raises(err.MoveInvalid):
        await race.move(room_id, a.id, ta, "zz", 0, "x")
    with pytest.raises(err.MoveStaleVersion) as stale:
        await race.move(room_id, a.id, ta, "1f", 5, "x")
    assert stale.value.details["game"]["version"] == 0
    illegal = next(t for t in ("1-2", "2-1", "1-3") if t not in game.legal_moves)
    with pytest.raises(err.MoveIllegal):
        await race.move(room_id, a.id, ta, illegal, 0, "x")
    assert (await race.game(room_id, a.id, ta)).version == 0  # nothing applied
    move = game.legal_moves[0]
    ack = await race.move(room_id, a.id, ta, move, 0, "x")
    assert ack.version == 1 and ack.applied == [move] and ack.game.version == 1
    again = await race.move(room_id, a.id, ta, move, 0, "x")
    assert again == ack
    assert (await race.game(room_id, a.id, ta)).version == 1


async def test_same_move_twice_at_once_applies_once(race: RaceAuthority) -> None:
    room_id, _, [(a, ta), _] = await _racing(race)
    move = (await race.game(room_id, a.id, ta)).legal_moves[0]
    acks = await asyncio.gather(*(race.move(room_id, a.id, ta, move, 0, "same")
                                  for _ in range(5)))
    assert all(x == acks[0] for x in acks)
    assert (await race.game(room_id, a.id, ta)).version == 1


async def test_json_moves_undo_and_autoplay(race: RaceAuthority) -> None:
    room_id, _, [(a, ta)] = await _racing(race, 1)
    game = await race.game(room_id, a.id, ta)
    move = Move.from_text(game.legal_moves[0]).to_json()
    ack = await race.move(room_id, a.id, ta, move, 0, "j1")
    undo = await race.move(room_id, a.id, ta, {"type": "undo"}, 1, "j2")
    assert undo.applied == ["u"] and undo.game.position == game.position
    assert undo.version == 2
    assert ack.game.version == 1


async def test_race_to_the_end_ranks_and_replays(race: RaceAuthority, store: ClockStore) -> None:
    room_id, _, racers = await _racing(race, 3, undo=False)
    room = await race.get_room(room_id)
    rules = room.rules.model_dump()
    (a, ta), (b, tb), (c, tc) = racers
    await race.resign(room_id, c.id, tc)
    with pytest.raises(err.RacerFinished):
        await race.move(room_id, c.id, tc, "a", 0, "late")
    for racer, token, limit in ((a, ta, 1000), (b, tb, 5)):
        for n in range(limit):
            game = await race.game(room_id, racer.id, token)
            move = pick_move(rules, game.model_dump())
            if move is None or game.final:
                break
            store.advance(100)
            await race.move(room_id, racer.id, token, move, game.version, f"m{n}")
    if not (await race.game(room_id, b.id, tb)).final:
        await race.resign(room_id, b.id, tb)
    final = await race.standings(room_id)
    assert final.final
    assert (await race.get_room(room_id)).state == "over"
    lines = final.standings
    keys = [(-s.foundation_cards, s.reach_time_ms or 0, s.moves, s.join_order) for s in lines]
    assert keys == sorted(keys)
    assert [s.rank for s in lines] == [1, 2, 3]
    events = await store.events.events_since(room_id, 0)
    assert [e["type"] for e in events].count("race_over") == 1
    assert all(s.final for s in lines)
    rep = await race.replay(room_id, a.id)
    assert rep.redeal_key is not None and len(bytes.fromhex(rep.redeal_key)) == 32
    from server.rules import RuleSet
    game = replay(RuleSet.from_json(rules), rep.deal_number, bytes.fromhex(rep.redeal_key),
                  [Move.from_text(m.move) for m in rep.moves])
    assert game.foundation_cards == rep.result.foundation_cards
    a_line = next(s for s in lines if s.racer == a.id)
    if a_line.status == "won":
        assert a_line.points == 5 * 52 + 500 + max(0, 1200 - (a_line.reach_time_ms or 0) // 1000)
    else:
        assert a_line.status == "stuck" and a_line.points == 5 * a_line.foundation_cards


async def test_time_limit_times_out_once(race: RaceAuthority, store: ClockStore) -> None:
    room_id, _, [(a, ta), (b, tb)] = await _racing(race, time_limit_s=10)
    rep = await race.replay(room_id, a.id, ta)  # the racer's own log, during the race
    assert rep.redeal_key is None  # secret while racing
    move = (await race.game(room_id, a.id, ta)).legal_moves[0]
    await race.move(room_id, a.id, ta, move, 0, "m")
    store.advance(10_000)
    with pytest.raises(err.RoomOver):
        await race.move(room_id, b.id, tb, move, 0, "m")
    await asyncio.gather(race.tick(), race.tick(), race.standings(room_id))
    table = await race.standings(room_id)
    assert table.final and {s.status for s in table.standings} == {"timed_out"}
    events = await store.events.events_since(room_id, 0)
    types = [e["type"] for e in events]
    assert types.count("race_over") == 1 and types.count("finished") == 2
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))


async def test_leave_kick_close(race: RaceAuthority) -> None:
    room, host = await race.create_room(RoomOptions(countdown_s=0))
    a, ta = await race.join(room.id, "a")
    b, _ = await race.join(room.id, "b")
    await race.leave(room.id, a.id, ta)
    await race.leave(room.id, b.id, host)  # kick
    assert (await race.get_room(room.id)).racers == []
    c, tc = await race.join(room.id, "c")
    await race.start(room.id, host)
    await race.leave(room.id, c.id, tc)
    view = await race.get_room(room.id)
    assert view.state == "over" and view.racers[0].status == "left"
    with pytest.raises(err.RoomOver):
        await race.close(room.id, host)


async def test_leaving_during_the_countdown(race: RaceAuthority) -> None:
    room, host = await race.create_room(RoomOptions(countdown_s=5))
    a, ta = await race.join(room.id, "a")
    b, tb = await race.join(room.id, "b")
    await race.start(room.id, host)
    await race.leave(room.id, a.id, ta)
    view = await race.get_room(room.id)
    assert view.state == "countdown" and [r.name for r in view.racers] == ["b"]
    await race.leave(room.id, b.id, tb)
    view = await race.get_room(room.id)
    assert view.state == "waiting" and view.racers == []


async def test_rooms_expire_after_the_race(race: RaceAuthority, store: ClockStore) -> None:
    room_id, _, [(a, ta)] = await _racing(race, 1)
    await race.resign(room_id, a.id, ta)
    assert (await race.get_room(room_id)).state == "over"
    # not archived yet: the finished race stays, however long (docs/archive.md)
    store.advance(2 * race.config.ended_ttl_ms)
    assert (await race.get_room(room_id)).state == "over"
    [doc] = await race.claim_finished(10, 1000)
    assert doc["race_id"] == room_id and set(doc["racers"]) == {a.id}
    await race.mark_archived(room_id)  # archived: it expires as before, from now
    store.advance(race.config.ended_ttl_ms - 1000)
    assert (await race.standings(room_id)).final
    store.advance(2000)
    with pytest.raises(err.RoomNotFound):
        await race.get_room(room_id)
    assert room_id not in await store.rooms.room_ids()


async def test_waiting_rooms_expire(race: RaceAuthority, store: ClockStore) -> None:
    room, _ = await race.create_room(RoomOptions())
    store.advance(race.config.waiting_ttl_ms + 1)
    with pytest.raises(err.RoomNotFound):
        await race.get_room(room.code)


async def test_stuck_with_undo_is_not_final(race: RaceAuthority, store: ClockStore) -> None:
    room_id, _, [(a, ta), (b, tb)] = await _racing(race, 2)  # undo allowed (default)
    rules = (await race.get_room(room_id)).rules.model_dump()
    game = await race.game(room_id, a.id, ta)
    n = 0
    while (move := pick_move(rules, game.model_dump())) is not None:
        n += 1
        game = (await race.move(room_id, a.id, ta, move, game.version, f"g{n}")).game
    if game.status == "won":
        pytest.skip("the greedy racer won this deal")
    assert game.status == "stuck" and not game.final and game.can_undo
    assert not (await race.standings(room_id)).final
    undone = await race.move(room_id, a.id, ta, "u", game.version, "undo")
    assert undone.game.status == "playing" and not undone.game.final
    await race.resign(room_id, a.id, ta)
    await race.resign(room_id, b.id, tb)
    assert (await race.standings(room_id)).final


async def test_repeat_of_the_final_move_gets_its_first_answer(race: RaceAuthority) -> None:
    room_id, _, [(a, ta), _] = await _racing(race, 2, undo=False)
    rules = (await race.get_room(room_id)).rules.model_dump()
    game = await race.game(room_id, a.id, ta)
    n, last = 0, None
    while not game.final:
        move = pick_move(rules, game.model_dump())
        assert move is not None
        n += 1
        last = (move, game.version, f"f{n}")
        ack = await race.move(room_id, a.id, ta, *last)
        game = ack.game
    assert last is not None
    again = await race.move(room_id, a.id, ta, *last)
    assert again == ack and again.game.final
