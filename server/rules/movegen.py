"""Listing every legal move of a position, lazily and fast (rules.md rules 2–6, merci).

:func:`legal_moves` agrees exactly with :func:`server.rules.engine.is_legal`
(the property tests check both directions); it finds target fans by lookup
in an index of top cards instead of trying every pair of fans.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from .build import BUILD_KEYS, BY_SUIT, foundation_pile
from .cards import KING, Card
from .moves import ANY_CELL, FOUNDATION, REDEAL, Move, cell_place
from .position import EMPTY_CELL, Position
from .variants import RuleSet

__all__ = ["has_legal_move", "legal_moves"]


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


_KEY_BASE: Final = 4096
_PLAYS: dict[int, Move] = {}
"""Play moves made so far, by ``source * 4096 + target``: moves are immutable
values, so :func:`legal_moves` hands out shared instances."""


def _play(source: int, target: int) -> Move:
    move = Move("play", source, target)
    if len(_PLAYS) < 65536:
        _PLAYS[source * _KEY_BASE + target] = move
    return move


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
) -> Iterator[Move]:
    """:func:`_fan_moves` for one deck, down in suit, no fan limit, no king
    into empty fans: top cards are unique, so a card has at most one target
    fan and one foundation pile."""
    plays = _PLAYS
    tops = {fan[-1]: j for j, fan in enumerate(fans) if fan}
    for i, fan in enumerate(fans):
        if not fan:
            continue
        card = fan[-1]
        rank = card % 13
        if piles[card // 13] == rank:
            yield plays.get(i * _KEY_BASE - 1) or _play(i, FOUNDATION)
        if rank != 12:
            j = tops.get(card + 1)
            if j is not None:
                yield plays.get(i * _KEY_BASE + j) or _play(i, j)
        if has_free_cell:
            yield plays.get(i * _KEY_BASE - 2) or _play(i, ANY_CELL)


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
    if (rules.build == "down-suit" and len(piles) == 4 and rules.max_fan is None
            and not rules.king_fills_empty):
        yield from _fan_moves_down_suit(fans, piles, has_free_cell)
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


def has_legal_move(rules: RuleSet, pos: Position) -> bool:
    """Whether at least one legal move exists (stops at the first)."""
    return next(legal_moves(rules, pos), None) is not None
