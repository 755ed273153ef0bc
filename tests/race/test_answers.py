"""A repeated client move id gets the very answer of its first time, rebuilt
from the compact record the store keeps ({"version", "applied",
"reach_time_ms"}) — after later moves, undos, redeals, autoplay, a final
move, the race's end, and in another process with nothing cached
(docs/protocol.md: "returns the first answer and applies nothing")."""

from __future__ import annotations

import random

import pytest

from server.race.authority import RaceAuthority, RoomOptions
from server.race.views import Ack

from .helpers import ClockStore


async def _play(race: RaceAuthority, store: ClockStore, seed: int, undo: bool
                ) -> tuple[str, str, str, list[tuple[object, int, str, Ack]]]:
    """A random game of one racer (undo, autoplay and redeals among its moves)
    while a second racer stays in the race; every move's arguments and ack."""
    room, host = await race.create_room(RoomOptions(deal=seed, countdown_s=0, undo=undo,
                                                       redeal_key=bytes([seed]) * 32))
    a, token = await race.join(room.id, "ada")
    await race.join(room.id, "bob")
    await race.start(room.code, host)
    rng = random.Random(seed)
    game = await race.game(room.id, a.id, token)
    played: list[tuple[object, int, str, Ack]] = []
    for n in range(60):
        if game.final:
            break
        choices = [*game.legal_moves, *(["u"] if game.can_undo else []), "a"]
        move: object = rng.choice(choices)
        if move == "a" and not any(m.endswith("f") for m in game.legal_moves):
            continue  # autoplay with nothing to move is refused
        if rng.random() < 0.3:  # the JSON form too
            move = {"u": {"type": "undo"}, "a": {"type": "autoplay"}}.get(str(move), move)
        store.advance(rng.randrange(1, 3_000))
        ack = await race.move(room.id, a.id, token, move, game.version, f"m{n}")
        played.append((move, game.version, f"m{n}", ack))
        game = ack.game
    return room.id, a.id, token, played


@pytest.mark.parametrize(("seed", "undo"), [(3, True), (9, True), (2, False), (11, False)])
async def test_every_repeat_gets_its_first_answer(store: ClockStore, seed: int,
                                                  undo: bool) -> None:
    race = RaceAuthority(store)
    room_id, racer_id, token, played = await _play(race, store, seed, undo)
    kinds = {"autoplay" if len(ack.applied) > 1 else ack.applied[0] for *_, ack in played}
    assert {"autoplay", "r", "u" if undo else "r"} <= kinds
    assert played[-1][3].game.final != undo  # without undo the game ends stuck: final
    # what the store keeps of an answer is small: not the ~1.5 KB ack and view
    for *_, move_id, ack in played:
        stored = await store.racers.get_answer(room_id, racer_id, move_id)
        assert stored == {"version": ack.version, "applied": len(ack.applied),
                          "reach_time_ms": ack.game.reach_time_ms}
    store.advance(5_000)
    for other in (race, RaceAuthority(store)):  # this process, and one that caches nothing
        for move, version, move_id, ack in played:
            again = await other.move(room_id, racer_id, token, move, version, move_id)
            assert again.model_dump() == ack.model_dump(), move_id
    # the same ids with other moves and versions apply nothing either
    before = await race.game(room_id, racer_id, token)
    for _, _, move_id, ack in played[:5]:
        assert await race.move(room_id, racer_id, token, "a", 999, move_id) == ack
    after = await race.game(room_id, racer_id, token)
    assert (after.version, after.position) == (before.version, before.position)


async def test_repeats_after_the_race_is_over(store: ClockStore) -> None:
    race = RaceAuthority(store)
    room_id, racer_id, token, played = await _play(race, store, 5, True)
    room = await race.get_room(room_id)
    bob = next(r.id for r in room.racers if r.id != racer_id)
    store.advance(room.time_limit_ms)  # the time limit ends the race
    assert (await race.standings(room_id)).final
    assert bob
    answers = [await race.move(room_id, racer_id, token, move, version, move_id)
               for move, version, move_id, _ in played]
    assert [a.model_dump() for a in answers] == [ack.model_dump() for *_, ack in played]
    assert any(a.game.legal_moves for a in answers)  # as the racer saw them: racing then


async def test_a_whole_ack_stored_by_an_older_server_is_answered_as_it_is(
        store: ClockStore) -> None:
    """Rooms outlive an upgrade: answers stored whole before the compact form
    still answer their repeats."""
    race = RaceAuthority(store)
    room_id, racer_id, token, played = await _play(race, store, 3, True)
    move, version, _, ack = played[-1]
    racer = await store.racers.get_racer(room_id, racer_id)
    assert racer is not None
    # what an older server wrote: the record unchanged, the answer whole
    await store.racers.save_racer(room_id, racer_id, racer.data, racer.rev,
                                  answer=("old-1", ack.model_dump(mode="json")))
    again = await RaceAuthority(store).move(room_id, racer_id, token, move, version, "old-1")
    assert again.model_dump() == ack.model_dump()
