"""Game actions of the race authority: game state, moves, standings, replays."""

from __future__ import annotations

from typing import Any

from server.rules import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
)
from server.store.base import Record, VersionConflict, Versioned

from . import errors as err
from .core import AuthorityCore, rules_view
from .events import FinishedEvent, ProgressEvent
from .state import RacerRecord, RoomRecord
from .views import (
    Ack,
    GameView,
    RacerLog,
    Replay,
    ReplayMove,
    Standings,
)

__all__ = ["Play"]

_RETRIES = 16


def _result(game: Game) -> tuple[Any, bool]:
    """The racer's status after ``game`` (``playing``, ``won`` or ``stuck``) and
    whether the result is final: won, or stuck with no undo to try again
    (rules.md, "Race ranking")."""
    state = game.status
    return ("playing" if state == "playing" else state), \
        state == "won" or (state == "stuck" and not game.rules.undo)


class Play(AuthorityCore):
    """Moves and results; :meth:`move` checks in the order of :mod:`server.race.authority`."""

    async def game(self, ref: str, racer_id: str) -> GameView:
        """A racer's full game state (public: spectators may look).

        :raises RoomNotFound, RacerNotFound:
        """
        room, _, now = await self._load(ref)
        if room.entry(racer_id) is None:
            raise err.RacerNotFound(f"no racer {racer_id!r} in this room")
        racer, _, game = await self._racer_and_game(room, racer_id)
        return self._game_view(room, racer, game, now)

    async def move(self, ref: str, racer_id: str, token: str | None, move: Any,
                   expected_version: int, client_move_id: str) -> Ack:
        """Apply one move (text or JSON form, undo and autoplay included).

        Idempotent on ``client_move_id``: a repeat returns the first answer and
        applies nothing. Checks in the module's order.

        One store round trip in the usual case: when this process wrote the
        racer's last move and knows the room record, the move is decided on
        those and written with a compare-and-set on both revs
        (``Store.save_racer(…, room_rev=…)``); anything else — a changed room or
        racer, a repeated id, a due timer, an illegal move — takes the general
        path, which reads them first (:meth:`_load_move`), so every answer is
        the one the checks in order give.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotRacing, RoomOver, RacerFinished,
            MoveStaleVersion (details.game: the current game), MoveInvalid, MoveIllegal:
        """
        if not token:
            raise err.AuthMissing("a move needs the racer's token")
        known = await self._known_move(ref, racer_id, expected_version)
        for _ in range(_RETRIES):
            if known is not None:
                room, room_rev, now, racer, rev = known
                self._authorize(room, racer_id, token)
                game = self._game(room, racer)
            else:
                room, now, first, got = await self._load_move(ref, racer_id, client_move_id)
                self._authorize(room, racer_id, token)
                if first is not None:
                    return await self._first_answer(room, racer_id, client_move_id, first, got)
                self._check_racing(room)
                room_rev = None
                racer, rev, game = self._racer_and_game_of(room, racer_id, got)
                if racer.final or expected_version != racer.version:
                    # the same move may have been applied (and may have ended the
                    # game) since the answer check above: answer it as the first time
                    first = await self.store.get_answer(room.id, racer_id, client_move_id)
                    if first is not None:
                        return await self._first_answer(room, racer_id, client_move_id,
                                                        first, got)
                if racer.final:
                    raise err.RacerFinished(f"the result is final ({racer.status})",
                                            {"status": racer.status})
                if expected_version != racer.version:
                    raise err.MoveStaleVersion(
                        f"expected version {expected_version}, the game is at {racer.version}",
                        {"game": self._game_view(room, racer, game, now).model_dump(mode="json")})
            assert room.start_at_ms is not None
            clock = now - room.start_at_ms
            try:
                parsed = Move.from_json(move)
                after = game.play(parsed)
            except (InvalidMoveError, IllegalMoveError) as exc:
                if known is not None:
                    # refusals take the general path: a repeated client move id
                    # is answered before the rules are checked (docs/protocol.md)
                    known = None
                    continue
                if isinstance(exc, InvalidMoveError):
                    raise err.MoveInvalid(str(exc), {"move": move}) from None
                raise err.MoveIllegal(exc.reason, {"move": str(parsed)}) from None
            new = self._after(racer, after, clock)
            view = self._game_view(room, new, after, now)
            applied = [str(m) for m in after.log[len(game.log):]]
            ack = Ack.model_construct(client_move_id=client_move_id, version=new.version,
                                      race_clock_ms=clock, applied=applied, game=view)
            events = [ProgressEvent(race_clock_ms=self._clock(room, now), racer=racer_id,
                                    foundation_cards=new.foundation_cards, moves=new.version,
                                    redeals_used=new.redeals_used, merci_used=new.merci_used,
                                    status=new.status, reach_time_ms=new.reach_time_ms).logged()]
            if new.final:
                events.append(FinishedEvent(race_clock_ms=self._clock(room, now), racer=racer_id,
                                            status=new.status).logged())
            try:
                new_rev, _ = await self.store.save_racer(
                    room.id, racer_id, new.model_dump(mode="json"), rev,
                    answer=(client_move_id, {"version": new.version, "applied": len(applied),
                                             "reach_time_ms": new.reach_time_ms}),
                    events=events,
                    room_rev=room_rev)
            except VersionConflict:
                known = None  # something changed (or the id was answered): read it all
                self._known_racers.pop((room.id, racer_id), None)
                continue
            if new.final:
                self._forget((room.id, racer_id))
                await self._end_race(room.id)
            else:
                self._remember((room.id, racer_id), after, (new, new_rev))
            return ack
        raise VersionConflict("racer too busy")

    async def _known_move(self, ref: str, racer_id: str, expected_version: int
                          ) -> tuple[RoomRecord, int, int, RacerRecord, int] | None:
        """``(room, room rev, now, racer, racer rev)`` for a move decided without
        reading the store, or ``None`` when the general path must read: the room
        or the racer's last write unknown here, the race not running, a timer
        due, the result final, or ``expected_version`` not the known one."""
        known_room = self._known_rooms.get(ref)
        known_racer = self._known_racers.get((ref, racer_id))
        if known_room is None or known_racer is None:
            return None
        room, room_rev = known_room
        racer, rev = known_racer
        if room.state != "racing" or room.start_at_ms is None or racer.final \
                or racer.version != expected_version:
            return None
        now = await self.store.now_ms()
        if now - room.start_at_ms >= room.time_limit_ms:
            return None
        return room, room_rev, now, racer, rev

    async def _load_move(self, ref: str, racer_id: str, client_move_id: str
                         ) -> tuple[RoomRecord, int, Record | None, Versioned | None]:
        """:meth:`_load` for a move: the room (timers advanced), the clock now, the
        stored answer to ``client_move_id`` and the racer's record, read in one
        store call (:meth:`~server.store.base.Store.get_move_state`).

        :raises RoomNotFound:
        """
        if not ref or len(ref) > 64:
            raise err.RoomNotFound(f"no room {ref[:64]!r}")
        room_id = await self._resolve(ref)
        got, first, racer = await self.store.get_move_state(room_id, racer_id, client_move_id)
        if got is None:
            raise err.RoomNotFound(f"no room {ref!r}", {"room": ref})
        room = RoomRecord.model_validate(got.data)
        self._saw_room(room, got.rev)
        now = await self.store.now_ms()
        due = room.start_at_ms is not None and (
            (room.state == "countdown" and now >= room.start_at_ms)
            or (room.state == "racing" and now - room.start_at_ms >= room.time_limit_ms))
        if due:  # a timer to advance first: the general path, then read again
            room, _, now = await self._load(room_id)
            first = await self.store.get_answer(room_id, racer_id, client_move_id)
            racer = await self.store.get_racer(room_id, racer_id)
        return room, now, first, racer

    def _racer_and_game_of(self, room: RoomRecord, racer_id: str,
                           got: Versioned | None) -> tuple[RacerRecord, int, Game]:
        """The racer's record (as read) and game; a fresh one if never saved."""
        racer = RacerRecord.model_validate(got.data) if got else self._fresh(room, racer_id)
        return racer, (got.rev if got else 0), self._game(room, racer)

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
            got = await self.store.get_racer(room.id, racer_id)
            if got is None:  # the room vanished meanwhile
                raise err.RoomNotFound(f"no room {room.id!r}", {"room": room.id})
        log = got.data["log"][:version]
        game = self._replay(room, log)
        clock = log[-1][1]
        status, final = _result(game)
        then = RacerRecord.model_construct(id=racer_id, status=status, log=log, final=final,
                                           reach_time_ms=stored["reach_time_ms"])
        return Ack.model_construct(
            client_move_id=client_move_id, version=version, race_clock_ms=clock,
            applied=[text for text, _ in log[version - count:]],
            game=self._game_view_as(then, game, status, not final, clock))

    def _after(self, racer: RacerRecord, game: Game, clock: int) -> RacerRecord:
        """The racer's record once ``game`` (``racer``'s game plus the entries a
        move became, at race clock ``clock`` ms) is played. A foundation count
        that changed makes ``clock`` the reach time (rules.md, "Race ranking")."""
        pos = game.position
        log = [*racer.log, *((str(m), clock) for m in game.log[racer.version:])]
        reach = racer.reach_time_ms
        if pos.foundation_cards != racer.foundation_cards:
            reach = clock
        status, final = _result(game)
        return RacerRecord.model_construct(  # built from checked values: no re-validation
            id=racer.id, status=status, log=log, foundation_cards=pos.foundation_cards,
            redeals_used=pos.redeals_used, merci_used=pos.merci_used, reach_time_ms=reach,
            finished_ms=clock if final else None, final=final,
        )

    # -- results -----------------------------------------------------------------

    async def standings(self, ref: str) -> Standings:
        """Ranked standings (rules.md, "Race ranking"); final once the race is over.

        :raises RoomNotFound:
        """
        room, _, _now = await self._load(ref)
        racers = await self._racers(room)
        views = [self._racer_view(room, e, racers.get(e.id)) for e in room.roster]
        return self._standings(room, views)

    async def replay(self, ref: str, racer_id: str) -> Replay:
        """A racer's move log with race-clock times; the redeal key once the race
        is over (or closed).

        :raises RoomNotFound, RacerNotFound:
        """
        room, _, _now = await self._load(ref)
        entry = room.entry(racer_id)
        if entry is None:
            raise err.RacerNotFound(f"no racer {racer_id!r} in this room")
        racer, _, _ = await self._racer_and_game(room, racer_id)
        revealed = room.state in ("over", "closed")
        return Replay(
            rules=rules_view(self._ruleset(room)), deal_number=room.deal_number,
            redeal_key=room.redeal_key if revealed else None, player=entry.name,
            moves=[ReplayMove(move=m, race_clock_ms=t, version=i)
                   for i, (m, t) in enumerate(racer.log, 1)],
            result=self._racer_view(room, entry, racer),
        )

    async def racer_log(self, ref: str, racer: str) -> RacerLog:
        """The game of ``racer`` (id, or name case-insensitively) in room ``ref``
        as a log for analysis; a running game ends at the race clock now.

        :raises RoomNotFound, RacerNotFound:
        """
        room, _, now = await self._load(ref)
        entry = room.entry(racer) or next(
            (e for e in room.roster if e.name.casefold() == racer.casefold()), None)
        if entry is None:
            names = ", ".join(e.name for e in room.roster) or "nobody"
            raise err.RacerNotFound(f"no racer {racer!r} in room {room.code} (racers: {names})",
                                    {"racer": racer})
        got = await self.store.get_racer(room.id, entry.id)
        record = RacerRecord.model_validate(got.data) if got else RacerRecord(id=entry.id)
        clock = self._clock(room, now) or 0
        finished = record.finished_ms if record.final else clock
        moves = [(str(m), int(t)) for m, t in record.log]
        return RacerLog(
            room_id=room.id, rules=self._ruleset(room), deal_number=room.deal_number,
            redeal_key=bytes.fromhex(room.redeal_key), moves=moves, name=entry.name,
            join_order=entry.join_order, status=self._status(room, record),
            finished_ms=max(finished or 0, moves[-1][1] if moves else 0))
