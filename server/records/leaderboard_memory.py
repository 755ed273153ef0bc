"""In-memory leaderboard store: the embedded default (one process)."""

from __future__ import annotations

from typing import Any

from .leaderboard_store import MAX_ENTRIES, BoardEntry, LeaderboardStore

__all__ = ["MemoryLeaderboardStore"]


class MemoryLeaderboardStore(LeaderboardStore):
    """Boards as dicts; each method runs without an ``await`` inside, so it is atomic."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES) -> None:
        self._boards: dict[str, dict[str, BoardEntry]] = {}
        self._seq = 0
        self._barred: set[str] = set()
        self.max_entries = max_entries

    async def submit(self, board: str, member: str, score: int, entry: dict[str, Any]) -> bool:
        """See :meth:`LeaderboardStore.submit`."""
        members = self._boards.setdefault(board, {})
        current = members.get(member)
        if current is not None and current.score <= score:
            return False
        self._seq += 1
        members[member] = BoardEntry(member, score, self._seq, dict(entry))
        if len(members) > self.max_entries:
            ranked = sorted(members.values(), key=lambda e: (e.score, e.seq))
            for gone in ranked[self.max_entries:]:
                del members[gone.member]
        return member in members

    async def top(self, board: str, limit: int) -> list[BoardEntry]:
        """See :meth:`LeaderboardStore.top`."""
        members = self._boards.get(board, {})
        return sorted(members.values(), key=lambda e: (e.score, e.seq))[:max(0, limit)]

    async def get(self, board: str, member: str) -> BoardEntry | None:
        """See :meth:`LeaderboardStore.get`."""
        return self._boards.get(board, {}).get(member)

    async def size(self, board: str) -> int:
        """See :meth:`LeaderboardStore.size`."""
        return len(self._boards.get(board, {}))

    async def remove(self, board: str, member: str) -> bool:
        """See :meth:`LeaderboardStore.remove`."""
        return self._boards.get(board, {}).pop(member, None) is not None

    async def bar(self, player_id: str) -> None:
        """See :meth:`LeaderboardStore.bar`."""
        self._barred.add(player_id)

    async def unbar(self, player_id: str) -> None:
        """See :meth:`LeaderboardStore.unbar`."""
        self._barred.discard(player_id)

    async def barred(self, player_ids: set[str]) -> set[str]:
        """See :meth:`LeaderboardStore.barred`."""
        return player_ids & self._barred

    async def close(self) -> None:
        """Nothing to release."""
