"""The rules' fast paths give exactly what the plain code gives (issue 23, a
move's CPU): cached move texts and parses, the legal moves (and texts) as lists, over
random games of every variant."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules import (
    VARIANTS,
    Game,
    InvalidMoveError,
    Move,
    get_variant,
    legal_moves,
    new_game,
    parse_move,
)
from server.rules import moves as moves_mod
from server.rules.movegen import legal_move_list, legal_move_texts

from .test_properties import PROPERTY_SETTINGS, _candidates

_GAMES = {
    "variant": st.sampled_from(list(VARIANTS)),
    "deal_number": st.integers(1, 10**6),
    "choices": st.lists(st.integers(0, 10**6), min_size=1, max_size=30),
}


def _positions(variant: str, deal_number: int, choices: list[int]) -> Iterator[Game]:
    """Each game and position along a random legal playout."""
    game = new_game(get_variant(variant), deal_number, b"k")
    yield game
    for choice in choices:
        moves = game.legal_moves()
        if not moves:
            return
        game = game.play(moves[choice % len(moves)])
        yield game


def _check_text(move: Move) -> None:
    text = move._text()  # the plain text, never cached
    assert str(move) == text
    assert str(move) == text  # again: from the cache
    assert str(Move(move.kind, move.source, move.target, move.card)) == text


@PROPERTY_SETTINGS
@given(**_GAMES)
def test_cached_texts_and_parses_are_the_plain_ones(
    variant: str, deal_number: int, choices: list[int]
) -> None:
    for game in _positions(variant, deal_number, choices):
        for move in _candidates(game.rules, game.position):
            _check_text(move)
        for move in game.legal_moves():
            text = str(move)
            assert moves_mod._parse(text) == move
            assert parse_move(text) == move
            assert parse_move(text) == move  # from the cache
            assert parse_move(f" {text.upper()} ") == move


@pytest.mark.parametrize("bad", ["", "0f", "3x", "c0f", "3-c2", "c2c", "m 5X f", "3" * 40])
def test_bad_texts_are_refused_every_time(bad: str) -> None:
    for _ in range(2):
        with pytest.raises(InvalidMoveError):
            parse_move(bad)
    assert bad not in moves_mod._PARSED


def test_full_caches_still_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moves_mod, "_TEXTS", {})
    monkeypatch.setattr(moves_mod, "_PARSED", {})
    monkeypatch.setattr(moves_mod, "_CACHED", 0)
    move = Move.play(2, 6)
    assert str(move) == "3-7" and parse_move("3-7") == move and parse_move("3 7") == move
    assert moves_mod._TEXTS == {} and moves_mod._PARSED == {}


@PROPERTY_SETTINGS
@given(
    variant=st.sampled_from(list(VARIANTS)),
    deal_number=st.integers(1, 10**6),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=60),
    redeals=st.integers(0, 3),
    merci=st.booleans(),
)
def test_legal_move_list_and_texts_are_the_generators(
    variant: str, deal_number: int, choices: list[int], redeals: int, merci: bool
) -> None:
    rules = get_variant(variant).with_overrides(redeals=redeals, merci=merci)
    game = new_game(rules, deal_number, b"k")
    for choice in choices:
        listed = legal_move_list(rules, game.position)
        assert listed == list(legal_moves(rules, game.position)) == game.legal_moves()
        texts = [str(m) for m in listed]
        assert legal_move_texts(rules, game.position) == texts == game.legal_move_texts()
        if not listed:
            break
        game = game.play(listed[choice % len(listed)])


def test_legal_move_list_of_a_won_game() -> None:
    from .helpers import position

    rules = get_variant("belle-lucie")
    won = position(*[""] * 18, foundations="KC KD KH KS")
    assert legal_move_list(rules, won) == list(legal_moves(rules, won)) == []
    assert legal_move_texts(rules, won) == []


@PROPERTY_SETTINGS
@given(**_GAMES)
def test_games_made_without_init_are_the_dataclasses(
    variant: str, deal_number: int, choices: list[int]
) -> None:
    """``game._made`` and ``game._step`` (a move's new game and history) set every
    field that ``__init__`` sets: the same values, equal and hashing alike."""
    from dataclasses import fields

    from server.rules import UNDO
    from server.rules import game as game_mod

    assert [f.name for f in fields(Game)] == ["rules", "deal_number", "redeal_key",
                                              "_history", "log"]
    assert [f.name for f in fields(game_mod._History)] == ["position", "previous", "depth"]
    for game in _positions(variant, deal_number, choices):
        games = [game] + ([game.play(UNDO)] if game.can_undo else [])
        for g in games:
            h = g._history
            plain = Game(g.rules, g.deal_number, g.redeal_key,
                         game_mod._History(h.position, h.previous, h.depth), g.log)
            assert g == plain and hash(g) == hash(plain) and repr(g) == repr(plain)
            assert g._history == plain._history
