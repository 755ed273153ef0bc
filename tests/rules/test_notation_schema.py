"""The move notation's JSON Schema (server/rules/notation.py) says exactly what
the parser reads: a text or JSON move matches the schema if and only if
:meth:`Move.from_text` / :meth:`Move.from_json` read it (issue 33, item 7:
the contract said less than the server checks)."""

from __future__ import annotations

import re
import sys
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.rules import InvalidMoveError, Move
from server.rules.cards import _GLYPH_TO_SUIT, RANKS, SUITS
from server.rules.notation import LOG_MOVE_TEXT, MOVE_JSON_SCHEMA, MOVE_TEXT

_TEXT = re.compile(MOVE_TEXT)
_LOG = re.compile(LOG_MOVE_TEXT)
_JSON = jsonschema.Draft202012Validator({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                         **MOVE_JSON_SCHEMA})


def _reads(text: str) -> Move | None:
    try:
        return Move.from_text(text)
    except InvalidMoveError:
        return None


def _reads_json(data: Any) -> bool:
    try:
        Move.from_json(data)
    except InvalidMoveError:
        return False
    return True


def _same(text: str) -> None:
    move = _reads(text)
    assert bool(_TEXT.fullmatch(text)) == (move is not None and len(text) <= 32), text
    assert bool(_LOG.fullmatch(text)) == (
        move is not None and move.kind != "autoplay" and len(text) <= 32), text


_SPACES = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
_ALPHABET = ("0123456789-> fFcCmMrRuUaAdDeElLnNoOtTpPyYhHsSkKjJqQ1" + _SPACES
             + "".join(_GLYPH_TO_SUIT) + "\u212a\u017f\u0131\u0130_x.\ufeff")


@settings(max_examples=3000, suppress_health_check=list(HealthCheck))
@given(st.text(_ALPHABET, max_size=12))
@example("m 10h10")
@example("m 105")
@example("c2 c")
@example("3 c5")
@example("M \u212aſ\u3000-\x1c007")
def test_text_moves_match_the_pattern_exactly_when_they_parse(text: str) -> None:
    _same(text)


@settings(max_examples=500, suppress_health_check=list(HealthCheck))
@given(st.from_regex(MOVE_TEXT, fullmatch=True).filter(lambda t: len(t) <= 32))
def test_every_text_the_pattern_makes_parses(text: str) -> None:
    _same(text)


def test_one_character_at_a_time() -> None:
    """Every code point of the BMP in place of each character of a few moves:
    only those the parser reads match (case, whitespace, the Kelvin sign, the
    long s). Past the BMP no character is whitespace or has an ASCII case form."""
    templates = ["3f", "c2-7", "m 5H f", "m 10H 7", "r", "undo", "3 7"]
    for cp in range(0x10000):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        for t in templates:
            for i in range(len(t)):
                _same(t[:i] + ch + t[i + 1:])
    for cp in range(0x10000, sys.maxunicode + 1):
        ch = chr(cp)
        assert not ch.isspace() and not ch.lower().isascii() and not ch.upper().isascii()


_PLACES = st.one_of(st.integers(-2, 1001), st.booleans(), st.none(),
                    st.text("0123456789cCfF \t\u3000x", max_size=6))
_CARDS = st.text("".join(RANKS) + "".join(SUITS).lower() + "10 \u017f\u212a♣♡x", max_size=5)


@settings(max_examples=3000, suppress_health_check=list(HealthCheck))
@given(st.one_of(
    st.fixed_dictionaries({"type": st.just("play"), "from": _PLACES, "to": _PLACES}),
    st.fixed_dictionaries({"type": st.just("merci"), "card": _CARDS, "to": _PLACES}),
    st.fixed_dictionaries({"type": st.sampled_from(["redeal", "undo", "autoplay", "Undo",
                                                     "play", "merci", "jump"])},
                          optional={"from": _PLACES, "to": _PLACES, "card": _CARDS}),
))
@example({"type": "play", "from": "c2", "to": "c"})
@example({"type": "play", "from": " 3 ", "to": "c"})
@example({"type": "merci", "card": "ſ5", "to": "f"})
@example({"type": "merci", "card": "5ſ", "to": 7})
def test_json_moves_match_the_schema_exactly_when_they_parse(data: dict[str, Any]) -> None:
    assert _JSON.is_valid(data) == _reads_json(data), data


@pytest.mark.parametrize("text", ["3f", "3-7", "3 7", "3>7", "3c", "c2f", "c2-7", "r", "redeal",
                                  "m 5H f", "m 5H 7", "m TH-f", "m 10♥ 3", "u", "  U ", "3\u3000F"])
def test_documented_texts_match(text: str) -> None:
    assert _TEXT.fullmatch(text) and _reads(text) is not None
