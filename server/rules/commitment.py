"""Verifiable deals: the commitment a room publishes when it is created, and its
check (docs/protocol.md, "Verifying a deal"; issue 32).

When a room is made, the server draws a salt (:data:`SALT_BYTES` random
bytes) beside the deal number and the redeal key, and publishes
``deal_commitment``: the SHA-256, in lower-case hex, of the canonical text
(UTF-8, each line ending in ``"\\n"``)::

    lucie-deal-commitment/1
    variant=<the rule set's variant name>
    deal=<the deal number in decimal>
    redeal_key=<the redeal key, lower-case hex>
    salt=<the salt, lower-case hex>

When the race is over, the room reveals the deal number, the redeal key and
the salt; anyone recomputes the hash (:func:`deal_commitment`) and compares
it with what was published (:func:`verify_commitment`): the deal raced is
the one fixed at creation. The salt makes the commitment hide the deal
until then whatever the redeal key: were a key ever known or guessable, deal
numbers are few enough to be hashed one by one.

Pure and stdlib-only, as the rest of :mod:`server.rules`: the server and the
terminal client (``lucie verify``) share it. Drawing the salt is the
caller's (``secrets.token_bytes(SALT_BYTES)``).
"""

from __future__ import annotations

import hashlib
from typing import Final

__all__ = ["FORMAT", "SALT_BYTES", "canonical_text", "deal_commitment", "verify_commitment"]

FORMAT: Final = "lucie-deal-commitment/1"
"""The first line of the canonical text: the name and version of this formula."""

SALT_BYTES: Final = 16
"""Length of the salt the server draws for each room (bytes; 32 hex digits)."""


def _hex(value: bytes | str, what: str) -> str:
    """``value`` (bytes, or text in hex of either case) as lower-case hex.

    :raises ValueError: text that is not hex (``what`` names it).
    """
    if isinstance(value, str):
        try:
            value = bytes.fromhex(value)
        except ValueError:
            raise ValueError(f"the {what} is not hex: {value[:80]!r}") from None
    return value.hex()


def canonical_text(variant: str, deal_number: int, redeal_key: bytes | str,
                   salt: bytes | str) -> str:
    """The text whose SHA-256 is the commitment (module docstring): five lines,
    each ending in ``"\\n"``. ``redeal_key`` and ``salt`` are bytes, or hex
    text (written lower-case whatever its case).

    :raises ValueError: an empty variant name or one with a control character
        or a space, a deal number that is not a whole number of at least 1, a
        key or salt that is not hex.
    """
    if not variant or any(ch.isspace() or not ch.isprintable() for ch in variant):
        raise ValueError(f"not a variant name: {variant!r}")
    if isinstance(deal_number, bool) or not isinstance(deal_number, int) or deal_number < 1:
        raise ValueError(f"not a deal number: {deal_number!r}")
    return (f"{FORMAT}\n"
            f"variant={variant}\n"
            f"deal={deal_number}\n"
            f"redeal_key={_hex(redeal_key, 'redeal key')}\n"
            f"salt={_hex(salt, 'salt')}\n")


def deal_commitment(variant: str, deal_number: int, redeal_key: bytes | str,
                    salt: bytes | str) -> str:
    """SHA-256 of :func:`canonical_text` (UTF-8): 64 lower-case hex digits.

    :raises ValueError: as :func:`canonical_text`.
    """
    text = canonical_text(variant, deal_number, redeal_key, salt)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify_commitment(commitment: str, variant: str, deal_number: int,
                      redeal_key: bytes | str, salt: bytes | str) -> bool:
    """Whether ``commitment`` (hex, either case) is :func:`deal_commitment` of
    the revealed values; ``False`` also for values that cannot be hashed (an
    empty variant, a key or salt that is not hex)."""
    try:
        expected = deal_commitment(variant, deal_number, redeal_key, salt)
    except ValueError:
        return False
    return expected == commitment.strip().lower()
