"""The host closing a room: before the start it just closes; during the race
every result becomes final (``timed_out`` at the close time), ``race_over``
comes once, and the standings are final (they used to stay ``final: false``
with racers back to ``waiting``)."""

from __future__ import annotations

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions

from .helpers import ClockStore


async def test_close_during_race_makes_results_final(race: RaceAuthority,
                                                     store: ClockStore) -> None:
    fed: list[list[str]] = []

    async def hook(room: object, views: list) -> None:
        fed.append([v.status for v in views])

    race.race_over_hooks.append(hook)
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    (a, _), (b, b_token) = [await race.join(room.id, n) for n in ("ada", "bob")]
    await race.start(room.id, host)
    store.advance(5_000)
    await race.resign(room.id, b.id, b_token)  # bob final before the close
    store.advance(1_000)
    closed = await race.close(room.code, host)
    clock = closed.race_clock_ms
    assert closed.state == "closed" and clock is not None and 6_000 <= clock < 7_000
    by_id = {r.id: r for r in closed.racers}
    assert by_id[a.id].status == "timed_out" and by_id[a.id].final
    assert by_id[a.id].finished_ms == clock
    assert by_id[b.id].status == "resigned" and by_id[b.id].final
    table = await race.standings(room.id)
    assert table.final is True and all(s.final for s in table.standings)
    events = await store.events.events_since(room.id, 0)
    kinds = [e["type"] for e in events]
    assert kinds.count("race_over") == 1 and kinds[-2:] == ["race_over", "closed"]
    finished = [e for e in events if e["type"] == "finished"]
    assert [(e["racer"], e["status"]) for e in finished] == [(b.id, "resigned"),
                                                             (a.id, "timed_out")]
    assert fed == [["timed_out", "resigned"]]
    store.advance(2_000)  # the clock stays frozen; nothing changes later
    again = await race.get_room(room.id)
    assert again.race_clock_ms == clock and again.racers == closed.racers
    with pytest.raises(err.RoomOver):
        await race.close(room.id, host)
    game = await race.game(room.id, a.id)
    assert game.final and game.status == "timed_out" and game.legal_moves == []


@pytest.mark.parametrize("countdown_s", [0, 3])
async def test_close_before_start_just_closes(race: RaceAuthority, store: ClockStore,
                                              countdown_s: int) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=countdown_s))
    await race.join(room.id, "ada")
    if countdown_s:
        await race.start(room.id, host)  # in countdown: not started yet
    closed = await race.close(room.id, host)
    assert closed.state == "closed" and closed.race_clock_ms is None
    assert [r.status for r in closed.racers] == ["waiting"]
    store.advance(10_000)
    later = await race.get_room(room.id)
    assert later.state == "closed" and later.race_clock_ms is None
    kinds = [e["type"] for e in await store.events.events_since(room.id, 0)]
    assert "race_over" not in kinds and "started" not in kinds and kinds[-1] == "closed"
    assert (await race.standings(room.id)).final is False
