"""The memory store keeps the store contract."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store import MemoryStore, open_store
from server.store.base import StoreUnavailable

from .contract import RETENTION, StoreContract


class TestMemoryStore(StoreContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = MemoryStore(event_retention=RETENTION)
        yield store
        await store.close()


def test_open_store_by_scheme() -> None:
    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store("memory://"), MemoryStore)
    with pytest.raises(ValueError, match="scheme"):
        open_store("ftp://x")


async def test_closed_store_is_unavailable() -> None:
    store = MemoryStore()
    await store.close()
    with pytest.raises(StoreUnavailable):
        await store.ping()
