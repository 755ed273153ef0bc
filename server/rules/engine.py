"""Legality and application of moves: pure functions over :class:`Position`.

Implements rules.md rules 2–7, the merci and the variants' build rules.
Nothing here reads a clock or a global random generator: a redeal takes the
room's redeal key as an argument (see :mod:`server.rules.redeal`).

Undo and autoplay are game-level actions (:mod:`server.rules.game`); here
they are refused with :class:`IllegalMoveError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Literal, NoReturn

from .cards import KING, Card, card_glyph
from .errors import IllegalMoveError
from .moves import ANY_CELL, FOUNDATION, REDEAL, Move, cell_index, cell_place, is_cell
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


def foundation_pile(pos: Position, card: Card) -> int | None:
    """Index of the foundation pile that takes ``card`` now, or ``None``.

    A pile takes the ace when empty, else the next rank of its suit
    (rules.md rule 2). With two decks the first such pile of the suit wins.
    """
    rank = card % 13  # 0-based: the pile must hold exactly ``rank`` cards
    suit = card // 13
    piles = pos.foundations
    for i in range(suit, len(piles), 4):
        if piles[i] == rank:
            return i
    return None


def _build_table(build: str) -> tuple[tuple[int, ...], ...]:
    """For each card 0–51, the keys of the tops it may be built on.

    Suit builds key a fan by its top card, "any suit" builds by its top rank
    (0-based), so that :func:`legal_moves` finds targets by lookup.
    """
    table: list[tuple[int, ...]] = []
    for card in range(52):
        rank = card % 13
        if build == "down-suit":
            keys = [card + 1] if rank < 12 else []
        elif build == "down-any":
            keys = [rank + 1] if rank < 12 else []
        elif build == "updown-any":
            keys = [r for r in (rank - 1, rank + 1) if 0 <= r <= 12]
        else:  # updown-suit
            keys = [card + d for d in (-1, 1) if 0 <= rank + d <= 12]
        table.append(tuple(keys))
    return tuple(table)


_BUILD_KEYS: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    b: _build_table(b) for b in ("down-suit", "down-any", "updown-any", "updown-suit")
}
_BY_SUIT: Final = frozenset({"down-suit", "updown-suit"})


def _accepts(rules: RuleSet, fan: tuple[Card, ...], card: Card) -> bool:
    """Whether ``card`` may be built on ``fan`` (rules.md rule 3 and "Variants")."""
    if not fan:
        return rules.king_fills_empty and card % 13 == KING - 1
    if rules.max_fan is not None and len(fan) >= rules.max_fan:
        return False
    top = fan[-1]
    return (top if rules.build in _BY_SUIT else top % 13) in _BUILD_KEYS[rules.build][card]


def _refusal(rules: RuleSet, fan: tuple[Card, ...], card: Card, fan_no: int) -> str:
    if not fan:
        if rules.king_fills_empty:
            return f"fan {fan_no} is empty and takes only a king"
        return f"fan {fan_no} is empty and gone for good"
    if rules.max_fan is not None and len(fan) >= rules.max_fan:
        return f"fan {fan_no} already holds {rules.max_fan} cards"
    return f"{card_glyph(card)} does not go on {card_glyph(fan[-1])}"


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
        if not _accepts(rules, dst_fan, card):
            raise IllegalMoveError(_refusal(rules, dst_fan, card, target + 1))
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
    if not _accepts(rules, dst_fan, card):
        raise IllegalMoveError(_refusal(rules, dst_fan, card, dst + 1))
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


def _targets(
    rules: RuleSet,
    fans: tuple[tuple[Card, ...], ...],
) -> tuple[dict[int, list[int]], list[int]]:
    """Index of the fans that can take a card: top key → fan indices (ascending),
    and the empty fans that take a king (rules.md rule 3, rule 4, the-fan)."""
    by_suit = rules.build in _BY_SUIT
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
    keys_of = _BUILD_KEYS[rules.build]
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
    keys_of = _BUILD_KEYS[rules.build]
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


def has_cells_filled(pos: Position) -> bool:
    """Whether any free cell holds a card."""
    return any(c != EMPTY_CELL for c in pos.cells)


def has_legal_move(rules: RuleSet, pos: Position) -> bool:
    """Whether at least one legal move exists (stops at the first)."""
    return next(legal_moves(rules, pos), None) is not None


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
