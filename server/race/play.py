"""Game actions of the race authority: game state, moves, standings, replays.

:meth:`Play.move` applies the command :class:`~.commands.PlayMove` through the
one decide-and-apply loop (:mod:`server.race.apply`); its decision
(:func:`~server.race.decide.decide_play`) checks in the authority's fixed
order (auth → room → answer → state → version → rules), and the rules step
is :func:`~server.race.decide.decide_move`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from server.rules import Move
from server.store.base import LiveStore, Record

from . import errors as err
from . import present, visibility
from .apply import Applier
from .cache import RaceCache
from .commands import PlayMove
from .decide import result_of
from .outcome import FirstAnswer
from .racer_log import RacerLog
from .rooms import Rooms
from .state import RacerRecord, RoomRecord
from .views import Ack, GameView, Replay, ReplayMove, Standings

__all__ = ["LogsFor", "Play"]


class Play:
    """Moves and results over the store, the cache, room reads and timers."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms,
                 applier: Applier) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.applier = applier

    def _game_view(self, room: RoomRecord, racer: RacerRecord, game: Any, now: int) -> GameView:
        return present.game_view(racer, game, present.racer_status(room, racer),
                                 room.state == "racing" and not racer.final,
                                 present.race_clock(room, now))

    async def game(self, ref: str, racer_id: str, token: str | None = None) -> GameView:
        """A racer's full game state, as ``token`` may see it
        (:mod:`server.race.visibility`): the racer's own board live; a rival's
        hidden while the viewer races; a spectator's, the host's or a finished
        racer's ``spectator_delay_ms`` behind the race clock, live in open-boards rooms;
        every board once the race is over, none before the start.

        :raises RoomNotFound, RacerNotFound, AuthInvalidToken, HiddenUntilStart,
            HiddenUntilOver:
        """
        room, _, now = await self.applier.read(ref)
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
        """Apply one move (text or JSON form, undo and autoplay included): the
        command :class:`~.commands.PlayMove`, decided by
        :func:`~server.race.decide.decide_play` (checks in the module's order).

        Idempotent on ``client_move_id``: a repeat returns the first answer and
        applies nothing. One store round trip in the usual case: the applier
        loads the move from the records this process wrote last, and the write
        checks the room's rev too (:mod:`server.race.apply`).

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotRacing, RoomOver, RacerFinished,
            MoveStaleVersion (details.game: the current game), MoveInvalid, MoveIllegal:
        """
        command = PlayMove(ref, racer_id, token, move, expected_version, client_move_id)
        try:
            done = await self.applier.apply(command)
        except (err.RacerFinished, err.MoveStaleVersion):
            # the same move may have been applied (and may have ended the game)
            # since the answer was read: answer it as the first time
            if not token or not ref or len(ref) > 64:
                raise
            room_id = await self.rooms.resolve(ref)
            first = await self.store.racers.get_answer(room_id, racer_id, client_move_id)
            if first is None:
                raise
            room, _, _ = await self.applier.read(room_id)
            return await self._first_answer(room, racer_id, client_move_id, first, None)
        reply = done.reply
        if isinstance(reply, FirstAnswer):
            return await self._first_answer(reply.room, racer_id, client_move_id, reply.stored,
                                            reply.racer_log)
        ack: Ack = reply
        return ack

    async def _first_answer(self, room: RoomRecord, racer_id: str, client_move_id: str,
                            stored: Record, log: list[Any] | None) -> Ack:
        """The first answer to ``client_move_id``, rebuilt from what the store keeps
        of it: ``{"version", "applied", "reach_time_ms"}`` — the version the move
        made, how many log entries it became, the reach time (ms) then. About
        50 bytes instead of the ~1.5 KB ack with its game view, kept for the
        room's life (docs/protocol.md: a repeat gets the first answer).

        The game then is the first ``version`` entries of the racer's log, which
        only grows (an undo is an entry too); those entries carry the move's
        race clock; the race was running, so the view is an active racer's
        unless that move made the result final. ``log`` is the racer's log as
        read; read again when it predates the move. A whole ack, as servers
        before the compact form stored it, is returned as it is.
        """
        if "game" in stored:
            return Ack.model_validate(stored)
        version, count = stored["version"], stored["applied"]
        if log is None or len(log) < version:
            got = await self.store.racers.get_racer(room.id, racer_id)
            if got is None:  # the room vanished meanwhile
                raise err.RoomNotFound(f"no room {room.id!r}", {"room": room.id})
            log = got.data["log"]
        log = log[:version]
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

    async def standings(self, ref: str, token: str | None = None) -> Standings:
        """Ranked standings (rules.md, "Race ranking"); final once the race is over;
        ``token``: a racer's or the host's (only a challenge attempt's racer needs
        theirs: :mod:`server.race.visibility`, "Challenge attempts").

        :raises RoomNotFound, AuthInvalidToken, ChallengeHidden:
        """
        room, _, _now = await self.applier.read(ref)
        visibility.check_room(await self.rooms.seen(room, token))
        racers = await self.rooms.racers(room)
        return present.standings(room, self.rooms.racer_views(room, racers))

    async def replay(self, ref: str, racer_id: str, token: str | None = None) -> Replay:
        """A racer's move log with race-clock times, as ``token`` may see it (the
        racer's own at any time; everyone's once the race is over, a finished
        racer's view during it); the redeal key once the race is over (or closed).

        :raises RoomNotFound, RacerNotFound, AuthInvalidToken, HiddenUntilOver:
        """
        room, _, _now = await self.applier.read(ref)
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
        room, _, now = await self.applier.read(ref)
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
