"""What :func:`server.race.trusted.trusted` makes without validation (a move's
racer record, game view, position view and ack; issue 23) is what
``model_construct`` or validation makes of the same values: equal models,
the same fields set, the same JSON bytes; over random games of every variant."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.race import present
from server.race.decide import after_move, result_of
from server.race.state import RacerRecord, racer_record
from server.race.views import Ack, GameView, PositionView
from server.rules import VARIANTS, Game, get_variant, legal_moves, new_game, position_to_json
from server.store.base import encode_record
from tests.rules.test_properties import PROPERTY_SETTINGS


def _same(fast: Any, slow: Any) -> None:
    assert type(fast) is type(slow)
    assert fast == slow
    assert list(vars(fast)) == list(vars(slow))
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.__pydantic_extra__ == slow.__pydantic_extra__
    assert fast.__pydantic_private__ == slow.__pydantic_private__
    assert fast.model_dump() == slow.model_dump()
    assert fast.model_dump_json() == slow.model_dump_json()
    assert fast.model_dump_json(exclude_unset=True) == slow.model_dump_json(exclude_unset=True)
    assert encode_record(fast.model_dump(mode="json")) == encode_record(
        slow.model_dump(mode="json"))


def test_racer_record_is_model_construct() -> None:
    for model in (RacerRecord, GameView, PositionView, Ack):
        assert model.__pydantic_post_init__ is None
        assert not model.__private_attributes__
        assert model.model_config.get("extra") != "allow"
    for values in ({"id": "r1", "status": "playing", "log": [("1f", 10)], "foundation_cards": 5,
                    "redeals_used": 0, "merci_used": False, "reach_time_ms": 10,
                    "finished_ms": None, "final": False, "focus_losses": 0,
                    "focus_last_ms": None},
                   {"id": "r2", "status": "won", "log": [["1f", 10], ("u", 20)],
                    "foundation_cards": 52, "redeals_used": 2, "merci_used": True,
                    "reach_time_ms": 900, "finished_ms": 1000, "final": True,
                    "focus_losses": 3, "focus_last_ms": 700}):
        fast = racer_record(**values)
        _same(fast, RacerRecord.model_construct(**values))
        assert encode_record(fast.stored()) == encode_record(
            RacerRecord.model_construct(**values).stored())
        assert fast.log is values["log"]


def _validated_view(racer: RacerRecord, game: Game, status: str, active: bool,
                    clock: int | None) -> GameView:
    """``present.game_view`` as it was: every value validated."""
    rules, pos = game.rules, game.position
    return GameView(
        racer=racer.id, version=racer.version, status=status,  # type: ignore[arg-type]
        final=racer.final, position=position_to_json(pos),  # type: ignore[arg-type]
        legal_moves=[str(m) for m in legal_moves(rules, pos)] if active else [],
        can_undo=active and game.can_undo, redeals_left=rules.redeals - pos.redeals_used,
        merci_available=rules.merci and not pos.merci_used, moves=racer.version,
        reach_time_ms=racer.reach_time_ms, race_clock_ms=clock,
    )


@PROPERTY_SETTINGS
@given(
    variant=st.sampled_from(list(VARIANTS)),
    deal_number=st.integers(1, 10**6),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
    redeals=st.integers(0, 3),
    merci=st.booleans(),
    undo=st.booleans(),
)
def test_views_are_the_validated_ones(variant: str, deal_number: int, choices: list[int],
                                      redeals: int, merci: bool, undo: bool) -> None:
    rules = get_variant(variant).with_overrides(redeals=redeals, merci=merci, undo=undo)
    game = new_game(rules, deal_number, b"k")
    racer = RacerRecord(id="r1", foundation_cards=game.foundation_cards)
    for step, choice in enumerate(choices):
        status, _ = result_of(game)
        for active, clock in ((True, step * 100), (False, None)):
            view = present.game_view(racer, game, status, active, clock)
            _same(view, _validated_view(racer, game, status, active, clock))
            _same(view.position, PositionView.model_validate(position_to_json(game.position)))
            assert GameView.model_validate_json(view.model_dump_json()) == view
            applied = [str(m) for m in game.log[-2:]]
            ack = present.ack(str(step), racer.version, step * 100, applied, view)
            _same(ack, Ack(client_move_id=str(step), version=racer.version,
                           race_clock_ms=step * 100, applied=applied, game=view))
            assert ack.wire_json() == ack.model_dump_json()
            again = Ack.model_validate_json(ack.model_dump_json())
            assert again.wire_json() == ack.model_dump_json()
        moves = game.legal_moves()
        if not moves:
            break
        game = game.play(moves[choice % len(moves)])
        racer = after_move(racer, game, step * 100 + 50)


def test_position_views_with_a_small_fan_cache(monkeypatch: Any) -> None:
    """The fan texts looked up (``present._fans``) stay right when the cache fills
    and empties between two fans of one position."""
    monkeypatch.setattr(present, "_FAN_TEXTS", {})
    monkeypatch.setattr(present, "_FANS_KEPT", 5)
    for variant in VARIANTS:
        game = new_game(get_variant(variant), 17, b"k")
        for step in range(12):
            view = present.position_view(game.position)
            _same(view, PositionView.model_validate(position_to_json(game.position)))
            assert len(present._FAN_TEXTS) <= 5
            moves = game.legal_moves()
            if not moves:
                break
            game = game.play(moves[step % len(moves)])


@PROPERTY_SETTINGS
@given(client_move_id=st.text(max_size=64), racer_id=st.text(max_size=12),
       clock=st.one_of(st.none(), st.integers(0, 10**7)))
def test_ack_wire_json_is_model_dump_json(client_move_id: str, racer_id: str,
                                          clock: int | None) -> None:
    """``Ack.wire_json`` (orjson over the fields) writes ``model_dump_json``'s text
    for any client move id and racer id (escapes, non-ASCII)."""
    game = new_game(get_variant("belle-lucie"), 5, b"k")
    racer = RacerRecord(id=racer_id, status="playing")
    view = present.game_view(racer, game, "playing", clock is not None, clock)
    for ack in (present.ack(client_move_id, 3, clock or 0, ["1f", "u"], view),
                Ack.model_construct(client_move_id=client_move_id, version=3,
                                    race_clock_ms=clock or 0, applied=[], game=view)):
        assert ack.wire_json() == ack.model_dump_json()


def test_ack_wire_json_refuses_what_model_dump_json_refuses() -> None:
    """A lone surrogate (not UTF-8): the same error as ``model_dump_json``."""
    import pytest
    from pydantic_core import PydanticSerializationError

    game = new_game(get_variant("belle-lucie"), 5, b"k")
    view = present.game_view(RacerRecord(id="r"), game, "playing", True, 0)
    ack = present.ack("m\ud800", 1, 0, ["1f"], view)
    for write in (ack.model_dump_json, ack.wire_json):
        with pytest.raises(PydanticSerializationError):
            write()
