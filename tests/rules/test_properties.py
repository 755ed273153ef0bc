"""Hypothesis properties over random legal play in every variant (issue 2, "Tests")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import (
    ANY_CELL,
    AUTOPLAY,
    FOUNDATION,
    REDEAL,
    UNDO,
    VARIANTS,
    IllegalMoveError,
    Move,
    Position,
    RuleSet,
    apply,
    get_variant,
    is_legal,
    legal_moves,
    new_game,
    replay,
    status,
)
from server.rules.moves import cell_place

PROPERTY_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _deck(rules: RuleSet, pos: Position) -> Counter[int]:
    cards: Counter[int] = Counter(pos.cards_in_play())
    for pile, top in enumerate(pos.foundations):
        suit = pile % 4
        cards.update(suit * 13 + r for r in range(top))
    return cards


def _candidates(rules: RuleSet, pos: Position) -> Iterator[Move]:
    """Every syntactically possible move here, and some beyond the table."""
    n = len(pos.fans)
    places = [*range(n + 1), FOUNDATION]
    cells = [cell_place(i) for i in range(len(pos.cells) + 1)]
    for src in [*range(n + 1), FOUNDATION, *cells]:
        for dst in [*places, ANY_CELL, *cells]:
            yield Move.play(src, dst)
    buried = {c for fan in pos.fans for c in fan[:-1]}
    for card in range(52):
        targets = places if card in buried else [FOUNDATION, 0]
        for dst in targets:
            yield Move.merci(card, dst)
    yield from (REDEAL, UNDO, AUTOPLAY)


def _check_position(rules: RuleSet, pos: Position, full: Counter[int], broad: bool) -> None:
    assert _deck(rules, pos) == full  # the deck is conserved
    generated = list(legal_moves(rules, pos))
    assert len(set(generated)) == len(generated)
    for move in generated:  # every generated move is accepted
        assert is_legal(rules, pos, move), move
        apply(rules, pos, move, b"k")
    if broad:  # every accepted move is generated
        accepted = set()
        for move in _candidates(rules, pos):
            legal = is_legal(rules, pos, move)
            try:
                apply(rules, pos, move, b"k")
            except IllegalMoveError:
                assert not legal, move
            else:
                assert legal, move
                accepted.add(move)
        assert accepted == set(generated)
    st_ = status(rules, pos)
    if pos.foundation_cards == rules.cards:
        assert st_ == "won" and generated == []
    else:  # stuck <=> no legal move
        assert (st_ == "stuck") == (generated == [])


def _run(rules: RuleSet, deal_number: int, key: bytes, choices: list[int]) -> None:
    game = new_game(rules, deal_number, key)
    full = _deck(rules, game.position)
    assert sum(full.values()) == rules.cards
    for step, choice in enumerate(choices):
        pos = game.position
        _check_position(rules, pos, full, broad=step % 3 == 0)
        moves = game.legal_moves()
        if choice % 9 == 0 and game.can_undo:
            previous = game._history.previous
            assert previous is not None
            game = game.play(UNDO)
            assert game.position == previous.position  # undo restores exactly
            continue
        if not moves:
            break
        move = REDEAL if choice % 9 == 1 and REDEAL in moves else moves[choice % len(moves)]
        game = game.play(move)
        assert game.position.foundation_cards >= pos.foundation_cards  # only undo lowers it
        if rules.undo:
            assert game.play(UNDO).position == pos  # undo restores the previous position
    _check_position(rules, game.position, full, broad=True)
    again = replay(rules, deal_number, key, game.log)  # replay equals live state
    assert again.position == game.position
    assert again.log == game.log


@pytest.mark.parametrize("variant", list(VARIANTS))
@PROPERTY_SETTINGS
@given(
    deal_number=st.one_of(st.integers(1, 40000), st.integers(1, 10**20 - 1)),
    key=st.binary(min_size=0, max_size=32),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
)
def test_random_legal_play(variant: str, deal_number: int, key: bytes, choices: list[int]) -> None:
    _run(get_variant(variant), deal_number, key, choices)


@PROPERTY_SETTINGS
@given(
    variant=st.sampled_from(list(VARIANTS)),
    deal_number=st.integers(1, 10**6),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
    redeals=st.integers(0, 3),
    merci=st.booleans(),
    undo=st.booleans(),
)
def test_random_legal_play_with_room_overrides(
    variant: str, deal_number: int, choices: list[int], redeals: int, merci: bool, undo: bool
) -> None:
    rules = get_variant(variant).with_overrides(redeals=redeals, merci=merci, undo=undo)
    _run(rules, deal_number, b"room key", choices)


def test_long_playouts_reach_the_end() -> None:
    # Deterministic long games (no hypothesis): play until won or stuck.
    import random

    for variant in ("belle-lucie", "three-shuffles-and-a-draw", "fan-with-reserve",
                    "house-in-the-wood"):
        rules = get_variant(variant)
        rng = random.Random(variant)
        for deal_number in range(1, 4):
            game = new_game(rules, deal_number, b"k")
            full = _deck(rules, game.position)
            while game.status == "playing" and len(game.log) < 400:
                game = game.play(rng.choice(game.legal_moves()))
            _check_position(rules, game.position, full, broad=True)
            assert replay(rules, deal_number, b"k", game.log).position == game.position
