"""Ghost rooms: a room whose racers race a recorded game on the same deal.

:meth:`GhostRooms.create` makes a room with the record's rule set, deal
number and **redeal key** (so the recorded redeals give the recorded
layouts), joins the ghost as an ordinary racer named ``"👻 <name>"``, and
starts a driver task in this process. The driver:

1. while the room waits, marks the ghost ready as soon as another racer is
   ready (so "everyone ready" starts the countdown as usual; the host may
   also start);
2. from the race start, submits each recorded move through the authority
   when the race clock reaches its recorded time (:func:`run_ghost`),
   so the ghost's progress events, reach time and ranking are a racer's —
   within the clock's resolution of the recording;
3. ends the ghost at its recorded end: resigns when the recorded game was
   resigned (or stopped while playing) or ended stuck where undo was allowed
   (its result is then ``stuck`` again), times it out when the recording
   ran out of its own room's time (a shorter limit than this room's: the
   ghost has nothing left to play, and a room it alone kept racing ran on
   to its own limit); a won or stuck game ends by itself with its last
   move, and a recording longer than this room's limit is timed out by the
   room.

Ghost rooms are not ranked: their results do not feed the leaderboards
(the redeal key is public in the replay). The driver lives in the process
that created the room; if that process stops, the ghost stops moving and
is timed out at the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Final, Generic, Protocol, TypeVar

from server.rules import RuleSet

from .authority import RaceAuthority
from .commands import EndRace, TimeOut
from .decide_create import check_create
from .errors import RaceError, RacerFinished, RequestInvalid, TooManyGhosts
from .ids import check_name
from .options import RoomOptions
from .state import RoomRecord
from .views import RacerView, RoomView

__all__ = [
    "GHOST_MARK",
    "MAX_DRIVERS",
    "GhostRooms",
    "GhostStep",
    "RecordedGame",
    "Schedule",
    "TooManyGhosts",
    "ghost_name",
    "run_ghost",
]


class RecordedGame(Protocol):
    """What a ghost room takes of a recorded game (``server.records.record.GameRecord``)."""

    @property
    def rules(self) -> RuleSet: ...
    @property
    def deal_number(self) -> int: ...
    @property
    def redeal_key(self) -> bytes: ...
    @property
    def name(self) -> str: ...


class GhostStep(Protocol):
    """One step of a ghost's schedule (``server.records.ghost.GhostProgress``): the
    move to submit at race clock ``race_clock_ms`` (ms), or, when ``final``, the end."""

    @property
    def race_clock_ms(self) -> int: ...
    @property
    def move(self) -> str | None: ...
    @property
    def moves(self) -> int:
        """Moves in the log after this step (the move's version)."""
    @property
    def final(self) -> bool: ...
    @property
    def status(self) -> str: ...


class Schedule(Protocol):
    """A ghost's timeline (``server.records.ghost.Ghost``)."""

    @property
    def schedule(self) -> Sequence[GhostStep]: ...


R = TypeVar("R", bound=RecordedGame)
"""The record type a :class:`GhostRooms` takes (its planner's)."""

GHOST_MARK: Final = "👻 "
_NAME_MAX: Final = 24
_POLL_S: Final = 0.1
MAX_DRIVERS: Final = 256
"""Most ghost drivers one process runs at once; more ghost rooms are refused."""
log = logging.getLogger(__name__)


def ghost_name(name: str) -> str:
    """The ghost racer's display name: ``"👻 "`` + the recorded name (≤ 24 characters)."""
    base = " ".join(name.split()) or "ghost"
    return (GHOST_MARK + base)[:_NAME_MAX]


class _Stop(Exception):
    pass


class GhostRooms(Generic[R]):
    """Creates ghost rooms and runs their drivers (one instance per process)."""

    def __init__(self, authority: RaceAuthority, planner: Callable[[R, int], Schedule], *,
                 max_drivers: int = MAX_DRIVERS) -> None:
        self.authority = authority
        self.planner = planner
        self.max_drivers = max_drivers
        self._tasks: set[asyncio.Task[None]] = set()

    async def create(
        self, options: RoomOptions, record: R
    ) -> tuple[RoomView, str, RacerView]:
        """A waiting ghost room for ``record`` → room view, host token, ghost racer.

        ``options`` gives capacity, time limit, visibility and countdown; the rule
        set, deal and redeal key are the record's.

        :raises RequestInvalid: bad options (the authority's checks), a recorded
            name no racer may have — checked before the room is made.
        :raises TooManyGhosts: this process drives :attr:`max_drivers` ghosts already.
        """
        if len(self._tasks) >= self.max_drivers:
            raise TooManyGhosts(f"this server drives {len(self._tasks)} ghosts already; "
                                "try again later")
        rules = record.rules
        opts = replace(options, variant=rules.id, redeals=rules.redeals, merci=rules.merci,
                       undo=rules.undo, deal=record.deal_number, redeal_key=record.redeal_key,
                       ranked=False, deal_public=True)
        # everything that can refuse is checked before anything is written: a
        # refused ghost room leaves no room behind (issue 33)
        check_create(opts)
        name = ghost_name(record.name)
        try:
            check_name(name)
        except ValueError as exc:
            raise RequestInvalid(f"the recorded racer's name: {exc}", {"field": "name"}) from None
        ghost = self.planner(record, opts.time_limit_s * 1000)
        room, host_token = await self.authority.create_room(opts)
        try:
            ghost_view, token = await self.authority.join(room.id, name)
        except RaceError:
            with contextlib.suppress(RaceError):  # not left listed, empty, for its lifetime
                await self.authority.close(room.id, host_token)
            raise
        task = asyncio.create_task(self._drive(room.id, ghost_view.id, token, ghost),
                                   name=f"ghost-{room.code}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        room = await self.authority.get_room(room.id)
        return room, host_token, ghost_view

    @property
    def running(self) -> int:
        """Drivers still running in this process."""
        return len(self._tasks)

    async def aclose(self) -> None:
        """Stop every driver of this process."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _wait_for_start(self, room_id: str, ghost_id: str, token: str) -> int | None:
        readied = False
        store = self.authority.store
        while True:
            got = await store.rooms.get_room(room_id)
            if got is None:
                return None
            room = RoomRecord.model_validate(got.data)
            if room.state in ("over", "closed"):
                return None
            if room.state in ("countdown", "racing") and room.start_at_ms is not None:
                return room.start_at_ms
            if not readied and any(e.ready for e in room.roster if e.id != ghost_id):
                with contextlib.suppress(RaceError):
                    await self.authority.set_ready(room_id, ghost_id, token, True)
                readied = True
            await asyncio.sleep(_POLL_S)

    async def _time_out(self, room_id: str, ghost_id: str, at_ms: int) -> None:
        """The ghost's result final as ``timed_out`` at race clock ``at_ms`` (its
        recording's end), then the race ends if every result is final."""
        room = await self.authority.get_room(room_id)
        if room.state != "racing":
            return
        await self.authority.apply(TimeOut(room_id, ghost_id, at_ms))
        await self.authority.apply(EndRace(room_id))

    async def _drive(self, room_id: str, ghost_id: str, token: str, ghost: Schedule) -> None:
        try:
            start_at = await self._wait_for_start(room_id, ghost_id, token)
            if start_at is None:
                return

            async def clock() -> int:
                return await self.authority.store.clock.now_ms() - start_at

            async def emit(progress: GhostStep) -> None:
                try:
                    if progress.move is not None:
                        await self.authority.move(room_id, ghost_id, token, progress.move,
                                                  progress.moves - 1, f"ghost-{progress.moves}")
                    elif progress.final and progress.status == "resigned":
                        await self.authority.resign(room_id, ghost_id, token)
                    elif progress.final and progress.status == "stuck":
                        # stuck with undo allowed ends by conceding (a stuck
                        # result); without undo the last move ended it already
                        with contextlib.suppress(RacerFinished):
                            await self.authority.resign(room_id, ghost_id, token)
                    elif progress.final and progress.status == "timed_out":
                        await self._time_out(room_id, ghost_id, progress.race_clock_ms)
                except RaceError as exc:
                    raise _Stop(exc.code) from None

            await run_ghost(ghost, clock, emit)
        except _Stop as stop:
            log.info("ghost in room %s stopped: %s", room_id, stop)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("ghost driver of room %s failed", room_id)


async def run_ghost(
    ghost: Schedule,
    race_clock: Callable[[], Awaitable[int]],
    emit: Callable[[GhostStep], Awaitable[None]],
    *,
    after_ms: int = -1,
    max_sleep_ms: int = 1000,
) -> None:
    """Emit each of ``ghost``'s steps stamped after ``after_ms`` once the race clock
    (``race_clock()``, ms) reaches its stamp; return after the final one.

    Resuming with ``after_ms`` = the last stamp emitted continues where a stopped
    driver left off. Sleeps at most ``max_sleep_ms`` between clock reads, so a
    clock that jumps is followed. Cancel the task to stop early.
    """
    for progress in ghost.schedule:
        if progress.race_clock_ms <= after_ms:
            continue
        while (now := await race_clock()) < progress.race_clock_ms:
            await asyncio.sleep(min(progress.race_clock_ms - now, max_sleep_ms) / 1000)
        await emit(progress)
