"""The solver in the race authority: hints, winnable-only rooms, par in the standings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.race import errors as err
from server.race.assist import par_hook
from server.race.authority import RaceAuthority, RoomOptions
from server.rules import Move, RuleSet, is_legal, position_from_json
from server.store.memory import MemoryStore


@pytest.fixture
async def race() -> AsyncIterator[RaceAuthority]:
    store = MemoryStore()
    authority = RaceAuthority(store)
    authority.race_over_hooks.append(par_hook(authority.assist))
    yield authority
    await store.close()


async def _racing(race: RaceAuthority, **opts: object) -> tuple[str, str, str]:
    options = RoomOptions(**{"deal": 7, "countdown_s": 0, **opts})  # type: ignore[arg-type]
    room, host = await race.create_room(options)
    racer, token = await race.join(room.id, "Ada")
    await race.start(room.code, host)
    return room.id, racer.id, token


async def test_hint_is_a_legal_move_in_hint_rooms(race: RaceAuthority) -> None:
    room_id, racer_id, token = await _racing(race, hints=True)
    assert (await race.get_room(room_id)).hints
    got = await race.hint(room_id, racer_id, token)
    game = await race.game(room_id, racer_id, token)
    assert got.version == game.version and got.move is not None
    rules = RuleSet.from_json((await race.get_room(room_id)).rules.model_dump())
    assert is_legal(rules, position_from_json(game.position.model_dump()),
                    Move.from_text(got.move))
    assert got.move in game.legal_moves


async def test_hints_are_off_by_default_and_need_the_token(race: RaceAuthority) -> None:
    room_id, racer_id, token = await _racing(race)
    with pytest.raises(err.HintsOff):
        await race.hint(room_id, racer_id, token)
    with pytest.raises(err.AuthMissing):
        await race.hint(room_id, racer_id, None)


async def test_winnable_only_room_has_par_52(race: RaceAuthority) -> None:
    room_id, _, _ = await _racing(race, deal="random", winnable_only=True)
    view = await race.get_room(room_id)
    assert view.winnable_only
    table = await race.standings(room_id)
    assert table.par == 52
    assert [s.to_par for s in table.standings] == [52 - s.foundation_cards
                                                    for s in table.standings]


async def test_par_is_stored_when_the_race_ends(race: RaceAuthority) -> None:
    room_id, racer_id, token = await _racing(race)
    assert (await race.standings(room_id)).par is None
    await race.resign(room_id, racer_id, token)
    for _ in range(100):
        table = await race.standings(room_id)
        if table.par is not None:
            break
        await asyncio.sleep(0.02)
    assert table.final and table.par == 52  # deal 7 wins with known redeals
    assert table.standings[0].to_par == 52 - table.standings[0].foundation_cards


async def test_par_found_after_the_race_end_is_published_as_a_par_event(
    race: RaceAuthority,
) -> None:
    room_id, racer_id, token = await _racing(race)
    await race.resign(room_id, racer_id, token)
    for _ in range(100):
        events = await race.store.events.events_since(room_id, 0)
        if any(e["type"] == "par" for e in events):
            break
        await asyncio.sleep(0.02)
    types = [e["type"] for e in events]
    assert types.count("race_over") == 1 and types.count("par") == 1
    assert types.index("par") > types.index("race_over")
    over = next(e for e in events if e["type"] == "race_over")
    par_event = next(e for e in events if e["type"] == "par")
    assert over["par"] is None and par_event["par"] == 52
    table = (await race.standings(room_id)).model_dump(mode="json")
    assert par_event["standings"] == table["standings"] and par_event["final"] is True
