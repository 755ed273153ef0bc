"""Ghost rooms on the real authority and memory store: the ghost races as recorded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.errors import HiddenUntilOver
from server.race import RaceAuthority, RoomOptions
from server.race.ghost_room import GhostRooms, TooManyGhosts, ghost_name
from server.records.ghost import plan_ghost
from server.records.head_to_head import RacerRef, compare_sources
from server.store.memory import MemoryStore
from tests.records.games import KEY, record

RECORDED = [("8f", 60), ("15f", 150), ("2-3", 150), ("r", 260)]
TOLERANCE_MS = 100  # driver poll + scheduling; the store clock has 1 ms resolution


@pytest.fixture
async def ghosts() -> AsyncIterator[GhostRooms]:
    store = MemoryStore()
    rooms = GhostRooms(RaceAuthority(store), plan_ghost)
    yield rooms
    await rooms.aclose()
    await store.close()


async def _until(predicate: object, timeout: float = 3.0) -> None:
    async with asyncio.timeout(timeout):
        while not await predicate():  # type: ignore[operator]
            await asyncio.sleep(0.02)


def test_ghost_name() -> None:
    assert ghost_name("ada") == "👻 ada"
    assert ghost_name("  ") == "👻 ghost"
    assert len(ghost_name("x" * 40)) == 24


async def test_ghost_races_the_recorded_timeline(ghosts: GhostRooms) -> None:
    rec = record(RECORDED, name="ada", status="resigned", finished_ms=320)
    authority = ghosts.authority
    room, _host, ghost = await ghosts.create(RoomOptions(countdown_s=0, time_limit_s=30), rec)
    assert (room.deal_number, room.rules.variant, room.state) == (2, "belle-lucie", "waiting")
    assert [r.name for r in room.racers] == ["👻 ada"] and ghost.name == "👻 ada"
    bob, token = await authority.join(room.code, "bob")
    cy, cy_token = await authority.join(room.code, "cy")
    await authority.set_ready(room.code, cy.id, cy_token, True)
    await authority.set_ready(room.code, bob.id, token, True)  # the ghost follows: race on

    async def ghost_done() -> bool:
        view = await authority.get_room(room.id)
        return view.state == "racing" and view.racers[0].final

    await _until(ghost_done)
    # a rival's move log is hidden during the race, also once the viewer's own
    # result is final: bob resigns, cy still races
    await authority.resign(room.code, bob.id, token)
    with pytest.raises(HiddenUntilOver):
        await authority.replay(room.id, ghost.id, token)
    assert not (await authority.standings(room.code)).final  # cy still races
    await authority.resign(room.code, cy.id, cy_token)
    replay = await authority.replay(room.id, ghost.id, token)
    assert [m.move for m in replay.moves] == [m for m, _ in RECORDED]
    for got, (_, want) in zip(replay.moves, RECORDED, strict=True):
        assert want <= got.race_clock_ms <= want + TOLERANCE_MS
    assert replay.result.status == "resigned" and replay.result.foundation_cards == 2
    assert 320 <= (replay.result.finished_ms or 0) <= 320 + TOLERANCE_MS

    standings = await authority.standings(room.code)
    assert standings.final and [s.name for s in standings.standings] == ["👻 ada", "bob", "cy"]
    # same deal, same key, same moves: the ghost's game is the recording
    same = await compare_sources(authority, RacerRef(room.code, ghost.id), rec)
    assert same.divergence.move_index is None
    assert same.a.layouts[1].reached and same.b.redeals_used == 1
    assert replay.redeal_key is not None  # fetched once the race is over
    after = await authority.replay(room.code, ghost.id)
    assert bytes.fromhex(after.redeal_key or "") == KEY


async def test_a_ghost_keeps_racing_until_its_next_recorded_move(ghosts: GhostRooms) -> None:
    rec = record([("8f", 50), ("15f", 12_000)], name="slow")
    room, host, _ = await ghosts.create(RoomOptions(countdown_s=0, time_limit_s=10), rec)
    await ghosts.authority.start(room.code, host)

    async def moved() -> bool:
        return (await ghosts.authority.get_room(room.id)).racers[0].moves == 1

    await _until(moved)
    view = (await ghosts.authority.get_room(room.id)).racers[0]
    assert view.foundation_cards == 1 and not view.final and ghosts.running == 1


async def test_closing_the_room_stops_the_driver(ghosts: GhostRooms) -> None:
    room, host, _ = await ghosts.create(RoomOptions(), record(RECORDED))
    assert ghosts.running == 1
    await ghosts.authority.close(room.code, host)

    async def stopped() -> bool:
        return ghosts.running == 0

    await _until(stopped)


async def test_a_process_drives_a_bounded_number_of_ghosts() -> None:
    store = MemoryStore()
    ghosts = GhostRooms(RaceAuthority(store), plan_ghost, max_drivers=2)
    try:
        for _ in range(2):
            await ghosts.create(RoomOptions(), record(RECORDED))
        with pytest.raises(TooManyGhosts) as exc:
            await ghosts.create(RoomOptions(), record(RECORDED))
        assert (exc.value.code, exc.value.status) == ("ghost/too_many", 503)
        assert len(await ghosts.authority.list_rooms()) == 2  # nothing half-made
    finally:
        await ghosts.aclose()
        await store.close()


async def test_a_ghost_that_ran_out_of_time_ends_at_its_recorded_end(
        ghosts: GhostRooms) -> None:
    """A recording that timed out in its own (shorter) room ends there, timed
    out: the ghost stayed "playing" with nothing left to play, and a room only
    it kept racing ran on to its own time limit (a new user's trial)."""
    rec = record(RECORDED, name="ada", status="timed_out", finished_ms=400)
    authority = ghosts.authority
    room, host, ghost = await ghosts.create(RoomOptions(countdown_s=0, time_limit_s=600), rec)
    bob, token = await authority.join(room.code, "bob")
    await authority.start(room.code, host)
    await _until(lambda: _racing(authority, room.id))
    await authority.resign(room.code, bob.id, token)

    async def over() -> bool:
        return (await authority.get_room(room.id)).state == "over"

    await _until(over)
    view = next(r for r in (await authority.get_room(room.id)).racers if r.id == ghost.id)
    assert (view.status, view.final, view.moves, view.foundation_cards) == (
        "timed_out", True, len(RECORDED), 2)
    assert 400 <= (view.finished_ms or 0) <= 400 + TOLERANCE_MS


async def _racing(authority: RaceAuthority, room_id: str) -> bool:
    return (await authority.get_room(room_id)).state == "racing"


def _stuck_game() -> list[tuple[str, int]]:
    """A novice bot's whole game on deal 2 (key :data:`KEY`) until no move is left,
    a move every 10 ms."""
    from server.rules import apply, deal, has_legal_move
    from server.solver.levels import BotMind, level_move
    from tests.records.games import RULES

    mind, pos, moves = BotMind("novice", 1), deal(RULES, 2), []
    while (move := level_move(*mind.ask(RULES, pos))) is not None:
        mind.played(pos, move)
        pos = apply(RULES, pos, move, KEY)
        moves.append((str(move), 10 * (len(moves) + 1)))
    assert pos.foundation_cards < 52 and not has_legal_move(RULES, pos)
    return moves


async def test_a_recorded_stuck_game_ends_stuck_again(ghosts: GhostRooms) -> None:
    """A game that ended with no move left where undo was allowed is recorded
    ``stuck`` (its racer conceded there, issue 38); its ghost concedes at the
    same point, ``stuck`` again, and the race ends without waiting for the limit."""
    moves = _stuck_game()
    rec = record(moves, name="ada", status="stuck", finished_ms=moves[-1][1] + 50)
    room, host, ghost = await ghosts.create(RoomOptions(countdown_s=0, time_limit_s=60), rec)
    await ghosts.authority.start(room.code, host)

    async def over() -> bool:
        return (await ghosts.authority.get_room(room.id)).state == "over"

    await _until(over, timeout=10)
    (view,) = (await ghosts.authority.get_room(room.id)).racers
    assert (view.id, view.status, view.final, view.moves) == (ghost.id, "stuck", True,
                                                              len(moves))
