"""Listing every legal move of a position, lazily and fast (rules.md rules 2–6, merci).

:func:`legal_moves` agrees exactly with :func:`server.rules.engine.is_legal`
(the property tests check both directions); it finds target fans by lookup
in an index of top cards instead of trying every pair of fans.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, TypeVar

from .build import BUILD_KEYS, BY_SUIT, foundation_pile
from .cards import KING, Card
from .moves import ANY_CELL, FOUNDATION, REDEAL, Move, cell_place
from .position import EMPTY_CELL, Position
from .variants import RuleSet

__all__ = ["has_legal_move", "legal_move_list", "legal_move_texts", "legal_moves"]


def _targets(
    rules: RuleSet,
    fans: tuple[tuple[Card, ...], ...],
) -> tuple[dict[int, list[int]], list[int]]:
    """Index of the fans that can take a card: top key → fan indices (ascending),
    and the empty fans that take a king (rules.md rule 3, rule 4, the-fan)."""
    by_suit = rules.build in BY_SUIT
    max_fan = rules.max_fan
    index: dict[int, list[int]] = {}
    empties: list[int] = []
    for j, fan in enumerate(fans):
        if not fan:
            if rules.king_fills_empty:
                empties.append(j)
            continue
        if max_fan is not None and len(fan) >= max_fan:
            continue
        key = fan[-1] if by_suit else fan[-1] % 13
        slot = index.get(key)
        if slot is None:
            index[key] = [j]
        else:
            slot.append(j)
    return index, empties


def _fan_targets(
    keys: tuple[int, ...],
    index: dict[int, list[int]],
    empties: list[int],
    card: Card,
) -> list[int]:
    out: list[int] = []
    for key in keys:
        slot = index.get(key)
        if slot:
            out.extend(slot)
    if empties and card % 13 == KING - 1:
        out.extend(empties)
    if len(keys) > 1 or empties:
        out.sort()
    return out


T = TypeVar("T", Move, str)
_REDEAL_TEXT: Final = str(REDEAL)
_KEY_BASE: Final = 4096
_PLAYS: dict[int, Move] = {}
"""Play moves made so far, by ``source * 4096 + target``: moves are immutable
values, so :func:`legal_moves` hands out shared instances."""


def _play(source: int, target: int) -> Move:
    move = Move("play", source, target)
    if len(_PLAYS) < 65536:
        _PLAYS[source * _KEY_BASE + target] = move
    return move


_PLAY_TEXTS: dict[int, str] = {}
"""The texts of the play moves of :data:`_PLAYS`, by the same keys."""


def _play_text(source: int, target: int) -> str:
    text = str(_PLAYS.get(source * _KEY_BASE + target) or _play(source, target))
    if len(_PLAY_TEXTS) < 65536:
        _PLAY_TEXTS[source * _KEY_BASE + target] = text
    return text


def _fan_moves(
    rules: RuleSet,
    fans: tuple[tuple[Card, ...], ...],
    piles: tuple[int, ...],
    index: dict[int, list[int]],
    empties: list[int],
    has_free_cell: bool,
) -> Iterator[Move]:
    """Moves of the fans' top cards under any build rule (see :func:`legal_moves`)."""
    keys_of = BUILD_KEYS[rules.build]
    n_piles = len(piles)
    plays = _PLAYS
    for i, fan in enumerate(fans):
        if not fan:
            continue
        card = fan[-1]
        rank = card % 13
        for p in range(card // 13, n_piles, 4):
            if piles[p] == rank:
                yield plays.get(i * _KEY_BASE - 1) or _play(i, FOUNDATION)
                break
        keys = keys_of[card]
        if empties or len(keys) > 1:
            lone = len(fan) == 1
            for j in _fan_targets(keys, index, empties, card):
                if j != i and not (lone and not fans[j]):
                    yield plays.get(i * _KEY_BASE + j) or _play(i, j)
        elif keys:
            slot = index.get(keys[0])
            if slot:
                for j in slot:
                    if j != i:
                        yield plays.get(i * _KEY_BASE + j) or _play(i, j)
        if has_free_cell:
            yield plays.get(i * _KEY_BASE - 2) or _play(i, ANY_CELL)


def _fan_moves_down_suit(
    fans: tuple[tuple[Card, ...], ...],
    piles: tuple[int, ...],
    has_free_cell: bool,
    plays: dict[int, T],
    play: Callable[[int, int], T],
) -> list[T]:
    """:func:`_fan_moves` for one deck, down in suit, no fan limit, no king
    into empty fans: top cards are unique, so a card has at most one target
    fan and one foundation pile. The moves (``plays``/``play``: :data:`_PLAYS`
    and :func:`_play`) or their texts (:data:`_PLAY_TEXTS`, :func:`_play_text`),
    as a list: a yield through two generators cost more than the move."""
    out: list[T] = []
    add = out.append
    tops = {fan[-1]: j for j, fan in enumerate(fans) if fan}
    for i, fan in enumerate(fans):
        if not fan:
            continue
        card = fan[-1]
        rank = card % 13
        if piles[card // 13] == rank:
            add(plays.get(i * _KEY_BASE - 1) or play(i, FOUNDATION))
        if rank != 12:
            j = tops.get(card + 1)
            if j is not None:
                add(plays.get(i * _KEY_BASE + j) or play(i, j))
        if has_free_cell:
            add(plays.get(i * _KEY_BASE - 2) or play(i, ANY_CELL))
    return out


def _down_suit(rules: RuleSet, pos: Position) -> bool:
    """Whether :func:`_fan_moves_down_suit` lists the fan moves of ``pos``."""
    return (rules.build == "down-suit" and len(pos.foundations) == 4
            and rules.max_fan is None and not rules.king_fills_empty)


def legal_moves(rules: RuleSet, pos: Position) -> Iterator[Move]:
    """Every legal move in ``pos``, lazily, in a fixed order.

    Order: for each fan, its top card to the foundation, onto each other
    fan (in fan order), to a free cell; then each free cell's card to the
    foundation and onto each fan; then the merci moves (buried cards in
    layout order, foundation first); then the redeal. Undo and autoplay are
    not listed. ``m in legal_moves(...)`` ⇔ ``is_legal(..., m)``.
    """
    fans = pos.fans
    if pos.foundation_cards == rules.cards:
        return
    cells = pos.cells
    has_free_cell = EMPTY_CELL in cells
    piles = pos.foundations
    merci = rules.merci and not pos.merci_used and pos.redeals_used >= rules.redeals
    if _down_suit(rules, pos):
        yield from _fan_moves_down_suit(fans, piles, has_free_cell, _PLAYS, _play)
        if not (merci or any(c != EMPTY_CELL for c in cells)):
            if pos.redeals_used < rules.redeals:
                yield REDEAL
            return
        index, empties = _targets(rules, fans)
    else:
        index, empties = _targets(rules, fans)
        yield from _fan_moves(rules, fans, piles, index, empties, has_free_cell)
    keys_of = BUILD_KEYS[rules.build]
    for ci, card in enumerate(cells):
        if card == EMPTY_CELL:
            continue
        src = cell_place(ci)
        if foundation_pile(pos, card) is not None:
            yield Move("play", src, FOUNDATION)
        for j in _fan_targets(keys_of[card], index, empties, card):
            yield Move("play", src, j)
    if merci:
        seen: set[Card] = set()
        for fi, fan in enumerate(fans):
            for card in fan[:-1]:
                if card in seen:
                    continue  # two decks: the merci takes the first buried copy
                seen.add(card)
                if foundation_pile(pos, card) is not None:
                    yield Move("merci", None, FOUNDATION, card)
                for j in _fan_targets(keys_of[card], index, empties, card):
                    if j != fi:
                        yield Move("merci", None, j, card)
    if pos.redeals_used < rules.redeals:
        yield REDEAL


def _plain(rules: RuleSet, pos: Position) -> bool:
    """Whether :func:`legal_moves` is :func:`_fan_moves_down_suit` plus the redeal
    here: one deck down in suit, not won, no free cell card, no merci due."""
    return (_down_suit(rules, pos) and pos.foundation_cards != rules.cards
            and not (rules.merci and not pos.merci_used and pos.redeals_used >= rules.redeals)
            and pos.cells.count(EMPTY_CELL) == len(pos.cells))


def legal_move_list(rules: RuleSet, pos: Position) -> list[Move]:
    """``list(legal_moves(rules, pos))``, made without generators in the usual case."""
    if _plain(rules, pos):
        out = _fan_moves_down_suit(pos.fans, pos.foundations, bool(pos.cells), _PLAYS, _play)
        if pos.redeals_used < rules.redeals:
            out.append(REDEAL)
        return out
    return list(legal_moves(rules, pos))


def legal_move_texts(rules: RuleSet, pos: Position) -> list[str]:
    """``[str(m) for m in legal_moves(rules, pos)]``: in the usual case the texts
    are looked up without making (or naming) the moves; every accepted move's
    answer lists them (issue 23)."""
    if _plain(rules, pos):
        out = _fan_moves_down_suit(pos.fans, pos.foundations, bool(pos.cells), _PLAY_TEXTS,
                                   _play_text)
        if pos.redeals_used < rules.redeals:
            out.append(_REDEAL_TEXT)
        return out
    return [str(m) for m in legal_moves(rules, pos)]


def has_legal_move(rules: RuleSet, pos: Position) -> bool:
    """Whether at least one legal move exists (stops at the first)."""
    return next(legal_moves(rules, pos), None) is not None
