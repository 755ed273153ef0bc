"""Redis leaderboard store: one sorted set per board.

Keys of board ``B`` (all with the hash tag ``{lb:B}``, so one board lives on
one cluster slot):

- ``<prefix>{lb:B}:z`` — sorted set, member → best score (smaller is better);
- ``<prefix>{lb:B}:e`` — hash, member → JSON entry of that best;
- ``<prefix>{lb:B}:q`` — hash, member → submission number of that best;
- ``<prefix>{lb:B}:seq`` — counter of submissions kept.

A submission is one Lua script (compare, then ZADD + HSET + INCR, then trim
the board to its ``max_entries`` best), so two processes submitting for one
member at once keep the better one, and a board never outgrows its cap.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any, Final, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from server.errors import StoreUnavailable
from server.runtime.redis_url import ClusterClient, detect_cluster

from .leaderboard_store import MAX_ENTRIES, BoardEntry, LeaderboardStore

__all__ = ["RedisLeaderboardStore"]

_SUBMIT: Final = """
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if cur and tonumber(cur) <= tonumber(ARGV[2]) then return 0 end
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], seq)
local cap = tonumber(ARGV[4])
if redis.call('ZCARD', KEYS[1]) > cap then
  local gone = redis.call('ZRANGE', KEYS[1], cap, -1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], cap, -1)
  redis.call('HDEL', KEYS[2], unpack(gone))
  redis.call('HDEL', KEYS[3], unpack(gone))
  if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
end
return seq
"""


class RedisLeaderboardStore(LeaderboardStore):
    """Leaderboards in Redis sorted sets (module docstring)."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, prefix: str = "lucie:",
                 max_entries: int = MAX_ENTRIES, owned: bool = True) -> None:
        """Boards on ``client``, keys under ``prefix``; ``owned``: :meth:`close`
        closes the client (``False``: another part owns it — the room store's)."""
        self._redis = client
        self._prefix = prefix
        self.max_entries = max_entries
        self._owned = owned
        self._submit = client.register_script(_SUBMIT)

    @classmethod
    def from_url(cls, url: str, *, prefix: str | None = None,
                 default_prefix: str = "lucie:",
                 cluster: bool | None = None) -> RedisLeaderboardStore:
        """A store on a new client for ``url``, read as the room store reads it
        (:mod:`server.store.redis`): ``redis://host:port/db?prefix=lucie:``; keys
        start with ``prefix`` if given, else the URL's, else ``default_prefix``
        (the ``redis_prefix`` setting); ``retention`` is the room store's and
        ignored here. ``cluster``: the URL names a node of a Redis Cluster (``None``:
        ask the server); every key of a board shares its hash tag."""
        parts = urlsplit(url)
        options = dict(parse_qsl(parts.query))
        given = options.pop("prefix", None)
        options.pop("retention", None)
        if prefix is None:
            prefix = given or default_prefix
        bare = urlunsplit(parts._replace(query=urlencode(options)))
        if cluster is None:
            cluster = detect_cluster(bare)
        if cluster:  # per node; redis-py's async cluster raises when one is full
            return cls(ClusterClient.from_url(bare, socket_timeout=5, socket_connect_timeout=5,
                                              max_connections=1024), prefix=prefix)
        return cls(aioredis.Redis.from_url(bare, socket_timeout=5, socket_connect_timeout=5),
                   prefix=prefix)

    @property
    def prefix(self) -> str:
        """The key prefix every key of this store starts with."""
        return self._prefix

    def _keys(self, board: str) -> list[str]:
        base = f"{self._prefix}{{lb:{board}}}"
        return [f"{base}:z", f"{base}:e", f"{base}:q", f"{base}:seq"]

    async def submit(self, board: str, member: str, score: int, entry: dict[str, Any]) -> bool:
        """See :meth:`LeaderboardStore.submit`."""
        try:
            seq = await self._submit(keys=self._keys(board),
                                     args=[member, str(score), json.dumps(entry),
                                           self.max_entries])
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None
        return bool(seq)

    async def _entries(self, board: str, members: list[tuple[bytes, float]]) -> list[BoardEntry]:
        if not members:
            return []
        names = [m for m, _ in members]
        _, e_key, q_key, _ = self._keys(board)
        entries = await cast(Awaitable[list[Any]], self._redis.hmget(e_key, names))
        seqs = await cast(Awaitable[list[Any]], self._redis.hmget(q_key, names))
        out = []
        for (member, score), entry, seq in zip(members, entries, seqs, strict=True):
            out.append(BoardEntry(member.decode(), int(score), int(seq or 0),
                                  json.loads(entry) if entry else {}))
        return out

    async def top(self, board: str, limit: int) -> list[BoardEntry]:
        """See :meth:`LeaderboardStore.top`; ties at the cut are settled by submission order."""
        if limit <= 0:
            return []
        z_key = self._keys(board)[0]
        try:
            members = cast(list[tuple[bytes, float]],
                           await self._redis.zrange(z_key, 0, limit - 1, withscores=True))
            if len(members) == limit:
                last = members[-1][1]
                members = [m for m in members if m[1] != last]
                members += cast(list[tuple[bytes, float]], await self._redis.zrangebyscore(
                    z_key, last, last, withscores=True))
            out = await self._entries(board, members)
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None
        return sorted(out, key=lambda e: (e.score, e.seq))[:limit]

    async def get(self, board: str, member: str) -> BoardEntry | None:
        """See :meth:`LeaderboardStore.get`."""
        try:
            score = await self._redis.zscore(self._keys(board)[0], member)
            if score is None:
                return None
            found = await self._entries(board, [(member.encode(), score)])
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None
        return found[0]

    async def size(self, board: str) -> int:
        """See :meth:`LeaderboardStore.size`."""
        try:
            return int(await self._redis.zcard(self._keys(board)[0]))
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None

    async def remove(self, board: str, member: str) -> bool:
        """See :meth:`LeaderboardStore.remove`: the member's score, entry and
        submission order in one transaction (the keys share a hash tag)."""
        z_key, e_key, q_key, _ = self._keys(board)
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.zrem(z_key, member)
                pipe.hdel(e_key, member)
                pipe.hdel(q_key, member)
                done = await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None
        return bool(done[0])

    @property
    def _barred_key(self) -> str:
        return f"{self._prefix}fairplay:barred"

    async def bar(self, player_id: str) -> None:
        """See :meth:`LeaderboardStore.bar`."""
        try:
            await self._redis.sadd(self._barred_key, player_id)
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None

    async def unbar(self, player_id: str) -> None:
        """See :meth:`LeaderboardStore.unbar`."""
        try:
            await self._redis.srem(self._barred_key, player_id)
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None

    async def barred(self, player_ids: set[str]) -> set[str]:
        """See :meth:`LeaderboardStore.barred`."""
        if not player_ids:
            return set()
        ids = sorted(player_ids)
        try:
            got = await cast(Awaitable[list[Any]],
                             self._redis.smismember(self._barred_key, ids))
        except RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from None
        return {pid for pid, member in zip(ids, got, strict=True) if member}

    async def close(self) -> None:
        """Close the client's connections, when this store owns the client."""
        if self._owned:
            await self._redis.aclose()
