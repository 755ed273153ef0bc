"""The memory leaderboard keeps the contract; score encoding; choice by URL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.records.leaderboard_memory import MemoryLeaderboardStore
from server.records.leaderboard_store import (
    MAX_MOVES,
    MAX_REACH_MS,
    decode_score,
    encode_score,
)

from .leaderboard_contract import LeaderboardContract


class TestMemoryLeaderboard(LeaderboardContract):
    @pytest.fixture
    async def lb(self) -> AsyncIterator[MemoryLeaderboardStore]:
        store = MemoryLeaderboardStore()
        yield store
        await store.close()


results = st.tuples(st.integers(0, 104), st.integers(0, MAX_REACH_MS), st.integers(0, MAX_MOVES))


@given(results, results)
def test_score_orders_like_the_ranking_rules(a: tuple[int, int, int],
                                             b: tuple[int, int, int]) -> None:
    def key(r: tuple[int, int, int]) -> tuple[int, int, int]:
        return (-r[0], r[1], r[2])

    sa, sb = encode_score(*a), encode_score(*b)
    assert sa < 2**53 and float(sa) == sa
    assert (sa < sb) == (key(a) < key(b))
    assert decode_score(sa) == a


def test_score_caps_and_refusals() -> None:
    assert decode_score(encode_score(52, None, 10)) == (52, 0, 10)
    assert decode_score(encode_score(52, 10**12, 10**6)) == (52, MAX_REACH_MS, MAX_MOVES)
    for bad in ((-1, 0, 0), (128, 0, 0), (1, -5, 0), (1, 0, -1)):
        with pytest.raises(ValueError):
            encode_score(*bad)

