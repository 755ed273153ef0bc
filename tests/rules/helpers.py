"""Small builders for hand-made positions in the rules tests."""

from __future__ import annotations

from server.rules import Position, parse_card

__all__ = ["KEY", "fans_text", "position"]

KEY = bytes(range(32))
"""A fixed redeal key for tests."""


def position(
    *fans: str,
    foundations: str = "",
    decks: int = 1,
    cells: str | None = None,
    redeals_used: int = 0,
    merci_used: bool = False,
) -> Position:
    """Position from fan texts (``"JD KS 4S"``, bottom → top; ``""`` = empty fan).

    ``foundations`` lists top cards (``"3C AH"``: clubs up to 3, hearts ace);
    ``cells`` is a space-separated list with ``-`` for a free cell.
    """
    piles = [0] * (4 * decks)
    for text in foundations.split():
        card = parse_card(text)
        suit, rank = card // 13, card % 13 + 1
        pile = next(i for i in range(suit, len(piles), 4) if piles[i] == 0)
        piles[pile] = rank
    cell_cards: tuple[int, ...] = ()
    if cells is not None:
        cell_cards = tuple(-1 if c == "-" else parse_card(c) for c in cells.split())
    return Position(
        tuple(tuple(parse_card(c) for c in fan.split()) for fan in fans),
        tuple(piles),
        cell_cards,
        redeals_used,
        merci_used,
    )


def fans_text(pos: Position) -> list[str]:
    """Fans as texts, the inverse of :func:`position`'s arguments."""
    from server.rules import card_str

    return [" ".join(card_str(c) for c in fan) for fan in pos.fans]
