"""Ghost rooms: a room whose racers race a recorded game on the same deal.

:meth:`GhostRooms.create` makes a room with the record's rule set, deal
number and **redeal key** (so the recorded redeals give the recorded
layouts), joins the ghost as an ordinary racer named ``"👻 <name>"``, and
starts a driver task in this process. The driver:

1. while the room waits, marks the ghost ready as soon as another racer is
   ready (so "everyone ready" starts the countdown as usual; the host may
   also start);
2. from the race start, submits each recorded move through the authority
   when the race clock reaches its recorded time (:func:`~server.records.ghost.run_ghost`),
   so the ghost's progress events, reach time and ranking are a racer's —
   within the clock's resolution of the recording;
3. resigns at the recorded time when the recorded game was resigned; a
   won or stuck game ends by itself, a longer one is timed out by the room.

Ghost rooms are not ranked: their results do not feed the leaderboards
(the redeal key is public in the replay). The driver lives in the process
that created the room; if that process stops, the ghost stops moving and
is timed out at the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from typing import Final

from server.records.ghost import Ghost, GhostProgress, run_ghost
from server.records.record import GameRecord

from .authority import RaceAuthority
from .core import RoomOptions
from .errors import RaceError
from .state import RoomRecord
from .views import RacerView, RoomView

__all__ = ["GHOST_MARK", "MAX_DRIVERS", "GhostRooms", "TooManyGhosts", "ghost_name"]

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


class TooManyGhosts(RaceError):
    """This process already drives :data:`MAX_DRIVERS` ghosts; try again later."""

    code = "ghost/too_many"
    status = 503


class GhostRooms:
    """Creates ghost rooms and runs their drivers (one instance per process)."""

    def __init__(self, authority: RaceAuthority, *, max_drivers: int = MAX_DRIVERS) -> None:
        self.authority = authority
        self.max_drivers = max_drivers
        self._tasks: set[asyncio.Task[None]] = set()

    async def create(
        self, options: RoomOptions, record: GameRecord
    ) -> tuple[RoomView, str, RacerView]:
        """A waiting ghost room for ``record`` → room view, host token, ghost racer.

        ``options`` gives capacity, time limit, visibility and countdown; the rule
        set, deal and redeal key are the record's.

        :raises RequestInvalid: bad options (the authority's checks).
        :raises TooManyGhosts: this process drives :attr:`max_drivers` ghosts already.
        """
        if len(self._tasks) >= self.max_drivers:
            raise TooManyGhosts(f"this server drives {len(self._tasks)} ghosts already; "
                                "try again later")
        rules = record.rules
        opts = replace(options, variant=rules.id, redeals=rules.redeals, merci=rules.merci,
                       undo=rules.undo, deal=record.deal_number, redeal_key=record.redeal_key,
                       ranked=False)
        room, host_token = await self.authority.create_room(opts)
        ghost_view, token = await self.authority.join(room.id, ghost_name(record.name))
        ghost = Ghost(record, time_limit_ms=room.time_limit_ms)
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

    async def _drive(self, room_id: str, ghost_id: str, token: str, ghost: Ghost) -> None:
        try:
            start_at = await self._wait_for_start(room_id, ghost_id, token)
            if start_at is None:
                return

            async def clock() -> int:
                return await self.authority.store.clock.now_ms() - start_at

            async def emit(progress: GhostProgress) -> None:
                try:
                    if progress.move is not None:
                        await self.authority.move(room_id, ghost_id, token, progress.move,
                                                  progress.moves - 1, f"ghost-{progress.moves}")
                    elif progress.final and progress.status == "resigned":
                        await self.authority.resign(room_id, ghost_id, token)
                except RaceError as exc:
                    raise _Stop(exc.code) from None

            await run_ghost(ghost, clock, emit)
        except _Stop as stop:
            log.info("ghost in room %s stopped: %s", room_id, stop)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("ghost driver of room %s failed", room_id)
