"""Game actions of the race authority: game state, moves, standings, replays.

:meth:`Play.move` checks in the authority's fixed order (auth → room → answer
→ state → version → rules → save → publish, :mod:`server.race.authority`);
:func:`~server.race.decide.decide_move` decides the move itself on every path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from server.errors import VersionConflict
from server.rules import Move
from server.store.base import LiveStore, Record, Versioned

from . import errors as err
from . import journal, present, visibility
from .access import authorize, check_racing
from .cache import RaceCache
from .decide import Accepted, decide_move, result_of
from .events import FinishedEvent, progress_logged
from .rooms import Rooms
from .state import RacerRecord, RoomRecord
from .timers import RETRIES, Timers
from .views import Ack, GameView, RacerLog, Replay, ReplayMove, Standings

__all__ = ["LogsFor", "Play"]

_Known = tuple[RoomRecord, int, int, RacerRecord, int]
"""``(room, room rev, now, racer, racer rev)`` of a move decided without a read."""


class Play:
    """Moves and results over the store, the cache, room reads and timers."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms, timers: Timers) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.timers = timers

    def _game_view(self, room: RoomRecord, racer: RacerRecord, game: Any, now: int) -> GameView:
        return present.game_view(racer, game, present.racer_status(room, racer),
                                 room.state == "racing" and not racer.final,
                                 present.race_clock(room, now))

    async def game(self, ref: str, racer_id: str, token: str | None = None) -> GameView:
        """A racer's full game state, as ``token`` may see it
        (:mod:`server.race.visibility`): the racer's own board live; a rival's
        only once the viewer's result is final; a spectator's (or the host's)
        ``spectator_delay_ms`` behind the race clock, live in open-boards rooms;
        every board once the race is over, none before the start.

        :raises RoomNotFound, RacerNotFound, AuthInvalidToken, HiddenUntilStart,
            HiddenUntilOver:
        """
        room, _, now = await self.timers.load(ref)
        if room.entry(racer_id) is None:
            raise err.RacerNotFound(f"no racer {racer_id!r} in this room")
        answer = visibility.check(room, "board", await self.rooms.seen(room, token, racer_id))
        racer, _, game = await self.rooms.racer_and_game(room, racer_id)
        if answer == "delayed":
            return self._delayed_view(room, racer, now)
        return self._game_view(room, racer, game, now)

    def _delayed_view(self, room: RoomRecord, racer: RacerRecord, now: int) -> GameView:
        """The racer's board as it was ``room.spectator_delay_ms`` ago on the race
        clock: the log entries made by then, never a newer one; nothing to play."""
        clock = present.race_clock(room, now) or 0
        cut = max(0, clock - room.spectator_delay_ms)
        log = [entry for entry in racer.log if entry[1] <= cut]
        game = self.cache.replay(room, [])
        cards, reach = game.foundation_cards, None
        for text, at in log:
            game = game.play(Move.from_text(text)).with_log(())  # linear (Game.with_log)
            if game.foundation_cards != cards:
                cards, reach = game.foundation_cards, at
        status, final = result_of(game)
        if racer.final and racer.finished_ms is not None and racer.finished_ms <= cut:
            status, final = present.racer_status(room, racer), True
        then = RacerRecord.model_construct(
            id=racer.id, status=status, log=log, foundation_cards=cards, final=final,
            reach_time_ms=reach, finished_ms=racer.finished_ms if final else None)
        view = present.game_view(then, game, status, False, cut)
        return view.model_copy(update={"delay_ms": clock - cut})

    async def move(self, ref: str, racer_id: str, token: str | None, move: Any,
                   expected_version: int, client_move_id: str) -> Ack:
        """Apply one move (text or JSON form, undo and autoplay included).

        Idempotent on ``client_move_id``: a repeat returns the first answer and
        applies nothing. Checks in the module's order.

        One store round trip in the usual case: when this process wrote the
        racer's last move and knows the room record, the move is decided on
        those and written with a compare-and-set on both revs
        (``RacerGames.save_racer(…, room_rev=…)``); anything else — a changed room or
        racer, a repeated id, a due timer, a refused move — takes the general
        path, which reads them first (:meth:`_load_move`), so every answer is
        the one the checks in order give. Both decide with ``decide_move``.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotRacing, RoomOver, RacerFinished,
            MoveStaleVersion (details.game: the current game), MoveInvalid, MoveIllegal:
        """
        if not token:
            raise err.AuthMissing("a move needs the racer's token")
        known = await self._known_move(ref, racer_id, expected_version)
        for _ in range(RETRIES):
            if known is not None:
                room, room_rev, now, racer, rev = known
                authorize(room, racer_id, token)
                game = self.cache.game(room, racer)
                room_rev_check: int | None = room_rev
            else:
                room, now, first, got = await self._load_move(ref, racer_id, client_move_id)
                authorize(room, racer_id, token)
                if first is not None:
                    return await self._first_answer(room, racer_id, client_move_id, first, got)
                check_racing(room)
                room_rev_check = None
                racer, rev = self.rooms.racer_of(room, racer_id, got)
                game = self.cache.game(room, racer)
            assert room.start_at_ms is not None
            clock = now - room.start_at_ms
            decision = decide_move(game, racer, move, expected_version, clock)
            if not isinstance(decision, Accepted):
                if known is not None:
                    # refusals take the general path: a repeated client move id
                    # is answered before the rules are checked (docs/protocol.md)
                    known = None
                    continue
                error = decision.error
                if isinstance(error, err.RacerFinished | err.MoveStaleVersion):
                    # the same move may have been applied (and may have ended the
                    # game) since the answer check above: answer it as the first time
                    first = await self.store.racers.get_answer(room.id, racer_id, client_move_id)
                    if first is not None:
                        return await self._first_answer(room, racer_id, client_move_id,
                                                        first, got)
                if isinstance(error, err.MoveStaleVersion):
                    error.details = {"game": self._game_view(room, racer, game, now)
                                     .model_dump(mode="json")}
                raise error
            new, after = decision.racer, decision.game
            version = new.version
            shown = present.race_clock(room, now)
            view = present.game_view(new, after, present.racer_status(room, new),
                                     room.state == "racing" and not new.final, shown)
            ack = present.ack(client_move_id, version, clock, decision.applied, view)
            events = [progress_logged(
                race_clock_ms=shown, racer=racer_id, foundation_cards=new.foundation_cards,
                moves=version, redeals_used=new.redeals_used, merci_used=new.merci_used,
                status=new.status, reach_time_ms=new.reach_time_ms)]
            if new.final:
                events.append(FinishedEvent(race_clock_ms=shown, racer=racer_id,
                                            status=new.status).logged())
            key = (room.id, racer_id)
            log_json = self.cache.log_bytes(key, racer.log, new.log)
            try:
                new_rev, _ = await self.store.racers.save_racer(
                    room.id, racer_id, new.stored(log_json), rev,
                    answer=(client_move_id, {"version": version,
                                             "applied": len(decision.applied),
                                             "reach_time_ms": new.reach_time_ms}),
                    events=events,
                    room_rev=room_rev_check)
            except VersionConflict:
                known = None  # something changed (or the id was answered): read it all
                self.cache.unknown(key)
                continue
            if new.final:
                journal.racer_final(room.id, new)
                self.cache.forget((room.id, racer_id))
                await self.timers.end_race(room.id)
            else:
                self.cache.remember((room.id, racer_id), after, (new, new_rev))
            return ack
        raise VersionConflict("racer too busy")

    async def _known_move(self, ref: str, racer_id: str,
                          expected_version: int) -> _Known | None:
        """``(room, room rev, now, racer, racer rev)`` for a move decided without
        reading the store, or ``None`` when the general path must read: the room
        or the racer's last write unknown here, the race not running, a timer
        due, the result final, or ``expected_version`` not the known one."""
        known_room = self.cache.known_rooms.get(ref)
        known_racer = self.cache.known_racers.get((ref, racer_id))
        if known_room is None or known_racer is None:
            return None
        room, room_rev = known_room
        racer, rev = known_racer
        if room.state != "racing" or room.start_at_ms is None or racer.final \
                or racer.version != expected_version:
            return None
        now = await self.store.clock.now_ms()
        if now - room.start_at_ms >= room.time_limit_ms:
            return None
        return room, room_rev, now, racer, rev

    async def _load_move(self, ref: str, racer_id: str, client_move_id: str
                         ) -> tuple[RoomRecord, int, Record | None, Versioned | None]:
        """:meth:`Timers.load` for a move: the room (timers advanced), the clock
        now, the stored answer to ``client_move_id`` and the racer's record, read
        in one store call (:meth:`~server.store.base.RacerGames.get_move_state`).

        :raises RoomNotFound:
        """
        if not ref or len(ref) > 64:
            raise err.RoomNotFound(f"no room {ref[:64]!r}")
        room_id = await self.rooms.resolve(ref)
        got, first, racer = await self.store.racers.get_move_state(room_id, racer_id,
                                                                   client_move_id)
        if got is None:
            raise err.RoomNotFound(f"no room {ref!r}", {"room": ref})
        room = RoomRecord.model_validate(got.data)
        self.cache.saw_room(room, got.rev)
        now = await self.store.clock.now_ms()
        if self.timers.due(room, now):  # a timer to advance first, then read again
            room, _, now = await self.timers.load(room_id)
            first = await self.store.racers.get_answer(room_id, racer_id, client_move_id)
            racer = await self.store.racers.get_racer(room_id, racer_id)
        return room, now, first, racer

    async def _first_answer(self, room: RoomRecord, racer_id: str, client_move_id: str,
                            stored: Record, got: Versioned | None) -> Ack:
        """The first answer to ``client_move_id``, rebuilt from what the store keeps
        of it: ``{"version", "applied", "reach_time_ms"}`` — the version the move
        made, how many log entries it became, the reach time (ms) then. About
        50 bytes instead of the ~1.5 KB ack with its game view, kept for the
        room's life (docs/protocol.md: a repeat gets the first answer).

        The game then is the first ``version`` entries of the racer's log, which
        only grows (an undo is an entry too); those entries carry the move's
        race clock; the race was running, so the view is an active racer's
        unless that move made the result final. ``got`` is the racer's record
        as read; read again when it predates the move. A whole ack, as servers
        before the compact form stored it, is returned as it is.
        """
        if "game" in stored:
            return Ack.model_validate(stored)
        version, count = stored["version"], stored["applied"]
        if got is None or len(got.data["log"]) < version:
            got = await self.store.racers.get_racer(room.id, racer_id)
            if got is None:  # the room vanished meanwhile
                raise err.RoomNotFound(f"no room {room.id!r}", {"room": room.id})
        log = got.data["log"][:version]
        game = self.cache.replay(room, log)
        clock = log[-1][1]
        status, final = result_of(game)
        then = RacerRecord.model_construct(id=racer_id, status=status, log=log, final=final,
                                           reach_time_ms=stored["reach_time_ms"])
        return Ack.model_construct(
            client_move_id=client_move_id, version=version, race_clock_ms=clock,
            applied=[text for text, _ in log[version - count:]],
            game=present.game_view(then, game, status, not final, clock))

    # -- results -----------------------------------------------------------------

    async def standings(self, ref: str) -> Standings:
        """Ranked standings (rules.md, "Race ranking"); final once the race is over.

        :raises RoomNotFound:
        """
        room, _, _now = await self.timers.load(ref)
        racers = await self.rooms.racers(room)
        return present.standings(room, self.rooms.racer_views(room, racers))

    async def replay(self, ref: str, racer_id: str, token: str | None = None) -> Replay:
        """A racer's move log with race-clock times, as ``token`` may see it (the
        racer's own at any time; everyone's once the race is over, a finished
        racer's view during it); the redeal key once the race is over (or closed).

        :raises RoomNotFound, RacerNotFound, AuthInvalidToken, HiddenUntilOver:
        """
        room, _, _now = await self.timers.load(ref)
        entry = room.entry(racer_id)
        if entry is None:
            raise err.RacerNotFound(f"no racer {racer_id!r} in this room")
        seen = await self.rooms.seen(room, token, racer_id)
        visibility.check(room, "move log", seen)
        racer, _, _ = await self.rooms.racer_and_game(room, racer_id)
        revealed = visibility.access(room, "redeal key", seen) == "yes"
        return Replay(
            rules=present.rules_view(self.cache.ruleset(room)), deal_number=room.deal_number,
            redeal_key=room.redeal_key if revealed else None, player=entry.name,
            moves=[ReplayMove(move=m, race_clock_ms=t, version=i)
                   for i, (m, t) in enumerate(racer.log, 1)],
            result=self.rooms.racer_view(room, entry, racer),
        )

    async def racer_log(self, ref: str, racer: str, token: str | None = None) -> RacerLog:
        """The game of ``racer`` (id, or name case-insensitively) in room ``ref``
        as a log for analysis, as ``token`` may see its move log
        (:mod:`server.race.visibility`); a running game ends at the race clock now.

        :raises RoomNotFound, RacerNotFound, AuthInvalidToken, HiddenUntilOver:
        """
        room, _, now = await self.timers.load(ref)
        entry = room.entry(racer) or next(
            (e for e in room.roster if e.name.casefold() == racer.casefold()), None)
        if entry is None:
            names = ", ".join(e.name for e in room.roster) or "nobody"
            raise err.RacerNotFound(f"no racer {racer!r} in room {room.code} (racers: {names})",
                                    {"racer": racer})
        visibility.check(room, "move log", await self.rooms.seen(room, token, entry.id))
        got = await self.store.racers.get_racer(room.id, entry.id)
        record = RacerRecord.model_validate(got.data) if got else RacerRecord(id=entry.id)
        clock = present.race_clock(room, now) or 0
        finished = record.finished_ms if record.final else clock
        moves = [(str(m), int(t)) for m, t in record.log]
        return RacerLog(
            room_id=room.id, rules=self.cache.ruleset(room), deal_number=room.deal_number,
            redeal_key=bytes.fromhex(room.redeal_key), moves=moves, name=entry.name,
            join_order=entry.join_order, status=present.racer_status(room, record),
            finished_ms=max(finished or 0, moves[-1][1] if moves else 0))


class LogsFor:
    """Racers' logs as one viewer may see them: what ``server.records.head_to_head``
    reads live games through (its ``LiveGames``), bound to ``token``.
    ``racer_log``: :meth:`Play.racer_log`, or the authority's (archived races too)."""

    def __init__(self, racer_log: Callable[[str, str, str | None], Awaitable[RacerLog]],
                 token: str | None) -> None:
        self._racer_log = racer_log
        self._token = token

    async def racer_log(self, room: str, racer: str) -> RacerLog:
        """:meth:`Play.racer_log` for this viewer.

        :raises RoomNotFound, RacerNotFound, AuthInvalidToken, HiddenUntilOver:
        """
        return await self._racer_log(room, racer, self._token)
