"""The solver's private board: a compact mutable copy of a position with undo.

The rules engine's positions are immutable values (good for the server, slow
for a search that visits millions of them). :class:`Board` holds the same
state in lists, applies a move in O(1) and takes it back exactly. Its move
semantics are the engine's (rules.md rules 2–7, merci, the variants' build
rules); every winning line the solver reports is replayed through
:func:`server.rules.apply` before it is returned, so a divergence is caught.

Moves are small tuples (*records*), cheap to push on the search path:

* ``(PLAY, src, dst, card)``: top card ``card`` of fan ``src`` to fan
  ``dst`` or, with ``dst == TO_FOUNDATION``, to its foundation;
* ``(MERCI, card, dst, src * 64 + index)``: the merci of buried ``card``;
* ``(REDEAL, 0, 0, 0)``: a redeal, shuffled with the room's redeal key.

State key (:attr:`Board.hash`): 64-bit Zobrist hash of the pairs "card ``c``
lies directly on card ``b``" and of "card ``c`` is the bottom of fan ``i``",
XORed with a salt for the layout (its card order, the redeal number) and the
merci. The pairs and bottoms fix every fan and its place, and the cards on
the foundations are the ones in no pair: the key is the whole state (up to
64-bit collisions).

Supported rule sets: one deck, no free cells (every variant of rules.md but
``house-in-the-wood`` and ``fan-with-reserve``).
"""

from __future__ import annotations

import random
from typing import Final

from server.rules import FOUNDATION, REDEAL, Move, Position, RuleSet, redeal_fans

from .errors import UnsupportedRulesError

__all__ = [
    "MERCI",
    "PLAY",
    "REDEAL_KIND",
    "REDEAL_MOVE",
    "TO_FOUNDATION",
    "Board",
    "Record",
    "check_supported",
    "to_move",
]

Record = tuple[int, int, int, int]
"""A move on the board (see the module docstring)."""

PLAY: Final = 0
MERCI: Final = 1
REDEAL_KIND: Final = 2
TO_FOUNDATION: Final = -1
REDEAL_MOVE: Final[Record] = (REDEAL_KIND, 0, 0, 0)
MASK: Final = (1 << 64) - 1

_rng = random.Random(0x1B5C1E)  # fixed local generator: the same keys in every process
PAIR: Final = tuple(_rng.getrandbits(64) for _ in range(53 * 52))
"""``PAIR[(below + 1) * 52 + card]``: Zobrist key of ``card`` lying on ``below``."""
MERCI_SALT: Final = _rng.getrandbits(64)
SLOT: Final = tuple(_rng.getrandbits(64) for _ in range(64 * 52))
"""``SLOT[fan * 52 + card]``: extra key of ``card`` at the bottom of fan ``fan``."""
_REDEAL_SALT: Final = tuple(_rng.getrandbits(64) for _ in range(16))


def check_supported(rules: RuleSet, pos: Position) -> None:
    """Return quietly when the solver handles ``rules`` and ``pos``.

    :raises UnsupportedRulesError: two decks, free cells, or a foundation
        layout other than one pile per suit.
    """
    if rules.decks != 1 or rules.cells or any(c != -1 for c in pos.cells):
        raise UnsupportedRulesError(
            f"the solver handles one-deck games without free cells, not {rules.id}"
        )
    if len(pos.foundations) != 4:
        raise UnsupportedRulesError("the solver needs one foundation per suit")


def _layout_salt(fans: list[list[int]], redeals_used: int) -> int:
    return (hash(tuple(tuple(f) for f in fans)) ^ _REDEAL_SALT[redeals_used & 15]) & MASK


def pair_hash(fans: list[list[int]]) -> int:
    """Zobrist hash of the fans' (below, card) pairs and bottoms (module docstring)."""
    h = 0
    for i, fan in enumerate(fans):
        below = -1
        for c in fan:
            h ^= PAIR[(below + 1) * 52 + c]
            below = c
        if fan:
            h ^= SLOT[i * 52 + fan[0]]
    return h


class Board:
    """Mutable game state for the search; see the module docstring.

    ``fans`` bottom → top (``[]`` for an empty fan, kept in place as the
    engine does), ``found[s]`` the top rank of suit ``s`` (0 = empty),
    ``loc[card]`` the fan holding ``card`` or ``-1`` on its foundation,
    ``total`` the foundation cards.

    :raises UnsupportedRulesError: see :func:`check_supported`.
    """

    __slots__ = (
        "fans", "found", "hash", "key", "loc", "merci_used", "redeals_used", "rules",
        "salt", "total",
    )

    def __init__(self, rules: RuleSet, pos: Position, redeal_key: bytes = b"") -> None:
        check_supported(rules, pos)
        self.rules = rules
        self.key = redeal_key
        self.fans: list[list[int]] = [list(f) for f in pos.fans]
        self.found: list[int] = list(pos.foundations)
        self.total = sum(self.found)
        self.loc = [-1] * 52
        for i, fan in enumerate(self.fans):
            for c in fan:
                self.loc[c] = i
        self.redeals_used = pos.redeals_used
        self.merci_used = pos.merci_used
        self.salt = _layout_salt(self.fans, self.redeals_used)
        self.hash = pair_hash(self.fans) ^ self.salt ^ (MERCI_SALT if self.merci_used else 0)

    # -- plays -----------------------------------------------------------------

    def play(self, src: int, dst: int) -> Record:
        """Top card of fan ``src`` to fan ``dst`` or :data:`TO_FOUNDATION`
        (legality is the caller's business); returns the record."""
        f = self.fans[src]
        c = f.pop()
        h = self.hash ^ (PAIR[(f[-1] + 1) * 52 + c] if f else PAIR[c] ^ SLOT[src * 52 + c])
        if dst < 0:
            self.found[c // 13] += 1
            self.total += 1
            self.loc[c] = -1
        else:
            g = self.fans[dst]
            h ^= PAIR[(g[-1] + 1) * 52 + c] if g else PAIR[c] ^ SLOT[dst * 52 + c]
            g.append(c)
            self.loc[c] = dst
        self.hash = h
        return (PLAY, src, dst, c)

    def unplay(self, src: int, dst: int, c: int) -> None:
        """Take back :meth:`play`."""
        if dst < 0:
            self.found[c // 13] -= 1
            self.total -= 1
            h = self.hash
        else:
            g = self.fans[dst]
            g.pop()
            h = self.hash ^ (PAIR[(g[-1] + 1) * 52 + c] if g else PAIR[c] ^ SLOT[dst * 52 + c])
        f = self.fans[src]
        h ^= PAIR[(f[-1] + 1) * 52 + c] if f else PAIR[c] ^ SLOT[src * 52 + c]
        f.append(c)
        self.loc[c] = src
        self.hash = h

    # -- merci -------------------------------------------------------------------

    def merci(self, card: int, dst: int) -> Record:
        """The merci: buried ``card`` to fan ``dst`` or :data:`TO_FOUNDATION`."""
        src = self.loc[card]
        f = self.fans[src]
        idx = f.index(card)
        above = f[idx + 1]
        h = self.hash ^ PAIR[(card + 1) * 52 + above] ^ MERCI_SALT
        if idx:
            below = f[idx - 1]
            h ^= PAIR[(below + 1) * 52 + card] ^ PAIR[(below + 1) * 52 + above]
        else:
            h ^= PAIR[card] ^ SLOT[src * 52 + card] ^ PAIR[above] ^ SLOT[src * 52 + above]
        del f[idx]
        if dst < 0:
            self.found[card // 13] += 1
            self.total += 1
            self.loc[card] = -1
        else:
            g = self.fans[dst]
            h ^= PAIR[(g[-1] + 1) * 52 + card] if g else PAIR[card] ^ SLOT[dst * 52 + card]
            g.append(card)
            self.loc[card] = dst
        self.hash = h
        self.merci_used = True
        return (MERCI, card, dst, src * 64 + idx)

    def unmerci(self, card: int, dst: int, where: int) -> None:
        """Take back :meth:`merci`."""
        src, idx = divmod(where, 64)
        if dst < 0:
            self.found[card // 13] -= 1
            self.total -= 1
        else:
            self.fans[dst].pop()
        f = self.fans[src]
        f.insert(idx, card)
        self.loc[card] = src
        self.merci_used = False
        self.hash = pair_hash(self.fans) ^ self.salt

    # -- redeal ------------------------------------------------------------------

    def redeal(self) -> tuple[list[list[int]], int, int]:
        """Gather, shuffle with the redeal key, lay out again (rules.md rule 6).

        Returns what :meth:`unredeal` needs.
        """
        saved = (self.fans, self.salt, self.hash)
        gathered = [c for fan in self.fans for c in fan]
        self.redeals_used += 1
        fans = [list(f) for f in redeal_fans(self.key, self.redeals_used, gathered)]
        self.fans = fans
        loc = self.loc
        for i, fan in enumerate(fans):
            for c in fan:
                loc[c] = i
        self.salt = _layout_salt(fans, self.redeals_used)
        self.hash = pair_hash(fans) ^ self.salt ^ (MERCI_SALT if self.merci_used else 0)
        return saved

    def unredeal(self, saved: tuple[list[list[int]], int, int]) -> None:
        """Take back :meth:`redeal`."""
        self.fans, self.salt, self.hash = saved
        self.redeals_used -= 1
        loc = self.loc
        for i, fan in enumerate(self.fans):
            for c in fan:
                loc[c] = i

    # -- views -------------------------------------------------------------------

    def position(self) -> Position:
        """The engine position of this board."""
        return Position(
            tuple(tuple(f) for f in self.fans), tuple(self.found), (),
            self.redeals_used, self.merci_used,
        )


def to_move(record: Record) -> Move:
    """The engine :class:`~server.rules.Move` of a board record."""
    kind, a, b, _ = record
    if kind == PLAY:
        return Move.play(a, FOUNDATION if b < 0 else b)
    if kind == MERCI:
        return Move.merci(a, FOUNDATION if b < 0 else b)
    return REDEAL
