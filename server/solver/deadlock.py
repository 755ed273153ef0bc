"""Dead-position detection: cards that can never reach the foundation in this layout.

The classic lock (seed ``001``, strategy 1; seed ``004``): a lower card of a
suit buried under a higher card of the same suit in one fan cannot get out
without a redeal. Exactly, per build rule, for a layout that will not be
redealt and with no merci left:

* A card ``H`` is **pinned** when it can leave its fan only to the
  foundation: under ``down-suit`` when its successor (same suit, one rank
  higher) lies below it in the same fan (it can never become a top card
  while ``H`` covers it), or ``H`` is a king and empty fans are gone for good
  (rules.md rule 4; in ``the-fan`` a king may move to an empty fan); under
  ``down-any`` only such a king. ``updown-any`` (shamrocks) has no pins:
  any card may leave onto a neighbour rank of any suit.
* A card ``L`` below a pinned ``H`` of the same suit and lower rank is
  **locked**: ``H`` waits for ``L`` on the foundation, ``L`` waits for ``H``
  to leave. Then ``H`` and every card below it in that fan stay in the fan
  for good.
* A pinned card that can never reach the foundation (its suit is dead
  below it) also stays, with everything below it; this is iterated to a
  fixed point.

The result is per suit the lowest rank (0-based) that can never reach the
foundation, so ``sum(dead_ranks)`` bounds the foundation cards reachable in
this layout. This check is sound (never calls a live card dead), not complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from server.rules import RuleSet

__all__ = ["LIVE", "dead_ranks", "foundation_bound", "has_pins", "merci_bounds"]

LIVE: Final = 13
"""Entry of :func:`dead_ranks` for a suit with no dead card."""


def has_pins(rules: RuleSet) -> bool:
    """Whether the build rule has pinned cards at all (``updown-any`` has none)."""
    return rules.build in ("down-suit", "down-any")


def _pinned(rules: RuleSet, fan: Sequence[int], j: int) -> bool:
    """Whether ``fan[j]`` can leave its fan only to the foundation."""
    card = fan[j]
    if card % 13 == 12:
        return not rules.king_fills_empty
    if rules.build == "down-suit":
        succ = card + 1
        return any(fan[k] == succ for k in range(j))
    return False


def dead_ranks(rules: RuleSet, fans: Sequence[Sequence[int]]) -> list[int]:
    """Per suit (``C D H S``), the lowest 0-based rank that can never reach the
    foundation in this layout; :data:`LIVE` (13) when none.

    ``fans`` bottom → top. Assumes no redeal and no merci will be taken; one
    deck, no free cells. See the module docstring for the exact rule.
    """
    dead = [LIVE, LIVE, LIVE, LIVE]
    if not has_pins(rules):
        return dead
    changed = True
    while changed:
        changed = False
        for fan in fans:
            stuck = -1  # highest index that stays in the fan for good, with all below it
            for j in range(len(fan) - 1, -1, -1):
                h = fan[j]
                hr, hs = h % 13, h // 13
                if not _pinned(rules, fan, j):
                    continue
                if hr >= dead[hs] or any(
                    fan[k] // 13 == hs and fan[k] % 13 < hr for k in range(j)
                ):
                    stuck = j
                    break
            for k in range(stuck + 1):
                c = fan[k]
                if c % 13 < dead[c // 13]:
                    dead[c // 13] = c % 13
                    changed = True
    return dead


def foundation_bound(dead: Sequence[int]) -> int:
    """Most foundation cards reachable in the layout given :func:`dead_ranks`."""
    return sum(dead)


def merci_bounds(rules: RuleSet, fans: Sequence[Sequence[int]]) -> tuple[int, list[int]]:
    """Foundation bounds while one merci is still to come.

    Returns ``(bound, per_fan)``: ``per_fan[i]`` bounds the foundation cards
    reachable when the merci takes its card from fan ``i`` (and the layout is
    not redealt); ``bound`` is the largest of them. A merci changes only
    its source fan (a card added on a top can only pin, never free), so
    leaving the source fan out of :func:`dead_ranks` bounds every line
    through it; a fan with no dead card changes nothing when left out.
    """
    dead = dead_ranks(rules, fans)
    full = sum(dead)
    per_fan = [full] * len(fans)
    if full == 4 * LIVE:
        return full, per_fan
    bound = full
    for i, fan in enumerate(fans):
        if any(c % 13 >= dead[c // 13] for c in fan):
            rest = [f for k, f in enumerate(fans) if k != i]
            per_fan[i] = sum(dead_ranks(rules, rest))
            bound = max(bound, per_fan[i])
    return bound, per_fan
