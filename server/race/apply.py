"""The one decide-and-apply loop: load → decide → one compare-and-set → retry.

:meth:`Applier.apply` is how every room action changes anything: it loads
what the command needs (:meth:`Applier._load`), asks the pure
:func:`~server.race.decide.decide`, writes the outcome's record with its room
events and stored answer in one compare-and-set (:mod:`server.store.base`),
takes the outcome's steps after the write, and on a conflict loads and decides
again — the only retry loop of the authority. A :class:`~.outcome.Prior`
applies other commands first (a race's unfinished racers time out before it
ends); :class:`~.outcome.Reload` reads from the store what a cached load did
not. The store's timer index and lobby index follow the room's transition
here, the same for every command: a new deadline is indexed *before* the
write (never missing), a gone one cleared after it; a public room that starts
or closes leaves the lobby.

Load strategies — ways of reading, never a second way of deciding:

- a move whose room and racer this process wrote or read last
  (:class:`~.cache.RaceCache`) is decided on those records with the stored
  answer unread; its write checks the room's rev too, so a changed room is a
  conflict (one store round trip per move, issue 8);
- anything else reads the room (a move: room, answer and racer in one round
  trip), and first applies a :class:`~.commands.Tick` when the room's timer is
  due (timers advance lazily, before any command looks at the room);
- the racer's record when the command names one, every racer's when the race
  is to end (closing it, its end, its time limit).

:meth:`Applier.read` is a room read with its timers advanced; the background
sweep of due timers is :mod:`server.race.sweep`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from server.errors import StoreError, VersionConflict
from server.solver.levels import Level, level_of
from server.store.base import LiveStore

from . import errors as err
from . import journal
from .cache import RaceCache
from .commands import (
    Close,
    Command,
    Countdown,
    Create,
    EndRace,
    FocusLost,
    Leave,
    LinkNext,
    OpenRoom,
    PlayMove,
    Resign,
    SetPar,
    Tick,
    TimeOut,
)
from .decide import decide
from .outcome import (
    UNREAD,
    After,
    CheckRaceEnd,
    Expire,
    LinkKnown,
    ListInLobby,
    Loaded,
    Note,
    Outcome,
    ParKnown,
    RaceEnded,
    RacerFinal,
    RaceStarted,
    Refused,
    Reload,
    RetireLobby,
    RoomClosed,
    RoomCreated,
    SaveFresh,
    SeatBots,
)
from .rooms import Rooms
from .state import RoomRecord
from .timers import RETRIES, RaceConfig, RaceOverHook, deadline, due
from .views import RoomView

__all__ = ["Applier", "BotSeating"]

log = logging.getLogger("server.race")

_RAW = (Tick, EndRace, TimeOut, LinkNext, SetPar)
"""Commands that load the room as stored: the timer steps themselves, and the
service's writes on a room whose state they check."""
_ONE_RACER = (PlayMove, TimeOut)
_NEW_ROOM = (Create, OpenRoom)
BotSeating = Callable[[RoomView, Sequence[Level]], Awaitable[Any]]
"""Seats computer racers in a room, run by this process (``RoomBots.seat``)."""
RoomHook = Callable[[RoomRecord], Awaitable[None]]


class Applier:
    """Applies commands to the rooms of one store (module docstring).

    ``race_over_hooks`` are called once per race by the process that ended it
    (the list the authority exposes; others add to it); ``seat_bots`` and
    ``bots_free`` are the computer racers this process runs (a quick-race
    lobby's lone racer gets them); ``link_known``/``par_known`` tell the
    archive a finished race's rematch link and par."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms, config: RaceConfig,
                 *, race_over_hooks: list[RaceOverHook], seat_bots: BotSeating,
                 bots_free: Callable[[], int], link_known: RoomHook,
                 par_known: RoomHook) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.config = config
        self.race_over_hooks = race_over_hooks
        self._seat_bots = seat_bots
        self._bots_free = bots_free
        self._link_known = link_known
        self._par_known = par_known

    # -- the loop ----------------------------------------------------------------------

    async def apply(self, command: Command) -> Outcome[Any]:
        """Apply ``command`` → its outcome (``reply``; ``now``: the service clock
        when it was decided; ``room``/``racer``: the record written, if any).

        :raises RaceError: the decision's refusal (nothing changed).
        :raises VersionConflict: still conflicting after :data:`RETRIES` tries
            (``store/busy``).
        :raises StoreUnavailable:
        """
        full = type(command) is not PlayMove  # only a move may load from the cache
        for _ in range(RETRIES):
            loaded = None if full else await self._known(command)  # type: ignore[arg-type]
            if loaded is None:
                loaded = await self._load(command)
                if loaded is None:
                    continue  # a due timer was advanced first: read again
            result = decide(loaded, command, self.config)
            if isinstance(result, Outcome):
                result.now = loaded.now
                if result.room is not None or result.racer is not None:
                    try:
                        await self._save(loaded, result)
                    except VersionConflict:
                        full = True  # something changed (or the id was answered): read it all
                        continue
                if result.after:
                    await self._after(loaded, result)
                if result.again:
                    continue
                return result
            if isinstance(result, Refused):
                raise result.error
            if isinstance(result, Reload):
                full = True
                continue
            for prior in result.commands:
                await self.apply(prior)
            if result.then is not None:
                command = result.then
        raise VersionConflict("room too busy")

    async def read(self, ref: str) -> tuple[RoomRecord, int, int]:
        """The room of ``ref`` with its due timers advanced, its rev and the
        service clock now (ms).

        :raises RoomNotFound:
        """
        loaded = await self._load(Tick(ref))  # a read: the room as stored
        room = None if loaded is None else loaded.room
        if loaded is not None and room is not None and not due(room, loaded.now):
            return room, loaded.rev, loaded.now  # nothing to decide: no timer is due
        reply: tuple[RoomRecord, int, int] = (
            await self.apply(Tick(ref, self._bots_free()))).reply
        return reply

    # -- loading -----------------------------------------------------------------------

    async def _load(self, cmd: Command) -> Loaded | None:
        """What ``cmd`` needs, read from the store (module docstring); ``None``
        when a due timer was applied first."""
        if isinstance(cmd, _NEW_ROOM):
            return Loaded(None, 0, await self.store.clock.now_ms())
        ref = cmd.ref
        if not ref or len(ref) > 64:
            return Loaded(None, 0, 0)
        room_id = await self.rooms.resolve(ref)
        answer = racer_got = None
        if type(cmd) is PlayMove:
            got, answer, racer_got = await self.store.racers.get_move_state(
                room_id, cmd.racer_id, cmd.client_move_id)
        else:
            got = await self.store.rooms.get_room(room_id)
        if got is None:
            return Loaded(None, 0, 0)
        room = RoomRecord.model_validate(got.data)
        self.cache.saw_room(room, got.rev)
        now = await self.store.clock.now_ms()
        if not isinstance(cmd, _RAW) and due(room, now):
            await self.apply(Tick(room_id, self._bots_free()))
            return None
        loaded = Loaded(room, got.rev, now, answer=answer,
                        fresh_cards=self.cache.fresh_cards(room))
        if isinstance(cmd, _ONE_RACER) or (isinstance(cmd, Leave | Resign | FocusLost)
                                           and room.state == "racing"):
            racer_id = cmd.racer_id
            if type(cmd) is not PlayMove:
                racer_got = await self.store.racers.get_racer(room.id, racer_id)
            loaded.racer, loaded.racer_rev = self.rooms.racer_of(room, racer_id, racer_got)
            if type(cmd) is PlayMove and room.entry(racer_id) is not None:
                loaded.game = self.cache.game(room, loaded.racer)
        if room.state == "racing" and (isinstance(cmd, Close | EndRace)
                                       or (isinstance(cmd, Tick) and due(room, now))):
            loaded.racers = await self.rooms.racers(room)
        return loaded

    async def _known(self, cmd: PlayMove) -> Loaded | None:
        """The move's records as this process last wrote or read them, when they
        can decide it: the race running and not past its limit, the result not
        final, ``expected_version`` the known one; else ``None``."""
        known_room = self.cache.known_rooms.get(cmd.ref)
        known_racer = self.cache.known_racers.get((cmd.ref, cmd.racer_id))
        if known_room is None or known_racer is None:
            return None
        room, room_rev = known_room
        racer, rev = known_racer
        if room.state != "racing" or room.start_at_ms is None or racer.final \
                or racer.version != cmd.expected_version:
            return None
        now = await self.store.clock.now_ms()
        if now - room.start_at_ms >= room.time_limit_ms:
            return None
        return Loaded(room, room_rev, now, racer, rev, self.cache.game(room, racer), None,
                      UNREAD, True)

    # -- writing -----------------------------------------------------------------------

    async def _save(self, loaded: Loaded, out: Outcome[Any]) -> None:
        """Write the outcome's record with its events (and answer): one
        compare-and-set; the indexes follow a room's transition.

        :raises VersionConflict: the record (or the room, for a cached load) changed.
        """
        if out.room is not None:
            old, new = loaded.room, out.room
            before = None if old is None else deadline(old)
            at = deadline(new)
            if at is not None and at != before:
                await self.store.indexes.set_timer(new.id, at)  # before the write: never missing
            out.rev, _ = await self.store.rooms.save_room(
                new.id, new.model_dump(mode="json"), loaded.rev, out.events, archive=out.archive)
            if before is not None and at is None:
                await self.store.indexes.clear_timer(new.id, before)
            if new.state in ("racing", "over", "closed") and (
                    old is None or old.state in ("waiting", "countdown")):
                await self.rooms.off_lobby(new)
            return
        racer, room = out.racer, loaded.room
        assert racer is not None and room is not None
        key = (room.id, racer.id)
        log_json = self.cache.log_bytes(key, [] if loaded.racer is None else loaded.racer.log,
                                        racer.log)
        try:
            out.rev, _ = await self.store.racers.save_racer(
                room.id, racer.id, racer.stored(log_json), loaded.racer_rev, answer=out.answer,
                events=out.events, room_rev=loaded.rev if loaded.known else None)
        except VersionConflict:
            self.cache.unknown(key)
            raise
        if racer.final:
            self.cache.forget(key)
        elif out.game is not None:
            self.cache.remember(key, out.game, (racer, out.rev))
        elif key in self.cache.known_racers:  # the log as it was (a focus loss): the
            self.cache.known_racers[key] = (racer, out.rev)  # next move stays one round trip
        else:
            self.cache.unknown(key)  # no move known here: keep no log bytes either

    async def _after(self, loaded: Loaded, out: Outcome[Any]) -> None:
        """The outcome's steps after the write, in order."""
        room = out.room or loaded.room
        for step in out.after:
            await self._step(step, room, out)

    async def _step(self, step: After, room: RoomRecord | None, out: Outcome[Any]) -> None:
        assert room is not None
        match step:
            case Expire(ms, room_id):
                await self.store.rooms.expire_room(room_id or room.id, ms)
            case ListInLobby(until, room_id):
                await self.store.indexes.add_to_lobby(room_id or room.id, until)
            case RoomCreated(made):
                journal.room_created(made or room)
            case RaceStarted():
                journal.race_started(room)
            case RoomClosed():
                journal.room_closed(room)
            case RaceEnded(views):
                journal.race_ended(room, views)
                for entry in room.roster:
                    self.cache.forget((room.id, entry.id))
                await self.race_over(room, views)
            case RacerFinal():
                assert out.racer is not None
                journal.racer_final(room.id, out.racer)
            case CheckRaceEnd():
                with contextlib.suppress(err.RoomNotFound):
                    await self.apply(EndRace(room.id))
            case SaveFresh(racer_id):
                fresh = self.cache.fresh(room, racer_id)
                with contextlib.suppress(VersionConflict):
                    await self.store.racers.save_racer(room.id, racer_id,
                                                       fresh.model_dump(mode="json"), 0)
            case SeatBots(levels):
                await self._seat(room, out.now, tuple(level_of(x) for x in levels))
            case RetireLobby(slot):
                with contextlib.suppress(StoreError):  # a hint: the next caller retires it
                    await self.store.indexes.retire_lobby(slot, room.id)
            case Note(message):
                log.warning("%s", message)
            case LinkKnown():
                await self._link_known(room)
            case ParKnown():
                await self._par_known(room)

    async def _seat(self, room: RoomRecord, now: int, levels: Sequence[Level]) -> None:
        """A quick-race lobby's lone racer gets computer racers of ``levels`` run
        by this process, then the countdown starts."""
        try:
            await self._seat_bots(await self.rooms.room_view(room, now, {}), levels)
        except (err.RaceError, StoreError) as exc:  # a seat taken meanwhile, the store
            log.warning("quick race %s: computer racers not all seated (%s)", room.code,
                        exc.code if isinstance(exc, err.RaceError) else type(exc).__name__)
        with contextlib.suppress(err.RoomNotFound):
            await self.apply(Countdown(room.id))

    async def race_over(self, room: RoomRecord, views: Sequence[Any]) -> None:
        """Run the race-over hooks; a failing hook is logged, never raised."""
        for hook in self.race_over_hooks:
            try:
                await hook(room, views)
            except Exception as exc:  # a feed must never undo or block the race end
                log.error("race-over hook failed: %s", type(exc).__name__, exc_info=exc)
