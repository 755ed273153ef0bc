"""The next room of a finished race: rematches and the races of a series (issue 21).

:meth:`Rematches.rematch` is the action behind ``POST /rooms/{room}/rematch``
(docs/protocol.md, "Rematch"). Checks, in the authority's order: **auth**
(a token: ``auth/missing``) → **room** (the live room: ``room/not_found``,
with a clear message when the race is only archived; the token is one of
its racers': ``auth/invalid_token``) → **state** (the race is over, or was
closed after its start: ``room/not_over``) → **save** → **publish**.

- The first offer makes the next room: the room's rules and options, a new
  random deal and redeal key (a winnable one in ``winnable_only`` rooms) and
  their commitment (a new salt: docs/protocol.md, "Verifying a deal"),
  the offerer seated in it and its host (their host token is derived from
  their racer token, :func:`host_token_for`, so a repeated offer answers
  alike). Then the old room's record gets the link ``rematch: {room, code}``
  by **compare-and-set** on its rev, with a ``rematch`` event in the same
  write. Offers racing each other (in one process or many) each make a
  fresh room; one link write wins, the others discard their room (it
  vanishes at once) and take a seat in the winner's: exactly one next room.
- Every later offer takes a seat in the linked room (compare-and-set on it),
  as a join does while it waits (``room/not_waiting``, ``room/full``,
  ``racer/name_taken`` otherwise). A racer keeps their racer id and their
  token along the chain; an offer by a racer already seated answers the
  same again (idempotent).
- The new room's ``rematch_of`` links back: the chain is walkable both ways
  from any of its rooms (the archive keeps both links: :meth:`Archived.link_known`).

Series (docs/protocol.md, "Series"): when a race of a series ends and races
remain, :meth:`Rematches.follow` (a race-over hook, in the background; also
run lazily by ``GET /series/{id}`` and by a rematch offer) makes the next
race's room the same way — same link, same compare-and-set — with every
racer of the race who did not leave already seated (same ids, same tokens,
the same host) and its countdown already running: it starts ``break_ms`` plus
the room's countdown after the previous race ended. A rematch of a series'
last race (or of one closed by its host) starts a new series of as many races.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from server.errors import ArchiveUnavailable
from server.rules.commitment import deal_commitment
from server.store.base import LiveStore

from . import errors as err
from .apply import Applier
from .archived import Archived
from .assist import Assist, draw_winnable_deal
from .cache import RaceCache
from .commands import LinkNext, OpenRoom, Rematch, RematchSeat
from .decide_room import is_over
from .events import CountdownEvent, CreatedEvent, JoinedEvent
from .ids import new_code, new_deal_salt, new_room_id, random_deal_number, token_digest
from .rooms import Rooms
from .state import RoomRecord, RosterEntry, SeriesState
from .timers import RaceConfig, race_ttl_ms
from .views import RacerView, RoomLink, RoomView, SeriesInfo
from .visibility import Seen

__all__ = ["Rematched", "Rematches", "goes_on", "host_token_for", "is_over"]

log = logging.getLogger("server.race")

HOST = Seen("host")


@dataclass(frozen=True, slots=True)
class Rematched:
    """A seat in the next room: the room (as its holder sees it), the racer, their
    token (the one they offered with) and, for the room's host, the host token."""

    room: RoomView
    racer: RacerView
    token: str
    host_token: str | None


def goes_on(room: RoomRecord) -> bool:
    """A series room whose race is over (not closed by its host) with races left."""
    return room.series is not None and room.state == "over" \
        and room.series.race < room.series.races


def series_info(room: RoomRecord) -> SeriesInfo | None:
    """The wire view of a room's place in its series."""
    s = room.series
    return None if s is None else SeriesInfo(id=s.id, race=s.race, races=s.races)


def host_token_for(token: str, room_id: str) -> str:
    """The host token of the rematch room ``room_id`` made by the holder of racer
    ``token``: HMAC-SHA256 keyed by the token (192 secret bits), 32 url-safe
    characters like any token. The store keeps only its digest, as ever."""
    mac = hmac.new(token.encode("utf-8", "surrogatepass"), b"rematch-host:" + room_id.encode(),
                   hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode()


class Rematches:
    """The rematch action and the series' next races over one store."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms, applier: Applier,
                 assist: Assist, archived: Archived, config: RaceConfig) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.applier = applier
        self.assist = assist
        self.archived = archived
        self.config = config
        self._tasks: set[asyncio.Task[None]] = set()

    # -- the action ----------------------------------------------------------------

    async def rematch(self, ref: str, token: str | None) -> Rematched:
        """Offer a rematch of the finished race in room ``ref`` as the racer whose
        token this is → a seat in the next room (made by the first offer).

        :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomNotOver,
            RoomNotWaiting, RoomFull, RacerNameTaken, RequestInvalid (no winnable
            deal found), ArchiveUnavailable (never: an archived race is a 404):
        """
        old, entry, link = await self._offer(ref, token)
        assert token is not None  # the offer's decision refuses none
        if link is None:
            now = await self.store.clock.now_ms()
            fresh = await self._series_room(old, now) if goes_on(old) else None
            if fresh is None:
                fresh = await self._plain_room(old, now, entry, token)
            link = await self._link(old, fresh, now)
        return await self._seat(link.room, entry, token)

    # -- series --------------------------------------------------------------------

    async def follow(self, room_id: str) -> RoomLink | None:
        """The next room of ``room_id``: its link when made, else, when the room's
        series goes on (:func:`goes_on`), the next race's room, made now; else
        ``None``. Safe to run anywhere, any number of times: one link wins.

        :raises StoreUnavailable, VersionConflict:
        """
        got = await self.store.rooms.get_room(room_id)
        if got is None:
            return None
        old = RoomRecord.model_validate(got.data)
        if old.rematch is not None or not goes_on(old):
            return old.rematch
        now = await self.store.clock.now_ms()
        fresh = await self._series_room(old, now)
        if fresh is None:
            return None  # every racer left: the series stops here
        try:
            return await self._link(old, fresh, now)
        except err.RoomNotFound:
            return None

    async def race_over(self, room: RoomRecord, views: Sequence[RacerView]) -> None:
        """Race-over hook: a series that goes on gets its next race's room, in a
        background task (a winnable deal may take seconds to draw)."""
        if goes_on(room):
            task = asyncio.create_task(self._follow_logged(room.id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait for the background work started by :meth:`race_over` (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _follow_logged(self, room_id: str) -> None:
        try:
            await self.follow(room_id)
        except Exception as exc:  # a later read makes it (GET /series, an offer)
            log.error("next race of series room %s not made: %s", room_id,
                      type(exc).__name__, exc_info=exc)

    # -- steps ---------------------------------------------------------------------

    async def _offer(self, ref: str, token: str | None
                     ) -> tuple[RoomRecord, RosterEntry, RoomLink | None]:
        """The :class:`~.commands.Rematch` offer on the live room → the room, the
        offerer and the next room's link when made; a race that only the archive
        holds is a 404 that says so."""
        try:
            done = await self.applier.apply(Rematch(ref, token))
        except err.RoomNotFound as gone:
            if not token:
                raise
            try:
                room, _, _ = await self.archived.load(ref)
            except (err.RoomNotFound, ArchiveUnavailable):
                raise gone from None
            raise err.RoomNotFound(
                f"the race of room {room.code} is archived and its live room is gone: a "
                "rematch is offered while the room lives (an hour after the race); create "
                "a new room instead", {"room": ref[:64], "archived": True}) from None
        offer: tuple[RoomRecord, RosterEntry, RoomLink | None] = done.reply
        return offer

    async def _fresh(self, old: RoomRecord, now: int, room_id: str, roster: list[RosterEntry],
                     **fields: object) -> RoomRecord:
        """A new room record after ``old``: its rules and options, a new random deal,
        redeal key and deal commitment (a new salt), ``roster``, the back link,
        and ``fields``; its code claimed."""
        rules = self.cache.ruleset(old)
        deal_number, key = random_deal_number(), secrets.token_bytes(32)
        if old.winnable_only:
            deal_number, key = await draw_winnable_deal(self.assist.solver, rules, None)
        salt = new_deal_salt()
        code = new_code()
        while not await self.store.rooms.claim_code(code, room_id):
            code = new_code()
        return RoomRecord.model_validate({
            **old.model_dump(mode="json"),
            "id": room_id, "code": code, "deal_number": deal_number, "redeal_key": key.hex(),
            "deal_salt": salt.hex(),
            "deal_commitment": deal_commitment(rules.id, deal_number, key, salt),
            "ranked": True, "state": "waiting", "created_ms": now, "start_at_ms": None,
            "ended_ms": None, "roster": [e.model_dump(mode="json") for e in roster],
            "joins": len(roster), "par": rules.cards if old.winnable_only else None,
            "deal_public": False, "rematch": None, "quick": None, "challenge": None,
            "rematch_of": {"room": old.id, "code": old.code}, **fields})

    async def _plain_room(self, old: RoomRecord, now: int, entry: RosterEntry,
                          token: str) -> RoomRecord:
        """The rematch room, saved (waiting, expiring, not listed yet): the offerer
        seated and its host; a series room's rematch starts a new series."""
        room_id = new_room_id()
        seat = entry.model_copy(update={"join_order": 1, "ready": False})
        series = None if old.series is None else SeriesState(
            id=room_id, race=1, races=old.series.races, break_ms=old.series.break_ms)
        room = await self._fresh(old, now, room_id, [seat],
                                 host_digest=token_digest(host_token_for(token, room_id)),
                                 series=series and series.model_dump())
        events = (CreatedEvent(code=room.code).logged(),
                  JoinedEvent(racer=self.rooms.racer_view(room, seat, None)).logged())
        await self.applier.apply(OpenRoom(room, events, self.config.waiting_ttl_ms))
        return room

    async def _series_room(self, old: RoomRecord, now: int) -> RoomRecord | None:
        """The series' next race's room, saved with its countdown running: every
        racer of ``old`` who did not leave, the same host; ``None`` when all left
        (computer racers alone are nobody to race for)."""
        assert old.series is not None
        racers = await self.rooms.racers(old)
        going = [e for e in old.roster
                 if (r := racers.get(e.id)) is None or r.status != "left"]
        if all(e.bot for e in going):
            return None
        seats = [e.model_copy(update={"join_order": i, "ready": False})
                 for i, e in enumerate(going, 1)]
        room_id = new_room_id()
        start_at = now + old.series.break_ms + old.countdown_ms
        series = old.series.model_copy(update={"race": old.series.race + 1})
        room = await self._fresh(old, now, room_id, seats, state="countdown",
                                 start_at_ms=start_at, series=series.model_dump())
        events = (CreatedEvent(code=room.code).logged(),
                  *(JoinedEvent(racer=self.rooms.racer_view(room, s, None)).logged()
                    for s in seats),
                  CountdownEvent(starts_in_ms=start_at - now).logged())
        await self.applier.apply(OpenRoom(room, events, race_ttl_ms(room, self.config,
                                                                    start_at - now)))
        return room

    async def _link(self, old: RoomRecord, fresh: RoomRecord, now: int) -> RoomLink:
        """Link ``fresh`` from ``old`` (:class:`~.commands.LinkNext`: compare-and-set,
        with the ``rematch`` event) → the next room's link: ``fresh``'s, or the
        one linked first (``fresh`` then vanishes at once, its code with it).

        :raises RoomNotFound: ``old`` is gone.
        """
        listed = fresh.state == "waiting" and fresh.visibility == "public"
        done = await self.applier.apply(LinkNext(
            old.id, fresh, now + self.config.waiting_ttl_ms if listed else None))
        link: RoomLink = done.reply
        return link

    async def _seat(self, room_id: str, entry: RosterEntry, token: str) -> Rematched:
        """``entry``'s seat in room ``room_id``: the one they hold, else a new one
        (:class:`~.commands.RematchSeat`: compare-and-set on the room, as a join).

        :raises RoomNotFound, RoomNotWaiting, RoomFull, RacerNameTaken:
        """
        host = host_token_for(token, room_id)
        done = await self.applier.apply(RematchSeat(room_id, entry, token, host))
        room, mine, is_host = done.reply
        view = await self.rooms.room_view(room, done.now,
                                          seen=HOST if is_host else Seen("racer", mine.id))
        racer = next(r for r in view.racers if r.id == mine.id)
        return Rematched(view, racer, token, host if is_host else None)
