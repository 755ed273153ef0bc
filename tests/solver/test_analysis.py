"""Hints, par, difficulty, planned play and the solver's process pool."""

from __future__ import annotations

import asyncio

import pytest

from server.rules import REDEAL, apply, deal, get_variant, is_legal, legal_moves, replay
from server.solver import (
    Difficulty,
    SolverPool,
    default_redeal_key,
    difficulty,
    hint,
    par,
    play_layouts,
    proved_winnable,
)

from .helpers import KEY, layout

BELLE = get_variant("belle-lucie")


@pytest.mark.parametrize("variant", ["belle-lucie", "three-shuffles-and-a-draw", "the-fan",
                                     "shamrocks"])
def test_hints_are_legal_along_a_game(variant: str) -> None:
    rules = get_variant(variant)
    pos = deal(rules, 7)
    steps, seconds = (4, 0.1) if rules.build != "down-suit" or rules.king_fills_empty else (12, 0.3)
    for _ in range(steps):
        move = hint(rules, pos, max_seconds=seconds)
        if move is None:
            assert not list(legal_moves(rules, pos))
            break
        assert is_legal(rules, pos, move)
        pos = apply(rules, pos, move, KEY)


def test_hint_with_the_key_follows_a_winning_line() -> None:
    key = default_redeal_key(3)
    pos = deal(BELLE, 3)
    for _ in range(120):
        move = hint(BELLE, pos, key, max_seconds=1.0)
        if move is None:
            break
        pos = apply(BELLE, pos, move, key)
    assert pos.foundation_cards == 52


def test_hint_redeals_when_the_layout_gives_nothing() -> None:
    # Q♥ under K♥ and Q♠ under K♠: no move in this layout, a redeal is left.
    assert hint(BELLE, layout("QH KH", "QS KS", redeals_used=1)) == REDEAL


def test_hint_is_none_when_stuck() -> None:
    assert hint(BELLE, layout("QH KH", "QS KS", redeals_used=2)) is None


def test_par_and_winnable() -> None:
    key = default_redeal_key(1)
    assert par(BELLE, 1, key) == 52
    assert proved_winnable(BELLE, 1, key)
    assert par(get_variant("no-redeal"), 1, key) < 52


def test_difficulty_is_consistent_with_planned_play() -> None:
    key = default_redeal_key(4)
    d = difficulty(BELLE, 4, key, max_seconds=1.0)
    played = play_layouts(BELLE, deal(BELLE, 4), key)
    assert isinstance(d, Difficulty)
    assert d.planned == played.foundation
    assert d.score == round(100 * (52 - played.foundation) / 52)
    assert d.par == 52 and d.label != "unwinnable"
    assert d.first_layout <= d.planned <= d.par
    assert set(d.to_json()) == {"score", "label", "first_layout", "planned", "par"}


def test_planned_play_replays() -> None:
    key = default_redeal_key(13)
    played = play_layouts(BELLE, deal(BELLE, 13), key)
    game = replay(BELLE, 13, key, played.moves)
    assert game.foundation_cards == played.foundation
    assert len(played.per_layout) == played.moves.count(REDEAL) + 1


def test_pool_runs_jobs_off_the_loop() -> None:
    async def main() -> None:
        pool = SolverPool(workers=1)
        try:
            res = await pool.solve(BELLE, deal(BELLE, 2), default_redeal_key(2), max_seconds=2)
            assert res.verdict == "won"
            move = await pool.hint(BELLE, deal(BELLE, 2))
            assert move is not None and is_legal(BELLE, deal(BELLE, 2), move)
        finally:
            pool.close()

    asyncio.run(main())
