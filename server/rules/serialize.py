"""JSON forms of positions and move logs for the wire.

Position JSON::

    {"fans": [["JD", "KS", "4S"], ...],      # bottom → top; [] = gone/empty
     "foundations": [["C", 3], ["D", 0], ...],# suit and top rank (0 empty)
     "cells": ["7H", null, null, null],       # fan-with-reserve only
     "redeals_used": 0, "merci_used": false,
     "foundation_cards": 3}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .cards import CARD_TEXTS, SUITS, parse_card
from .errors import InvalidCardError, InvalidMoveError
from .moves import Move
from .position import EMPTY_CELL, Position

__all__ = ["moves_from_json", "moves_to_json", "position_from_json", "position_to_json"]

_TEXT = CARD_TEXTS


def position_to_json(pos: Position) -> dict[str, Any]:
    """Position as a JSON object (module docstring)."""
    return {
        "fans": [[_TEXT[c] for c in fan] for fan in pos.fans],
        "foundations": [[SUITS[i % 4], top] for i, top in enumerate(pos.foundations)],
        "cells": [None if c == EMPTY_CELL else _TEXT[c] for c in pos.cells],
        "redeals_used": pos.redeals_used,
        "merci_used": pos.merci_used,
        "foundation_cards": pos.foundation_cards,
    }


def position_from_json(data: dict[str, Any]) -> Position:
    """Read :func:`position_to_json`'s output back.

    :raises InvalidCardError: a card text is bad, or the object lacks fields
        or has wrong types (the position is not checked for legality).
    """
    try:
        fans = tuple(tuple(parse_card(c) for c in fan) for fan in data["fans"])
        foundations = tuple(int(top) for _, top in data["foundations"])
        cells = tuple(EMPTY_CELL if c is None else parse_card(c) for c in data.get("cells", []))
        return Position(fans, foundations, cells, int(data["redeals_used"]),
                        bool(data["merci_used"]))
    except InvalidCardError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise InvalidCardError(f"not a position object: {exc!r}") from None


def moves_to_json(moves: Iterable[Move]) -> list[str]:
    """A move log as a list of move texts."""
    return [str(m) for m in moves]


def moves_from_json(data: Any) -> list[Move]:
    """A move log from texts or JSON move objects.

    :raises InvalidMoveError: not a list, or an entry is not a move.
    """
    if not isinstance(data, list):
        raise InvalidMoveError("a move log is a list of moves")
    return [Move.from_json(m) for m in data]
