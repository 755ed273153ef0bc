"""A racer's focus losses through the authority over the real memory store
(docs/fair-play.md, "Focus"): counted on the racer's stored record while they
race (one a second, silently: no event), kept by their moves, nothing after
their result is final; in the finished race's document for the archive, and
in no view — room, standings, game, replay, race, room events — during or
after the race, live or archived."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.race.state import RacerRecord

from .helpers import ClockStore, count_calls


def _keys(value: Any) -> set[str]:
    """Every key of a JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def _no_focus(*shown: Any) -> None:
    for thing in shown:
        data = thing.model_dump(mode="json") if hasattr(thing, "model_dump") else thing
        leaked = {k for k in _keys(data) if "focus" in k}
        assert not leaked, f"{type(thing).__name__} shows {leaked}"


async def _record(store: ClockStore, room_id: str, racer_id: str) -> RacerRecord:
    got = await store.racers.get_racer(room_id, racer_id)
    assert got is not None
    return RacerRecord.model_validate(got.data)


class _Archive:
    """An archive holding the one document it was given (``ArchivedRaces``)."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] | None = None

    async def find_race(self, ref: str) -> Any:
        doc = self.doc
        if doc is None or ref not in (doc["race_id"], doc["room"]["code"]):
            return None

        class Stored:
            room, racers, seq = doc["room"], doc["racers"], doc["seq"]
        return Stored()

    async def update_par(self, *args: Any) -> bool:
        return False

    async def update_room(self, *args: Any) -> bool:
        return False


async def test_focus_losses_are_counted_silently_and_archived(store: ClockStore) -> None:
    archive = _Archive()
    race = RaceAuthority(store, archive=archive)
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    a, ta = await race.join(room.id, "ada")
    b, tb = await race.join(room.id, "bob")
    await race.focus_lost(room.id, a.id, ta)  # before the start: nothing
    await race.start(room.id, host)
    assert (await race.get_room(room.id)).state == "racing"
    seq = await race.last_seq(room.id)

    await race.focus_lost(room.code, a.id, ta)
    for _ in range(20):  # a flood within the second: one loss
        await race.focus_lost(room.id, a.id, ta)
    assert (await _record(store, room.id, a.id)).focus_losses == 1
    store.advance(1_000)
    await race.focus_lost(room.id, a.id, ta)
    assert (await _record(store, room.id, a.id)).focus_losses == 2
    assert (await _record(store, room.id, b.id)).focus_losses == 0
    assert await race.last_seq(room.id) == seq, "a focus loss is no room event"

    # the racer's moves keep the count, and the move after a loss stays one round trip
    game = await race.game(room.id, a.id, ta)
    ack = await race.move(room.id, a.id, ta, game.legal_moves[0], game.version, "m1")
    store.advance(1_000)
    await race.focus_lost(room.id, a.id, ta)
    reads: Counter[str] = Counter()
    count_calls(store.racers, ("get_move_state", "get_racer"), reads)
    ack = await race.move(room.id, a.id, ta, ack.game.legal_moves[0], ack.game.version, "m2")
    assert ack.version == 2 and not reads, f"the move after a focus loss read {dict(reads)}"
    assert (await _record(store, room.id, a.id)).focus_losses == 3

    with pytest.raises(err.AuthForbidden):  # one racer cannot report for another
        await race.focus_lost(room.id, a.id, tb)
    with pytest.raises(err.AuthForbidden):
        await race.focus_lost(room.id, a.id, host)
    with pytest.raises(err.AuthMissing):
        await race.focus_lost(room.id, a.id, None)

    views = [await race.get_room(room.id, t) for t in (ta, tb, host, None)]
    _no_focus(*views, await race.standings(room.id), await race.game(room.id, a.id, ta),
              await race.replay(room.id, a.id, ta), *await race.events_since(room.id, 0))

    await race.resign(room.id, a.id, ta)
    store.advance(1_000)
    await race.focus_lost(room.id, a.id, ta)  # after the final result: nothing
    assert (await _record(store, room.id, a.id)).focus_losses == 3
    await race.focus_lost(room.id, b.id, tb)
    await race.resign(room.id, b.id, tb)
    store.advance(1_000)
    await race.focus_lost(room.id, b.id, tb)  # after the race: nothing, no error
    assert (await race.get_room(room.id)).state == "over"
    assert (await _record(store, room.id, b.id)).focus_losses == 1

    _no_focus(*[await race.get_room(room.id, t) for t in (ta, tb, host, None)],
              await race.standings(room.id), await race.race(room.id),
              *[await race.replay(room.id, r.id) for r in (a, b)],
              *[await race.game(room.id, r.id) for r in (a, b)],
              *await race.events_since(room.id, 0))

    [doc] = await race.claim_finished(10, 60_000)
    assert doc["racers"][a.id]["focus_losses"] == 3
    assert doc["racers"][b.id]["focus_losses"] == 1
    _no_focus(doc["room"], doc["standings"])  # only the racer records carry it
    archive.doc = doc
    _no_focus(await race.archived.get_room(room.id), await race.archived.standings(room.id),
              await race.archived.race(room.id),
              *[await race.archived.replay(room.id, r.id) for r in (a, b)],
              *[await race.archived.game(room.id, r.id) for r in (a, b)])
