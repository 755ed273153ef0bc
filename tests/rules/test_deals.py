"""Deals equal PySolFC's (rules.md rule 1, "Variants"), checked against pysol-cards."""

from __future__ import annotations

from collections import Counter

import pytest

from server.rules import (
    MAX_DEAL_NUMBER,
    VARIANTS,
    InvalidDealNumberError,
    Position,
    card_str,
    deal,
    get_variant,
)

from .pysol_oracle import LARGE_DEALS, SAMPLES, fan_layout, oracle_fans, read_regression

BELLE = get_variant("belle-lucie")


def _fans_text(pos: Position) -> list[list[str]]:
    return [[card_str(c) for c in fan] for fan in pos.fans]


def _lines(pos: Position) -> list[str]:
    return [" ".join(f) for f in _fans_text(pos)]


def test_deals_1_to_2000_equal_pysol_cards() -> None:
    mismatches = [n for n in range(1, 2001) if _lines(deal(BELLE, n)) != fan_layout(n)]
    assert mismatches == []


@pytest.mark.parametrize("n", [31999, 32001, 100000, 123456789, 10**19, 10**20 - 1])
def test_large_deals_equal_pysol_cards(n: int) -> None:
    assert _lines(deal(BELLE, n)) == fan_layout(n)


def test_deal_32000_follows_pysolfc_mersenne_twister() -> None:
    ours = _fans_text(deal(BELLE, 32000))
    # pysol-cards' Mersenne Twister path (PySolFC's generator for 32000) ...
    assert ours == oracle_fans("belle-lucie", 32000)
    # ... not pysol-cards' MS path, which it takes for game numbers <= 32000.
    assert [" ".join(f) for f in ours] != fan_layout(32000)


@pytest.mark.parametrize("variant", sorted(SAMPLES))
def test_regression_file_matches_engine_and_oracle(variant: str) -> None:
    expected = read_regression(variant)
    assert sorted(expected) == sorted(SAMPLES[variant])
    rules = get_variant(variant)
    for n, fans in expected.items():
        assert _fans_text(deal(rules, n)) == fans, n
    for n in (1, 2, 32000, 10**20 - 1):
        assert oracle_fans(variant, n) == expected[n], n


def test_regression_file_has_large_deals() -> None:
    assert set(LARGE_DEALS) <= set(read_regression("belle-lucie"))


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v not in ("trefoil",
                                                                      "house-in-the-wood")])
def test_standard_layout_is_17_threes_and_one(variant: str) -> None:
    rules = get_variant(variant)
    pos = deal(rules, 11)
    assert [len(f) for f in pos.fans] == [3] * 17 + [1]
    assert pos.fans == deal(BELLE, 11).fans
    assert pos.foundations == (0, 0, 0, 0)
    assert pos.cells == (-1,) * rules.cells
    assert sorted(c for f in pos.fans for c in f) == list(range(52))


def test_fan_with_reserve_starts_with_four_empty_cells() -> None:
    assert deal(get_variant("fan-with-reserve"), 3).cells == (-1, -1, -1, -1)


def test_trefoil_aces_start_on_foundations_and_count() -> None:
    rules = get_variant("trefoil")
    pos = deal(rules, 5)
    assert [len(f) for f in pos.fans] == [3] * 16
    assert pos.foundations == (1, 1, 1, 1)
    assert pos.foundation_cards == 4  # rules.md ranking: the dealt aces count
    cards = sorted(c for f in pos.fans for c in f)
    assert cards == [c for c in range(52) if c % 13 != 0]


def test_house_in_the_wood_two_decks_eight_foundations() -> None:
    rules = get_variant("house-in-the-wood")
    pos = deal(rules, 5)
    assert [len(f) for f in pos.fans] == [3] * 34 + [2]
    assert pos.foundations == (0,) * 8
    assert Counter(c for f in pos.fans for c in f) == Counter({c: 2 for c in range(52)})


@pytest.mark.parametrize("bad", [0, -1, MAX_DEAL_NUMBER + 1, True, 1.0, "1", None])
def test_bad_deal_numbers_raise(bad: object) -> None:
    with pytest.raises(InvalidDealNumberError):
        deal(BELLE, bad)  # type: ignore[arg-type]


def test_deal_is_pure() -> None:
    assert deal(BELLE, 99) == deal(BELLE, 99)
    assert deal(BELLE, 99) != deal(BELLE, 98)
