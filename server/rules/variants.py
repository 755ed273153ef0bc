"""Rule sets as data: the nine variants of rules.md ("Variants") and room overrides.

A :class:`RuleSet` is a frozen value; a room's rule set is a variant plus the
overrides ``redeals``, ``merci`` and ``undo`` (:meth:`RuleSet.with_overrides`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal

from .errors import RulesError, UnknownVariantError

__all__ = [
    "DEFAULT_VARIANT",
    "MAX_REDEALS",
    "VARIANTS",
    "Build",
    "Layout",
    "RuleSet",
    "get_variant",
]

Build = Literal["down-suit", "down-any", "updown-any", "updown-suit"]
"""Tableau build rule: the card moved must be one rank below the target's top
card (``down``) or one rank away either way (``updown``), in the same suit
(``suit``) or in any suit (``any``)."""

Layout = Literal["lucie", "trefoil", "house"]
"""How the deal is laid out: 17×3 + 1 (``lucie``), aces to the foundations
and 16×3 (``trefoil``), two decks in 34×3 + 1×2 (``house``)."""

MAX_REDEALS: Final = 9
"""Largest ``redeals`` override a room may ask for."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One variant's rules, possibly with room overrides.

    Fields: ``id`` (variant id), ``name``, ``decks`` (1 or 2), ``layout``,
    ``build``, ``max_fan`` (most cards a fan may hold after a build, or
    ``None``), ``king_fills_empty`` (an empty fan takes only a king; else an
    empty fan is gone for good, rules.md rule 4), ``redeals``, ``merci``,
    ``undo``, ``cells`` (free cells, one card each), ``pysol_id`` and
    ``source`` (where the rules come from).
    """

    id: str
    name: str
    decks: int = 1
    layout: Layout = "lucie"
    build: Build = "down-suit"
    max_fan: int | None = None
    king_fills_empty: bool = False
    redeals: int = 2
    merci: bool = False
    undo: bool = True
    cells: int = 0
    pysol_id: int | None = None
    source: str = ""

    @property
    def cards(self) -> int:
        """Cards in play: 52 × decks."""
        return 52 * self.decks

    @property
    def foundations(self) -> int:
        """Foundation piles: 4 per deck; pile ``i`` takes suit ``i % 4``."""
        return 4 * self.decks

    def with_overrides(
        self,
        *,
        redeals: int | None = None,
        merci: bool | None = None,
        undo: bool | None = None,
    ) -> RuleSet:
        """This rule set with the room switches of rules.md ("Variants") set.

        :raises RulesError: ``redeals`` outside 0 … :data:`MAX_REDEALS`.
        """
        changes: dict[str, object] = {}
        if redeals is not None:
            if isinstance(redeals, bool) or not 0 <= redeals <= MAX_REDEALS:
                raise RulesError(f"redeals must be 0…{MAX_REDEALS}, not {redeals!r}")
            changes["redeals"] = redeals
        if merci is not None:
            changes["merci"] = bool(merci)
        if undo is not None:
            changes["undo"] = bool(undo)
        return replace(self, **changes)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        """The rule set as a JSON object (every field)."""
        return {
            "variant": self.id,
            "name": self.name,
            "decks": self.decks,
            "layout": self.layout,
            "build": self.build,
            "max_fan": self.max_fan,
            "king_fills_empty": self.king_fills_empty,
            "redeals": self.redeals,
            "merci": self.merci,
            "undo": self.undo,
            "cells": self.cells,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> RuleSet:
        """Variant plus overrides from :meth:`to_json`'s output (or a subset).

        :raises UnknownVariantError: unknown ``variant``.
        :raises RulesError: bad override values.
        """
        base = get_variant(str(data.get("variant", DEFAULT_VARIANT)))
        redeals = data.get("redeals")
        merci = data.get("merci")
        undo = data.get("undo")
        return base.with_overrides(
            redeals=redeals if isinstance(redeals, int) else None,
            merci=merci if isinstance(merci, bool) else None,
            undo=undo if isinstance(undo, bool) else None,
        )


_ALL: Final = (
    RuleSet("belle-lucie", "La Belle Lucie", pysol_id=901, source="all seeds; PySolFC 901"),
    RuleSet(
        "three-shuffles-and-a-draw", "Three Shuffles and a Draw", merci=True,
        pysol_id=128, source="seeds 000, 002, 004; PySolFC 128",
    ),
    RuleSet("trefoil", "Trefoil", layout="trefoil", pysol_id=88,
            source="seeds 000, 002, 004; PySolFC 88"),
    RuleSet("the-fan", "The Fan", king_fills_empty=True, redeals=0, pysol_id=56,
            source="seeds 000, 001, 004; PySolFC 56"),
    RuleSet("super-flower-garden", "Super Flower Garden", build="down-any", pysol_id=132,
            source="seeds 000, 004; PySolFC 132"),
    RuleSet("shamrocks", "Shamrocks", build="updown-any", max_fan=3, redeals=0, pysol_id=57,
            source="seeds 000, 002; PySolFC 57"),
    RuleSet("house-in-the-wood", "House in the Wood", decks=2, layout="house",
            build="updown-suit", redeals=0, pysol_id=268, source="seed 000; PySolFC 268"),
    RuleSet("fan-with-reserve", "Fan with Reserve", cells=4, source="seed 002"),
    RuleSet("no-redeal", "No Redeal", redeals=0, source="seed 002"),
)

VARIANTS: Final[dict[str, RuleSet]] = {v.id: v for v in _ALL}
"""Every variant by id, in rules.md's order."""

DEFAULT_VARIANT: Final = "belle-lucie"


def get_variant(variant_id: str) -> RuleSet:
    """The variant's rule set.

    :raises UnknownVariantError: not one of :data:`VARIANTS`.
    """
    try:
        return VARIANTS[variant_id]
    except (KeyError, TypeError):
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(f"unknown variant {variant_id!r}; known: {known}") from None
