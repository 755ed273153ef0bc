"""Invisible characters in names: Unicode's default-ignorable code points
(joiners, fillers, variation selectors, tags) outside the control and format
categories too, as ranges — one list for racers' display names
(``server.race.ids``) and players' names (``server.records.players``), which
both refuse them: ``alice`` plus one of them passes for ``alice``, a filler
alone for no name at all.
"""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_IGNORABLE", "default_ignorable"]

DEFAULT_IGNORABLE: Final = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's default-ignorable code points (DerivedCoreProperties), as
inclusive ranges of code points."""


def default_ignorable(ch: str) -> bool:
    """Whether the character ``ch`` is default-ignorable (invisible)."""
    code = ord(ch)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)
