"""The daily deal: one deal number per variant per UTC date, the same for everyone.

Specification (stable; a third party can reproduce it)::

    digest = SHA-256(UTF-8("lucie-daily-v1|" + variant_id + "|" + "YYYY-MM-DD"))
    deal   = int.from_bytes(digest[:8], "big") % 1_000_000_000 + 1

so the daily deal is in 1 … 10⁹ (inside the deal-number range of rules.md,
"Layout") and depends only on the variant id and the UTC calendar date.
The clock is the caller's: pass the date, or a time to :func:`utc_date`.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from typing import Final

from .variants import get_variant

__all__ = ["DAILY_DEALS", "DOMAIN", "daily_deal", "parse_date", "utc_date"]

DOMAIN: Final = "lucie-daily-v1"
DAILY_DEALS: Final = 1_000_000_000
"""Daily deal numbers run from 1 to this number."""


def daily_deal(variant: str, day: date) -> int:
    """The daily deal number of ``variant`` on UTC date ``day`` (module docstring).

    :raises UnknownVariantError: ``variant`` is not a known variant id.
    """
    get_variant(variant)
    text = f"{DOMAIN}|{variant}|{day.isoformat()}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") % DAILY_DEALS + 1


def utc_date(unix_ms: int) -> date:
    """The UTC calendar date of a Unix time in milliseconds (the service clock)."""
    return datetime.fromtimestamp(unix_ms / 1000, tz=UTC).date()


def parse_date(text: str) -> date:
    """A ``YYYY-MM-DD`` date.

    :raises ValueError: not that form, or not a real date.
    """
    if len(text) != 10:
        raise ValueError(f"not a YYYY-MM-DD date: {text!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"not a YYYY-MM-DD date: {text!r}") from None
