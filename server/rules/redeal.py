"""The keyed redeal generator (rules.md, "Redeal generator (fairness)").

The shuffle of redeal ``k`` is a pure function of the room's redeal key,
``k`` and the gathered card order, so every racer who reaches the same
position and redeals gets the same layout, and undo + redeal gives the same
layout again. Specification (``docs/redeal.md`` repeats it for third
parties):

1. ``msg = b"lucie-redeal-v1" || u8(k) || u16be(n) || bytes(cards)`` where
   ``cards`` are the ``n`` gathered cards, one byte each
   (``suit * 13 + rank - 1``, suits ``C D H S``), in gathering order: fan 1
   first, each fan bottom → top, then free cells ``c1`` … in order.
2. A byte stream: ``HMAC-SHA256(key, msg || u32be(i))`` for i = 0, 1, 2 …,
   concatenated. Words are consecutive 4-byte big-endian unsigned ints.
3. ``below(m)``: draw words until one is ``< 2**32 - (2**32 mod m)``; return
   it ``mod m`` (rejection sampling, no bias).
4. Fisher–Yates: for ``i`` from ``n - 1`` down to 1, ``j = below(i + 1)``,
   swap ``cards[i]`` and ``cards[j]``.
5. Lay out in fans of three, in order: fan 1 = shuffled cards 0–2
   (bottom → top), fan 2 = 3–5, …; the last fan holds ``n mod 3`` cards
   when that is not zero (⌈n/3⌉ fans, as PySolFC).
"""

from __future__ import annotations

import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import Final

from .cards import Card

__all__ = ["DOMAIN", "KEY_BYTES", "layout_in_threes", "redeal_fans", "shuffle_for_redeal"]

DOMAIN: Final = b"lucie-redeal-v1"
KEY_BYTES: Final = 32
"""Length of the redeal keys the service makes (any length is accepted)."""
_SPAN: Final = 1 << 32


_WORDS_PER_BLOCK: Final = struct.Struct(">8I")


def _words(key: bytes, msg: bytes, start: int = 0) -> Iterator[int]:
    counter = start
    while True:
        block = hmac.digest(key, msg + counter.to_bytes(4, "big"), "sha256")
        yield from _WORDS_PER_BLOCK.unpack(block)
        counter += 1


def shuffle_for_redeal(key: bytes, k: int, cards: Sequence[Card]) -> list[Card]:
    """The gathered ``cards`` shuffled for redeal ``k`` (1-based) under ``key``.

    Pure: the same arguments always give the same list (``docs/redeal.md``).
    """
    n = len(cards)
    msg = DOMAIN + bytes([k & 0xFF]) + n.to_bytes(2, "big") + bytes(cards)
    out = list(cards)
    # The blocks a shuffle needs without rejections, made in one go; a
    # rejected word (chance below n / 2**32 each) continues the same stream.
    blocks = (n + 6) // 8
    digest = hmac.digest
    words: list[int] = []
    for counter in range(blocks):
        words.extend(_WORDS_PER_BLOCK.unpack(digest(key, msg + counter.to_bytes(4, "big"),
                                                     "sha256")))
    more: Iterator[int] | None = None
    w_at = 0
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = _SPAN - _SPAN % m
        while True:
            if w_at < len(words):
                w = words[w_at]
                w_at += 1
            else:
                if more is None:
                    more = _words(key, msg, blocks)
                w = next(more)
            if w < limit:
                break
        j = w % m
        out[i], out[j] = out[j], out[i]
    return out


def layout_in_threes(cards: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    """Fans of three (bottom → top), the last one shorter when n mod 3 ≠ 0."""
    return tuple(tuple(cards[i : i + 3]) for i in range(0, len(cards), 3))


def redeal_fans(key: bytes, k: int, gathered: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    """New fans of redeal ``k``: :func:`shuffle_for_redeal` then :func:`layout_in_threes`."""
    return layout_in_threes(shuffle_for_redeal(key, k, gathered))
