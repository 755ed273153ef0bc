"""Legality and application of moves: pure functions over :class:`Position`.

Implements rules.md rules 2–7, the merci and the variants' build rules.
Nothing here reads a clock or a global random generator: a redeal takes the
room's redeal key as an argument (see :mod:`server.rules.redeal`).

Undo and autoplay are game-level actions (:mod:`server.rules.game`); here
they are refused with :class:`IllegalMoveError`. Listing the legal moves
lives in :mod:`server.rules.movegen`, the build rules in
:mod:`server.rules.build`; both are re-exported here.
"""

from __future__ import annotations

from typing import Final, Literal, NoReturn

from .build import accepts, foundation_pile, refusal
from .cards import Card, card_glyph
from .errors import IllegalMoveError
from .movegen import has_legal_move, legal_moves
from .moves import ANY_CELL, FOUNDATION, Move, cell_index, cell_place, is_cell
from .position import EMPTY_CELL, Position, make_position
from .redeal import redeal_fans
from .variants import RuleSet

__all__ = [
    "Status",
    "apply",
    "autoplay_moves",
    "check",
    "foundation_pile",
    "has_legal_move",
    "is_legal",
    "legal_moves",
    "status",
]

Status = Literal["playing", "won", "stuck"]

_NO_KEY: Final = b""


def _replace_fan(
    fans: tuple[tuple[Card, ...], ...], index: int, fan: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return (*fans[:index], fan, *fans[index + 1:])


def _no_such_fan(pos: Position, place: int) -> NoReturn:
    if place == FOUNDATION:
        raise IllegalMoveError("a card on a foundation stays there (no moves off foundations)")
    raise IllegalMoveError(f"there is no fan {place + 1} (fans 1–{len(pos.fans)})")


def _fan_index(pos: Position, place: int) -> int:
    if not 0 <= place < len(pos.fans):
        _no_such_fan(pos, place)
    return place


def _with_foundation(pos: Position, pile: int) -> tuple[int, ...]:
    f = pos.foundations
    return (*f[:pile], f[pile] + 1, *f[pile + 1:])


def _apply_play(rules: RuleSet, pos: Position, move: Move) -> Position:
    source, target = move.source, move.target
    assert source is not None and target is not None
    fans = pos.fans
    cells = pos.cells
    n = len(fans)
    # take the card
    if 0 <= source < n:
        fan = fans[source]
        if not fan:
            raise IllegalMoveError(f"fan {source + 1} is empty")
        card = fan[-1]
        lone = len(fan) == 1
        fans = (*fans[:source], fan[:-1], *fans[source + 1 :])
        src_fan = source
    elif is_cell(source):
        ci = cell_index(source)
        if ci >= len(cells):
            raise IllegalMoveError(
                "this game has no free cells" if not cells else f"there is no free cell c{ci + 1}"
            )
        card = cells[ci]
        if card == EMPTY_CELL:
            raise IllegalMoveError(f"free cell c{ci + 1} is empty")
        cells = (*cells[:ci], EMPTY_CELL, *cells[ci + 1 :])
        src_fan = -1
        lone = False
    else:
        _no_such_fan(pos, source)
    # put it down
    if 0 <= target < n:
        if target == src_fan:
            raise IllegalMoveError("a card cannot go onto its own fan")
        dst_fan = pos.fans[target]
        if not accepts(rules, dst_fan, card):
            raise IllegalMoveError(refusal(rules, dst_fan, card, target + 1))
        if lone and not dst_fan:
            raise IllegalMoveError(
                f"{card_glyph(card)} is alone in fan {src_fan + 1}: "
                "moving it to an empty fan changes nothing"
            )
        fans = (*fans[:target], (*dst_fan, card), *fans[target + 1 :])
        return make_position(fans, pos.foundations, cells, pos.redeals_used, pos.merci_used)
    if target == FOUNDATION:
        pile = foundation_pile(pos, card)
        if pile is None:
            raise IllegalMoveError(f"{card_glyph(card)} cannot go to its foundation yet")
        founds = _with_foundation(pos, pile)
        return make_position(fans, founds, cells, pos.redeals_used, pos.merci_used)
    if target == ANY_CELL or is_cell(target):
        if src_fan < 0:
            raise IllegalMoveError("a card moves from a free cell to a foundation or a fan only")
        if not cells:
            raise IllegalMoveError("this game has no free cells")
        if target != ANY_CELL:
            raise IllegalMoveError("a card goes to the first free cell ('3c'), not to a chosen one")
        if EMPTY_CELL not in cells:
            raise IllegalMoveError("every free cell is taken")
        ci = cells.index(EMPTY_CELL)
        cells = (*cells[:ci], card, *cells[ci + 1 :])
        return make_position(fans, pos.foundations, cells, pos.redeals_used, pos.merci_used)
    _no_such_fan(pos, target)


def _check_redeal_left(rules: RuleSet, pos: Position) -> None:
    if pos.redeals_used >= rules.redeals:
        if rules.redeals == 0:
            raise IllegalMoveError("this game has no redeals")
        if rules.redeals == 1:
            raise IllegalMoveError("the redeal is used")
        raise IllegalMoveError(f"all {rules.redeals} redeals are used")


def _apply_redeal(rules: RuleSet, pos: Position, key: bytes) -> Position:
    _check_redeal_left(rules, pos)
    gathered = pos.cards_in_play()
    if not gathered:
        raise IllegalMoveError("there are no cards left to redeal")
    k = pos.redeals_used + 1
    return make_position(
        redeal_fans(key, k, gathered),
        pos.foundations,
        (EMPTY_CELL,) * len(pos.cells),
        k,
        pos.merci_used,
    )


def _merci_source(pos: Position, card: Card) -> tuple[int, int]:
    for fi, fan in enumerate(pos.fans):
        for ci in range(len(fan) - 1):
            if fan[ci] == card:
                return fi, ci
    for fan in pos.fans:
        if fan and fan[-1] == card:
            raise IllegalMoveError(
                f"{card_glyph(card)} is a top card: play it normally, "
                "the merci is for a buried card"
            )
    raise IllegalMoveError(f"{card_glyph(card)} is not buried in any fan")


def _merci_allowed(rules: RuleSet, pos: Position) -> None:
    if not rules.merci:
        raise IllegalMoveError("this game has no merci")
    if pos.merci_used:
        raise IllegalMoveError("the merci is already used")
    if pos.redeals_used < rules.redeals:
        left = rules.redeals - pos.redeals_used
        raise IllegalMoveError(f"the merci comes after the last redeal ({left} left)")


def _apply_merci(rules: RuleSet, pos: Position, move: Move) -> Position:
    _merci_allowed(rules, pos)
    card, target = move.card, move.target
    assert card is not None and target is not None
    if not 0 <= card < 52:
        raise IllegalMoveError(f"there is no card {card}")
    fi, ci = _merci_source(pos, card)
    fan = pos.fans[fi]
    fans = _replace_fan(pos.fans, fi, fan[:ci] + fan[ci + 1 :])
    if target == FOUNDATION:
        pile = foundation_pile(pos, card)
        if pile is None:
            raise IllegalMoveError(f"{card_glyph(card)} cannot go to its foundation yet")
        return make_position(fans, _with_foundation(pos, pile), pos.cells, pos.redeals_used, True)
    if target < 0:
        raise IllegalMoveError("the merci card goes to its foundation or onto a fan")
    dst = _fan_index(pos, target)
    if dst == fi:
        raise IllegalMoveError("the merci card must leave its fan")
    dst_fan = pos.fans[dst]
    if not accepts(rules, dst_fan, card):
        raise IllegalMoveError(refusal(rules, dst_fan, card, dst + 1))
    fans = _replace_fan(fans, dst, (*dst_fan, card))
    return make_position(fans, pos.foundations, pos.cells, pos.redeals_used, True)


def apply(rules: RuleSet, pos: Position, move: Move, redeal_key: bytes = _NO_KEY) -> Position:
    """The position after ``move``; ``pos`` is not changed.

    Checks everything rules.md asks (rules 2–7, merci, free cells, the
    variant's build rule and fan limit); the position itself is trusted to
    be one the engine made (deal, apply, :func:`position_from_json`).
    ``redeal_key`` is the room's secret (rules.md, "Redeal generator").

    :raises IllegalMoveError: the move is not legal here (with the reason),
        including undo and autoplay, which only :class:`~server.rules.game.Game`
        performs.
    """
    if pos.foundation_cards == rules.cards:
        raise IllegalMoveError("the game is won")
    kind = move.kind
    if kind == "play":
        return _apply_play(rules, pos, move)
    if kind == "redeal":
        return _apply_redeal(rules, pos, redeal_key)
    if kind == "merci":
        return _apply_merci(rules, pos, move)
    raise IllegalMoveError(f"{kind} is a game action, not a move on a position")


def check(rules: RuleSet, pos: Position, move: Move) -> None:
    """Return quietly when ``move`` is legal in ``pos``.

    A redeal is checked without shuffling (its result does not decide
    whether it is legal).

    :raises IllegalMoveError: with the reason otherwise.
    """
    if move.kind == "redeal":
        if pos.foundation_cards == rules.cards:
            raise IllegalMoveError("the game is won")
        _check_redeal_left(rules, pos)
        return
    apply(rules, pos, move, _NO_KEY)


def is_legal(rules: RuleSet, pos: Position, move: Move) -> bool:
    """Whether ``move`` is legal in ``pos`` (undo/autoplay: ``False``)."""
    try:
        check(rules, pos, move)
    except IllegalMoveError:
        return False
    return True


def has_cells_filled(pos: Position) -> bool:
    """Whether any free cell holds a card."""
    return any(c != EMPTY_CELL for c in pos.cells)


def status(rules: RuleSet, pos: Position) -> Status:
    """``won`` (every card on the foundations), ``stuck`` (no legal move:
    no move, no redeal and no merci left) or ``playing``."""
    if pos.foundation_cards == rules.cards:
        return "won"
    if pos.redeals_used < rules.redeals:
        return "playing"
    return "playing" if has_legal_move(rules, pos) else "stuck"


def autoplay_moves(rules: RuleSet, pos: Position) -> tuple[list[Move], Position]:
    """Foundation moves the server makes for "autoplay" (rules.md, "Autoplay").

    Repeatedly moves the first top card (fans in order, then free cells)
    that can go to its foundation, until none can. Returns the moves, in
    order, and the final position (``pos`` itself when none moves).
    """
    moves: list[Move] = []
    while True:
        for i, fan in enumerate(pos.fans):
            if fan and foundation_pile(pos, fan[-1]) is not None:
                move = Move("play", i, FOUNDATION)
                break
        else:
            for ci, card in enumerate(pos.cells):
                if card != EMPTY_CELL and foundation_pile(pos, card) is not None:
                    move = Move("play", cell_place(ci), FOUNDATION)
                    break
            else:
                return moves, pos
        pos = _apply_play(rules, pos, move)
        moves.append(move)
