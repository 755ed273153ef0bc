"""Depth-first search over :class:`~server.solver.board.Board` with a transposition table.

Size: one module on purpose (over 350 lines). :class:`Search` is the
solver's hot loop: the recursive ``_win`` / ``_best`` and the move generator
they call at every node (``_moves``, ``_targets``, ``_safe``, ``_locks``)
share one object's private state — the board changed and restored in place,
the transposition table, the line, the dead ranks ``_best`` keeps up to
date, the budget counter and the rule flags read once in ``__init__`` — so a
node costs plain attribute reads on ``self``. Splitting the generator off
would pass that state between modules or add an indirection per node, for no
reuse: what stands alone is already in :mod:`~server.solver.board` and
:mod:`~server.solver.deadlock`.

Two searches share the move generator and the reductions:

* :meth:`Search.win` (mode *known redeals*): is there a line to 52
  foundation cards? A redeal is one more deterministic move (the redeal key
  is known). Children are tried foundation moves first, then builds, then
  the merci, then the redeal. A complete search that finds nothing proves
  the position lost.
* :meth:`Search.best` (mode *one layout*): the most foundation cards
  reachable without a redeal, by branch and bound; the bound is
  :func:`~server.solver.deadlock.dead_ranks`.

Reductions, each exact (it never loses a win or a foundation card), and
applied only where no redeal follows (the last layout, or one-layout mode),
because any change in the fans changes what a later redeal lays out:

* a safe move is played alone: a top card to its foundation when nothing
  could still be built on it (always under ``down-suit``; under the
  any-suit builds once the neighbour ranks of the other suits are up),
  and, under ``down-suit``, a build onto a card that can only ever leave to
  the foundation (a king — in ``the-fan`` only a king alone in its fan —, a
  card whose successor lies below it in the same fan: seed ``004``'s "onto
  a king", "onto a sequence") or, without king moves, onto a one-card fan
  (seed ``004``);
* a dead position (a locked card, :mod:`server.solver.deadlock`) is cut:
  in known-redeals mode any lock in the last layout loses, in one-layout
  mode the bound drops;
* a card alone in its fan is never built onto another fan (it would only
  cover its target; the emptied fan is gone for good — not in ``the-fan``);
* safe builds and locks are off while a merci is still to come (it can free
  a locked card).

Budgets: ``max_nodes`` (positions visited) and a monotonic ``deadline``;
when either is spent, :class:`OutOfBudget` ends the search and the caller
reports ``unknown`` with the best count seen.
"""

from __future__ import annotations

import sys
import time
from typing import Final

from .board import MERCI, PLAY, REDEAL_MOVE, TO_FOUNDATION, Board, Record
from .deadlock import LIVE, dead_ranks, has_pins, merci_bounds

__all__ = ["OutOfBudget", "Search", "Won"]

_CHECK_EVERY: Final = 512
MAX_DEPTH: Final = 600
"""Longest line searched; a search that reaches it is not complete (any-suit
builds let cards wander between fans)."""
_ALL_LIVE: Final = (LIVE, LIVE, LIVE, LIVE)


if sys.getrecursionlimit() < 3 * MAX_DEPTH:  # the search recurses once per move of the line
    sys.setrecursionlimit(3 * MAX_DEPTH)


class OutOfBudget(Exception):
    """The node or time budget is spent."""


class Won(Exception):
    """One-layout search reached 52 foundation cards (stops the search)."""


Step = tuple[int, int, int]
"""A candidate move: ``(PLAY, src, dst)`` or ``(MERCI, card, dst)``."""


class Search:
    """One search over ``board`` (which it changes and restores); with
    ``merci=False`` lines without the merci only.

    After a search: ``nodes`` visited, ``best`` foundation count seen,
    ``best_path`` the records leading to it, ``path`` the winning line
    after a won :meth:`win`.
    """

    def __init__(
        self, board: Board, *, max_nodes: int, deadline: float, merci: bool = True
    ) -> None:
        rules = board.rules
        self.b = board
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self._next_check = _CHECK_EVERY
        self.seen: set[int] = set()
        self.path: list[Record] = []
        self.best = board.total
        self.best_path: list[Record] = []
        self.redeals = rules.redeals
        self.merci = rules.merci and merci
        self.king_fill = rules.king_fills_empty
        self.max_fan = rules.max_fan
        self.build = rules.build
        self.down_suit = rules.build == "down-suit"
        self.pins = has_pins(rules)
        self.dead: list[int] | tuple[int, ...] = _ALL_LIVE
        self.capped = False
        self._merci_now = False

    # -- budget --------------------------------------------------------------------

    def _tick(self) -> None:
        self._next_check = self.nodes + _CHECK_EVERY
        if self.nodes >= self.max_nodes or time.perf_counter() >= self.deadline:
            raise OutOfBudget

    # -- moves ---------------------------------------------------------------------

    def _targets(self, c: int, src: int) -> list[int]:
        """Fans other than ``src`` whose top card takes ``c`` (build rule, fan limit)."""
        b = self.b
        loc, fans = b.loc, b.fans
        r = c % 13
        out: list[int] = []
        if self.down_suit:
            if r < 12:
                j = loc[c + 1]
                if j >= 0 and j != src and fans[j][-1] == c + 1:
                    out.append(j)
        else:
            ranks = (r + 1,) if self.build == "down-any" else (r - 1, r + 1)
            max_fan = self.max_fan
            for rr in ranks:
                if not 0 <= rr <= 12:
                    continue
                for d in range(rr, 52, 13):
                    j = loc[d]
                    if j >= 0 and j != src and fans[j][-1] == d and (
                        max_fan is None or len(fans[j]) < max_fan
                    ):
                        out.append(j)
        if self.king_fill and r == 12 and len(fans[src]) > 1:
            # Without a redeal to come every empty fan is alike: one is enough.
            every = b.redeals_used < self.redeals
            for j, g in enumerate(fans):
                if not g:
                    out.append(j)
                    if not every:
                        break
        return out

    def _moves(self, merci: list[bool] | None, last: bool) -> list[Step]:
        """Plays (foundation moves first, then builds), then merci moves of
        buried cards of the fans ``i`` with ``merci[i]`` (none if ``None``).

        ``last``: no redeal follows, so a lone card is never built elsewhere
        (it only covers its target; empty fans are gone for good).
        """
        b = self.b
        fans, found = b.fans, b.found
        first: list[Step] = []
        builds: list[Step] = []
        keep_lone = not last or self.king_fill
        for i, f in enumerate(fans):
            if not f:
                continue
            c = f[-1]
            if found[c // 13] == c % 13:
                first.append((PLAY, i, TO_FOUNDATION))
            if keep_lone or len(f) > 1:
                for j in self._targets(c, i):
                    builds.append((PLAY, i, j))
        first.extend(builds)
        if merci is not None:
            for i, f in enumerate(fans):
                if not merci[i]:
                    continue
                for c in f[:-1]:
                    if found[c // 13] == c % 13:
                        first.append((MERCI, c, TO_FOUNDATION))
                    for j in self._targets(c, i):
                        first.append((MERCI, c, j))
        return first

    def _foundation_safe(self, c: int) -> bool:
        """Whether nothing could still be built on ``c`` (module docstring)."""
        if self.down_suit:
            return True
        r, s = c % 13, c // 13
        found = self.b.found
        for t in range(4):
            if t == s:
                continue
            if found[t] < r:
                return False
            if self.build == "updown-any" and r < 12 and found[t] < r + 2:
                return False
        return True

    def _safe(self, builds: bool) -> Record | None:
        """Play and return one safe move, or ``None`` (module docstring)."""
        b = self.b
        fans, found, loc = b.fans, b.found, b.loc
        for i, f in enumerate(fans):
            if f:
                c = f[-1]
                if found[c // 13] == c % 13 and self._foundation_safe(c):
                    return b.play(i, TO_FOUNDATION)
        if not (builds and self.down_suit):
            return None
        king_fill = self.king_fill
        for i, f in enumerate(fans):
            if not f:
                continue
            c = f[-1]
            r = c % 13
            if r == 12:
                continue
            x = c + 1
            j = loc[x]
            if j < 0 or fans[j][-1] != x:
                continue
            lone = len(fans[j]) == 1
            # onto a king: it never moves (the-fan: unless it covers cards);
            # onto a card over its own successor; onto a lone card (not the-fan)
            free = lone and not king_fill
            if (lone or not king_fill) if r == 11 else (free or loc[x + 1] == j):
                return b.play(i, j)
        return None

    def _locks(self, src: int, dst: int) -> bool:
        """Whether building ``src``'s top on ``dst`` locks a card (``down-suit``:
        the built card is pinned by its successor right below it)."""
        if not self.down_suit:
            return False
        fans = self.b.fans
        c = fans[src][-1]
        s, r = c // 13, c % 13
        return any(x // 13 == s and x % 13 < r for x in fans[dst])

    def _dead(self) -> bool:
        return self.pins and min(dead_ranks(self.b.rules, self.b.fans)) < LIVE

    # -- known redeals: find a win -------------------------------------------------

    def win(self) -> bool:
        """Whether a win is reachable; on ``True`` ``path`` holds the line.

        :raises OutOfBudget: budget spent (the board is left mid-search).
        """
        b = self.b
        if b.total == 52:
            return True
        if b.redeals_used >= self.redeals and not (self.merci and not b.merci_used) and (
            self._dead()
        ):
            return False
        return self._win()

    def _win(self) -> bool:
        b = self.b
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        total = b.total
        path = self.path
        if total > self.best:
            self.best = total
            self.best_path = path.copy()
        if total == 52:
            return True
        if len(path) >= MAX_DEPTH:
            self.capped = True
            return False
        h = b.hash
        seen = self.seen
        if h in seen:
            return False
        seen.add(h)
        if b.redeals_used >= self.redeals:
            merci_left = self.merci and not b.merci_used
            sources: list[bool] | None = None
            if merci_left:
                bound, per_fan = merci_bounds(b.rules, b.fans)
                if bound < 52:
                    return False
                sources = [x == 52 for x in per_fan]
            rec = self._safe(not merci_left)
            if rec is not None:
                path.append(rec)
                if self._win():
                    return True
                path.pop()
                b.unplay(rec[1], rec[2], rec[3])
                return False
            for kind, a, d in self._moves(sources, True):
                if kind == PLAY:
                    if d >= 0 and not merci_left and self._locks(a, d):
                        continue
                    rec = b.play(a, d)
                    path.append(rec)
                    if self._win():
                        return True
                    path.pop()
                    b.unplay(a, d, rec[3])
                else:
                    rec = b.merci(a, d)
                    path.append(rec)
                    if not self._dead() and self._win():
                        return True
                    path.pop()
                    b.unmerci(a, d, rec[3])
            return False
        for _, a, d in self._moves(None, False):
            rec = b.play(a, d)
            path.append(rec)
            if self._win():
                return True
            path.pop()
            b.unplay(a, d, rec[3])
        saved = b.redeal()
        path.append(REDEAL_MOVE)
        live = (
            b.redeals_used < self.redeals or (self.merci and not b.merci_used) or not self._dead()
        )
        if live and self._win():
            return True
        path.pop()
        b.unredeal(saved)
        return False

    # -- one layout: most foundation cards ----------------------------------------

    def best_in_layout(self) -> None:
        """Search for the most foundation cards without a redeal.

        Result in ``best`` and ``best_path``.

        :raises Won: 52 reached (``best_path`` is the winning line).
        :raises OutOfBudget: budget spent.
        """
        b = self.b
        self._merci_now = self.merci and b.redeals_used >= self.redeals
        if b.total == 52:
            raise Won
        self.dead = dead_ranks(b.rules, b.fans)  # as if no merci came: kept up to date
        self._best()

    def _best(self) -> None:
        b = self.b
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        total = b.total
        path = self.path
        if total > self.best:
            self.best = total
            self.best_path = path.copy()
            if total == 52:
                raise Won
        if len(path) >= MAX_DEPTH:
            self.capped = True
            return
        h = b.hash
        seen = self.seen
        if h in seen:
            return
        seen.add(h)
        merci_left = self._merci_now and not b.merci_used
        sources: list[bool] | None = None
        if sum(self.dead) <= self.best:
            if not merci_left:
                return
            bound, per_fan = merci_bounds(b.rules, b.fans)
            if bound <= self.best:
                return
            sources = [x > self.best for x in per_fan]
        elif merci_left:
            sources = [True] * len(b.fans)  # every merci keeps the bound above best
        rec = self._safe(not merci_left)
        if rec is not None:
            path.append(rec)
            self._best()
            path.pop()
            b.unplay(rec[1], rec[2], rec[3])
            return
        for kind, a, d in self._moves(sources, True):
            if kind == PLAY:
                rescan = False
                if d >= 0 and self.down_suit:
                    c = b.fans[a][-1]
                    rescan = c % 13 >= self.dead[c // 13] or self._locks(a, d)
                rec = b.play(a, d)
                path.append(rec)
                if rescan:
                    old = self.dead
                    self.dead = dead_ranks(b.rules, b.fans)
                    if merci_left or sum(self.dead) > self.best:
                        self._best()
                    self.dead = old
                else:
                    self._best()
                path.pop()
                b.unplay(a, d, rec[3])
            else:
                rec = b.merci(a, d)
                path.append(rec)
                old = self.dead
                self.dead = dead_ranks(b.rules, b.fans)
                self._best()
                self.dead = old
                path.pop()
                b.unmerci(a, d, rec[3])
