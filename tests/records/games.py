"""Small known games on deal 2 of ``belle-lucie`` for the head-to-head tests.

Deal 2 (key ``b"k" * 32``): fan 8 is ``5C 7S AD``, fan 15 ``2D 8H AS``,
fan 2 ``QC 8C 2S``, fan 3 ``KC 6C 3S``, fan 17 ``TD 9S TH``, fan 18 ``JH``.
"""

from __future__ import annotations

from server.records.record import GameRecord, TimedMove
from server.rules import get_variant, parse_move

__all__ = ["KEY", "RULES", "record"]

RULES = get_variant("belle-lucie")
KEY = b"k" * 32


def record(moves: list[tuple[str, int]], *, name: str = "", key: bytes = KEY,
           deal_number: int = 2, **kw: object) -> GameRecord:
    """A record of ``(move text, race-clock ms)`` pairs on deal 2."""
    return GameRecord(RULES, deal_number, key,
                      tuple(TimedMove(parse_move(m), t) for m, t in moves), name=name,
                      **kw)  # type: ignore[arg-type]
