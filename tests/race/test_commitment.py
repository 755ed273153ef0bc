"""Verifiable deals (issue 32) on the real authority and memory store: every kind of
room publishes a deal commitment from its creation; the salt and the redeal key are
hidden from everyone (host, racers, spectators) until the race is over, then
revealed in the room view and the race view, and they hash to the commitment;
rooms stored before commitments still load (``deal_commitment: null``)."""

from __future__ import annotations

import re

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.race.ghost_room import GhostRooms
from server.race.state import RoomRecord
from server.race.views import RoomView
from server.records.ghost import plan_ghost
from server.rules.commitment import deal_commitment
from tests.records.games import record

from .helpers import ClockStore

HEX64 = re.compile(r"[0-9a-f]{64}")
HEX32 = re.compile(r"[0-9a-f]{32}")


async def _stored(store: ClockStore, room_id: str) -> RoomRecord:
    got = await store.rooms.get_room(room_id)
    assert got is not None
    return RoomRecord.model_validate(got.data)


def _committed(room: RoomRecord) -> None:
    """``room`` holds a salt of its own and the commitment of its deal."""
    assert room.deal_salt is not None and HEX32.fullmatch(room.deal_salt)
    assert room.deal_commitment == deal_commitment(
        str(room.rules["variant"]), room.deal_number, room.redeal_key, room.deal_salt)


def _hidden(view: RoomView, commitment: str | None) -> None:
    assert view.deal_commitment == commitment and view.deal_commitment is not None
    assert view.deal_salt is None and view.redeal_key is None


def _revealed(view: RoomView) -> None:
    """The revealed deal hashes to the commitment the room published."""
    assert view.deal_salt is not None and view.redeal_key is not None
    assert view.deal_number is not None and view.deal_commitment is not None
    assert deal_commitment(view.rules.variant, view.deal_number, view.redeal_key,
                           view.deal_salt) == view.deal_commitment


async def test_the_commitment_is_public_from_creation_the_salt_only_after_the_race(
        race: RaceAuthority, store: ClockStore) -> None:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    assert room.deal_commitment is not None and HEX64.fullmatch(room.deal_commitment)
    published = room.deal_commitment
    _hidden(room, published)  # the host's own answer to POST /rooms
    stored = await _stored(store, room.id)
    _committed(stored)
    (ada, ada_t), (bob, bob_t), (cy, cy_t) = [await race.join(room.id, n)
                                               for n in ("ada", "bob", "cy")]
    tokens = (None, host, ada_t, bob_t, cy_t)  # spectator, host, racers
    for token in tokens:
        _hidden(await race.get_room(room.id, token), published)
    assert [r.deal_commitment for r in await race.list_rooms()] == [published]

    await race.start(room.id, host)
    game = await race.game(room.id, ada.id, ada_t)
    await race.move(room.id, ada.id, ada_t, game.legal_moves[0], 0, "m1")
    await race.resign(room.id, cy.id, cy_t)  # a finished racer: still no salt
    for token in tokens:
        view = await race.get_room(room.id, token)
        _hidden(view, published)
        assert view.deal_number == 7  # the deal number is public once the race runs
    with pytest.raises(err.HiddenUntilOver):
        await race.race(room.id)

    await race.resign(room.id, ada.id, ada_t)
    await race.resign(room.id, bob.id, bob_t)
    for token in tokens:
        view = await race.get_room(room.id, token)
        assert view.state == "over" and view.deal_commitment == published
        assert (view.deal_salt, view.redeal_key) == (stored.deal_salt, stored.redeal_key)
        _revealed(view)
    finished = await race.race(room.code)
    assert (finished.deal_salt, finished.deal_commitment) == (stored.deal_salt, published)


async def test_a_room_closed_by_its_host_reveals_its_deal(race: RaceAuthority) -> None:
    room, host = await race.create_room(RoomOptions(deal=9, countdown_s=0))
    _, token = await race.join(room.id, "ada")
    await race.start(room.id, host)
    _hidden(await race.get_room(room.id, token), room.deal_commitment)
    closed = await race.close(room.id, host)
    assert closed.state == "closed"
    _revealed(closed)
    _revealed(await race.get_room(room.id, token))


async def test_every_kind_of_room_commits_to_its_own_deal(
        race: RaceAuthority, store: ClockStore) -> None:
    made: dict[str, str] = {}
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, series_races=2))
    made["POST /rooms"] = room.id
    made["another room, same deal"] = (await race.create_room(RoomOptions(deal=7)))[0].id
    made["daily"] = (await race.create_room(RoomOptions(deal="daily")))[0].id
    seat, _, _ = await race.quick("belle-lucie", "quentin")
    made["quick-race lobby"] = seat.id
    racers = [await race.join(room.id, n) for n in ("ada", "bob")]
    await race.start(room.id, host)
    for r, token in racers:
        await race.resign(room.id, r.id, token)
    await race.rematches.idle()  # the series' next race, made in the background
    following = (await race.get_room(room.id)).rematch
    assert following is not None
    made["series' next room"] = following.room
    plain, plain_host = await race.create_room(RoomOptions(deal=8, countdown_s=0))
    ann, ann_t = await race.join(plain.id, "ann")
    await race.start(plain.id, plain_host)
    await race.resign(plain.id, ann.id, ann_t)
    made["rematch room"] = (await race.rematch(plain.id, ann_t)).room.id
    ghosts = GhostRooms(race, plan_ghost)
    try:
        ghost, _, _ = await ghosts.create(RoomOptions(), record([("8f", 60)], name="ada"))
        made["ghost room"] = ghost.id
    finally:
        await ghosts.aclose()
        await race.bots.aclose()
    salts = set()
    for kind, room_id in made.items():
        stored = await _stored(store, room_id)
        _committed(stored)
        salts.add(stored.deal_salt)
        view = await race.get_room(room_id)
        assert view.deal_commitment == stored.deal_commitment, kind
        if view.state not in ("over", "closed"):
            assert view.deal_salt is None and view.redeal_key is None, kind
    assert len(salts) == len(made)  # a salt of its own for every room


async def test_a_room_stored_before_commitments_loads_and_shows_null(
        race: RaceAuthority, store: ClockStore) -> None:
    room, host = await race.create_room(RoomOptions(deal=5, countdown_s=0))
    got = await store.rooms.get_room(room.id)
    assert got is not None
    old = {k: v for k, v in got.data.items() if k not in ("deal_salt", "deal_commitment")}
    await store.rooms.save_room(room.id, old, got.rev)  # as written before issue 32
    view = await race.get_room(room.id, host)
    assert (view.deal_commitment, view.deal_salt, view.deal_number) == (None, None, 5)
    racer, token = await race.join(room.id, "ada")
    await race.start(room.id, host)
    await race.resign(room.id, racer.id, token)
    view = await race.get_room(room.id)
    assert view.state == "over" and view.redeal_key is not None
    assert (view.deal_commitment, view.deal_salt) == (None, None)
    finished = await race.race(room.id)
    assert (finished.deal_commitment, finished.deal_salt) == (None, None)
