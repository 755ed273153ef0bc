"""One test (or a few) per rule of rules.md, per variant."""

from __future__ import annotations

import pytest

from server.rules import (
    ANY_CELL,
    FOUNDATION,
    REDEAL,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    RuleSet,
    apply,
    get_variant,
    is_legal,
    legal_moves,
    parse_card,
    parse_move,
    redeal_fans,
    status,
)
from server.rules.moves import cell_place

from .helpers import KEY, fans_text, position

BELLE = get_variant("belle-lucie")
THREE = get_variant("three-shuffles-and-a-draw")
TREFOIL = get_variant("trefoil")
THE_FAN = get_variant("the-fan")
SUPER = get_variant("super-flower-garden")
SHAMROCKS = get_variant("shamrocks")
HOUSE = get_variant("house-in-the-wood")
RESERVE = get_variant("fan-with-reserve")
NO_REDEAL = get_variant("no-redeal")


def _refused(rules: RuleSet, pos: Position, text: str) -> str:
    move = parse_move(text)
    assert not is_legal(rules, pos, move)
    assert move not in set(legal_moves(rules, pos))
    with pytest.raises(IllegalMoveError) as info:
        apply(rules, pos, move, KEY)
    return info.value.reason


def _play(rules: RuleSet, pos: Position, text: str) -> Position:
    move = parse_move(text)
    assert is_legal(rules, pos, move)
    assert move in set(legal_moves(rules, pos))
    return apply(rules, pos, move, KEY)


# --- rule 2: foundation move ------------------------------------------------

def test_ace_goes_to_empty_foundation_then_next_rank() -> None:
    pos = position("KS 2H AH", "5C 3H")
    after = _play(BELLE, pos, "1f")
    assert after.foundations == (0, 0, 1, 0)
    assert fans_text(after) == ["KS 2H", "5C 3H"]
    after = _play(BELLE, after, "1f")
    after = _play(BELLE, after, "2f")
    assert after.foundations == (0, 0, 3, 0)
    assert after.foundation_cards == 3


def test_foundation_refuses_wrong_rank_or_suit() -> None:
    pos = position("2H", "3C", foundations="AC")
    assert "cannot go to its foundation" in _refused(BELLE, pos, "1f")
    assert "cannot go to its foundation" in _refused(BELLE, pos, "2f")


def test_house_in_the_wood_has_eight_foundations() -> None:
    pos = position("AH", "AH", "2H", decks=2)
    after = _play(HOUSE, pos, "1f")
    after = _play(HOUSE, after, "2f")
    assert after.foundations == (0, 0, 1, 0, 0, 0, 1, 0)
    after = _play(HOUSE, after, "3f")
    assert after.foundations == (0, 0, 2, 0, 0, 0, 1, 0)


# --- rule 3: tableau move, per build rule -------------------------------------

def test_down_in_suit() -> None:
    pos = position("8C", "8D", "6C", "7C")
    after = _play(BELLE, pos, "4-1")
    assert fans_text(after) == ["8C 7C", "8D", "6C", ""]
    assert "does not go on" in _refused(BELLE, pos, "4-2")
    assert "does not go on" in _refused(BELLE, pos, "4-3")


def test_king_never_goes_on_next_suit_ace() -> None:
    # KC is 12, AD is 13: card + 1 must not cross suits.
    pos = position("AD", "KC")
    assert "does not go on" in _refused(BELLE, pos, "2-1")


def test_down_any_suit_super_flower_garden() -> None:
    pos = position("8D", "8C", "7C", "6H")
    _play(SUPER, pos, "3-1")
    _play(SUPER, pos, "3-2")
    _play(SUPER, pos, "4-3")
    assert "does not go on" in _refused(SUPER, pos, "3-4")


def test_up_or_down_any_suit_shamrocks_max_three() -> None:
    pos = position("6D", "8H", "7C", "KS QS JS", "9H")
    _play(SHAMROCKS, pos, "3-1")
    _play(SHAMROCKS, pos, "3-2")
    assert "does not go on" in _refused(SHAMROCKS, pos, "3-5")
    pos = position("KS QS JS", "QD")
    assert "already holds 3 cards" in _refused(SHAMROCKS, pos, "2-1")
    pos = position("KS JS", "QD")
    assert fans_text(_play(SHAMROCKS, pos, "2-1")) == ["KS JS QD", ""]


def test_up_or_down_in_suit_house_in_the_wood() -> None:
    pos = position("6C", "8C", "7C", "8D", "7C", decks=2)
    _play(HOUSE, pos, "3-1")
    _play(HOUSE, pos, "3-2")
    assert "does not go on" in _refused(HOUSE, pos, "3-4")
    assert "does not go on" in _refused(HOUSE, pos, "3-5")  # same rank


def test_tableau_move_needs_another_existing_fan() -> None:
    pos = position("8C 7C", "9C")
    assert "own fan" in _refused(BELLE, pos, "1-1")
    assert "no fan 9" in _refused(BELLE, pos, "1-9")
    assert "fan 3" in _refused(BELLE, position("8C", "9C", ""), "3-2")


# --- rule 4: empty fans are gone (the-fan: only a king) -------------------------

def test_empty_fan_is_never_refilled() -> None:
    pos = position("", "QH KS")
    assert "gone for good" in _refused(BELLE, pos, "2-1")
    assert "gone for good" in _refused(TREFOIL, pos, "2-1")


def test_the_fan_empty_fan_takes_only_a_king() -> None:
    pos = position("", "QH KS", "KH QS")
    after = _play(THE_FAN, pos, "2-1")
    assert fans_text(after) == ["KS", "QH", "KH QS"]
    assert "takes only a king" in _refused(THE_FAN, pos, "3-1")


def test_the_fan_lone_king_does_not_hop_between_empty_fans() -> None:
    pos = position("", "KS", "5H 9C")
    assert "alone" in _refused(THE_FAN, pos, "2-1")
    assert status(THE_FAN, pos) == "stuck"


def test_empty_fans_do_not_come_back_after_redeal() -> None:
    pos = position("", "2C 3C 4C", "", "5C 6C", foundations="AC")
    after = _play(BELLE, pos, "r")
    assert len(after.fans) == 2
    assert [len(f) for f in after.fans] == [3, 2]


# --- rule 5: no moves off foundations ------------------------------------------

def test_no_moves_off_foundations() -> None:
    pos = position("3C", "2D", foundations="2C AD")
    with pytest.raises(IllegalMoveError, match="foundation stays there"):
        apply(BELLE, pos, Move.play(FOUNDATION, 0))
    assert all(m.source != FOUNDATION for m in legal_moves(BELLE, pos))
    for text in ("f-1", "f1", "f 1"):
        with pytest.raises(InvalidMoveError):
            parse_move(text)
    with pytest.raises(InvalidMoveError):
        Move.from_json({"type": "play", "from": "f", "to": "1"})


# --- rule 6: redeal --------------------------------------------------------------

def test_redeal_at_any_time_while_redeals_remain() -> None:
    pos = position("2C 3C 4C", "5C 6C 7C", "8C")
    assert REDEAL in set(legal_moves(BELLE, pos))  # not stuck, still allowed
    one = _play(BELLE, pos, "r")
    two = _play(BELLE, one, "r")
    assert (one.redeals_used, two.redeals_used) == (1, 2)
    assert "all 2 redeals are used" in _refused(BELLE, two, "r")


@pytest.mark.parametrize("rules", [THE_FAN, SHAMROCKS, HOUSE, NO_REDEAL])
def test_variants_without_redeal(rules: RuleSet) -> None:
    pos = position("2C 3C 4C", "5C")
    assert "no redeals" in _refused(rules, pos, "r")


def test_redeal_procedure_gathers_fans_in_order_and_lays_out_threes() -> None:
    pos = position("2C 3C 4C", "", "5C 6C", "7C 8C 9C", "TC", foundations="AC KD")
    gathered = [parse_card(c) for c in ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]]
    after = _play(BELLE, pos, "r")
    assert after.fans == redeal_fans(KEY, 1, gathered)
    assert after.foundations == pos.foundations
    assert sorted(c for f in after.fans for c in f) == sorted(gathered)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 49, 50, 51, 52])
def test_redeal_makes_ceil_n_over_3_fans(n: int) -> None:
    fans = redeal_fans(KEY, 1, list(range(n)))
    assert len(fans) == -(-n // 3)
    assert [len(f) for f in fans[:-1]] == [3] * (len(fans) - 1)
    assert len(fans[-1]) == (n % 3 or 3)


def test_redeal_is_deterministic_and_keyed() -> None:
    pos = position("2C 3C 4C", "5C 6C 7C", "8C 9C TC", "JC QC KC", foundations="AC")
    a = apply(BELLE, pos, REDEAL, KEY)
    assert apply(BELLE, pos, REDEAL, KEY) == a
    other = apply(BELLE, pos, REDEAL, b"another room's key")
    assert other.fans != a.fans
    # redeal 2 of the same cards shuffles differently from redeal 1
    assert redeal_fans(KEY, 2, [c for f in pos.fans for c in f]) != a.fans


def test_fan_with_reserve_redeal_gathers_cells_after_fans() -> None:
    pos = position("2C 3C", "4C", foundations="AC", cells="5C - 6C -")
    gathered = [parse_card(c) for c in ["2C", "3C", "4C", "5C", "6C"]]
    after = _play(RESERVE, pos, "r")
    assert after.fans == redeal_fans(KEY, 1, gathered)
    assert after.cells == (-1, -1, -1, -1)


# --- merci ------------------------------------------------------------------------

def test_merci_only_where_enabled() -> None:
    pos = position("5H 9C KS", "6H", redeals_used=2)
    assert "no merci" in _refused(BELLE, pos, "m 5H 2")
    room = BELLE.with_overrides(merci=True)
    assert fans_text(_play(room, pos, "m 5H 2")) == ["9C KS", "6H 5H"]


def test_merci_only_after_the_last_redeal() -> None:
    pos = position("5H 9C KS", "6H", redeals_used=1)
    assert "after the last redeal (1 left)" in _refused(THREE, pos, "m 5H 2")
    assert not any(m.kind == "merci" for m in legal_moves(THREE, pos))


def test_merci_keeps_cards_above_in_order_and_goes_to_fan_or_foundation() -> None:
    pos = position("5H 9C KS", "6H", "QD JD", foundations="4H", redeals_used=2)
    to_fan = _play(THREE, pos, "m 5H 2")
    assert fans_text(to_fan) == ["9C KS", "6H 5H", "QD JD"]
    assert to_fan.merci_used
    to_found = _play(THREE, pos, "m 5H f")
    assert fans_text(to_found) == ["9C KS", "6H", "QD JD"]
    assert to_found.foundations == (0, 0, 5, 0)
    assert "does not go on" in _refused(THREE, pos, "m 9C 2")
    assert "cannot go to its foundation" in _refused(THREE, pos, "m 9C f")


def test_merci_once_buried_card_only() -> None:
    pos = position("5H 9C KS", "6H", "QD JD", foundations="4H", redeals_used=2)
    assert "top card" in _refused(THREE, pos, "m KS f")
    assert "not buried" in _refused(THREE, pos, "m 2S f")
    assert "must leave its fan" in _refused(THREE, position("6H 5H 9C", redeals_used=2),
                                             "m 5H 1")
    used = _play(THREE, pos, "m 5H f")
    assert "already used" in _refused(THREE, used, "m QD f")


def test_merci_needs_no_redeal_when_room_has_none() -> None:
    room = NO_REDEAL.with_overrides(merci=True)
    pos = position("5H 9C KS", "6H")
    assert fans_text(_play(room, pos, "m 5H 2")) == ["9C KS", "6H 5H"]


# --- free cells (fan-with-reserve) -----------------------------------------------

def test_free_cells_take_one_card_each() -> None:
    pos = position("2C 7D", "8D", "9S", foundations="AC", cells="- - - -")
    after = _play(RESERVE, pos, "1c")
    assert after.cells == (parse_card("7D"), -1, -1, -1)
    after = _play(RESERVE, after, "1f")
    after = _play(RESERVE, after, "c1-2")
    assert fans_text(after) == ["", "8D 7D", "9S"]
    assert after.cells == (-1, -1, -1, -1)


def test_free_cell_to_foundation_and_full_cells() -> None:
    pos = position("3C", foundations="AC", cells="2C 5D 6D 7D")
    assert "every free cell is taken" in _refused(RESERVE, pos, "1c")
    after = _play(RESERVE, pos, "c1f")
    assert after.cells == (-1, parse_card("5D"), parse_card("6D"), parse_card("7D"))
    assert "c1 is empty" in _refused(RESERVE, after, "c1f")
    assert "no free cell c9" in _refused(RESERVE, after, "c9f")


def test_free_cells_exist_only_in_fan_with_reserve() -> None:
    pos = position("3C 4D", "5D")
    assert "no free cells" in _refused(BELLE, pos, "1c")
    assert "no free cells" in _refused(BELLE, pos, "c1f")
    with pytest.raises(InvalidMoveError):
        parse_move("c1c")
    with pytest.raises(IllegalMoveError, match="first free cell"):
        apply(RESERVE, position("3C", cells="- -"), Move.play(0, cell_place(1)))


def test_any_cell_is_the_first_free_one() -> None:
    pos = position("3C 4D", cells="5H - -")
    after = apply(RESERVE, pos, Move.play(0, ANY_CELL))
    assert after.cells == (parse_card("5H"), parse_card("4D"), -1)


# --- rule 7: win; stuck ------------------------------------------------------------

def test_win_detection() -> None:
    pos = position("KS", foundations="KC KD KH QS")
    assert status(BELLE, pos) == "playing"
    won = _play(BELLE, pos, "1f")
    assert won.foundation_cards == 52
    assert status(BELLE, won) == "won"
    assert list(legal_moves(BELLE, won)) == []
    with pytest.raises(IllegalMoveError, match="won"):
        apply(BELLE, won, REDEAL, KEY)


def test_trefoil_win_counts_the_dealt_aces() -> None:
    pos = position("KS", foundations="KC KD KH QS")
    assert status(TREFOIL, _play(TREFOIL, pos, "1f")) == "won"


def test_house_in_the_wood_wins_with_104() -> None:
    pos = position("KS", foundations="KC KD KH KS KC KD KH QS", decks=2)
    won = _play(HOUSE, pos, "1f")
    assert won.foundation_cards == 104
    assert status(HOUSE, won) == "won"


def test_stuck_means_no_move_no_redeal_no_merci() -> None:
    pos = position("5H 9C KS", "7H", redeals_used=2)
    assert status(BELLE, pos) == "stuck"
    assert status(BELLE, position("5H 9C KS", "7H", redeals_used=1)) == "playing"
    assert status(THREE, pos) == "stuck"  # merci left, but no buried card can move
    assert status(THREE, position("5H 9C KS", "6H", redeals_used=2)) == "playing"
    assert status(THREE, position("5H 9C KS", "6H", redeals_used=2, merci_used=True)) == "stuck"


def test_undo_and_autoplay_are_game_actions() -> None:
    pos = position("AC")
    for text in ("u", "a"):
        with pytest.raises(IllegalMoveError, match="game action"):
            apply(BELLE, pos, parse_move(text))
        assert not is_legal(BELLE, pos, parse_move(text))


def test_illegal_move_leaves_position_unchanged() -> None:
    pos = position("8C", "7D")
    before = (pos.fans, pos.foundations)
    with pytest.raises(IllegalMoveError):
        apply(BELLE, pos, parse_move("2-1"))
    assert (pos.fans, pos.foundations) == before


@pytest.mark.parametrize("variant", ["belle-lucie", "three-shuffles-and-a-draw", "trefoil",
                                     "the-fan", "super-flower-garden", "shamrocks",
                                     "house-in-the-wood", "fan-with-reserve", "no-redeal"])
def test_variant_table(variant: str) -> None:
    rules = get_variant(variant)
    expected = {
        "belle-lucie": ("down-suit", None, False, 2, False, 0, 1),
        "three-shuffles-and-a-draw": ("down-suit", None, False, 2, True, 0, 1),
        "trefoil": ("down-suit", None, False, 2, False, 0, 1),
        "the-fan": ("down-suit", None, True, 0, False, 0, 1),
        "super-flower-garden": ("down-any", None, False, 2, False, 0, 1),
        "shamrocks": ("updown-any", 3, False, 0, False, 0, 1),
        "house-in-the-wood": ("updown-suit", None, False, 0, False, 0, 2),
        "fan-with-reserve": ("down-suit", None, False, 2, False, 4, 1),
        "no-redeal": ("down-suit", None, False, 0, False, 0, 1),
    }[variant]
    got = (rules.build, rules.max_fan, rules.king_fills_empty, rules.redeals, rules.merci,
           rules.cells, rules.decks)
    assert got == expected
    assert rules.undo
