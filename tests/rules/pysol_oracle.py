"""Reference layouts computed with the ``pysol-cards`` package (the oracle of rules.md).

For ``belle-lucie`` this is exactly ``pysol-cards``' ``fan`` game; for
``trefoil`` and ``house-in-the-wood`` (which ``pysol-cards`` does not deal)
it is ``pysol-cards``' shuffle followed by PySolFC's ``startGame`` of those
games (``pysollib/games/fan.py``), written out here independently of the
engine. Deal 32000 takes PySolFC's Mersenne Twister path (rules.md rule 1),
not ``pysol-cards``' MS one.

``python -m tests.rules.pysol_oracle`` rewrites the regression files
``tests/data/deals-*.txt``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pysol_cards.cards import Card, CardRenderer, createCards, ms_rearrange
from pysol_cards.deal_game import Game as PysolGame
from pysol_cards.random import LCRandom31, MTRandom
from pysol_cards.random_base import RandomBase

__all__ = [
    "DATA_DIR",
    "LARGE_DEALS",
    "SAMPLES",
    "fan_layout",
    "oracle_fans",
    "read_regression",
    "write_regression",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
LARGE_DEALS = (31999, 32000, 32001, 100000, 123456789, 10**19, 10**20 - 1)
SAMPLES: dict[str, list[int]] = {
    "belle-lucie": [*range(1, 101), *LARGE_DEALS],
    "trefoil": [*range(1, 21), *LARGE_DEALS],
    "house-in-the-wood": [*range(1, 21), *LARGE_DEALS],
}
_RENDER = CardRenderer(True)


def fan_layout(deal_number: int) -> list[str]:
    """``pysol-cards``' own ``fan`` layout (one text line per fan), as is."""
    text = PysolGame("fan", deal_number, RandomBase.DEALS_PYSOLFC).calc_layout_string(_RENDER)
    return text.splitlines()


def _shuffled(deal_number: int, decks: int) -> list[Card]:
    """PySolFC's shuffled card list (last card = top of the talon, dealt first)."""
    cards = createCards(decks)
    if deal_number < 32000:
        rng = LCRandom31()
        rng.setSeed(deal_number)
        result: list[Card] = rng.shuffle(ms_rearrange(cards))
        return result
    mt = MTRandom(deal_number)
    shuffled: list[Card] = mt.shuffle(cards)
    return shuffled


def _move_aces_to_bottom(cards: list[Card]) -> list[Card]:
    # PySolFC Game._shuffleHookMoveToBottom with key (rank == ACE, suit).
    game = PysolGame("fan", 1, RandomBase.DEALS_PYSOLFC)
    moved: list[Card] = game._shuffleHookMoveToBottom(cards, lambda c: (c.is_ace(), c.suit))
    return moved


def oracle_fans(variant: str, deal_number: int) -> list[list[str]]:
    """Fans (bottom → top, card texts like ``TH``) of PySolFC's initial layout."""
    decks = 2 if variant == "house-in-the-wood" else 1
    cards = _shuffled(deal_number, decks)
    if variant == "trefoil":
        cards = _move_aces_to_bottom(cards)
        rounds, nfans = [16, 16, 16], 16
    elif variant == "house-in-the-wood":
        rounds, nfans = [34, 35, 35], 35
    else:
        rounds, nfans = [17, 17, 18], 18
    talon = list(reversed(cards))  # dealing order
    fans: list[list[str]] = [[] for _ in range(nfans)]
    pos = 0
    for width in rounds:
        for i in range(width):
            fans[i].append(_RENDER.to_s(talon[pos]))
            pos += 1
    if variant == "trefoil":
        assert all(c.is_ace() for c in talon[pos:]) and len(talon) - pos == 4
    else:
        assert pos == len(talon)
    return fans


def _path(variant: str) -> Path:
    return DATA_DIR / f"deals-{variant}.txt"


def write_regression(variant: str) -> Path:
    """Write ``tests/data/deals-<variant>.txt`` from the oracle."""
    lines = [
        f"# {variant}: PySolFC initial layouts, computed with pysol-cards "
        "(tests/rules/pysol_oracle.py).",
        "# deal number, a tab, then the fans in layout order separated by ' | ',",
        "# each fan bottom -> top. Deal 32000 follows PySolFC (Mersenne Twister).",
    ]
    for n in SAMPLES[variant]:
        lines.append(f"{n}\t" + " | ".join(" ".join(f) for f in oracle_fans(variant, n)))
    path = _path(variant)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_regression(variant: str) -> dict[int, list[list[str]]]:
    """Deal number → fans, from ``tests/data/deals-<variant>.txt``."""
    out: dict[int, list[list[str]]] = {}
    for line in _path(variant).read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        number, _, fans = line.partition("\t")
        out[int(number)] = [fan.split() for fan in fans.split(" | ")]
    return out


if __name__ == "__main__":
    for v in SAMPLES:
        print(write_regression(v), file=sys.stderr)
