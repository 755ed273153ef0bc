"""Every room event the authority logs is one of :mod:`server.race.events`.

Scenarios drive the authority over the memory store through whole rooms
(create, join, ready, countdown, start, moves, resign, leave, time limit,
close, par); every logged event must validate against the
:data:`~server.race.events.RoomEvent` union, and together the scenarios
emit every type of the union.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from server.race.assist import par_hook
from server.race.authority import RaceAuthority, RoomOptions
from server.race.events import (
    EVENT_MODELS,
    EVENT_TYPES,
    CountdownEvent,
    FinishedEvent,
    JoinedEvent,
    ProgressEvent,
    RaceOverEvent,
    parse_event,
)

from .helpers import ClockStore, pick_move

Scenario = Callable[[RaceAuthority, ClockStore], Awaitable[list[dict[str, Any]]]]


@pytest.fixture
def race(store: ClockStore) -> RaceAuthority:
    authority = RaceAuthority(store)
    authority.race_over_hooks.append(par_hook(authority))
    return authority


async def _logged(race: RaceAuthority, room_id: str) -> list[dict[str, Any]]:
    """The room's logged events, each checked against the union (and its ``seq``)."""
    events = await race.events_since(room_id, 0)
    for n, event in enumerate(events, 1):
        assert event["seq"] == n
        typed = parse_event(event)
        # the stored dict is exactly the model's (no field added, lost or changed)
        assert typed.model_dump(mode="json") == event, event["type"]
    return events


async def _wait_for(race: RaceAuthority, room_id: str, type_: str) -> None:
    for _ in range(250):
        if any(e["type"] == type_ for e in await race.events_since(room_id, 0)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {type_} event")


async def _play(race: RaceAuthority, room_id: str, racer_id: str, token: str, n: int) -> None:
    rules = (await race.get_room(room_id)).rules.model_dump()
    for i in range(n):
        game = (await race.game(room_id, racer_id, token)).model_dump(mode="json")
        move = pick_move(rules, game)
        if move is None or game["final"]:
            return
        await race.move(room_id, racer_id, token, move, game["version"], f"m{i}")


async def full_race(race: RaceAuthority, store: ClockStore) -> list[dict[str, Any]]:
    """create, join ×2, ready ×2 → countdown, start, moves, resign ×2 → race over, par."""
    room, _host = await race.create_room(RoomOptions(deal=7, countdown_s=1))
    ada, ada_token = await race.join(room.id, "Ada")
    bob, bob_token = await race.join(room.id, "Bob")
    await race.set_ready(room.id, ada.id, ada_token, True)
    await race.set_ready(room.id, bob.id, bob_token, True)
    store.advance(1_000)
    await race.tick()
    await _play(race, room.id, ada.id, ada_token, 12)
    await _play(race, room.id, bob.id, bob_token, 3)
    await race.resign(room.id, bob.id, bob_token)
    await race.resign(room.id, ada.id, ada_token)
    await _wait_for(race, room.id, "par")
    return await _logged(race, room.id)


async def leave_and_time_limit(race: RaceAuthority, store: ClockStore) -> list[dict[str, Any]]:
    """A racer leaves before the start, one during the race, the last one times out."""
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, time_limit_s=10))
    racers = [await race.join(room.id, name) for name in ("Ada", "Bob", "Cy")]
    await race.leave(room.id, racers[2][0].id, racers[2][1])  # before the start
    await race.start(room.id, host)
    await _play(race, room.id, racers[0][0].id, racers[0][1], 2)
    await race.leave(room.id, racers[1][0].id, racers[1][1])  # leaves during the race
    store.advance(10_000)
    await race.tick()
    return await _logged(race, room.id)


async def closed_before_the_start(race: RaceAuthority, store: ClockStore
                                  ) -> list[dict[str, Any]]:
    room, host = await race.create_room(RoomOptions(deal=7))
    await race.join(room.id, "Ada")
    await race.close(room.id, host)
    return await _logged(race, room.id)


async def closed_during_the_race(race: RaceAuthority, store: ClockStore
                                 ) -> list[dict[str, Any]]:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    ada, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await _play(race, room.id, ada.id, token, 2)
    store.advance(500)
    await race.close(room.id, host)
    return await _logged(race, room.id)


async def rematched(race: RaceAuthority, store: ClockStore) -> list[dict[str, Any]]:
    """A race over, then a rematch offered: the old room logs ``rematch``; the new
    room's events (created, joined) are typed too."""
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    ada, token = await race.join(room.id, "Ada")
    await race.start(room.id, host)
    await race.resign(room.id, ada.id, token)
    made = await race.rematch(room.id, token)
    assert _types(await _logged(race, made.room.id)) == ["created", "joined"]
    return await _logged(race, room.id)


SCENARIOS: tuple[Scenario, ...] = (full_race, leave_and_time_limit, closed_before_the_start,
                                   closed_during_the_race, rematched)


def _types(events: list[dict[str, Any]], *, par: bool = True) -> list[str]:
    """The events' types (without ``par``, which comes whenever the solver is done)."""
    return [e["type"] for e in events if par or e["type"] != "par"]


async def test_a_full_race_logs_typed_events(race: RaceAuthority, store: ClockStore) -> None:
    events = await full_race(race, store)
    types = _types(events)
    assert types[:6] == ["created", "joined", "joined", "ready", "ready", "countdown"]
    assert types[6] == "started" and types[-2:] == ["race_over", "par"]
    for event in events[:6]:
        assert event["race_clock_ms"] is None  # before the start
    assert events[6]["race_clock_ms"] == 0
    joined = parse_event(events[1])
    assert isinstance(joined, JoinedEvent) and joined.racer.name == "Ada"
    countdown = parse_event(events[5])
    assert isinstance(countdown, CountdownEvent) and countdown.starts_in_ms == 1_000
    progress = [parse_event(e) for e in events if e["type"] == "progress"]
    assert progress and all(isinstance(p, ProgressEvent) for p in progress)
    finished = [parse_event(e) for e in events if e["type"] == "finished"]
    assert [f.status for f in finished if isinstance(f, FinishedEvent)] == ["resigned"] * 2
    over = parse_event(events[-2])
    assert isinstance(over, RaceOverEvent) and over.final and over.par is None
    assert [s.name for s in over.standings] == ["Ada", "Bob"]


async def test_leaving_and_the_time_limit(race: RaceAuthority, store: ClockStore) -> None:
    events = await leave_and_time_limit(race, store)
    left = [e for e in events if e["type"] == "left"]
    assert [e["race_clock_ms"] is None for e in left] == [True, False]
    statuses = [e["status"] for e in events if e["type"] == "finished"]
    assert statuses == ["left", "timed_out"]
    timed_out = next(e for e in events if e.get("status") == "timed_out")
    assert timed_out["race_clock_ms"] == 10_000
    assert _types(events)[-1] in ("race_over", "par")  # par: whenever the solver is done


async def test_closing(race: RaceAuthority, store: ClockStore) -> None:
    before = await closed_before_the_start(race, store)
    assert _types(before) == ["created", "joined", "closed"]
    assert before[-1]["race_clock_ms"] is None
    during = await closed_during_the_race(race, store)
    assert _types(during, par=False)[-3:] == ["finished", "race_over", "closed"]
    closed = next(e for e in during if e["type"] == "closed")
    assert isinstance(closed["race_clock_ms"], int)


async def test_every_event_type_is_emitted(race: RaceAuthority, store: ClockStore) -> None:
    seen: set[str] = set()
    for scenario in SCENARIOS:
        seen.update(_types(await scenario(race, store)))
    assert seen == set(EVENT_TYPES)
    assert [m.model_fields["type"].default for m in EVENT_MODELS] == list(EVENT_TYPES)


def test_events_refuse_unknown_and_mistyped_fields() -> None:
    good = {"seq": 1, "type": "ready", "race_clock_ms": None, "racer": "r1", "ready": True}
    assert parse_event(good).type == "ready"
    for bad in ({**good, "extra": 1}, {**good, "ready": "maybe"}, {**good, "type": "nope"},
                {**good, "race_clock_ms": 5}, {k: v for k, v in good.items() if k != "racer"}):
        with pytest.raises(ValueError):
            parse_event(bad)
