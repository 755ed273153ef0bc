"""``RacerRecord.stored`` (what a move hands the store, issue 23) encodes to
the bytes ``model_dump(mode="json")`` encodes to."""

from __future__ import annotations

from server.race.decide import after_move
from server.race.state import RacerRecord
from server.rules import VARIANTS
from server.rules.game import new_game
from server.store.base import encode_record


def test_stored_is_model_dump_once_encoded() -> None:
    fresh = RacerRecord(id="r1")
    assert encode_record(fresh.stored()) == encode_record(fresh.model_dump(mode="json"))
    racer = RacerRecord.model_validate({"id": "r2", "status": "playing",
                                        "log": [["1f", 10], ["u", 20]], "foundation_cards": 1,
                                        "reach_time_ms": 10})
    assert encode_record(racer.stored()) == encode_record(racer.model_dump(mode="json"))
    # as a move makes it: model_construct, the new log entries as tuples
    game = new_game(VARIANTS["belle-lucie"], 1000, b"k" * 16)
    played = game.play(game.legal_moves()[0])
    moved = after_move(racer.model_copy(update={"log": []}), played, 1234)
    assert isinstance(moved.log[0], tuple)
    assert encode_record(moved.stored()) == encode_record(moved.model_dump(mode="json"))
