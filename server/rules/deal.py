"""Initial layouts from deal numbers, identical to PySolFC (rules.md, "Layout").

Deal number N here is PySolFC's game N of the same game:

* the deck is built as PySolFC builds it (suits ``C S H D``, ranks A…K, deck
  after deck); for a 52-card deck and N < 32000 it is first rearranged as
  Microsoft FreeCell does (``ms_rearrange``);
* N < 32000 shuffles with the MS FreeCell linear congruential generator
  (``LCRandom31``), larger N with Python's Mersenne Twister seeded with N and
  PySolFC's ``randint`` (``a + int(random() * (b + 1 - a))``);
* Fisher–Yates from the last card down; the last card of the list is the top
  of the talon and is dealt first.

Deal 32000 is the one edge where PySolFC (Mersenne Twister) and the
``pysol-cards`` package (MS generator for N ≤ 32000) disagree; we follow
PySolFC, as rules.md says.

The :class:`random.Random` instance used here is local and seeded: it is the
published deal generator, not the global random state.
"""

from __future__ import annotations

import random
from typing import Final

from .cards import Card
from .errors import InvalidDealNumberError
from .position import Position
from .variants import RuleSet

__all__ = ["MAX_DEAL_NUMBER", "MS_DEAL_LIMIT", "deal", "deal_order", "dealt_fans"]

MAX_DEAL_NUMBER: Final = 10**20 - 1
"""Largest deal number (PySolFC's 20-digit game numbers)."""

MS_DEAL_LIMIT: Final = 32000
"""Deal numbers below this use the MS FreeCell generator (PySolFC's rule)."""

_PYSOL_SUIT_TO_OURS: Final = (0, 3, 2, 1)  # PySolFC C S H D → our C D H S


def _check_deal_number(deal_number: int) -> None:
    if isinstance(deal_number, bool) or not isinstance(deal_number, int):
        raise InvalidDealNumberError(f"deal number must be an integer, not {deal_number!r}")
    if not 1 <= deal_number <= MAX_DEAL_NUMBER:
        raise InvalidDealNumberError(
            f"deal number must be 1…{MAX_DEAL_NUMBER}, not {deal_number}"
        )


def _pysol_deck(decks: int) -> list[Card]:
    return [
        _PYSOL_SUIT_TO_OURS[suit] * 13 + rank
        for _ in range(decks)
        for suit in range(4)
        for rank in range(13)
    ]


def _ms_rearrange(cards: list[Card]) -> list[Card]:
    if len(cards) != 52:
        return cards
    return [cards[i + j] for i in range(13) for j in (0, 39, 26, 13)]


def _ms_shuffle(cards: list[Card], seed: int) -> None:
    # PySolFC LCRandom31 for 1 <= seed < 2**32 (all our MS seeds are < 32000).
    state = seed
    high = 0x8000 if seed >= 0x80000000 else 0
    for n in range(len(cards) - 1, 0, -1):
        state = (state * 214013 + 2531011) & 0x1FFFFFFFF
        j = (((state >> 16) & 0x7FFF) | high) % (n + 1)
        cards[n], cards[j] = cards[j], cards[n]


def _mt_shuffle(cards: list[Card], seed: int) -> None:
    rng = random.Random(seed)
    draw = rng.random
    for n in range(len(cards) - 1, 0, -1):
        j = int(draw() * (n + 1))
        cards[n], cards[j] = cards[j], cards[n]


def deal_order(deal_number: int, decks: int = 1) -> list[Card]:
    """The shuffled deck in dealing order (first card dealt first).

    :raises InvalidDealNumberError: outside 1 … :data:`MAX_DEAL_NUMBER`.
    """
    _check_deal_number(deal_number)
    cards = _pysol_deck(decks)
    if deal_number < MS_DEAL_LIMIT:
        cards = _ms_rearrange(cards)
        _ms_shuffle(cards, deal_number)
    else:
        _mt_shuffle(cards, deal_number)
    cards.reverse()
    return cards


def dealt_fans(rules: RuleSet, deal_number: int) -> tuple[tuple[tuple[Card, ...], ...], int]:
    """Fans (bottom → top) and the number of aces put on the foundations.

    Follows PySolFC's ``startGame`` of each layout:

    * ``lucie``: one card to each of fans 1–17, three times, then fan 18;
    * ``trefoil``: the aces are taken out (PySolFC's shuffle hook moves them
      to the bottom of the talon) and go to the foundations; the other 48
      cards go one to each of 16 fans, three times;
    * ``house``: one card to each of fans 1–34, then two rounds to 1–35.

    :raises InvalidDealNumberError: outside 1 … :data:`MAX_DEAL_NUMBER`.
    """
    order = deal_order(deal_number, rules.decks)
    aces = 0
    if rules.layout == "trefoil":
        rest = [c for c in order if c % 13 != 0]
        aces = len(order) - len(rest)
        order = rest
        rounds = [16, 16, 16]
    elif rules.layout == "house":
        rounds = [34, 35, 35]
    else:
        rounds = [17, 17, 18]
    fans: list[list[Card]] = [[] for _ in range(max(rounds))]
    it = iter(order)
    for width in rounds:
        for i in range(width):
            fans[i].append(next(it))
    return tuple(tuple(f) for f in fans), aces


def deal(rules: RuleSet, deal_number: int) -> Position:
    """The starting position of deal ``deal_number`` under ``rules``.

    :raises InvalidDealNumberError: outside 1 … :data:`MAX_DEAL_NUMBER`.
    """
    fans, aces = dealt_fans(rules, deal_number)
    foundations = tuple(1 if aces else 0 for _ in range(rules.foundations))
    return Position(
        fans=fans,
        foundations=foundations,
        cells=(-1,) * rules.cells,
        redeals_used=0,
        merci_used=False,
    )
