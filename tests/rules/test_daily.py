"""The daily deal: stable for a date, different across dates and variants."""

from __future__ import annotations

import hashlib
from datetime import date

import pytest

from server.rules import UnknownVariantError
from server.rules.daily import DAILY_DEALS, daily_deal, parse_date, utc_date


def test_stable_for_a_date_and_follows_the_spec() -> None:
    day = date(2026, 11, 30)
    assert daily_deal("belle-lucie", day) == daily_deal("belle-lucie", date(2026, 11, 30))
    digest = hashlib.sha256(b"lucie-daily-v1|belle-lucie|2026-11-30").digest()
    assert daily_deal("belle-lucie", day) == int.from_bytes(digest[:8], "big") % 10**9 + 1


def test_differs_across_dates_and_variants() -> None:
    days = [date(2026, 1, 1).fromordinal(date(2026, 1, 1).toordinal() + i) for i in range(60)]
    deals = {daily_deal("belle-lucie", d) for d in days}
    assert len(deals) == 60
    assert all(1 <= n <= DAILY_DEALS for n in deals)
    assert daily_deal("trefoil", days[0]) != daily_deal("belle-lucie", days[0])


def test_unknown_variant_refused() -> None:
    with pytest.raises(UnknownVariantError):
        daily_deal("chess", date(2026, 1, 1))


def test_utc_date_and_parse_date() -> None:
    assert utc_date(0) == date(1970, 1, 1)
    assert utc_date(86_400_000 - 1) == date(1970, 1, 1)
    assert utc_date(86_400_000) == date(1970, 1, 2)
    assert parse_date("2026-11-30") == date(2026, 11, 30)
    for bad in ("2026-13-01", "20261130", "yesterday", "2026-1-1"):
        with pytest.raises(ValueError):
            parse_date(bad)
