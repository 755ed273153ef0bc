"""Fan and cell numbers are ASCII digits only: ``"²"`` and ``"١"`` are digits to
``str.isdigit`` and ``\\d``, and crashed the server (``int("²")``) or were read
as fan 1 (found by a trial of bad input)."""

from __future__ import annotations

import pytest

from server.rules import InvalidMoveError, Move


@pytest.mark.parametrize("text", ["²f", "١f", "1-²", "3 ١", "c²f", "m 5H ٣", "①f"])
def test_text_moves_with_other_digits_are_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        Move.from_text(text)


@pytest.mark.parametrize("place", ["²", "١", "c²", "c١", "1²"])
def test_json_moves_with_other_digits_are_invalid(place: str) -> None:
    with pytest.raises(InvalidMoveError):
        Move.from_json({"type": "play", "from": place, "to": "f"})
    with pytest.raises(InvalidMoveError):
        Move.from_json({"type": "play", "from": "1", "to": place})


def test_ascii_numbers_still_parse() -> None:
    assert str(Move.from_text("3f")) == "3f"
    assert str(Move.from_json({"type": "play", "from": "12", "to": "f"})) == "12f"
