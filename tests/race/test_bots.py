"""The bots a room is created with (``RoomOptions.bots``): run by the server on the
real authority and memory store, they race to the end whoever leaves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from server.errors import RequestInvalid, ServerFull
from server.race import RaceAuthority, RoomOptions
from server.race.options import BotsOfLevel
from server.race.timers import RaceConfig
from server.race.views import RacerView
from server.solver.levels import RATINGS
from server.store.memory import MemoryStore

FINAL_BY_PLAY = {"won", "stuck"}
"""How a bot's result becomes final by its own play: it wins, or has no move left
(``stuck``, as a person; issue 38) — never ``resigned`` nor ``timed_out``."""


@pytest.fixture
async def authority() -> AsyncIterator[RaceAuthority]:
    store = MemoryStore()
    auth = RaceAuthority(store, RaceConfig(bot_think_ms=0, max_bots=4))
    yield auth
    await auth.bots.aclose()
    await store.close()


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.02)


async def test_bots_race_to_the_end_after_their_creator_is_gone(
        authority: RaceAuthority) -> None:
    room, host = await authority.create_room(RoomOptions(bots=2, countdown_s=0,
                                                         time_limit_s=600))
    assert [(r.name, r.ready) for r in room.racers] == [("bot-Ada", False), ("bot-Bix", False)]
    assert authority.bots.running == 2
    ann, token = await authority.join(room.code, "ann")

    async def bots_ready() -> bool:
        view = await authority.get_room(room.id)
        return all(r.ready for r in view.racers if r.id != ann.id)

    await _until(bots_ready)  # once someone else is in the room
    await authority.set_ready(room.code, ann.id, token, True)  # every racer ready: race on
    assert (await authority.get_room(room.id)).state == "racing"
    await authority.resign(room.code, ann.id, token)  # the creator is gone from the race

    async def over() -> bool:
        return (await authority.get_room(room.id)).state == "over"

    await _until(over)
    view = await authority.get_room(room.id)
    bots = [r for r in view.racers if r.id != ann.id]
    assert all(r.final and r.status in FINAL_BY_PLAY and r.moves > 0 for r in bots), bots
    assert all((r.finished_ms or 0) < view.time_limit_ms for r in bots)
    assert max(r.foundation_cards for r in bots) > 0
    standings = await authority.standings(room.code)
    assert standings.final and {s.name for s in standings.standings} == {"ann", "bot-Ada",
                                                                          "bot-Bix"}
    await _until(lambda: _is(authority.bots.running == 0))  # their driver is done
    assert host


async def _is(value: bool) -> bool:
    return value


async def test_a_room_of_bots_alone_waits_for_its_host(authority: RaceAuthority) -> None:
    room, host = await authority.create_room(RoomOptions(bots=1, countdown_s=0))
    await asyncio.sleep(0.3)
    view = await authority.get_room(room.id)
    assert view.state == "waiting" and not view.racers[0].ready  # never starts by itself
    await authority.start(room.code, host)  # the host may race them alone

    async def over() -> bool:
        return (await authority.get_room(room.id)).state == "over"

    await _until(over)
    bot = (await authority.get_room(room.id)).racers[0]
    assert bot.status in FINAL_BY_PLAY and bot.moves > 0


async def test_bots_alone_after_their_racer_left_the_countdown_do_not_start(
        authority: RaceAuthority) -> None:
    """As when the last racer leaves during the countdown: it is cancelled, the
    bots alone wait (they raced alone to the time limit)."""
    room, _ = await authority.create_room(RoomOptions(bots=2, countdown_s=1))
    ann, token = await authority.join(room.code, "ann")

    async def bots_ready() -> bool:
        view = await authority.get_room(room.id)
        return all(r.ready for r in view.racers if r.id != ann.id)

    await _until(bots_ready)
    await authority.set_ready(room.code, ann.id, token, True)
    assert (await authority.get_room(room.id)).state == "countdown"
    await authority.leave(room.code, ann.id, token)
    await asyncio.sleep(1.3)
    await authority.tick()
    view = await authority.get_room(room.id)
    assert view.state == "waiting" and view.starts_in_ms is None, view.state
    assert [r.name for r in view.racers] == ["bot-Ada", "bot-Bix"]


async def test_bots_step_out_when_their_process_stops() -> None:
    store = MemoryStore()
    slow = RaceAuthority(store, RaceConfig(bot_think_ms=60_000))
    try:
        waiting, _ = await slow.create_room(RoomOptions(bots=2, countdown_s=0))
        racing, host = await slow.create_room(RoomOptions(bots=2, countdown_s=0))
        ann, token = await slow.join(racing.code, "ann")
        await slow.start(racing.code, host)
        assert (await slow.get_room(racing.id)).state == "racing"
        await slow.bots.aclose()  # the server shuts down
        assert (await slow.get_room(waiting.id)).racers == []  # left the waiting room
        after = await slow.get_room(racing.id)
        assert [(r.name, r.status) for r in after.racers] == [
            ("bot-Ada", "resigned"), ("bot-Bix", "resigned"), ("ann", "playing")]
        assert slow.bots.running == 0
        await slow.resign(racing.code, ann.id, token)
    finally:
        await store.close()


async def test_the_bots_option_is_checked(authority: RaceAuthority) -> None:
    with pytest.raises(RequestInvalid) as invalid:
        await authority.create_room(RoomOptions(bots=2, capacity=2))  # no seat left
    assert invalid.value.details == {"field": "bots"}
    with pytest.raises(RequestInvalid):
        await authority.create_room(RoomOptions(bots=-1))
    for bad in (("club", "grandmaster"), BotsOfLevel("master", 2), BotsOfLevel("club", 64),
                ("club",) * 3):  # an unknown level, too many, no seat left (capacity 3)
        with pytest.raises(RequestInvalid) as invalid:
            await authority.create_room(RoomOptions(bots=bad, capacity=3))
        assert invalid.value.details == {"field": "bots"}, bad
    await authority.create_room(RoomOptions(bots=3))
    with pytest.raises(ServerFull):  # this process runs 4 at most
        await authority.create_room(RoomOptions(bots=2))
    assert authority.bots.running == 3
    assert len(await authority.list_rooms()) == 1  # the refusal created nothing
    await authority.create_room(RoomOptions(bots=1))
    assert authority.bots.running == 4



async def _ann_ready_with_the_bots(authority: RaceAuthority, code: str) -> tuple[RacerView, str]:
    """``ann`` joins the room, waits for its bots to be ready, and is ready too."""
    ann, token = await authority.join(code, "ann")

    async def bots_ready() -> bool:
        view = await authority.get_room(code)
        return all(r.ready for r in view.racers if r.id != ann.id)

    await _until(bots_ready)
    await authority.set_ready(code, ann.id, token, True)
    return ann, token

async def test_bots_race_every_race_of_a_series(authority: RaceAuthority) -> None:
    """In a series the server seats the bots in each next race (ids and tokens
    kept): their driver follows and races it too."""
    room, _ = await authority.create_room(RoomOptions(
        bots=1, countdown_s=0, time_limit_s=600, series_races=2, series_break_s=0))
    ann, token = await _ann_ready_with_the_bots(authority, room.code)
    current = room.id
    for race in (1, 2):
        async def state_is(state: str, room_id: str = current) -> bool:
            return (await authority.get_room(room_id)).state == state

        await _until(lambda: state_is("racing"))
        await authority.resign(current, ann.id, token)
        await _until(lambda: state_is("over"))
        view = await authority.get_room(current)
        assert view.series is not None and view.series.race == race
        (bot,) = [r for r in view.racers if r.id != ann.id]
        assert bot.final and bot.status in FINAL_BY_PLAY and bot.moves > 0, (race, bot)
        if race == 1:
            assert view.rematch is not None
            current = view.rematch.room
    await _until(lambda: _is(authority.bots.running == 0))  # the last race: done


async def test_a_series_ends_when_only_bots_are_left(authority: RaceAuthority) -> None:
    """Its racer left during a race: the series stops there, no next race of the
    bots alone (they raced every race left, alone)."""
    room, _ = await authority.create_room(RoomOptions(
        bots=1, countdown_s=0, time_limit_s=600, series_races=3, series_break_s=0))
    ann, token = await _ann_ready_with_the_bots(authority, room.code)
    await authority.leave(room.code, ann.id, token)

    async def over() -> bool:
        return (await authority.get_room(room.id)).state == "over"

    await _until(over)
    series = await authority.series(room.id)
    assert (await authority.get_room(room.id)).rematch is None
    assert series.state == "stopped" and series.final and series.played == 1
    await _until(lambda: _is(authority.bots.running == 0))


async def _race_alone(authority: RaceAuthority, options: RoomOptions) -> str:
    """Create the room, start its bots alone (the host may) and wait for the end."""
    room, host = await authority.create_room(options)
    await authority.start(room.code, host)

    async def over() -> bool:
        return (await authority.get_room(room.id)).state == "over"

    await _until(over, timeout=60)
    return room.id


async def test_bots_of_each_level_race_with_their_own_seed_and_show_their_level(
        authority: RaceAuthority) -> None:
    room_id = await _race_alone(authority, RoomOptions(
        bots=("novice", "club", "expert"), countdown_s=0, time_limit_s=600, deal=123))
    view = await authority.get_room(room_id)
    assert [(r.name, r.bot_level, r.bot_rating) for r in view.racers] == [
        ("bot-Ada", "novice", RATINGS["novice"]), ("bot-Bix", "club", RATINGS["club"]),
        ("bot-Cog", "expert", RATINGS["expert"])]
    for r in view.racers:  # each played to its end: won, or no move left (never resigned)
        assert r.final and r.status in FINAL_BY_PLAY and r.moves > 0, r
    standings = await authority.standings(room_id)
    assert {s.name: s.bot_level for s in standings.standings} == {
        "bot-Ada": "novice", "bot-Bix": "club", "bot-Cog": "expert"}
    record, _, _ = await authority.applier.read(room_id)
    seeds = [e.bot_seed for e in record.roster]  # drawn at seating, kept with the racer
    assert all(isinstance(s, int) for s in seeds) and len(set(seeds)) == 3
    assert "seed" not in view.model_dump_json()  # never shown


async def test_bots_of_one_level_play_different_games_on_one_deal(
        authority: RaceAuthority) -> None:
    """The trial: three bots of one room played one game (deal 77: all three won in
    66 moves at the same second). Each now draws its own seed at its seat."""
    room_id = await _race_alone(authority, RoomOptions(
        bots=BotsOfLevel("club", 3), countdown_s=0, time_limit_s=600, deal=77))
    view = await authority.get_room(room_id)
    assert [r.bot_level for r in view.racers] == ["club"] * 3
    logs = [tuple(m for m, _ in (await authority.racer_log(room_id, r.id)).moves)
            for r in view.racers]
    assert len(set(logs)) == 3  # three games


async def test_a_racer_with_no_move_left_who_concedes_is_stuck_not_resigned(
        authority: RaceAuthority) -> None:
    """A bot stuck with undo allowed concedes and shows ``stuck`` (above); so does a
    person; one with moves left who resigns is ``resigned``."""
    room, host = await authority.create_room(RoomOptions(countdown_s=0, deal=123))
    ann, ann_token = await authority.join(room.code, "ann")
    bob, bob_token = await authority.join(room.code, "bob")
    await authority.start(room.code, host)
    game = await authority.game(room.code, ann.id, ann_token)
    while game.legal_moves:  # ann plays until no move is left (redeals included)
        builds = [m for m in game.legal_moves if m != "r"] or game.legal_moves
        ack = await authority.move(room.code, ann.id, ann_token, builds[0], game.version,
                                   f"m{game.version}")
        game = ack.game
    assert game.status == "stuck" and not game.final  # undo allowed: not final by itself
    assert (await authority.resign(room.code, ann.id, ann_token)).status == "stuck"
    assert (await authority.resign(room.code, bob.id, bob_token)).status == "resigned"
    standings = await authority.standings(room.code)
    assert {s.name: (s.status, s.final) for s in standings.standings} == {
        "ann": ("stuck", True), "bob": ("resigned", True)}
