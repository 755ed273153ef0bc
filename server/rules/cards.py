"""Cards and their text forms (rules.md, "Vocabulary").

A card is a plain ``int`` ``suit * 13 + rank - 1`` with suits in the order
``C D H S`` (clubs 0–12, diamonds 13–25, hearts 26–38, spades 39–51) and
ranks 1 (ace) … 13 (king). Two-deck variants hold each value twice.

Text form: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` + suit ``C D H S`` (``TH``).
:func:`parse_card` also accepts ``10H``, lower case and the suit glyphs
``♣ ♦ ♥ ♠`` (and their white forms ``♧ ♢ ♡ ♤``).
"""

from __future__ import annotations

from typing import Final

from .errors import InvalidCardError

__all__ = [
    "ACE",
    "CARD_TEXTS",
    "KING",
    "RANKS",
    "SUITS",
    "SUIT_GLYPHS",
    "Card",
    "card_glyph",
    "card_str",
    "make_card",
    "parse_card",
    "rank_of",
    "suit_of",
]

Card = int

SUITS: Final = "CDHS"
RANKS: Final = "A23456789TJQK"
SUIT_GLYPHS: Final = "♣♦♥♠"
ACE: Final = 1
KING: Final = 13

_GLYPH_TO_SUIT: Final = {
    "♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S",
}
_RANK_ALIASES: Final = {"10": "T"}


def make_card(rank: int, suit: int) -> Card:
    """Card of ``rank`` (1–13) and ``suit`` (0–3, ``C D H S``).

    :raises InvalidCardError: rank or suit out of range.
    """
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise InvalidCardError(f"no card of rank {rank} and suit {suit}")
    return suit * 13 + rank - 1


def rank_of(card: Card) -> int:
    """Rank 1 (ace) … 13 (king)."""
    return card % 13 + 1


def suit_of(card: Card) -> int:
    """Suit index 0–3 in the order ``C D H S``."""
    return card // 13


def card_str(card: Card) -> str:
    """Text form, e.g. ``"TH"``; :func:`parse_card` reads it back."""
    return RANKS[card % 13] + SUITS[card // 13]


CARD_TEXTS: Final[tuple[str, ...]] = tuple(card_str(c) for c in range(4 * 13))
""":func:`card_str` of every card, by card: looked up where every move's answer
shows the table (issue 23)."""


def card_glyph(card: Card) -> str:
    """Display form with a suit glyph, e.g. ``"10♥"`` (not unique to parse)."""
    rank = card % 13
    return ("10" if rank == 9 else RANKS[rank]) + SUIT_GLYPHS[card // 13]


def parse_card(text: str) -> Card:
    """Read a card: ``TH``, ``10h``, ``t♥``, ``A♠`` …

    :raises InvalidCardError: anything else (with the offending text).
    """
    if not isinstance(text, str):
        raise InvalidCardError(f"card must be text, not {type(text).__name__}")
    raw = text.strip()
    if len(raw) < 2 or len(raw) > 3:
        raise InvalidCardError(f"not a card: {text!r}")
    rank_text, suit_text = raw[:-1].upper(), raw[-1]
    suit_text = _GLYPH_TO_SUIT.get(suit_text, suit_text.upper())
    rank_text = _RANK_ALIASES.get(rank_text, rank_text)
    if len(rank_text) != 1 or rank_text not in RANKS or suit_text not in SUITS:
        raise InvalidCardError(f"not a card: {text!r}")
    return SUITS.index(suit_text) * 13 + RANKS.index(rank_text)
