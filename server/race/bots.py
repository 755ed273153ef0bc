"""Computer racers run by the server: the room option ``bots`` (docs/protocol.md).

A room created with ``bots`` (a count, levels, or a level and a count:
:func:`~server.race.options.bot_levels`) gets its computer racers at once,
named ``bot-Ada``, ``bot-Bix``… (:func:`server.solver.strategy.bot_name`),
seated before anyone else joins, each with its level and a seed drawn for it
then (kept with the racer: :class:`~server.race.state.RosterEntry`).
:class:`RoomBots` (one per process, owned by the race authority) runs them
in **the process that created the room**, as ordinary racers of the
authority's API — the checks, events, ranking and fair play are every
racer's — so they race on whoever closes a page or a terminal:

1. while the room waits, they say they are ready once a racer who is not
   one of them is in the room (a room of bots alone never starts itself;
   the host may still start it);
2. from the start, each plays its level (:func:`~server.solver.levels.level_move`,
   the choice the terminal's bots make too; an expert's in the solver pool,
   off the event loop), thinking before each move as its level does
   (:meth:`~server.solver.levels.BotMind.pause_ms`, in units of ``think_ms``),
   until its result is final; with no move left (undo allowed) it concedes —
   and is ``stuck``, as a person who gives up there (``resigned`` only in a
   variant whose builds can go back and forth, when every build leads back);
3. in a series (docs/protocol.md, "Series") they go on to each next race,
   where the series seats them with their ids and tokens.

They wake on the room's events (the store's log, like the sockets), read
the room again at least every :data:`WAKE_S` seconds, and retry a store that
does not answer. Stopped from outside (the process shuts down: :meth:`aclose`)
each bot resigns, or leaves a room that has not started, so the race can end
without them. If the process dies instead (``kill -9``, a crash), nothing
adopts its bots — in a Redis deployment the other processes do not run
them — and they stop moving: a racing bot keeps its cards and is timed out
at the room's time limit like any silent racer; a bot of a waiting room
stays seated (the host may close the room, or race them idle).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from server.errors import EventsTooOld, ServerFull, StoreError, StoreUnavailable, VersionConflict
from server.rules import Move, Position, RuleSet
from server.rules.serialize import position_from_json
from server.solver import SolverBusyError, SolverPool
from server.solver.levels import EXPERT_SECONDS, SPECS, BotMind, Level, level_move
from server.solver.strategy import bot_name

from . import errors as err
from .views import Ack, GameView, RacerView, RoomView

__all__ = ["MAX_BOTS", "WAKE_S", "BotSeat", "RoomBots"]

log = logging.getLogger(__name__)

MAX_BOTS: Final = 1000
"""Default for the most bots one process runs at once (``LUCIE_MAX_BOTS``)."""
WAKE_S: Final = 5.0
"""A waiting driver reads its room at least this often (seconds), events or not."""
_RETRIES: Final = 20
_RETRY_S: Final = 0.5
_STEP_OUT_S: Final = 3.0

_T = TypeVar("_T")


class Racing(Protocol):
    """What the bots use of the race authority (:class:`~.authority.RaceAuthority`)."""

    async def join(self, ref: str, name: str, player: str | None = None,
                   bot: bool = False, *, bot_level: str | None = None,
                   bot_seed: int | None = None) -> tuple[RacerView, str]: ...
    async def get_room(self, ref: str, token: str | None = None) -> RoomView: ...
    async def set_ready(self, ref: str, racer_id: str, token: str | None,
                        ready: bool) -> RacerView: ...
    async def game(self, ref: str, racer_id: str, token: str | None = None) -> GameView: ...
    async def move(self, ref: str, racer_id: str, token: str | None, move: Any,
                   expected_version: int, client_move_id: str) -> Ack: ...
    async def resign(self, ref: str, racer_id: str, token: str | None) -> RacerView: ...
    async def leave(self, ref: str, racer_id: str, token: str | None) -> None: ...
    async def last_seq(self, room_id: str) -> int: ...
    def subscribe(self, room_id: str, since: int) -> AsyncIterator[dict[str, Any]]: ...


@dataclass(frozen=True, slots=True)
class BotSeat:
    """One bot of a room: its racer id, display name, (secret) token, level and seed."""

    id: str
    name: str
    token: str
    level: Level = "club"
    seed: int = 0


class RoomBots:
    """The bots of the rooms this process created (module docstring).

    ``think_ms``: the think-time unit (a club bot's median pause, ms; 0: none);
    ``max_bots``: the most bots running here at once (more: 503
    ``server/full``); ``solver``: the pool an expert's moves are searched in
    (``None``: a thread of this process).
    """

    def __init__(self, racing: Racing, *, think_ms: int = 1600, max_bots: int = MAX_BOTS,
                 solver: SolverPool | None = None) -> None:
        self.racing = racing
        self.think_ms = think_ms
        self.max_bots = max_bots
        self.solver = solver
        self._drivers: dict[asyncio.Task[None], tuple[str, list[BotSeat]]] = {}

    @property
    def running(self) -> int:
        """Bots of this process whose driver still runs."""
        return sum(len(bots) for _, bots in self._drivers.values())

    def free(self) -> int:
        """How many more bots this process may run now."""
        return max(0, self.max_bots - self.running)

    def check(self, count: int) -> None:
        """Whether ``count`` more bots may run here (call before creating the room).

        :raises ServerFull: this process runs :attr:`max_bots` bots already.
        """
        if count and self.running + count > self.max_bots:
            raise ServerFull(f"this server runs its most computer racers ({self.max_bots}); "
                             "try again later", {"retry_after_ms": 5000})

    async def seat(self, room: RoomView, levels: Sequence[Level]) -> list[BotSeat]:
        """Join one bot of each of ``levels`` to the new ``room``, each with a seed
        drawn now, and start their driver here.

        :raises RaceError, StoreError: a join was refused (the room is left to
            expire with the bots seated so far, who never move).
        """
        bots: list[BotSeat] = []
        for index, level in enumerate(levels):
            seed = secrets.randbits(63)
            racer, token = await self.racing.join(room.id, bot_name(index), bot=True,
                                                  bot_level=level, bot_seed=seed)
            bots.append(BotSeat(racer.id, racer.name, token, level, seed))
        task = asyncio.create_task(self._drive(room.id, bots), name=f"bots-{room.code}")
        self._drivers[task] = (room.id, bots)
        task.add_done_callback(self._drivers.pop)
        return bots

    async def aclose(self) -> None:
        """Stop every driver of this process: each bot resigns (or leaves a room
        that has not started) first, within a few seconds."""
        drivers = list(self._drivers.items())
        for task, _ in drivers:
            task.cancel()
        for task, _ in drivers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(
                self._step_out(room_id, bots) for _, (room_id, bots) in drivers)), _STEP_OUT_S)

    # -- the driver of one room's bots ------------------------------------------------

    async def _drive(self, room_id: str, bots: list[BotSeat]) -> None:
        try:
            while True:
                rules = await self._wait_for_start(room_id, bots)
                if rules is None:
                    return
                await asyncio.gather(*(self._race(room_id, bot, rules) for bot in bots))
                following = await self._next_race(room_id, bots)
                if following is None:
                    return
                room_id = following
                task = asyncio.current_task()
                if task in self._drivers:  # aclose steps the bots out of the new room
                    self._drivers[task] = (room_id, bots)
        except err.RoomNotFound:
            pass  # the room expired before its start
        except Exception:
            log.exception("the bots of room %s failed", room_id)

    async def _next_race(self, room_id: str, bots: list[BotSeat]) -> str | None:
        """The next race of the room's series once this one is over, when the
        bots are seated in it (the series seats every racer who did not leave,
        ids and tokens kept: docs/protocol.md, "Series"); ``None``: no series,
        its last race, or the bots are not in the next room."""
        poke = asyncio.Event()
        follower = asyncio.create_task(self._follow(room_id, poke))
        try:
            while True:
                poke.clear()
                room = await self._retry(lambda: self.racing.get_room(room_id))
                if room.series is None or room.series.race >= room.series.races \
                        or room.state == "closed":
                    return None
                if room.state == "over" and all(r.bot for r in room.racers if r.status != "left"):
                    return None  # nobody else goes on: the series stops here
                if room.state == "over" and room.rematch is not None:
                    following = await self._retry(
                        functools.partial(self.racing.get_room, room.rematch.room))
                    seated = {r.id for r in following.racers}
                    return following.id if all(b.id in seated for b in bots) else None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(poke.wait(), WAKE_S)
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower

    async def _wait_for_start(self, room_id: str, bots: list[BotSeat]) -> RuleSet | None:
        """Ready the bots once someone else is in the room; the rules at the start,
        ``None`` when the room closes first."""
        poke = asyncio.Event()
        follower = asyncio.create_task(self._follow(room_id, poke))
        ours = {bot.id for bot in bots}
        readied = False
        try:
            while True:
                poke.clear()
                room = await self._retry(lambda: self.racing.get_room(room_id))
                if room.state == "racing":
                    return RuleSet.from_json(room.rules.model_dump())
                if room.state in ("over", "closed"):
                    return None
                if room.state == "waiting" and not readied \
                        and any(r.id not in ours for r in room.racers):
                    for bot in bots:
                        with contextlib.suppress(err.RaceError):
                            await self._retry(functools.partial(
                                self.racing.set_ready, room_id, bot.id, bot.token, True))
                    readied = True
                    continue  # the last ready may have started the countdown
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(poke.wait(), WAKE_S)
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower

    async def _follow(self, room_id: str, poke: asyncio.Event) -> None:
        """Set ``poke`` at each of the room's events (the store's log)."""
        since: int | None = None
        while True:
            try:
                if since is None:
                    since = await self.racing.last_seq(room_id)
                async for event in self.racing.subscribe(room_id, since):
                    since = int(event.get("seq", since))
                    poke.set()
                poke.set()  # the room is gone: the driver reads it and ends
                return
            except EventsTooOld:
                since = None
                poke.set()
            except StoreError:
                await asyncio.sleep(_RETRY_S)

    async def _choose(self, rules: RuleSet, mind: BotMind, pos: Position) -> Move | None:
        """The bot's next move: an expert's searched in the solver pool (the club
        rule when the pool is busy), the others' in a thread (two decks' look-ahead
        takes a few ms): never on the event loop."""
        args = mind.ask(rules, pos)
        if SPECS[mind.level].plans and self.solver is not None:
            try:
                return await self.solver.run(2 * EXPERT_SECONDS, level_move, *args)
            except SolverBusyError:
                args = (rules, pos, "club", args[3], args[4])
        return await asyncio.to_thread(level_move, *args)

    async def _race(self, room_id: str, bot: BotSeat, rules: RuleSet) -> None:
        """Play ``bot``'s game until its result is final (module docstring)."""
        mind = BotMind(bot.level, bot.seed ^ zlib.crc32(room_id.encode()))  # a new deal
        loop = asyncio.get_running_loop()
        try:
            game = await self._retry(lambda: self.racing.game(room_id, bot.id, bot.token))
            moves = 0
            while game.status == "playing" and not game.final:
                pos = position_from_json(game.position.model_dump())
                began = loop.time()
                move = await self._choose(rules, mind, pos)
                if move is None:
                    break
                mind.played(pos, move)
                pause = mind.pause_ms(move, self.think_ms) / 1000  # the search counts in it
                await asyncio.sleep(max(0.0, pause - (loop.time() - began)))
                moves += 1
                send = functools.partial(self.racing.move, room_id, bot.id, bot.token,
                                         str(move), game.version, f"bot-{moves}")
                try:
                    game = (await self._retry(send)).game
                except (err.MoveStaleVersion, err.MoveIllegal, err.MoveInvalid):
                    game = await self._retry(lambda: self.racing.game(room_id, bot.id,
                                                                      bot.token))
            if not game.final:  # no move left (undo allowed): concede, and be stuck
                await self._retry(lambda: self.racing.resign(room_id, bot.id, bot.token))
        except (err.RoomOver, err.RoomNotRacing, err.RacerFinished, err.RoomNotFound):
            pass  # the race ended around the bot (time limit, closed by the host)
        except Exception:
            log.exception("bot %s of room %s failed", bot.id, room_id)

    async def _step_out(self, room_id: str, bots: list[BotSeat]) -> None:
        """Each bot not final yet resigns, or leaves a room that has not started."""
        for bot in bots:
            try:
                await self.racing.resign(room_id, bot.id, bot.token)
            except err.RoomNotRacing:
                with contextlib.suppress(err.RaceError, StoreError):
                    await self.racing.leave(room_id, bot.id, bot.token)
            except (err.RaceError, StoreError):
                pass

    async def _retry(self, call: Callable[[], Awaitable[_T]]) -> _T:
        """``call()``, again after a pause while the store does not answer or is
        busy (a move is repeated with its client move id: answered once)."""
        for _ in range(_RETRIES - 1):
            try:
                return await call()
            except (StoreUnavailable, VersionConflict):
                await asyncio.sleep(_RETRY_S)
        return await call()
