"""The one-round-trip move: decided on the racer record this process wrote and the
room record it read, written with a compare-and-set on both revs.

Two authorities over one store stand for two server processes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.race.commands import TimeOut

from .helpers import ClockStore, count_calls


class CountingStore(ClockStore):
    """The memory store, counting the reads a move may make and the racer writes."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: Counter[str] = Counter()
        count_calls(self.rooms, ["get_room"], self.calls)
        count_calls(self.racers, ["get_move_state", "get_racer", "save_racer"], self.calls)


@pytest.fixture
async def store() -> AsyncIterator[CountingStore]:
    s = CountingStore()
    yield s
    await s.close()


async def _racing(race: RaceAuthority) -> tuple[str, str, str, str]:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, time_limit_s=60))
    racer, token = await race.join(room.id, "ada")
    await race.join(room.id, "bob")
    await race.start(room.code, host)
    return room.id, host, racer.id, token


async def _next(race: RaceAuthority, room_id: str, racer_id: str,
                token: str) -> tuple[str, int]:
    """The racer's first legal move and version (its own game: asked with its token)."""
    game = await race.game(room_id, racer_id, token)
    return game.legal_moves[0], game.version


async def _moved_once(race: RaceAuthority) -> tuple[str, str, str, str]:
    """A racing room whose first racer made one move through ``race``."""
    room_id, host, a, ta = await _racing(race)
    move, version = await _next(race, room_id, a, ta)
    await race.move(room_id, a, ta, move, version, "m1")
    return room_id, host, a, ta


async def test_after_its_first_move_a_racer_moves_with_one_write_and_no_read(
        store: CountingStore) -> None:
    race = RaceAuthority(store)
    room_id, _, a, ta = await _moved_once(race)
    for n in range(2, 6):
        move, version = await _next(race, room_id, a, ta)
        store.calls.clear()
        ack = await race.move(room_id, a, ta, move, version, f"m{n}")
        assert ack.version == version + 1
        assert store.calls == Counter(save_racer=1)
    assert (await race.game(room_id, a, ta)).version == 5


async def test_a_room_closed_by_another_process_refuses_the_next_move(
        store: CountingStore) -> None:
    one, two = RaceAuthority(store), RaceAuthority(store)
    room_id, host, a, ta = await _racing(one)
    move, version = await _next(one, room_id, a, ta)
    await one.move(room_id, a, ta, move, version, "m1")
    move, version = await _next(two, room_id, a, ta)
    await two.close(room_id, host)
    seq = await store.events.last_seq(room_id)
    with pytest.raises(err.RoomOver):
        await one.move(room_id, a, ta, move, version, "m2")
    assert await store.events.last_seq(room_id) == seq  # no progress event
    assert await store.racers.get_answer(room_id, a, "m2") is None


async def test_a_move_made_through_another_process_is_seen(store: CountingStore) -> None:
    one, two = RaceAuthority(store), RaceAuthority(store)
    room_id, _, a, ta = await _racing(one)
    move, version = await _next(one, room_id, a, ta)
    await one.move(room_id, a, ta, move, version, "m1")
    move, version = await _next(two, room_id, a, ta)
    await two.move(room_id, a, ta, move, version, "m2")  # process one's record is stale now
    with pytest.raises(err.MoveStaleVersion) as stale:
        await one.move(room_id, a, ta, move, 1, "m3")
    assert stale.value.details["game"]["version"] == 2
    move, version = await _next(two, room_id, a, ta)
    ack = await one.move(room_id, a, ta, move, 2, "m3")
    assert ack.version == 3 and ack.applied == [move]
    assert (await two.game(room_id, a, ta)).version == 3


async def test_a_repeated_client_move_id_gets_its_first_answer(store: CountingStore) -> None:
    race = RaceAuthority(store)
    room_id, _, a, ta = await _moved_once(race)
    move, version = await _next(race, room_id, a, ta)
    first = await race.move(room_id, a, ta, move, version, "m2")
    # the same id again, even sent with the version it now has: nothing applied
    # answered before the rules: an unreadable or illegal move under that id too
    assert await race.move(room_id, a, ta, "zz", first.version, "m2") == first
    assert await race.move(room_id, a, ta, "9-9", first.version, "m2") == first
    nxt, _ = await _next(race, room_id, a, ta)
    again = await race.move(room_id, a, ta, nxt, first.version, "m2")
    assert again == first
    assert (await race.game(room_id, a, ta)).version == first.version


async def test_the_time_limit_is_noticed_by_a_known_move(store: CountingStore) -> None:
    race = RaceAuthority(store)
    room_id, _, a, ta = await _moved_once(race)
    move, version = await _next(race, room_id, a, ta)
    store.advance(61_000)
    with pytest.raises(err.RoomOver):
        await race.move(room_id, a, ta, move, version, "m2")
    standings = await race.standings(room_id)
    assert standings.final
    assert {s.status for s in standings.standings} == {"timed_out"}


async def test_an_illegal_known_move_is_refused_and_changes_nothing(
        store: CountingStore) -> None:
    race = RaceAuthority(store)
    room_id, _, a, ta = await _moved_once(race)
    game = await race.game(room_id, a, ta)
    illegal = next(t for t in ("1-2", "2-1", "1-3", "2-3", "3-1") if t not in game.legal_moves)
    seq = await store.events.last_seq(room_id)
    with pytest.raises(err.MoveIllegal):
        await race.move(room_id, a, ta, illegal, game.version, "m2")
    assert (await race.game(room_id, a, ta)).version == game.version
    assert await store.events.last_seq(room_id) == seq
    with pytest.raises(err.AuthInvalidToken):
        await race.move(room_id, a, "forged", game.legal_moves[0], game.version, "m3")


async def test_a_result_made_final_never_ends_before_its_last_move(store: CountingStore) -> None:
    """The host's close fixes its race-clock time, then times racers out; a
    move another process accepted meanwhile may carry a clock a few ms later.
    The timed-out result then ends at that move, not before it."""
    race = RaceAuthority(store)
    room_id, _, a, ta = await _racing(race)
    store.advance(2_000)
    move, version = await _next(race, room_id, a, ta)
    ack = await race.move(room_id, a, ta, move, version, "m1")
    assert ack.race_clock_ms >= 2_000
    done = (await race.apply(TimeOut(room_id, a, at_ms=ack.race_clock_ms - 5))).reply
    assert done.final and done.status == "timed_out"
    assert done.finished_ms == ack.race_clock_ms
    replay = await race.replay(room_id, a, ta)
    assert all(m.race_clock_ms <= done.finished_ms for m in replay.moves)


async def test_finished_games_leave_the_cache(store: CountingStore) -> None:
    """A racer whose result is final never moves again: its cached game and
    record go (a view rebuilds the game from the log)."""
    race = RaceAuthority(store)
    room_id, _, a, ta = await _moved_once(race)
    assert (room_id, a) in race.cache.games and (room_id, a) in race.cache.known_racers
    await race.resign(room_id, a, ta)
    standings = await race.standings(room_id)  # the other racer still races
    assert not standings.final
    game = await race.game(room_id, a, ta)  # rebuilt from the log for the view
    assert game.final and game.version == 1
    assert (room_id, a) not in race.cache.games and (room_id, a) not in race.cache.known_racers
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, undo=False))
    solo, token = await race.join(room.id, "solo")
    await race.start(room.id, host)
    for n in range(1, 500):
        view = await race.game(room.id, solo.id, token)
        if view.final:
            break
        legal = [m for m in view.legal_moves if m.endswith("f")] or \
            [m for m in view.legal_moves if "-" in m] or view.legal_moves
        await race.move(room.id, solo.id, token, legal[0], view.version, f"s{n}")
    assert (await race.standings(room.id)).final
    assert not any(key[0] == room.id for key in race.cache.games)
    assert not any(key[0] == room.id for key in race.cache.known_racers)
