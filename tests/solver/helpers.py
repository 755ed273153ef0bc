"""Builders and a brute-force reference search for the solver tests."""

from __future__ import annotations

from server.rules import Position, RuleSet, apply, legal_moves, parse_card

__all__ = ["KEY", "brute_force", "layout"]

KEY = bytes(range(32))
"""A fixed redeal key for tests."""


def layout(*fans: str, redeals_used: int = 0, merci_used: bool = False) -> Position:
    """Position from fan texts (bottom → top); every card not in a fan is on
    its foundation, so each suit must be present from some rank up to the king.
    """
    cards = [parse_card(c) for fan in fans for c in fan.split()]
    piles = []
    for suit in range(4):
        ranks = sorted(c % 13 for c in cards if c // 13 == suit)
        low = ranks[0] if ranks else 13
        assert ranks == list(range(low, 13)), f"suit {suit}: cards {ranks} are not low…K"
        piles.append(low)
    return Position(
        tuple(tuple(parse_card(c) for c in fan.split()) for fan in fans),
        tuple(piles), (), redeals_used, merci_used,
    )


def brute_force(
    rules: RuleSet, pos: Position, key: bytes, *, redeals: bool
) -> tuple[bool, int, int]:
    """Exhaustive search in the engine: (won, most foundation cards, positions).

    With ``redeals=False`` the redeal is never taken (one-layout mode).
    """
    seen: set[Position] = set()
    stack = [pos]
    best = pos.foundation_cards
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        best = max(best, p.foundation_cards)
        if best == rules.cards:
            return True, best, len(seen)
        for move in legal_moves(rules, p):
            if move.kind == "redeal" and not redeals:
                continue
            stack.append(apply(rules, p, move, key))
    return False, best, len(seen)
