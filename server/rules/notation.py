"""The move notation as JSON Schema (rules.md, "Move notation"): exactly what
:meth:`Move.from_text <server.rules.moves.Move.from_text>` and
:meth:`Move.from_json <server.rules.moves.Move.from_json>` read, for the
contract (docs/openapi.json, docs/ws-schema.json, the replay document).

The patterns are written in the dialect Python's :mod:`re` and ECMA-262 (JSON
Schema's ``pattern``) share: character classes, ``\\uXXXX`` and ``\\xXX``
escapes, no ``\\s`` (the two differ on it) and no look-around. The text is
read as the parser reads it: Unicode lower case (the Kelvin sign ``K`` is
``k``; the long s ``ſ`` is an ``s`` for a suit), any run of Unicode
whitespace (``str.isspace``) as one space, fans and free cells numbered from
1. Whether a move is legal where it stands is not the notation's business.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .cards import RANKS, SUITS
from .moves import _MAX_TEXT

__all__ = ["LOG_MOVE_TEXT", "MOVE_JSON_SCHEMA", "MOVE_TEXT", "MOVE_TEXT_SCHEMA",
           "log_move_text_schema"]

_W: Final = "[\\t-\\r\\x1c- \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
"""One whitespace character of ``str.split()`` (``str.isspace``)."""
_GLYPHS: Final = "\\u2663\\u2667\\u2666\\u2662\\u2665\\u2661\\u2660\\u2664"
"""The suit glyphs ♣ ♧ ♦ ♢ ♥ ♡ ♠ ♤ (:func:`~server.rules.cards.parse_card`)."""
_KELVIN: Final = "\\u212a"
"""The Kelvin sign, whose lower case is ``k`` (a king in a merci's card)."""
_NUMBER: Final = "(?:[1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9])"
"""A fan (or free cell) number of one to three digits, not 0."""
_CELL_NUMBER: Final = "(?:[1-9][0-9]?|0[1-9])"
"""A free cell's number in the JSON form (``"c1"`` … ``"c99"``), not 0."""


def _ci(word: str) -> str:
    """``word`` in either case (``3F``, ``Redeal``); the Kelvin sign reads as ``k``."""
    return "".join(f"[{ch}{ch.upper()}{_KELVIN if ch == 'k' else ''}]"
                   if ch.isalpha() else re.escape(ch) for ch in word)


def _class(chars: str, extra: str = "") -> str:
    body = "".join(sorted({c for ch in chars for c in (ch.lower(), ch.upper())}))
    return "[" + body.replace("-", "\\-") + extra + "]"


_RANK_TEXT: Final = f"(?:{_class(RANKS, _KELVIN)}|10)"
_SUIT_TEXT: Final = _class(SUITS, "\\u017f" + _GLYPHS)
_SEP: Final = f"(?:{_W}*[->]{_W}*|{_W}+)"
"""Between a source and a target: ``-`` or ``>`` (spaces around) or spaces."""
_TARGET: Final = f"(?:{_ci('f')}|{_NUMBER})"
_WORDS: Final = f"{_ci('r')}(?:{_ci('edeal')})?|{_ci('u')}(?:{_ci('ndo')})?"
_PLAY: Final = (
    f"{_NUMBER}(?:{_W}*[fFcC]|{_SEP}{_TARGET})"             # a fan's top card
    f"|{_ci('c')}{_NUMBER}(?:{_W}*[fF]|{_SEP}{_TARGET})")   # a free cell's card
_MERCI: Final = f"{_ci('m')}{_W}*{_RANK_TEXT}{_SUIT_TEXT}{_W}*(?:[->]{_W}*)?{_TARGET}"

LOG_MOVE_TEXT: Final = f"^{_W}*(?:{_WORDS}|{_PLAY}|{_MERCI}){_W}*$"
"""A move of a move log in the text notation: every move but autoplay (``a``)."""
MOVE_TEXT: Final = (f"^{_W}*(?:{_WORDS}|{_ci('a')}(?:{_ci('utoplay')})?|{_PLAY}|{_MERCI})"
                    f"{_W}*$")
"""Any move in the text notation (``3f``, ``3-7``, ``c2f``, ``m 5H f``, ``r``, ``u``, ``a``)."""


def log_move_text_schema() -> dict[str, Any]:
    """A log entry's move (a replay document's): text, autoplay written as its moves."""
    return {"type": "string", "minLength": 1, "maxLength": _MAX_TEXT,
            "pattern": LOG_MOVE_TEXT}


MOVE_TEXT_SCHEMA: Final[dict[str, Any]] = {
    "type": "string", "minLength": 1, "maxLength": _MAX_TEXT, "pattern": MOVE_TEXT,
    "description": 'text notation: "3f", "3-7", "3c", "c2f", "c2-7", "r", "m 5H f", '
                   '"m 5H 7", "u", "a" (rules.md, "Move notation")'}

_PLACE_TEXT: Final = 5
"""Longest ``from``/``to`` text of the JSON form."""


def _text(pattern: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": _PLACE_TEXT, "pattern": f"^{_W}*(?:{pattern}){_W}*$"}


_FAN: Final = {"type": "integer", "minimum": 1, "maximum": 999}
_FAN_OR_FOUNDATION: Final = {"anyOf": [_FAN, _text(f"{_NUMBER}|[fF]")]}


def _move(kind: str, **fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "required": ["type", *fields],
            "properties": {"type": {"const": kind}, **fields}}


MOVE_JSON_SCHEMA: Final[dict[str, Any]] = {
    "description": 'JSON form: {"type": "play", "from": 3 | "3" | "c2", "to": 7 | "7" | "f" '
                   '| "c"}, {"type": "merci", "card": "5H", "to": "f" | 7}, {"type": '
                   '"redeal" | "undo" | "autoplay"}',
    "anyOf": [
        _move("play", **{"from": {"anyOf": [_FAN, _text(_NUMBER)]},
                         "to": {"anyOf": [_FAN, _text(f"{_NUMBER}|[fFcC]")]}}),
        _move("play", **{"from": _text(f"[cC]{_CELL_NUMBER}"), "to": _FAN_OR_FOUNDATION}),
        _move("merci", card={"type": "string", "pattern": f"^{_W}*(?:[aA2-9tTjJqQkK]|10)"
                             f"{_SUIT_TEXT}{_W}*$"}, to=_FAN_OR_FOUNDATION),
        {"type": "object", "additionalProperties": False, "required": ["type"],
         "properties": {"type": {"enum": ["redeal", "undo", "autoplay"]}}},
    ]}
"""A move in the JSON form (:meth:`Move.from_json <server.rules.moves.Move.from_json>`)."""
