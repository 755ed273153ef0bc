"""The solver on hand-made positions, against brute force, and on real deals."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import Position, RuleSet, get_variant, replay
from server.solver import SolverError, UnsupportedRulesError, default_redeal_key, solve, verify_line

from .helpers import KEY, brute_force, layout

NO_REDEAL = get_variant("no-redeal")
BELLE = get_variant("belle-lucie")
VARIANTS = ["belle-lucie", "three-shuffles-and-a-draw", "trefoil", "the-fan",
            "super-flower-garden", "shamrocks", "no-redeal"]


def test_won_position_with_its_line() -> None:
    pos = layout("KC QC", "JC", "KD QD", "JD", "KH QH JH", "KS QS", "JS")
    res = solve(NO_REDEAL, pos, mode="known-redeals")
    assert res.verdict == "won" and res.exact
    assert verify_line(NO_REDEAL, pos, b"", res.moves).foundation_cards == 52


def test_dead_lock_is_lost_at_once() -> None:
    # 3♥ under K♥ with no redeal: lost, proved without search.
    pos = layout("3H KH", "QH JH", "TH 9H", "8H 7H", "6H 5H 4H", "KC", "KD", "KS")
    res = solve(NO_REDEAL, pos)
    assert res.verdict == "lost" and res.nodes == 0
    one = solve(NO_REDEAL, pos, mode="one-layout")
    assert one.verdict == "lost" and one.exact
    assert one.best_foundation == 13 * 3 + 2  # the three lone kings go up, hearts stay at 2


def test_redeal_unlocks_the_same_position() -> None:
    pos = layout("3H KH", "QH JH", "TH 9H", "8H 7H", "6H 5H 4H", "KC", "KD", "KS")
    res = solve(BELLE, pos, KEY)
    won, _, _ = brute_force(BELLE, pos, KEY, redeals=True)
    assert (res.verdict == "won") == won
    if won:
        assert verify_line(BELLE, pos, KEY, res.moves).foundation_cards == 52


def test_one_layout_counts_the_best_line() -> None:
    # 2♣ under 5♣ (5♣ can still leave onto 6♣): the best line is not obvious.
    pos = layout("5C 2C", "AC 4C 3C", "KC QC JC TC 9C 8C 7C 6C", "KD", "KH", "KS")
    res = solve(NO_REDEAL, pos, mode="one-layout")
    won, best, _ = brute_force(NO_REDEAL, pos, b"", redeals=False)
    assert res.best_foundation == best and res.verdict == ("won" if won else "lost")


def test_budget_gives_unknown() -> None:
    from server.rules import deal

    res = solve(get_variant("super-flower-garden"), deal(get_variant("super-flower-garden"), 23),
                default_redeal_key(23), max_nodes=200)
    assert res.verdict == "unknown" and not res.exact
    assert res.nodes <= 200 + 512


def test_known_redeals_needs_a_key() -> None:
    with pytest.raises(SolverError):
        solve(BELLE, layout("KC", "KD", "KH", "KS"), None)


def test_unsupported_variants_are_refused() -> None:
    from server.rules import deal

    for vid in ("house-in-the-wood", "fan-with-reserve"):
        rules = get_variant(vid)
        with pytest.raises(UnsupportedRulesError):
            solve(rules, deal(rules, 1), KEY)


@st.composite
def small_positions(draw: st.DrawFn, rules: RuleSet) -> Position:
    """A legal-looking position with few cards in play."""
    limit = 11 if rules.redeals else (16 if rules.build == "down-suit" else 10)
    tops = [draw(st.integers(7, 13)) for _ in range(4)]
    while sum(13 - t for t in tops) > limit:
        i = max(range(4), key=lambda k: 13 - tops[k])
        tops[i] += 1
    cards = [s * 13 + r for s in range(4) for r in range(tops[s], 13)]
    cards = draw(st.permutations(cards))
    fans: list[tuple[int, ...]] = []
    i = 0
    while i < len(cards):
        size = draw(st.integers(1, 3))
        fans.append(tuple(cards[i:i + size]))
        i += size
    redeals_used = draw(st.integers(0, rules.redeals))
    merci_used = draw(st.booleans()) if rules.merci else False
    return Position(tuple(fans), tuple(tops), (), redeals_used, merci_used)


@pytest.mark.parametrize("variant", [*VARIANTS, "the-fan+redeals"])
def test_agrees_with_brute_force(variant: str) -> None:
    rules = get_variant(variant.split("+")[0])
    if variant.endswith("+redeals"):  # king moves before a redeal: every empty fan differs
        rules = rules.with_overrides(redeals=2)

    examples = 20 if rules.build == "down-suit" and not rules.king_fills_empty else 12

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(small_positions(rules))
    def check(pos: Position) -> None:
        known = solve(rules, pos, KEY, max_seconds=30)
        won, _, _ = brute_force(rules, pos, KEY, redeals=True)
        assert known.verdict == ("won" if won else "lost")
        if won:
            assert verify_line(rules, pos, KEY, known.moves).foundation_cards == 52
        one = solve(rules, pos, None, mode="one-layout", max_seconds=30)
        won1, best1, _ = brute_force(rules, pos, KEY, redeals=False)
        assert one.exact and one.best_foundation == best1
        assert one.verdict == ("won" if won1 else "lost")
        assert verify_line(rules, pos, KEY, one.moves).foundation_cards == best1

    check()


@pytest.mark.parametrize("variant", ["belle-lucie", "three-shuffles-and-a-draw", "trefoil"])
@pytest.mark.parametrize("deal_number", [1, 2, 3, 31999, 123456])
def test_won_lines_replay_to_a_win(variant: str, deal_number: int) -> None:
    rules = get_variant(variant)
    key = default_redeal_key(deal_number)
    from server.rules import deal

    res = solve(rules, deal(rules, deal_number), key, max_seconds=10)
    assert res.verdict == "won"
    game = replay(rules, deal_number, key, res.moves)
    assert game.status == "won"
