"""Answers of finished races, kept: comparisons and replays never change once
a race is over, yet a comparison of two 20,000-move games cost 0.6 s of the
event loop and 3.2 MB per request, uncached (issue 33).

:class:`FinishedReads` keeps the encoded JSON of such answers, least recently
used first out, bounded in bytes; a hit is answered as it was first encoded.
Only answers about a race that is over (state ``over``, or ``closed`` after
its start) are kept: everything of it is public then (docs/protocol.md,
"Fair play"), so one answer serves every caller whatever their token. Keys
carry the room's canonical id (:func:`racer_id`): ``q3jn4z``, ``Q3JN4Z`` and
the room id share one entry.

While the race runs nothing is kept — the answer changes with every move —
and a comparison is charged to the caller's ``upload`` budget, as
``POST /compare`` is (server.api.admission).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Final, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.race.authority import RaceAuthority
from server.race.views import Replay, RoomView
from server.runtime import metrics

from .bearer import bearer_token

__all__ = ["MAX_BYTES", "FinishedReads", "finished", "racer_id", "replay"]

MAX_BYTES: Final = 64 * 1024 * 1024
"""Most bytes of kept answers per process (about 20 comparisons of two
20,000-move games, or hundreds of ordinary ones)."""


def finished(room: RoomView) -> bool:
    """The room's race is over for good: ``over``, or ``closed`` after its start."""
    return room.state == "over" or (room.state == "closed" and room.race_clock_ms is not None)


def racer_id(room: RoomView, ref: str) -> str | None:
    """The racer id ``ref`` names in ``room`` (an id, else a name compared
    case-insensitively, as the comparison routes resolve them); ``None``: none
    or two."""
    if any(r.id == ref for r in room.racers):
        return ref
    named = [r.id for r in room.racers if r.name.casefold() == ref.casefold()]
    return named[0] if len(named) == 1 else None


class FinishedReads:
    """Encoded answers by key, least recently used out past ``max_bytes``."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._entries: OrderedDict[Hashable, bytes] = OrderedDict()

    def get(self, key: Hashable) -> bytes | None:
        """The answer kept for ``key`` (now the most recently used), else ``None``."""
        body = self._entries.get(key)
        kind = str(key[0]) if isinstance(key, tuple) and key else "answer"
        if body is None:
            metrics.READ_CACHE.labels(kind, "miss").inc()
            return None
        self._entries.move_to_end(key)
        metrics.READ_CACHE.labels(kind, "hit").inc()
        return body

    def put(self, key: Hashable, body: bytes) -> None:
        """Keep ``body`` for ``key`` (an answer larger than the whole cache is not kept)."""
        if len(body) > self.max_bytes:
            return
        old = self._entries.pop(key, None)
        if old is not None:
            self.size -= len(old)
        self._entries[key] = body
        self.size += len(body)
        while self.size > self.max_bytes:
            _, gone = self._entries.popitem(last=False)
            self.size -= len(gone)

    def __len__(self) -> int:
        return len(self._entries)


async def replay(request: Request, _: None) -> Replay | Response:
    """``GET /rooms/{room}/racers/{racer}/replay``: a racer's move log; a
    finished race's is kept and answered as first encoded."""
    p = request.path_params
    authority = cast(RaceAuthority, request.app.state.authority)
    reads = cast(FinishedReads, request.app.state.finished_reads)
    key = None
    room = await authority.get_room(p["room"])
    if finished(room) and any(r.id == p["racer"] for r in room.racers):
        key = ("replay", room.id, p["racer"])
        kept = reads.get(key)
        if kept is not None:
            return Response(kept, media_type="application/json")
    answer = await authority.replay(p["room"], p["racer"], bearer_token(request.headers))
    if key is None:
        return answer
    encoded = JSONResponse(answer.model_dump(mode="json"))
    reads.put(key, bytes(encoded.body))
    return encoded
