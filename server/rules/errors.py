"""Error classes of the rules engine.

All are :class:`ValueError` subclasses, split by cause as python-chess does:
text that cannot be read at all (``Invalid…``) versus a well-formed request
that the rules refuse here (``IllegalMoveError``).
"""

from __future__ import annotations

__all__ = [
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDealNumberError",
    "InvalidMoveError",
    "RulesError",
    "UnknownVariantError",
]


class RulesError(ValueError):
    """Base class of every error raised by :mod:`server.rules`."""

    code = "rules/error"


class InvalidCardError(RulesError):
    """Card text that is not a card (``"1X"``, ``""``)."""

    code = "card/invalid"


class InvalidMoveError(RulesError):
    """Move text or JSON that does not parse (bad syntax, unknown form)."""

    code = "move/invalid"


class IllegalMoveError(RulesError):
    """A well-formed move that the rules do not allow in this position.

    ``reason`` is a short human sentence ("7♣ does not go on 9♣").
    """

    code = "move/illegal"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidDealNumberError(RulesError):
    """A deal number outside 1 … 10**20 − 1 (rules.md, "Layout")."""

    code = "deal/invalid_number"


class UnknownVariantError(RulesError):
    """A variant id that is not one of rules.md's nine variants."""

    code = "variant/unknown"
