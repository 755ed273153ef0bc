"""Shared machinery of the race authority: records ↔ views, room timers, tokens.

:class:`AuthorityCore` holds what every action of
:class:`~server.race.authority.RaceAuthority` needs: the store, the game
cache, loading a room with its timers advanced (countdown end, time limit),
ending a race exactly once, and the token checks.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from server.rules import (
    Game,
    Move,
    RuleSet,
    new_game,
    position_to_json,
    replay,
)
from server.solver import SolverPool
from server.store.base import Store, VersionConflict

from . import errors as err
from .events import FinishedEvent, LeftEvent, RaceOverEvent, StartedEvent
from .ids import (
    is_code,
    token_matches,
)
from .ranking import standings as rank_standings
from .state import RacerRecord, RoomRecord, RosterEntry
from .views import (
    GameView,
    RacerView,
    RoomView,
    RulesView,
    Standings,
)

__all__ = ["AuthorityCore", "RaceConfig", "RoomOptions", "rules_view"]

log = logging.getLogger("server.race")

_RETRIES = 16
_GAME_CACHE = 4_096
"""Games kept in memory for fast moves (about 4× the racers one process holds
active); an evicted game is rebuilt from its log. 20,000 held mostly finished
games: the load test's server RSS fell from 937 to 766 MB at 4,096 with the
same throughput and latency (issue 8)."""
_SWEEP_BATCH = 32
_SWEEP_LIMIT = 10_000
"""Most due timers one sweep handles (the rest: the next sweep, a tick later)."""


@dataclass(frozen=True, slots=True)
class RaceConfig:
    """Authority settings (milliseconds)."""

    ended_ttl_ms: int = 3_600_000
    """Rooms and all their data vanish this long after the race ends or closes."""
    waiting_ttl_ms: int = 6 * 3_600_000
    """A room that never starts vanishes this long after its creation."""


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """What ``create_room`` takes (docs/protocol.md, ``POST /rooms``); already
    shape-checked by the transport, range-checked here."""

    variant: str = "belle-lucie"
    redeals: int | None = None
    merci: bool | None = None
    undo: bool | None = None
    deal: int | Literal["random", "daily"] = "random"
    capacity: int = 8
    time_limit_s: int = 900
    visibility: Literal["public", "private"] = "public"
    countdown_s: int = 3
    redeal_key: bytes | None = None
    """Internal (not on the wire): replay a recorded game's redeals (ghost rooms)."""
    ranked: bool = True
    """Internal: whether final results feed the leaderboards (ghost rooms: no)."""
    hints: bool = False
    """Racers may ask the solver for a hint (practice rooms; issue 7)."""
    winnable_only: bool = False
    """Draw a deal (and redeal key) the solver proves winnable (issue 7)."""


def _trim(cache: dict[str, Any]) -> None:
    """Keep a per-room cache to :data:`_GAME_CACHE` entries (oldest out first)."""
    while len(cache) > _GAME_CACHE:
        del cache[next(iter(cache))]


def rules_view(rules: RuleSet) -> RulesView:
    return RulesView.model_validate(rules.to_json())


class AuthorityCore:
    """Base of :class:`~server.race.authority.RaceAuthority` (see there)."""
    """See the module docstring. One instance per process, over one store."""

    def __init__(self, store: Store, config: RaceConfig | None = None) -> None:
        self.store = store
        self.config = config or RaceConfig()
        self._games: OrderedDict[tuple[str, str], Game] = OrderedDict()
        self._known_racers: dict[tuple[str, str], tuple[RacerRecord, int]] = {}
        """The racer records (and revs) this process last wrote, beside their
        cached games: a move decided on them needs no read (:meth:`Play.move`)."""
        self._known_rooms: OrderedDict[str, tuple[RoomRecord, int]] = OrderedDict()
        """The last room record (and rev) this process read of each room."""
        self._rules: dict[str, RuleSet] = {}
        self._fresh_cards: dict[str, int] = {}
        self.solver: SolverPool | None = None
        """Process pool for solver jobs (hints, winnable deals, par); set by the app."""
        self.race_over_hooks: list[Callable[[RoomRecord, list[RacerView]], Awaitable[None]]] = []
        """Called once per race, by the process that ended it (leaderboards feed)."""

    # -- helpers ---------------------------------------------------------------

    def _ruleset(self, room: RoomRecord) -> RuleSet:
        rules = self._rules.get(room.id)
        if rules is None:
            rules = self._rules[room.id] = RuleSet.from_json(room.rules)
            _trim(self._rules)
        return rules

    def _fresh(self, room: RoomRecord, racer_id: str) -> RacerRecord:
        # every racer of a room starts from the same deal: deal it once per room
        # (room views list every racer; dealing per racer dominated a welcome)
        cards = self._fresh_cards.get(room.id)
        if cards is None:
            game = new_game(self._ruleset(room), room.deal_number,
                            bytes.fromhex(room.redeal_key))
            cards = self._fresh_cards[room.id] = game.foundation_cards
            _trim(self._fresh_cards)
        return RacerRecord(id=racer_id, foundation_cards=cards)

    def _replay(self, room: RoomRecord, log: list[Any]) -> Game:
        """The game of ``log`` (``[move text, race-clock ms]`` pairs) on the room's deal."""
        return replay(self._ruleset(room), room.deal_number, bytes.fromhex(room.redeal_key),
                      [Move.from_text(text) for text, _ in log])

    def _game(self, room: RoomRecord, racer: RacerRecord) -> Game:
        key = (room.id, racer.id)
        game = self._games.get(key)
        if game is not None and len(game.log) == racer.version:
            self._games.move_to_end(key)
            return game
        game = self._replay(room, racer.log)
        if not racer.final:  # a final game only serves views now: not worth a cache slot
            self._remember(key, game)
        return game

    def _remember(self, key: tuple[str, str], game: Game,
                  written: tuple[RacerRecord, int] | None = None) -> None:
        """Cache ``game`` (and the racer record ``written`` with its rev, or forget
        the one known); the least recently used beyond :data:`_GAME_CACHE` go."""
        self._games[key] = game
        self._games.move_to_end(key)
        if written is None:
            self._known_racers.pop(key, None)
        else:
            self._known_racers[key] = written
        while len(self._games) > _GAME_CACHE:
            old, _ = self._games.popitem(last=False)
            self._known_racers.pop(old, None)

    def _forget(self, key: tuple[str, str]) -> None:
        """Drop the cached game and record of a racer whose result is final: no
        move will need them (a view rebuilds the game from the log). Finished
        games otherwise filled the cache: a 12-minute load run reached 4,096
        games per process, most of them over, and the server's RSS doubled."""
        self._games.pop(key, None)
        self._known_racers.pop(key, None)

    def _saw_room(self, room: RoomRecord, rev: int) -> None:
        """Remember the room record read at ``rev`` (the newest one wins)."""
        known = self._known_rooms.get(room.id)
        if known is None or known[1] <= rev:
            self._known_rooms[room.id] = (room, rev)
            self._known_rooms.move_to_end(room.id)
            while len(self._known_rooms) > _GAME_CACHE:
                self._known_rooms.popitem(last=False)

    @staticmethod
    def _clock(room: RoomRecord, now: int) -> int | None:
        if room.start_at_ms is None or room.state in ("waiting", "countdown") \
                or (room.state == "closed" and room.ended_ms is None):  # closed unstarted
            return None
        end = room.ended_ms if room.ended_ms is not None else now
        return max(0, min(end - room.start_at_ms, room.time_limit_ms))

    @staticmethod
    def _status(room: RoomRecord, racer: RacerRecord) -> Any:
        if racer.status == "waiting" and room.state in ("racing", "over"):
            return "playing"
        return racer.status

    def _racer_view(self, room: RoomRecord, entry: RosterEntry,
                    racer: RacerRecord | None) -> RacerView:
        racer = racer or self._fresh(room, entry.id)
        return RacerView(
            id=entry.id, name=entry.name, join_order=entry.join_order, ready=entry.ready,
            status=self._status(room, racer), foundation_cards=racer.foundation_cards,
            moves=racer.version, redeals_used=racer.redeals_used, merci_used=racer.merci_used,
            reach_time_ms=racer.reach_time_ms, finished_ms=racer.finished_ms, final=racer.final,
        )

    async def _racers(self, room: RoomRecord) -> dict[str, RacerRecord]:
        stored = await self.store.get_racers(room.id)
        return {rid: RacerRecord.model_validate(v.data) for rid, v in stored.items()}

    async def _room_view(self, room: RoomRecord, now: int,
                         racers: dict[str, RacerRecord] | None = None) -> RoomView:
        if racers is None:
            racers = await self._racers(room) if room.state != "waiting" else {}
        starts_in = None
        if room.state == "countdown" and room.start_at_ms is not None:
            starts_in = max(0, room.start_at_ms - now)
        return RoomView(
            id=room.id, code=room.code, rules=rules_view(self._ruleset(room)),
            deal_number=room.deal_number, state=room.state, capacity=room.capacity,
            time_limit_ms=room.time_limit_ms, visibility=room.visibility,
            countdown_ms=room.countdown_ms, starts_in_ms=starts_in,
            race_clock_ms=self._clock(room, now),
            racers=[self._racer_view(room, e, racers.get(e.id)) for e in room.roster],
            seq=await self.store.last_seq(room.id),
            hints=room.hints, winnable_only=room.winnable_only,
        )

    def _game_view(self, room: RoomRecord, racer: RacerRecord, game: Game, now: int) -> GameView:
        return self._game_view_as(racer, game, self._status(room, racer),
                                  room.state == "racing" and not racer.final,
                                  self._clock(room, now))

    @staticmethod
    def _game_view_as(racer: RacerRecord, game: Game, status: Any, active: bool,
                      clock: int | None) -> GameView:
        """The game view with the racer's ``status``, whether the racer may move
        (``active``: legal moves and undo listed) and the race clock (ms)."""
        rules = game.rules
        pos = game.position
        return GameView(
            racer=racer.id, version=racer.version, status=status,
            final=racer.final, position=position_to_json(pos),
            legal_moves=[str(m) for m in game.legal_moves()] if active else [],
            can_undo=active and game.can_undo, redeals_left=rules.redeals - pos.redeals_used,
            merci_available=rules.merci and not pos.merci_used, moves=racer.version,
            reach_time_ms=racer.reach_time_ms, race_clock_ms=clock,
        )

    @staticmethod
    def _standings(room: RoomRecord, views: list[RacerView]) -> Standings:
        """The ranked table (rules.md, "Race ranking"), with ``to_par`` when the
        room knows its par; ``final`` once the race is over. One place for the
        ``race_over`` event and ``GET …/standings``, so both always agree."""
        table = rank_standings(views)
        if room.par is not None:
            table = [s.model_copy(update={"to_par": room.par - s.foundation_cards})
                     for s in table]
        final = room.state == "over" or (room.state == "closed" and room.ended_ms is not None)
        return Standings(final=final, standings=table, par=room.par)

    # -- the service clock and room events (the transport's only way to them) -----

    async def now_ms(self) -> int:
        """The service clock: Unix time in ms, the same in every process."""
        return await self.store.now_ms()

    async def last_seq(self, room_id: str) -> int:
        """The room's last event number (0: none yet)."""
        return await self.store.last_seq(room_id)

    async def events_since(self, room_id: str, since: int) -> list[dict[str, Any]]:
        """The room's logged events with ``seq > since``, in order.

        :raises EventsTooOld: some were trimmed (send a snapshot instead).
        """
        return await self.store.events_since(room_id, since)

    def subscribe(self, room_id: str, since: int) -> AsyncIterator[dict[str, Any]]:
        """Every room event with ``seq > since``, then live ones, none lost or
        repeated (the store's log; ``server.api.hub`` feeds the sockets from it).

        :raises EventsTooOld, StoreUnavailable:
        """
        return self.store.subscribe(room_id, since)

    # -- loading, timers ---------------------------------------------------------

    async def _resolve(self, ref: str) -> str:
        if len(ref) <= 64 and is_code(ref):
            found = await self.store.find_room_by_code(ref.upper())
            if found is not None:
                return found
        return ref

    async def _load(self, ref: str) -> tuple[RoomRecord, int, int]:
        """The room (timers advanced), its rev and the clock now.

        :raises RoomNotFound:
        """
        if not ref or len(ref) > 64:
            raise err.RoomNotFound(f"no room {ref[:64]!r}")
        room_id = await self._resolve(ref)
        for _ in range(_RETRIES):
            got = await self.store.get_room(room_id)
            if got is None:
                raise err.RoomNotFound(f"no room {ref!r}", {"room": ref})
            room = RoomRecord.model_validate(got.data)
            self._saw_room(room, got.rev)
            now = await self.store.now_ms()
            if room.state == "countdown" and room.start_at_ms is not None \
                    and now >= room.start_at_ms:
                await self._start_race(room, got.rev)
                continue
            if room.state == "racing" and room.start_at_ms is not None \
                    and now - room.start_at_ms >= room.time_limit_ms:
                await self._end_race(room.id)
                continue
            return room, got.rev, now
        raise err.RoomNotFound(f"room {ref!r} is too busy; try again")

    @staticmethod
    def _deadline(room: RoomRecord) -> int | None:
        """The room's pending timer (store clock): the countdown end, the time
        limit, or ``None`` (waiting, over, closed)."""
        if room.start_at_ms is None:
            return None
        if room.state == "countdown":
            return room.start_at_ms
        if room.state == "racing":
            return room.start_at_ms + room.time_limit_ms
        return None

    async def _start_race(self, room: RoomRecord, rev: int) -> None:
        new = room.model_copy(update={"state": "racing"})
        deadline = self._deadline(new)
        assert deadline is not None
        await self.store.set_timer(room.id, deadline)  # before the write: never missing
        try:
            await self.store.save_room(room.id, new.model_dump(mode="json"), rev, [
                StartedEvent(deal_number=room.deal_number).logged()])
        except VersionConflict:
            return
        ttl = room.time_limit_ms + self.config.ended_ttl_ms + 60_000
        await self.store.expire_room(room.id, ttl)
        await self._off_lobby(room)

    async def _off_lobby(self, room: RoomRecord) -> None:
        """Take a room that now races, or is closed, off the lobby index: it
        never waits for racers again (:meth:`Store.add_to_lobby`)."""
        if room.visibility == "public":
            await self.store.remove_from_lobby([room.id])

    async def _end_race(self, room_id: str) -> None:
        """Time out unfinished racers at the time limit, then end the race once.

        Idempotent: only the writer whose compare-and-set turns the room to
        ``over`` publishes ``race_over``.
        """
        for _ in range(_RETRIES):
            got = await self.store.get_room(room_id)
            if got is None:
                return
            room = RoomRecord.model_validate(got.data)
            if room.state != "racing" or room.start_at_ms is None:
                return
            now = await self.store.now_ms()
            timed_out = now - room.start_at_ms >= room.time_limit_ms
            racers = await self._racers(room)
            for entry in room.roster:
                racer = racers.get(entry.id)
                if racer is None or not racer.final:
                    if not timed_out:
                        return  # not every result is final yet
                    racers[entry.id] = await self._time_out(room, entry.id, now)
            ended = min(now, room.start_at_ms + room.time_limit_ms)
            over = room.model_copy(update={"state": "over", "ended_ms": ended})
            views = [self._racer_view(over, e, racers.get(e.id)) for e in room.roster]
            table = self._standings(over, views)
            event = RaceOverEvent(race_clock_ms=self._clock(over, now),
                                  **table.model_dump()).logged()
            try:
                await self.store.save_room(room_id, over.model_dump(mode="json"), got.rev, [event])
            except VersionConflict:
                continue
            await self.store.clear_timer(room_id)
            await self.store.expire_room(room_id, self.config.ended_ttl_ms)
            for entry in room.roster:
                self._forget((room_id, entry.id))
            await self._race_over_hooks(over, views)
            return

    async def _race_over_hooks(self, room: RoomRecord, views: list[RacerView]) -> None:
        for hook in self.race_over_hooks:
            try:
                await hook(room, views)
            except Exception as exc:  # a feed must never undo or block the race end
                log.error("race-over hook failed: %s", type(exc).__name__, exc_info=exc)

    async def _time_out(self, room: RoomRecord, racer_id: str, now: int,
                        at_ms: int | None = None) -> RacerRecord:
        """Make the racer's result final as ``timed_out`` at race-clock ``at_ms``
        (default: the time limit; the host closing the race: the close time),
        or at the racer's last move if that is later: a move another process
        accepted while the close was being written (its clock read a few ms
        after the close's) never lies after the result it belongs to."""
        for _ in range(_RETRIES):
            got = await self.store.get_racer(room.id, racer_id)
            racer = RacerRecord.model_validate(got.data) if got else self._fresh(room, racer_id)
            if racer.final:
                return racer
            at = room.time_limit_ms if at_ms is None else at_ms
            if racer.log:
                at = max(at, int(racer.log[-1][1]))
            done = racer.model_copy(update={
                "status": "timed_out", "final": True, "finished_ms": at})
            event = FinishedEvent(race_clock_ms=at, racer=racer_id, status="timed_out").logged()
            try:
                await self.store.save_racer(room.id, racer_id, done.model_dump(mode="json"),
                                            got.rev if got else 0, events=[event])
            except VersionConflict:
                continue
            return done
        raise VersionConflict(f"racer {racer_id}: too many concurrent writes")

    async def tick(self) -> int:
        """Advance the timers that are due (countdown end, time limit); returns
        how many rooms were looked at. Only rooms with a due timer in the
        store's index are read (:meth:`Store.due_timers`), so idle, waiting and
        finished rooms cost nothing. Safe to run in every process at once."""
        now = await self.store.now_ms()
        due = await self.store.due_timers(now, _SWEEP_LIMIT)
        failed: BaseException | None = None
        # rooms in batches, concurrently: one store round trip per room one after
        # another took seconds on a busy event loop (countdowns ended late); each
        # batch also lets sockets in between (the memory store never suspends)
        for at in range(0, len(due), _SWEEP_BATCH):
            results = await asyncio.gather(
                *(self._visit(room_id, deadline)
                  for room_id, deadline in due[at:at + _SWEEP_BATCH]),
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
            room, _, _ = await self._load(room_id)
        except err.RoomNotFound:
            if await self.store.get_room(room_id) is None:  # gone (not just busy)
                await self.store.clear_timer(room_id, at)
            return
        deadline = self._deadline(room)
        if deadline is None:
            await self.store.clear_timer(room_id, at)
        elif deadline != at:
            await self.store.set_timer(room_id, deadline)

    def _authorize(self, room: RoomRecord, racer_id: str, token: str | None) -> RosterEntry:
        if not token:
            raise err.AuthMissing("this call needs the racer's token (Authorization: Bearer)")
        entry = room.entry(racer_id)
        if entry is None:
            raise err.RacerNotFound(f"no racer {racer_id!r} in this room", {"racer": racer_id})
        if token_matches(token, entry.token_digest):
            return entry
        if any(token_matches(token, e.token_digest) for e in room.roster) \
                or token_matches(token, room.host_digest):
            raise err.AuthForbidden("this token belongs to someone else; one racer cannot "
                                    "act for another")
        raise err.AuthInvalidToken("the token is not valid for this racer")

    def _authorize_host(self, room: RoomRecord, token: str | None) -> None:
        if not token:
            raise err.AuthMissing("this call needs the host token (Authorization: Bearer)")
        if not token_matches(token, room.host_digest):
            raise err.AuthInvalidToken("the token is not this room's host token")

    async def _finish(self, ref: str, racer_id: str,
                      status: Literal["resigned", "left"]) -> RacerView:
        for _ in range(_RETRIES):
            room, _, now = await self._load(ref)
            self._check_racing(room)
            got = await self.store.get_racer(room.id, racer_id)
            racer = RacerRecord.model_validate(got.data) if got else self._fresh(room, racer_id)
            if racer.final:
                raise err.RacerFinished(f"the result is already final ({racer.status})")
            clock = self._clock(room, now) or 0
            done = racer.model_copy(update={"status": status, "final": True,
                                            "finished_ms": clock})
            events = [FinishedEvent(race_clock_ms=self._clock(room, now), racer=racer_id,
                                    status=status).logged()]
            if status == "left":
                events.insert(0, LeftEvent(race_clock_ms=self._clock(room, now),
                                           racer=racer_id).logged())
            try:
                await self.store.save_racer(room.id, racer_id, done.model_dump(mode="json"),
                                            got.rev if got else 0, events=events)
            except VersionConflict:
                continue
            self._forget((room.id, racer_id))
            await self._end_race(room.id)
            entry = room.entry(racer_id)
            assert entry is not None
            return self._racer_view(room, entry, done)
        raise VersionConflict("racer too busy")

    @staticmethod
    def _check_racing(room: RoomRecord) -> None:
        if room.state in ("waiting", "countdown"):
            raise err.RoomNotRacing(f"the race has not started (room is {room.state})",
                                    {"state": room.state})
        if room.state in ("over", "closed"):
            raise err.RoomOver(f"the race is {room.state}", {"state": room.state})

    async def _racer_and_game(self, room: RoomRecord,
                              racer_id: str) -> tuple[RacerRecord, int, Game]:
        got = await self.store.get_racer(room.id, racer_id)
        racer = RacerRecord.model_validate(got.data) if got else self._fresh(room, racer_id)
        return racer, (got.rev if got else 0), self._game(room, racer)
