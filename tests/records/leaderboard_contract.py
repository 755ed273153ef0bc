"""Backend-agnostic tests of :class:`server.records.leaderboard_store.LeaderboardStore`.

Subclass :class:`LeaderboardContract` with a ``lb`` fixture yielding a fresh
store; board names are random so tests can share one Redis.
"""

from __future__ import annotations

import asyncio
import secrets

from server.records.leaderboard_store import LeaderboardStore, encode_score

__all__ = ["LeaderboardContract"]


def _board() -> str:
    return "t" + secrets.token_hex(6)


class LeaderboardContract:
    """The contract, test by test."""

    async def test_keeps_best_per_member(self, lb: LeaderboardStore) -> None:
        b = _board()
        assert await lb.submit(b, "ada", encode_score(10, 5000, 40), {"v": 1})
        assert not await lb.submit(b, "ada", encode_score(9, 1000, 10), {"v": 2})
        assert not await lb.submit(b, "ada", encode_score(10, 5000, 40), {"v": 3})
        assert await lb.submit(b, "ada", encode_score(10, 4000, 60), {"v": 4})
        got = await lb.get(b, "ada")
        assert got is not None and got.entry == {"v": 4}
        assert got.score == encode_score(10, 4000, 60)
        assert await lb.size(b) == 1
        assert await lb.get(b, "bob") is None

    async def test_order_by_ranking_rules_and_ties_by_submission(
        self, lb: LeaderboardStore
    ) -> None:
        b = _board()
        await lb.submit(b, "slow", encode_score(52, 90_000, 100), {})
        await lb.submit(b, "few", encode_score(20, 1_000, 30), {})
        await lb.submit(b, "fast", encode_score(52, 60_000, 120), {})
        await lb.submit(b, "zed", encode_score(52, 60_000, 110), {})
        await lb.submit(b, "tie-late", encode_score(20, 1_000, 30), {})
        await lb.submit(b, "a-tie-later", encode_score(20, 1_000, 30), {})
        top = [e.member for e in await lb.top(b, 10)]
        assert top == ["zed", "fast", "slow", "few", "tie-late", "a-tie-later"]
        assert [e.member for e in await lb.top(b, 5)] == top[:5]
        assert [e.member for e in await lb.top(b, 4)] == top[:4]
        assert await lb.top(b, 0) == []
        assert await lb.top(_board(), 5) == []

    async def test_concurrent_submissions_keep_the_best(self, lb: LeaderboardStore) -> None:
        b = _board()
        scores = [encode_score(n, 1000, 10) for n in range(30)]
        await asyncio.gather(*(lb.submit(b, "ada", s, {"n": i}) for i, s in enumerate(scores)))
        got = await lb.get(b, "ada")
        assert got is not None and got.entry == {"n": 29}

    async def test_board_is_capped_to_its_best(self, lb: LeaderboardStore) -> None:
        b = _board()
        lb.max_entries = 3  # type: ignore[attr-defined]
        for n in (10, 30, 20, 40):
            assert await lb.submit(b, f"p{n}", encode_score(n, 0, 0), {})
        assert not await lb.submit(b, "p5", encode_score(5, 0, 0), {})
        assert await lb.size(b) == 3
        assert [e.member for e in await lb.top(b, 10)] == ["p40", "p30", "p20"]
        assert await lb.get(b, "p10") is None

    async def test_a_member_is_removed_with_its_entry(self, lb: LeaderboardStore) -> None:
        b = _board()
        await lb.submit(b, "cheat", encode_score(52, 10, 10), {"n": 1})
        await lb.submit(b, "honest", encode_score(30, 10, 10), {"n": 2})
        assert await lb.remove(b, "cheat")
        assert not await lb.remove(b, "cheat")  # gone already
        assert await lb.get(b, "cheat") is None and await lb.size(b) == 1
        assert [e.member for e in await lb.top(b, 10)] == ["honest"]
        assert await lb.submit(b, "cheat", encode_score(1, 10, 10), {"n": 3})  # a fresh start

    async def test_barred_players_are_remembered(self, lb: LeaderboardStore) -> None:
        assert await lb.barred({"p1", "p2"}) == set()
        await lb.bar("p1")
        await lb.bar("p1")
        assert await lb.barred({"p1", "p2"}) == {"p1"}
        assert await lb.barred(set()) == set()
        await lb.unbar("p1")
        await lb.unbar("p9")  # never barred: nothing
        assert await lb.barred({"p1", "p2"}) == set()
