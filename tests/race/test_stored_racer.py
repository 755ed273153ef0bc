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


def test_progress_logged_is_the_models_logged() -> None:
    """The move path's progress event (``events.progress_logged``, issue 23) is
    what ``ProgressEvent(...).logged()`` gives, keys in the same order."""
    import orjson
    import pytest

    from server.race.events import ProgressEvent, parse_event, progress_logged

    for values in ({"race_clock_ms": 0, "racer": "r", "foundation_cards": 0, "moves": 1,
                    "redeals_used": 0, "merci_used": False, "status": "playing",
                    "reach_time_ms": None},
                   {"race_clock_ms": 91_000, "racer": "abc", "foundation_cards": 52,
                    "moves": 140, "redeals_used": 2, "merci_used": True, "status": "won",
                    "reach_time_ms": 90_500}):
        fast = progress_logged(**values)  # type: ignore[arg-type]
        model = ProgressEvent(**values).logged()  # type: ignore[arg-type]
        assert orjson.dumps(fast) == orjson.dumps(model)
        assert parse_event({"seq": 3, **fast}) == ProgressEvent(seq=3, **values)  # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        progress_logged(race_clock_ms=1, racer="r", foundation_cards=0, moves=1, redeals_used=0,
                        merci_used=False, status="resigned", reach_time_ms=None)



def test_after_move_with_the_entries_texts_is_the_same() -> None:
    """``after_move(..., texts)`` (``decide_move`` hands the texts it made for the
    ack) gives the record ``after_move`` makes of the game's log alone."""
    from server.rules import AUTOPLAY

    game = new_game(VARIANTS["belle-lucie"], 1000, b"k" * 16)
    racer = RacerRecord(id="r1", status="playing")
    for step in range(40):
        moves = game.legal_moves()
        if not moves:
            break
        autoplay = step % 9 == 4 and any(m.target == -1 for m in moves)
        after = game.play(AUTOPLAY if autoplay else moves[step % len(moves)])
        texts = [str(m) for m in after.log[len(game.log):]]
        plain = after_move(racer, after, step * 10)
        fast = after_move(racer, after, step * 10, texts)
        assert list(vars(fast).items()) == list(vars(plain).items())
        assert encode_record(fast.stored()) == encode_record(plain.stored())
        game, racer = after, fast
    assert racer.version >= 20
