"""Where a card may go: foundation piles and the variants' build rules.

rules.md rule 2 (foundations), rule 3 (tableau, one card at a time), rule 4
(empty fans; ``the-fan``: only a king) and the "Variants" table (build rule,
at most ``max_fan`` cards in a fan). Shared by :mod:`server.rules.engine`
(checking one move) and :mod:`server.rules.movegen` (listing them all).
"""

from __future__ import annotations

from typing import Final

from .cards import KING, Card, card_glyph
from .position import Position
from .variants import RuleSet

__all__ = ["BUILD_KEYS", "BY_SUIT", "accepts", "foundation_pile", "refusal"]


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


BUILD_KEYS: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    b: _build_table(b) for b in ("down-suit", "down-any", "updown-any", "updown-suit")
}
BY_SUIT: Final = frozenset({"down-suit", "updown-suit"})


def accepts(rules: RuleSet, fan: tuple[Card, ...], card: Card) -> bool:
    """Whether ``card`` may be built on ``fan`` (rules.md rule 3 and "Variants")."""
    if not fan:
        return rules.king_fills_empty and card % 13 == KING - 1
    if rules.max_fan is not None and len(fan) >= rules.max_fan:
        return False
    top = fan[-1]
    return (top if rules.build in BY_SUIT else top % 13) in BUILD_KEYS[rules.build][card]


def refusal(rules: RuleSet, fan: tuple[Card, ...], card: Card, fan_no: int) -> str:
    if not fan:
        if rules.king_fills_empty:
            return f"fan {fan_no} is empty and takes only a king"
        return f"fan {fan_no} is empty and gone for good"
    if rules.max_fan is not None and len(fan) >= rules.max_fan:
        return f"fan {fan_no} already holds {rules.max_fan} cards"
    return f"{card_glyph(card)} does not go on {card_glyph(fan[-1])}"
