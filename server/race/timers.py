"""Room timers and the race's end: the countdown's end, the time limit, final results.

Timers advance lazily: :meth:`Timers.load` (how every action reads a room)
starts a race whose countdown is over and ends one whose time limit passed —
and takes a waiting quick-race lobby's due step (:attr:`Timers.waiting_due`:
its countdown, or computer racers for a racer alone; :mod:`server.race.quick`)
— before the action looks at it; :meth:`Timers.tick`, run in the background by
the app, advances the rooms whose timer is due in the store's index. The
room's compare-and-set makes each transition, and its events, happen once
across every process. :meth:`Timers.end_race` publishes ``race_over`` once
every result is final and calls the race-over hooks (leaderboards, par).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.errors import VersionConflict
from server.store.base import LiveStore

from . import errors as err
from . import journal, present
from .cache import RaceCache
from .events import CountdownEvent, FinishedEvent, RaceOverEvent, StartedEvent
from .quick_state import QuickConfig
from .rooms import Rooms
from .state import RacerRecord, RoomRecord
from .views import RacerView

__all__ = ["RETRIES", "RaceConfig", "RaceOverHook", "Timers", "WaitingDue", "deadline"]

log = logging.getLogger("server.race")

RETRIES = 16
"""Compare-and-set attempts of one action before it gives up (``store/busy``)."""
_SWEEP_BATCH = 32
_SWEEP_LIMIT = 10_000
"""Most due timers one sweep handles (the rest: the next sweep, a tick later)."""

RaceOverHook = Callable[[RoomRecord, Sequence[RacerView]], Awaitable[None]]
"""Called once per race, by the process that ended it, with the final records."""
WaitingDue = Callable[[RoomRecord, int, int], Awaitable[None]]
"""Takes a waiting room's due step (room, rev, now): a quick-race lobby's
(:meth:`server.race.quick.QuickRace.due`); it must change the room."""


@dataclass(frozen=True, slots=True)
class RaceConfig:
    """Authority settings (milliseconds)."""

    ended_ttl_ms: int = 3_600_000
    """Rooms and all their data vanish this long after the race ends or closes."""
    waiting_ttl_ms: int = 1_800_000
    """A room that never starts vanishes this long after its creation."""
    bot_think_ms: int = 1000
    """The mean pause between a server-run bot's moves (:mod:`server.race.bots`)."""
    max_bots: int = 1000
    """The most server-run bots this process runs at once."""
    quick: QuickConfig = field(default_factory=QuickConfig)
    """Quick races (:mod:`server.race.quick`)."""


def deadline(room: RoomRecord) -> int | None:
    """The room's pending timer (store clock, ms): the countdown end, the time
    limit, a waiting quick-race lobby's next step
    (:meth:`~server.race.quick_state.QuickState.deadline`), or ``None`` (waiting,
    over, closed)."""
    if room.state == "waiting" and room.quick is not None:
        # computer racers alone (their racer left) are nobody to start a race for
        return room.quick.deadline(sum(not e.bot for e in room.roster), room.capacity)
    if room.start_at_ms is None:
        return None
    if room.state == "countdown":
        return room.start_at_ms
    if room.state == "racing":
        return room.start_at_ms + room.time_limit_ms
    return None


class Timers:
    """The race clock's transitions over one store (module docstring)."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms,
                 config: RaceConfig) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.config = config
        self.race_over_hooks: list[RaceOverHook] = []
        """Called once per race, by the process that ended it (leaderboards, par)."""
        self.waiting_due: WaitingDue | None = None
        """A waiting room's due step (quick-race lobbies; set by the authority)."""

    async def load(self, ref: str) -> tuple[RoomRecord, int, int]:
        """The room (timers advanced), its rev and the service clock now (ms).

        :raises RoomNotFound:
        """
        if not ref or len(ref) > 64:
            raise err.RoomNotFound(f"no room {ref[:64]!r}")
        room_id = await self.rooms.resolve(ref)
        for _ in range(RETRIES):
            got = await self.store.rooms.get_room(room_id)
            if got is None:
                raise err.RoomNotFound(f"no room {ref!r}", {"room": ref})
            room = RoomRecord.model_validate(got.data)
            self.cache.saw_room(room, got.rev)
            now = await self.store.clock.now_ms()
            if self.due(room, now):
                if room.state == "countdown":
                    await self.start_race(room, got.rev)
                elif room.state == "racing":
                    await self.end_race(room.id)
                elif self.waiting_due is not None:
                    await self.waiting_due(room, got.rev, now)
                else:
                    return room, got.rev, now
                continue
            return room, got.rev, now
        raise err.RoomNotFound(f"room {ref!r} is too busy; try again")

    @staticmethod
    def due(room: RoomRecord, now: int) -> bool:
        """Whether the room's countdown or time limit is over at ``now`` (ms)."""
        at = deadline(room)
        return at is not None and now >= at

    async def start_race(self, room: RoomRecord, rev: int) -> None:
        """Turn a room whose countdown is over to ``racing`` (once)."""
        new = room.model_copy(update={"state": "racing"})
        at = deadline(new)
        assert at is not None
        await self.store.indexes.set_timer(room.id, at)  # before the write: never missing
        try:
            await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev, [
                StartedEvent(deal_number=room.deal_number).logged()])
        except VersionConflict:
            return
        journal.race_started(new)
        ttl = room.time_limit_ms + self.config.ended_ttl_ms + 60_000
        await self.store.rooms.expire_room(room.id, ttl)
        await self.rooms.off_lobby(room)

    async def countdown(self, room: RoomRecord, rev: int, now: int,
                         events: list[dict[str, Any]]) -> RoomRecord:
        """Start the countdown (written with ``events`` first); a countdown of 0 s
        starts the race at once.

        :raises VersionConflict: the room changed since ``rev``.
        """
        new = room.model_copy(update={"state": "countdown",
                                      "start_at_ms": now + room.countdown_ms})
        events = [*events, CountdownEvent(race_clock_ms=present.race_clock(new, now),
                                          starts_in_ms=room.countdown_ms).logged()]
        if room.countdown_ms == 0:
            new = new.model_copy(update={"state": "racing"})
            events.append(StartedEvent(deal_number=room.deal_number).logged())
        at = deadline(new)
        assert at is not None
        await self.store.indexes.set_timer(room.id, at)  # before the write: never missing
        await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev, events)
        if new.state == "racing":
            journal.race_started(new)
        ttl = room.countdown_ms + room.time_limit_ms + self.config.ended_ttl_ms + 60_000
        await self.store.rooms.expire_room(room.id, ttl)
        if new.state == "racing":
            await self.rooms.off_lobby(new)
        return new

    async def end_race(self, room_id: str) -> None:
        """Time out unfinished racers at the time limit, then end the race once.

        Idempotent: only the writer whose compare-and-set turns the room to
        ``over`` publishes ``race_over``.
        """
        for _ in range(RETRIES):
            got = await self.store.rooms.get_room(room_id)
            if got is None:
                return
            room = RoomRecord.model_validate(got.data)
            if room.state != "racing" or room.start_at_ms is None:
                return
            now = await self.store.clock.now_ms()
            timed_out = now - room.start_at_ms >= room.time_limit_ms
            racers = await self.rooms.racers(room)
            for entry in room.roster:
                racer = racers.get(entry.id)
                if racer is None or not racer.final:
                    if not timed_out:
                        return  # not every result is final yet
                    racers[entry.id] = await self.time_out(room, entry.id, now)
            ended = min(now, room.start_at_ms + room.time_limit_ms)
            over = room.model_copy(update={"state": "over", "ended_ms": ended})
            views = self.rooms.racer_views(over, racers)
            table = present.standings(over, views)
            event = RaceOverEvent(race_clock_ms=present.race_clock(over, now),
                                  **table.model_dump()).logged()
            try:
                # archive=True: pending for the archive in this same write
                await self.store.rooms.save_room(room_id, over.model_dump(mode="json"), got.rev,
                                                 [event], archive=True)
            except VersionConflict:
                continue
            journal.race_ended(over, views)
            await self.store.indexes.clear_timer(room_id)
            await self.store.rooms.expire_room(room_id, self.config.ended_ttl_ms)
            for entry in room.roster:
                self.cache.forget((room_id, entry.id))
            await self.race_over(over, views)
            return

    async def race_over(self, room: RoomRecord, views: Sequence[RacerView]) -> None:
        """Run the race-over hooks; a failing hook is logged, never raised."""
        for hook in self.race_over_hooks:
            try:
                await hook(room, views)
            except Exception as exc:  # a feed must never undo or block the race end
                log.error("race-over hook failed: %s", type(exc).__name__, exc_info=exc)

    async def time_out(self, room: RoomRecord, racer_id: str, now: int,
                       at_ms: int | None = None) -> RacerRecord:
        """Make the racer's result final as ``timed_out`` at race-clock ``at_ms``
        (default: the time limit; the host closing the race: the close time),
        or at the racer's last move if that is later: a move another process
        accepted while the close was being written (its clock read a few ms
        after the close's) never lies after the result it belongs to.

        :raises VersionConflict: too many concurrent writes.
        """
        for _ in range(RETRIES):
            got = await self.store.racers.get_racer(room.id, racer_id)
            racer, rev = self.rooms.racer_of(room, racer_id, got)
            if racer.final:
                return racer
            at = room.time_limit_ms if at_ms is None else at_ms
            if racer.log:
                at = max(at, int(racer.log[-1][1]))
            done = racer.model_copy(update={
                "status": "timed_out", "final": True, "finished_ms": at})
            event = FinishedEvent(race_clock_ms=at, racer=racer_id, status="timed_out").logged()
            try:
                await self.store.racers.save_racer(room.id, racer_id, done.model_dump(mode="json"),
                                                   rev, events=[event])
            except VersionConflict:
                continue
            journal.racer_final(room.id, done)
            return done
        raise VersionConflict(f"racer {racer_id}: too many concurrent writes")

    async def tick(self) -> int:
        """Advance the timers that are due (countdown end, time limit, quick-race
        lobbies); returns
        how many rooms were looked at. Only rooms with a due timer in the
        store's index are read (:meth:`RoomIndexes.due_timers`), so idle, waiting and
        finished rooms cost nothing. Safe to run in every process at once."""
        now = await self.store.clock.now_ms()
        due = await self.store.indexes.due_timers(now, _SWEEP_LIMIT)
        failed: BaseException | None = None
        # rooms in batches, concurrently: one store round trip per room one after
        # another took seconds on a busy event loop (countdowns ended late); each
        # batch also lets sockets in between (the memory store never suspends)
        for at in range(0, len(due), _SWEEP_BATCH):
            results = await asyncio.gather(
                *(self._visit(room_id, timer)
                  for room_id, timer in due[at:at + _SWEEP_BATCH]),
                return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and failed is None:
                    failed = result
        if failed is not None:
            raise failed
        return len(due)

    async def _visit(self, room_id: str, at: int) -> None:
        """Advance one room whose timer ``at`` is due, then leave its index entry
        right: the next deadline of its state, or none (compare-and-delete, so a
        deadline another process set meanwhile stays)."""
        try:
            room, _, _ = await self.load(room_id)
        except err.RoomNotFound:
            if await self.store.rooms.get_room(room_id) is None:  # gone (not just busy)
                await self.store.indexes.clear_timer(room_id, at)
            return
        timer = deadline(room)
        if timer is None:
            await self.store.indexes.clear_timer(room_id, at)
        elif timer != at:
            await self.store.indexes.set_timer(room_id, timer)
