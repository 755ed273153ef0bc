"""Cards and moves in text and JSON (rules.md "Vocabulary", "Move notation")."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules import (
    ANY_CELL,
    AUTOPLAY,
    FOUNDATION,
    REDEAL,
    UNDO,
    InvalidCardError,
    InvalidMoveError,
    Move,
    RulesError,
    card_glyph,
    card_str,
    deal,
    get_variant,
    moves_from_json,
    moves_to_json,
    parse_card,
    parse_move,
    position_from_json,
    position_to_json,
)
from server.rules.moves import cell_place

from .helpers import position


def test_every_card_round_trips() -> None:
    for card in range(52):
        assert parse_card(card_str(card)) == card
        assert parse_card(card_glyph(card)) == card
        assert parse_card(card_str(card).lower()) == card


@pytest.mark.parametrize(
    ("text", "expected"),
    [("TH", "TH"), ("10H", "TH"), ("10h", "TH"), ("th", "TH"), ("t♥", "TH"), ("10♥", "TH"),
     ("A♠", "AS"), ("a♤", "AS"), ("K♣", "KC"), ("Q♦", "QD"), ("q♢", "QD"), (" 7c ", "7C")],
)
def test_card_text_forms(text: str, expected: str) -> None:
    assert card_str(parse_card(text)) == expected


def test_card_glyph_form() -> None:
    assert card_glyph(parse_card("TH")) == "10♥"
    assert card_glyph(parse_card("AS")) == "A♠"


@pytest.mark.parametrize("bad", ["", "1H", "11H", "HT", "TX", "T", "10", "ZZZZ", "1♥", "0C"])
def test_bad_card_text(bad: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(bad)
    assert isinstance(info.value, ValueError)
    assert info.value.code == "card/invalid"


def test_card_must_be_text() -> None:
    with pytest.raises(InvalidCardError):
        parse_card(5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("3f", Move.play(2, FOUNDATION)),
        ("3-7", Move.play(2, 6)),
        ("3c", Move.play(2, ANY_CELL)),
        ("c2f", Move.play(cell_place(1), FOUNDATION)),
        ("c2-7", Move.play(cell_place(1), 6)),
        ("r", REDEAL),
        ("m 5H f", Move.merci(parse_card("5H"), FOUNDATION)),
        ("m 5H 7", Move.merci(parse_card("5H"), 6)),
        ("m TH 12", Move.merci(parse_card("TH"), 11)),
        ("u", UNDO),
        ("a", AUTOPLAY),
    ],
)
def test_move_text_round_trip(text: str, move: Move) -> None:
    assert parse_move(text) == move
    assert str(move) == text
    assert parse_move(str(move)) == move
    assert Move.from_json(move.to_json()) == move
    assert eval(repr(move), {"Move": Move}) == move


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("3F", "3f"), (" 3 f ", "3f"), ("3 7", "3-7"), ("3>7", "3-7"), ("3 - 7", "3-7"),
     ("C2F", "c2f"), ("c2 7", "c2-7"), ("R", "r"), ("redeal", "r"), ("UNDO", "u"),
     ("autoplay", "a"), ("m 10H f", "m TH f"), ("M 10h 7", "m TH 7"), ("m 5♥ f", "m 5H f"),
     ("m5h7", "m 5H 7"), ("m 5h-7", "m 5H 7"), ("3-f", "3f"), ("18-1", "18-1")],
)
def test_move_text_variants(text: str, canonical: str) -> None:
    assert str(parse_move(text)) == canonical


@pytest.mark.parametrize(
    "bad",
    ["", "x", "0f", "3", "3-", "-7", "3-0", "c0f", "3-c2", "c1c", "f-3", "m 5X f", "m f",
     "m 5H c", "m 5H", "rr", "3f7", "1234-1", "3-7" * 20, "c2", "m 1H f"],
)
def test_bad_move_text_raises_invalid_move(bad: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_move(bad)
    assert info.value.code == "move/invalid"
    assert isinstance(info.value, RulesError)


def test_move_text_must_be_text() -> None:
    with pytest.raises(InvalidMoveError):
        parse_move(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ({"type": "play", "from": "3", "to": "f"}, "3f"),
        ({"type": "play", "from": 3, "to": 7}, "3-7"),
        ({"type": "play", "from": "3", "to": "c"}, "3c"),
        ({"type": "play", "from": "c2", "to": "F"}, "c2f"),
        ({"type": "play", "from": "c2", "to": "7"}, "c2-7"),
        ({"type": "merci", "card": "10H", "to": "f"}, "m TH f"),
        ({"type": "merci", "card": "5♥", "to": 7}, "m 5H 7"),
        ({"type": "redeal"}, "r"),
        ({"type": "undo"}, "u"),
        ({"type": "autoplay"}, "a"),
        ("3-7", "3-7"),
    ],
)
def test_move_json_forms(data: Any, text: str) -> None:
    move = Move.from_json(data)
    assert str(move) == text
    assert Move.from_json(move.to_json()) == move


@pytest.mark.parametrize(
    "bad",
    [
        None, 3, [], {}, {"type": "jump"}, {"type": "play"}, {"type": "play", "from": "3"},
        {"type": "play", "from": "f", "to": "3"}, {"type": "play", "from": "3", "to": "c2"},
        {"type": "play", "from": "c1", "to": "c"}, {"type": "play", "from": 0, "to": "f"},
        {"type": "play", "from": True, "to": "f"}, {"type": "play", "from": "3", "to": "f", "x": 1},
        {"type": "merci", "card": "5X", "to": "f"}, {"type": "merci", "card": "5H", "to": "c"},
        {"type": "merci", "to": "f"}, {"type": "redeal", "card": "5H"},
    ],
)
def test_bad_move_json_raises_invalid_move(bad: Any) -> None:
    with pytest.raises(InvalidMoveError):
        Move.from_json(bad)


def test_move_log_json_round_trip() -> None:
    log = [parse_move(t) for t in ("3f", "3-7", "r", "m 5H f", "u", "c1-2")]
    assert moves_from_json(moves_to_json(log)) == log
    assert moves_from_json([m.to_json() for m in log]) == log
    with pytest.raises(InvalidMoveError):
        moves_from_json("3f")


@pytest.mark.parametrize("variant", ["belle-lucie", "trefoil", "house-in-the-wood",
                                     "fan-with-reserve"])
def test_position_json_round_trip(variant: str) -> None:
    pos = deal(get_variant(variant), 77)
    doc = position_to_json(pos)
    assert position_from_json(doc) == pos
    assert doc["foundation_cards"] == pos.foundation_cards


def test_position_json_shape() -> None:
    pos = position("JD KS 4S", "", foundations="3C", cells="7H - - -", redeals_used=1)
    assert position_to_json(pos) == {
        "fans": [["JD", "KS", "4S"], []],
        "foundations": [["C", 3], ["D", 0], ["H", 0], ["S", 0]],
        "cells": ["7H", None, None, None],
        "redeals_used": 1,
        "merci_used": False,
        "foundation_cards": 3,
    }


def test_bad_position_json() -> None:
    with pytest.raises(InvalidCardError):
        position_from_json({"fans": [["JD"]]})
    with pytest.raises(InvalidCardError):
        position_from_json({"fans": [], "foundations": [["C", "x"]], "redeals_used": 0,
                            "merci_used": False})
    with pytest.raises(InvalidCardError):
        position_from_json({"fans": [], "foundations": [["C", 1, 2]], "redeals_used": 0,
                            "merci_used": False})
    with pytest.raises(InvalidCardError):
        position_from_json({"fans": [["JX"]], "foundations": [], "redeals_used": 0,
                            "merci_used": False})
