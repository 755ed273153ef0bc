"""The race authority: rooms, racers, the race clock, moves, ranking and replays.

:class:`RaceAuthority` is the single authority over every room; the
transports (REST, WebSocket) decode a request and call **one** method per
action. Every action that changes anything is a command
(:mod:`server.race.commands`) applied by the one decide-and-apply loop,
:meth:`~server.race.apply.Applier.apply`: load → :func:`~server.race.decide.decide`
(pure) → one compare-and-set → retry on a conflict. Each decision checks in
a fixed order and changes nothing when it refuses (:mod:`server.race.errors`):

1. **shape** – a token is present where one is needed (``auth/missing``), a
   name or the options are valid (``request/invalid``); this, the room and the
   credentials are checked by the command's gate (:mod:`server.race.gate`);
2. **room** – the room exists (``room/not_found``), then the token is this
   racer's or the host's (``auth/invalid_token``; another racer's token:
   ``auth/forbidden``); a repeated ``client_move_id`` is answered here with
   its first answer;
3. **state** – the room and the racer are in a state that allows it
   (``room/not_waiting``, ``room/not_racing``, ``room/over``,
   ``racer/finished``);
4. **version** – ``expected_version`` is the game's (``move/stale_version``);
5. **rules** – the engine accepts the move (``move/invalid``, ``move/illegal``),
   decided by :func:`~server.race.decide.decide_move`;
6. **save** – compare-and-set on the record's store version, with the answer
   and the room events in the same write (:mod:`server.store.base`);
7. **publish** – the events reach subscribers through the store's log.

Time is the store's clock; the race clock is ``now − start``. Room timers
(countdown end, time limit) advance lazily: a due :class:`~.commands.Tick` is
applied before any command reads the room, and :meth:`RaceAuthority.tick`
(:mod:`server.race.sweep`), which the app runs in the background, ticks the
rooms whose timer is due; the room's compare-and-set makes each transition
(and its events) happen exactly once.

Composition, not inheritance: the authority builds each collaborator once,
with what it needs passed in — :class:`~.cache.RaceCache` (games and records
this process knows), :class:`~.rooms.Rooms` (reads and views),
:class:`~.apply.Applier` (the loop), and the front doors that draw ids and
build views around it: :class:`~.lobby.Lobby` (rooms), :class:`~.racers.Racers`
(joining, ready, leaving, resigning), :class:`~.play.Play` (moves and
results), :class:`~.assist.Assist` (solver services), :class:`~.bots.RoomBots`
(the computer racers rooms are created with, run by this process),
:class:`~.rematch.Rematches` (rematches and the races of a series).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from server.solver import SolverPool
from server.store.base import LiveStore

from . import errors as err
from . import visibility
from .apply import Applier
from .archived import Archived, ArchivedRaces, FinishedRace, race_view
from .assist import Assist, par_hook
from .bots import RoomBots
from .cache import RaceCache
from .lobby import Lobby
from .options import RoomOptions, bot_levels
from .play import LogsFor, Play
from .quick import QuickRace
from .racers import Racers
from .rematch import Rematches
from .rooms import SPECTATOR, ChallengeSeals, Rooms
from .series import SeriesTables
from .state import RoomRecord
from .sweep import Sweep
from .timers import RaceConfig, RaceOverHook
from .views import RaceView, RoomView

__all__ = ["RaceAuthority", "RaceConfig", "RoomOptions"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _or_archived(live: Callable[_P, Awaitable[_T]],
                 archived: Callable[_P, Awaitable[_T]]) -> Callable[_P, Awaitable[_T]]:
    """``live``, and when no live room answers (``room/not_found``), the same
    read of the archived race (:mod:`server.race.archived`)."""
    async def read(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return await live(*args, **kwargs)
        except err.RoomNotFound:
            return await archived(*args, **kwargs)
    return read


class RaceAuthority:
    """The authority over every room of one store; one instance per process.

    Construct with ``RaceAuthority(store, RaceConfig(...))``. Every public
    coroutine is one action; refusals are :class:`~server.race.errors.RaceError`.
    The actions are the collaborators' methods (see each for its checks):

    - rooms (:class:`~.lobby.Lobby`): :meth:`create_room` (with its bots:
      :class:`~.bots.RoomBots`, :attr:`bots`), :meth:`get_room`,
      :meth:`list_rooms`, :meth:`start`, :meth:`close`;
    - racers (:class:`~.racers.Racers`): :meth:`join`, :meth:`set_ready`,
      :meth:`leave`, :meth:`resign`, :meth:`focus_lost`, :meth:`authenticate`;
    - quick races (:class:`~.quick.QuickRace`): :meth:`quick` (a seat in the
      forming lobby of a variant and rating band), the lobbies' own start;
    - play and results (:class:`~.play.Play`): :meth:`game`, :meth:`move`,
      :meth:`standings`, :meth:`replay`, :meth:`racer_log`;
    - the next room (:class:`~.rematch.Rematches`): :meth:`rematch`; series
      (:class:`~.series.SeriesTables`): :meth:`series`;
    - finished races (:class:`~.archived.Archived`): :meth:`race`, and the
      archive's feed :meth:`claim_finished`, :meth:`mark_archived`; the reads
      above answer archived races when no live room does;
    - solver services (:class:`~.assist.Assist`): :meth:`hint`;
    - the clock (:class:`~.sweep.Sweep`): :meth:`tick`;
    - any command (:mod:`~server.race.commands`): :meth:`apply`.
    """

    def __init__(self, store: LiveStore, config: RaceConfig | None = None, *,
                 solver: SolverPool | None = None, archive: ArchivedRaces | None = None,
                 race_over_hooks: Sequence[RaceOverHook] = (), par: bool | None = None,
                 challenges: ChallengeSeals | None = None) -> None:
        """The authority over ``store``'s rooms. ``solver``: the process pool of
        solver jobs (hints, winnable deals, par; ``None``: searches run
        in-process — tests, tools); ``archive``: where archived races are read
        from (``None``: none); ``race_over_hooks``: called once per race by the
        process that ended it (leaderboards), after which the authority's own
        (the series' next race, the room's par); ``par``: store each room's par
        at its race's end (default: when a ``solver`` is given); ``challenges``:
        where challenges' states are read, for their attempts' seal
        (:mod:`server.race.visibility`; ``None``: attempt rooms stay sealed)."""
        self.store = store
        self.config = config or RaceConfig()
        self.cache = RaceCache()
        self.rooms = Rooms(store, self.cache, challenges)
        self.archived = Archived(store, self.cache, self.rooms, self.config, archive)
        self.bots = RoomBots(self, think_ms=self.config.bot_think_ms,
                             max_bots=self.config.max_bots, solver=solver)
        self.race_over_hooks: list[RaceOverHook] = [*race_over_hooks]
        """Called once per race, by the process that ended it (leaderboards, the
        series' next race, par)."""
        self.applier = Applier(store, self.cache, self.rooms, self.config,
                               race_over_hooks=self.race_over_hooks, seat_bots=self.bots.seat,
                               bots_free=self.bots.free, link_known=self.archived.link_known,
                               par_known=self.archived.par_known)
        self.assist = Assist(store, self.rooms, self.applier, solver)
        self.lobby = Lobby(store, self.rooms, self.applier, self.assist)
        self.racers = Racers(self.applier)
        self.play = Play(store, self.cache, self.rooms, self.applier)
        self.rematches = Rematches(store, self.cache, self.rooms, self.applier, self.assist,
                                   self.archived, self.config)
        self.race_over_hooks.append(self.rematches.race_over)
        if solver is not None if par is None else par:
            self.race_over_hooks.append(par_hook(self.assist))
        self.series_tables = SeriesTables(store, self.cache, self.rooms, self.applier,
                                          self.archived, self.rematches)
        self.quick_race = QuickRace(store, self.rooms, self.lobby, self.racers,
                                    self.config.quick, self.config.waiting_ttl_ms)

        self.get_room = _or_archived(self.lobby.get_room, self.archived.get_room)
        self.list_rooms = self.lobby.list_rooms
        self.start = self.lobby.start
        self.close = self.lobby.close
        self.join = self.racers.join
        self.set_ready = self.racers.set_ready
        self.leave = self.racers.leave
        self.forget_racer = self.racers.forget_racer
        self.resign = self.racers.resign
        self.focus_lost = self.racers.focus_lost
        self.authenticate = self.racers.authenticate
        self.game = _or_archived(self.play.game, self.archived.game)
        self.move = self.play.move
        self.standings = _or_archived(self.play.standings, self.archived.standings)
        self.replay = _or_archived(self.play.replay, self.archived.replay)
        self.racer_log = _or_archived(self.play.racer_log, self.archived.racer_log)
        self.hint = self.assist.hint
        self.tick = Sweep(store, self.applier).tick
        self.apply = self.applier.apply
        self.rematch = self.rematches.rematch
        self.series = self.series_tables.view
        self.quick = self.quick_race.join

    async def create_room(self, options: RoomOptions) -> tuple[RoomView, str]:
        """A new room in state ``waiting`` → its view (as the host sees it) and the
        host token (``Lobby.create_room``); with ``options.bots``, its bots (their
        levels: :func:`~.options.bot_levels`) are seated at once and run by this
        process (:mod:`server.race.bots`).

        :raises RequestInvalid: unknown variant, bad overrides or ranges, unknown
            bot levels.
        :raises ServerFull: this process runs its most bots already.
        """
        levels = bot_levels(options.bots)
        self.bots.check(len(levels))
        room, host_token = await self.lobby.create_room(options)
        if levels:
            await self.bots.seat(room, levels)
            room = await self.lobby.get_room(room.id, host_token)
        return room, host_token

    def logs_for(self, token: str | None) -> LogsFor:
        """Racers' move logs as ``token``'s holder may see them (comparisons,
        ghosts: ``server.records.head_to_head.LiveGames``)."""
        return LogsFor(self.racer_log, token)

    # -- finished races and the archive (server.race.archived) ----------------------

    @property
    def archive(self) -> ArchivedRaces | None:
        """Where archived races are read from (``None``: none)."""
        return self.archived.source

    async def still_waiting(self, ref: str) -> bool:
        """Whether the live room ``ref`` waits for its start (an address's count
        of waiting rooms, docs/protocol.md "Limits"): its state alone — no view,
        so no seal either (a challenge's attempt counts too).

        :raises StoreUnavailable:
        """
        try:
            room, _, _ = await self.applier.read(ref)
        except err.RoomNotFound:
            return False
        return room.state == "waiting"

    async def race(self, ref: str) -> RaceView:
        """A finished race by race id, room id or room code: from its live room
        while it lasts, then from the archive.

        :raises RoomNotFound, HiddenUntilOver (the race is not over yet),
            ChallengeHidden (an attempt at a challenge still open), ArchiveUnavailable:
        """
        try:
            room, _, _ = await self.applier.read(ref)
        except err.RoomNotFound:
            return await self.archived.race(ref)
        visibility.check_room(await self.rooms.seal(room, SPECTATOR))
        if room.state != "over" and not (room.state == "closed" and room.ended_ms is not None):
            raise err.HiddenUntilOver(f"the race of room {room.code} is not over "
                                      f"({room.state})", {"state": room.state})
        return race_view(self.rooms, self.cache, room, await self.rooms.racers(room),
                         archived=False)

    async def claim_finished(self, limit: int, lease_ms: int) -> list[FinishedRace]:
        """Pending finished races for the archiver, leased (``Archived.claim_finished``)."""
        return await self.archived.claim_finished(limit, lease_ms)

    async def mark_archived(self, race_id: str) -> None:
        """The race is archived: its live room may expire (``Archived.mark_archived``)."""
        await self.archived.mark_archived(race_id)

    @property
    def solver(self) -> SolverPool | None:
        """Process pool for solver jobs (hints, winnable deals, par); ``None``:
        searches run in-process."""
        return self.assist.solver

    # -- the service clock and room events (the transport's only way to them) -----

    async def now_ms(self) -> int:
        """The service clock: Unix time in ms, the same in every process."""
        return await self.store.clock.now_ms()

    async def room_record(self, ref: str) -> RoomRecord:
        """The live room of ``ref`` as stored (its due timers advanced), without
        reading a racer — a cheap look at its state and roster (the transport's
        cache of finished races' answers). :raises RoomNotFound:"""
        return (await self.applier.read(ref))[0]

    async def last_seq(self, room_id: str) -> int:
        """The room's last event number (0: none yet)."""
        return await self.store.events.last_seq(room_id)

    async def events_since(self, room_id: str, since: int) -> list[dict[str, Any]]:
        """The room's logged events with ``seq > since``, in order.

        :raises EventsTooOld: some were trimmed (send a snapshot instead).
        """
        return await self.store.events.events_since(room_id, since)

    async def room_counts(self) -> dict[str, int]:
        """Rooms of the whole deployment by the store's indexes (metrics):
        ``live``, ``lobby``, ``running`` (:meth:`RoomIndexes.room_counts`).

        :raises StoreUnavailable:
        """
        return await self.store.indexes.room_counts()

    async def archive_pending(self) -> int:
        """Finished races of the whole deployment not archived yet (metrics:
        the archive lag, in races).

        :raises StoreUnavailable:
        """
        return len(await self.store.archive.pending())

    def subscribe(self, room_id: str, since: int) -> AsyncIterator[dict[str, Any]]:
        """Every room event with ``seq > since``, then live ones, none lost or
        repeated (the store's log; ``server.api.hub`` feeds the sockets from it).

        :raises EventsTooOld, StoreUnavailable:
        """
        return self.store.events.subscribe(room_id, since)
