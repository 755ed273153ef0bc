"""Quick races (docs/protocol.md, "Quick race"): one call puts a racer into the
public lobby of their variant and rating band that starts soonest, or opens one.

Matchmaking goes through the store's forming-lobby pointers, one per slot
``<variant>:<band>`` (:meth:`~server.store.base.RoomIndexes.take_seat`): a
caller takes a seat of its band's forming lobby in one atomic store write — or,
when the band has none or it has all its seats out, opens the next one under
a room id it reserved — so any number of callers on any number of processes
fill lobbies one after another. With no seat free in its own band, a caller
first tries the neighbouring bands' lobbies that have waited long enough
(``d`` bands away after ``d × widen_ms``; :mod:`server.race.quick_state`).
The seat is then an ordinary join (:meth:`~server.race.racers.Racers.join`):
the room's compare-and-set keeps it at its capacity, and the join's write sets
the lobby's next deadline (or starts the countdown when it fills). A pointer
whose room started, filled, closed or vanished is retired (compare-and-delete)
and the caller takes another seat.

The lobby's deadlines live in its room record and the store's timer index, so
whichever process sweeps first takes the step (the room's
:class:`~server.race.commands.Tick`, decided by
:func:`~server.race.decide_room.decide_tick`): the countdown ``wait_ms`` after
the second racer; for a racer alone after ``fill_ms``, computer racers
(:mod:`server.race.bots`, run by that process) then the countdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import weakref
from typing import Final

from server.errors import StoreError, VersionConflict
from server.rules import RulesError, RuleSet
from server.store.base import LiveStore, LobbySeat

from . import errors as err
from .ids import NAME_MAX, check_name, new_room_id
from .lobby import Lobby
from .options import RoomOptions
from .quick_state import QuickConfig, QuickState, band_of, slot_of
from .racers import Racers
from .rooms import Rooms
from .views import RacerView, RoomView
from .visibility import Seen

__all__ = ["CREATE_GRACE_MS", "QuickRace"]

log = logging.getLogger("server.race")

CREATE_GRACE_MS: Final = 3_000
"""A seat's room not found yet: its opener may still be creating it for this long."""
_ATTEMPTS: Final = 40
"""Seats one call may take (each stale one retired) before it answers ``store/busy``."""
_NAMES: Final = 20
"""Anonymous names tried in one lobby: ``Ada``, ``Ada 2`` … (a name taken there)."""


class QuickRace:
    """Quick-race matchmaking and the lobbies' automatic steps (module docstring)."""

    def __init__(self, store: LiveStore, rooms: Rooms, lobby: Lobby, racers: Racers,
                 config: QuickConfig, waiting_ttl_ms: int) -> None:
        self.store = store
        self.rooms = rooms
        self.lobby = lobby
        self.racers = racers
        self.config = config
        self.waiting_ttl_ms = waiting_ttl_ms
        self._turns: weakref.WeakValueDictionary[str, asyncio.Lock] = \
            weakref.WeakValueDictionary()

    # -- matchmaking -------------------------------------------------------------------

    async def join(self, variant: str, name: str, player: str | None = None,
                   rating: float | None = None) -> tuple[RoomView, RacerView, str]:
        """Join the forming lobby of ``variant`` for ``rating``'s band (``None``:
        anonymous, band 0), or open one → the room as the racer sees it, the
        racer and its secret token. ``player``/``name`` as for
        :meth:`~server.race.racers.Racers.join`; an anonymous name taken in the
        lobby gets a number (``Ada 2``).

        :raises RequestInvalid: unknown variant, bad name.
        :raises RacerNameTaken: the player waits in that lobby already.
        :raises VersionConflict: no seat after many tries (``store/busy``).
        """
        try:
            RuleSet.from_json({"variant": variant})
        except RulesError as exc:
            raise err.RequestInvalid(str(exc), {"field": "variant"}) from None
        try:
            name = check_name(name)
        except ValueError as exc:
            raise err.RequestInvalid(str(exc), {"field": "name"}) from None
        band = band_of(rating, self.config.band_width)
        for _ in range(_ATTEMPTS):
            slot, seat = await self._take_seat(variant, band)
            if seat.opened:
                await self._open(variant, band, slot, seat)
            joined = await self._join_seat(slot, seat, name, player)
            if joined is not None:
                return joined
        raise VersionConflict("quick race: no free seat found; try again")

    async def _take_seat(self, variant: str, band: int) -> tuple[str, LobbySeat]:
        """A seat in the own band's lobby; with none free there, in the nearest
        neighbouring band's lobby that waited long enough; else the own band's
        next lobby, opened by this caller."""
        cfg = self.config
        now = await self.store.clock.now_ms()
        offsets = [0] + [d for k in range(1, cfg.reach + 1) for d in (-k, k)]
        slots = {d: slot_of(variant, band + d) for d in offsets}
        found = await self.store.indexes.forming_lobbies(list(slots.values()))
        own = found.get(slots[0])
        if own is None or own.seats >= cfg.capacity:
            near = sorted((abs(d), p.opened_ms, slots[d], p.room_id)
                          for d in offsets[1:] if (p := found.get(slots[d])) is not None
                          and p.seats < cfg.capacity
                          and now - p.opened_ms >= abs(d) * cfg.widen_ms)
            for _, _, slot, room_id in near:
                seat = await self.store.indexes.take_seat(slot, cfg.capacity, room_id=room_id)
                if seat is not None:
                    return slot, seat
        seat = await self.store.indexes.take_seat(
            slots[0], cfg.capacity, open_room=new_room_id(), now_ms=now,
            ttl_ms=self.waiting_ttl_ms)
        assert seat is not None  # with open_room a seat is always handed out
        return slots[0], seat

    async def _open(self, variant: str, band: int, slot: str, seat: LobbySeat) -> None:
        """Create the lobby room the caller's seat opened (its id reserved)."""
        cfg = self.config
        state = QuickState(slot=slot, band=band, opened_ms=seat.opened_ms, wait_ms=cfg.wait_ms,
                           fill_ms=cfg.fill_ms, bots=cfg.bots)
        try:
            await self.lobby.create_room(RoomOptions(
                variant=variant, capacity=cfg.capacity, time_limit_s=cfg.time_limit_s,
                countdown_s=cfg.countdown_s, room_id=seat.room_id, quick=state))
        except BaseException:
            with contextlib.suppress(StoreError):
                await self.store.indexes.retire_lobby(slot, seat.room_id)
            raise

    async def _join_seat(self, slot: str, seat: LobbySeat, name: str,
                         player: str | None) -> tuple[RoomView, RacerView, str] | None:
        """Join the seat's room; ``None`` when it no longer takes racers (its
        pointer is retired: the caller takes another seat)."""
        number, waits = 1, 0
        for _ in range(400):  # bounded: a room being created, a very busy room
            try:
                # this process's joiners of one lobby take turns: no compare-and-set
                # lost to each other (other processes' joins may still collide)
                async with self._turns.setdefault(seat.room_id, asyncio.Lock()):
                    racer, token, record, now = await self.racers.seat(
                        seat.room_id, _numbered(name, number), player, quick=True)
            except err.RoomNotFound:
                now = await self.store.clock.now_ms()
                if not seat.opened and now - seat.opened_ms < CREATE_GRACE_MS:
                    waits += 1  # its opener is creating it: 10, 20, 40… 160 ms
                    await asyncio.sleep(min(0.16, 0.005 * 2 ** waits))
                    continue
                await self._retire(slot, seat.room_id)
                return None
            except (err.RoomFull, err.RoomNotWaiting):
                await self._retire(slot, seat.room_id)
                return None
            except err.RacerNameTaken:
                number += 1
                if player is not None or number > _NAMES:
                    raise
                continue
            except VersionConflict:  # a very busy room: again, after a moment
                await asyncio.sleep(random.uniform(0.005, 0.05))
                continue
            room = await self.rooms.room_view(record, now, {}, Seen("racer", racer.id))
            if room.state != "waiting" or len(room.racers) >= room.capacity:
                await self._retire(slot, seat.room_id)
            return room, racer, token
        return None

    async def _retire(self, slot: str, room_id: str) -> None:
        with contextlib.suppress(StoreError):  # a hint: the next caller retires it too
            await self.store.indexes.retire_lobby(slot, room_id)


def _numbered(name: str, number: int) -> str:
    """``name``, or ``name N`` (cut to fit :data:`NAME_MAX`) for ``number`` > 1."""
    if number == 1:
        return name
    tail = f" {number}"
    return name[:NAME_MAX - len(tail)].rstrip() + tail
