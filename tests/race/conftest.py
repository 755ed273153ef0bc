"""Fixtures of the race authority's tests: the memory store with a movable
clock (``store``) and the authority on it (``race``). A test module that needs
another store (counting calls, or real Redis) defines its own ``store``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.race import RaceAuthority

from .helpers import ClockStore


@pytest.fixture
async def store() -> AsyncIterator[ClockStore]:
    s = ClockStore()
    yield s
    await s.close()


@pytest.fixture
def race(store: ClockStore) -> RaceAuthority:
    return RaceAuthority(store)
