"""Dead-position detection (seed 001 strategy 1, seed 004): exact per build rule."""

from __future__ import annotations

from server.rules import get_variant, parse_card
from server.solver.deadlock import LIVE, dead_ranks, merci_bounds

BELLE = get_variant("belle-lucie")


def fans(*texts: str) -> list[list[int]]:
    return [[parse_card(c) for c in t.split()] for t in texts]


def test_lower_card_under_its_king_is_dead() -> None:
    # 3♥ under K♥: the king waits for 3♥ on the foundation, 3♥ waits for the king.
    dead = dead_ranks(BELLE, fans("3H KH", "2C 5D"))
    assert dead == [LIVE, LIVE, 2, LIVE]


def test_lower_card_under_a_higher_one_that_can_leave_is_live() -> None:
    # 9♥ may still go onto T♥ when T♥ becomes a top card elsewhere.
    assert dead_ranks(BELLE, fans("4H 9H", "TH 2C")) == [LIVE] * 4


def test_successor_below_pins_and_everything_below_is_stuck() -> None:
    # 9♥ covers T♥ (its successor) and 4♥: 4♥, T♥ and 9♥ never move; 2♣ under them neither.
    dead = dead_ranks(BELLE, fans("2C 4H TH 9H", "5S"))
    assert dead == [1, LIVE, 3, LIVE]


def test_dead_suit_cascades_to_a_pinned_card_of_that_suit() -> None:
    # 3♥ under K♥ kills hearts from 3. 9♥ covers its successor T♥ and, as
    # hearts above 3 never go up, stays for good: 2♠ under them is stuck too.
    dead = dead_ranks(BELLE, fans("3H KH", "2S TH 9H"))
    assert dead[2] == 2
    assert dead[3] == 1


def test_the_fan_kings_can_move_so_do_not_pin() -> None:
    assert dead_ranks(get_variant("the-fan"), fans("3H KH", "2C")) == [LIVE] * 4
    # ...but a card over its own successor still does.
    assert dead_ranks(get_variant("the-fan"), fans("4H TH 9H"))[2] == 3


def test_any_suit_builds() -> None:
    garden = get_variant("super-flower-garden")
    assert dead_ranks(garden, fans("3S KS"))[3] == 2
    assert dead_ranks(garden, fans("3H KS")) == [LIVE] * 4
    assert dead_ranks(garden, fans("4H TH 9H")) == [LIVE] * 4  # 9♥ may go on any ten
    assert dead_ranks(get_variant("shamrocks"), fans("3S KS")) == [LIVE] * 4


def test_merci_bound_frees_one_fan_only() -> None:
    one = fans("3H KH", "2C 5D")
    bound, per_fan = merci_bounds(BELLE, one)
    assert bound == 52 and per_fan[0] == 52
    two = fans("3H KH", "2S KS")
    bound, _ = merci_bounds(BELLE, two)
    assert bound == 13 + 13 + 2 + 13  # spades still dead from 2 when the merci frees hearts
