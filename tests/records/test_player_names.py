"""Player names (server/records/players.py): what a real player types is
accepted, look-alikes and invisible tricks are refused (docs/players.md)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.records.players import NAME_PATTERN, check_player_name, fold_name, new_player_id

ACCEPTED = ["José", "Ærøskøbing", "李小龍", "O'Brien", "Anne-Marie", "Straße", "Dvořák",
            "Δημήτρης", "Владимир", "محمد", "राम", "தமிழ்", "ひらがな漢字", "ユーリ", "ラーメン",
            "佐々木", "Hawaiʻi", "Ada 2", "Nguyễn"]
REFUSED = ["x", "a" * 25, "pаypal", "Ann\u034f", "\u3164\u3164", "김\u3164", "12\ufe00",
           "a" + "\u0301" * 3, "\u1780\u17b4", "An\tn", "Ann\u200b", "!!", "A\u2028B",
           "Ann\U000e0041"]


@pytest.mark.parametrize("name", ACCEPTED)
def test_real_names_are_accepted(name: str) -> None:
    shown, folded = check_player_name(name)
    assert shown and folded == fold_name(shown)


@pytest.mark.parametrize("name", REFUSED)
def test_look_alikes_and_invisible_characters_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        check_player_name(name)


def test_typed_apostrophes_and_hyphens_are_the_plain_ones() -> None:
    assert check_player_name("O’Brien")[0] == "O'Brien"
    assert check_player_name("Mary\u2011Jane")[1] == check_player_name("mary-jane")[1]


def test_a_name_may_not_take_the_shape_of_a_player_id() -> None:
    with pytest.raises(ValueError, match="player id"):
        check_player_name(new_player_id())


def test_folding_makes_case_and_width_one_name() -> None:
    assert fold_name("Ａｎｎ  LEE") == fold_name("ann lee") == "ann lee"


_PATTERN = re.compile(NAME_PATTERN)
_CONTEXTS = ("ab{}", "{}ab", "a{}b", "1{}1", "{}{}", "{}1", "ab {}", "{}a{}")


def _some_name_holds(ch: str) -> bool:
    """Whether ``ch`` stands in a name that :func:`check_player_name` takes."""
    for context in (*_CONTEXTS, "\u03b1{}\u03b2", "\u0430{}\u0431"):
        try:
            check_player_name(context.format(ch, ch))
        except ValueError:
            continue
        return True
    return False


def test_the_name_pattern_is_exact_on_latin1() -> None:
    """The contract's pattern (issue 33, item 7) leaves out exactly the
    characters of U+0000–U+00FF that no name may hold: those are refused
    wherever they stand, each of the others is in some name taken."""
    for cp in range(0x100):
        ch = chr(cp)
        assert bool(_PATTERN.fullmatch(ch)) == _some_name_holds(ch), hex(cp)


@pytest.mark.parametrize("name", ACCEPTED)
def test_names_taken_match_the_pattern(name: str) -> None:
    assert _PATTERN.fullmatch(name)


@settings(max_examples=500, suppress_health_check=list(HealthCheck))
@given(st.text(min_size=1, max_size=30))
def test_no_name_the_pattern_refuses_is_taken(name: str) -> None:
    if not _PATTERN.fullmatch(name):
        with pytest.raises(ValueError):
            check_player_name(name)
