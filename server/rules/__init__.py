"""The pure La Belle Lucie rules engine (the rule book: ``docs/rules.md``).

No I/O, no clock, no global random state: positions are immutable values,
moves round-trip through text, and :func:`apply` returns a new position.
"""

from __future__ import annotations

from .cards import Card, card_glyph, card_str, parse_card
from .deal import MAX_DEAL_NUMBER, deal, deal_order
from .engine import (
    Status,
    apply,
    autoplay_moves,
    check,
    has_legal_move,
    is_legal,
    legal_moves,
    status,
)
from .errors import (
    IllegalMoveError,
    InvalidCardError,
    InvalidDealNumberError,
    InvalidMoveError,
    RulesError,
    UnknownVariantError,
)
from .game import MAX_LOG, Game, new_game, replay
from .moves import ANY_CELL, AUTOPLAY, FOUNDATION, REDEAL, UNDO, Move, parse_move
from .position import Position
from .redeal import redeal_fans, shuffle_for_redeal
from .serialize import moves_from_json, moves_to_json, position_from_json, position_to_json
from .variants import DEFAULT_VARIANT, VARIANTS, RuleSet, get_variant

__all__ = [
    "ANY_CELL",
    "AUTOPLAY",
    "DEFAULT_VARIANT",
    "FOUNDATION",
    "MAX_DEAL_NUMBER",
    "MAX_LOG",
    "REDEAL",
    "UNDO",
    "VARIANTS",
    "Card",
    "Game",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDealNumberError",
    "InvalidMoveError",
    "Move",
    "Position",
    "RuleSet",
    "RulesError",
    "Status",
    "UnknownVariantError",
    "apply",
    "autoplay_moves",
    "card_glyph",
    "card_str",
    "check",
    "deal",
    "deal_order",
    "get_variant",
    "has_legal_move",
    "is_legal",
    "legal_moves",
    "moves_from_json",
    "moves_to_json",
    "new_game",
    "parse_card",
    "parse_move",
    "position_from_json",
    "position_to_json",
    "redeal_fans",
    "replay",
    "shuffle_for_redeal",
    "status",
]
