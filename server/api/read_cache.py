"""Answers of finished races, kept: comparisons and replays never change once
a race is over, yet a comparison of two 20,000-move games cost 0.6 s of the
event loop and 3.2 MB per request, uncached (issue 33).

:class:`FinishedReads` keeps the encoded JSON of such answers, least recently
used first out, bounded in bytes; a hit is answered as it was first encoded.
Only answers about a race that is over (state ``over``, or ``closed`` after
its start) are kept: everything of it is public then (docs/protocol.md,
"Fair play"), so one answer serves every caller whatever their token. Keys
carry the room's canonical id: ``q3jn4z``, ``Q3JN4Z`` and the room id share
one entry. Only live rooms are looked at (the room record alone: reading the
racers' logs to decide would cost what the cache saves); an archived race's
answer comes from the archive as before.

While the race runs nothing is kept — the answer changes with every move —
and a comparison is charged to the caller's ``upload`` budget, as
``POST /compare`` is (server.api.admission).
"""

from __future__ import annotations

import gzip
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.errors import RoomNotFound
from server.race.authority import RaceAuthority
from server.race.state import RoomRecord
from server.race.views import Replay
from server.runtime import metrics

from .bearer import bearer_token

__all__ = ["GZIP_LEVEL", "MAX_BYTES", "FinishedReads", "answer", "finished_room", "racer_id",
           "replay"]

GZIP_LEVEL: Final = 5
"""gzip level of kept answers: 3.6 MB of comparison JSON → ~0.3 MB in ~40 ms, once."""
MAX_BYTES: Final = 64 * 1024 * 1024
"""Most bytes of kept answers per process (about 20 comparisons of two
20,000-move games, or hundreds of ordinary ones)."""


def answer(request: Request, kept: tuple[bytes, bytes]) -> Response:
    """A kept answer, gzipped when the request accepts it (``Vary`` says so)."""
    plain, packed = kept
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(packed, media_type="application/json",
                        headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return Response(plain, media_type="application/json", headers={"Vary": "Accept-Encoding"})


async def finished_room(authority: RaceAuthority, ref: str) -> RoomRecord | None:
    """The live room of ``ref`` when its race is over for good (``over``, or
    ``closed`` after its start) — read without its racers' logs, which a 20,000-
    move game makes costly; else ``None`` (running, or not live: archived)."""
    try:
        room = await authority.room_record(ref)
    except RoomNotFound:
        return None
    if room.challenge is not None:  # sealed while its challenge is open: never kept
        return None
    if room.state == "over" or (room.state == "closed" and room.start_at_ms is not None):
        return room
    return None


def racer_id(room: RoomRecord, ref: str) -> str | None:
    """The racer id ``ref`` names in ``room`` (an id, else a name compared
    case-insensitively, as the comparison routes resolve them); ``None``: none
    or two."""
    if room.entry(ref) is not None:
        return ref
    named = [e.id for e in room.roster if e.name.casefold() == ref.casefold()]
    return named[0] if len(named) == 1 else None


class FinishedReads:
    """Encoded answers by key, least recently used out past ``max_bytes`` — each
    kept as it is and gzip-compressed (:data:`GZIP_LEVEL`, once, when kept), so
    a client that accepts gzip gets a tenth of the bytes and the process sends
    a tenth (a 3.6 MB comparison cost ~17 ms of the loop to send whole)."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._entries: OrderedDict[Hashable, tuple[bytes, bytes]] = OrderedDict()

    def get(self, key: Hashable) -> tuple[bytes, bytes] | None:
        """The answer kept for ``key`` — ``(plain, gzipped)`` — now the most
        recently used, else ``None``."""
        kept = self._entries.get(key)
        kind = str(key[0]) if isinstance(key, tuple) and key else "answer"
        if kept is None:
            metrics.READ_CACHE.labels(kind, "miss").inc()
            return None
        self._entries.move_to_end(key)
        metrics.READ_CACHE.labels(kind, "hit").inc()
        return kept

    def put(self, key: Hashable, body: bytes) -> tuple[bytes, bytes]:
        """Keep ``body`` for ``key`` → ``(plain, gzipped)`` (an answer larger than
        the whole cache is answered, not kept)."""
        packed = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
        if len(body) + len(packed) > self.max_bytes:
            return body, packed
        old = self._entries.pop(key, None)
        if old is not None:
            self.size -= len(old[0]) + len(old[1])
        self._entries[key] = (body, packed)
        self.size += len(body) + len(packed)
        while self.size > self.max_bytes:
            _, (plain, gone) = self._entries.popitem(last=False)
            self.size -= len(plain) + len(gone)
        return body, packed

    def __len__(self) -> int:
        return len(self._entries)


async def replay(request: Request, _: None) -> Replay | Response:
    """``GET /rooms/{room}/racers/{racer}/replay``: a racer's move log; a
    finished race's is kept and answered as first encoded."""
    p = request.path_params
    authority = cast(RaceAuthority, request.app.state.authority)
    reads = cast(FinishedReads, request.app.state.finished_reads)
    key = None
    room = await finished_room(authority, p["room"])
    if room is not None and room.entry(p["racer"]) is not None:
        key = ("replay", room.id, p["racer"])
        kept = reads.get(key)
        if kept is not None:
            return answer(request, kept)
    got = await authority.replay(p["room"], p["racer"], bearer_token(request.headers))
    if key is None:
        return got
    return answer(request, reads.put(key, bytes(JSONResponse(got.model_dump(mode="json")).body)))
