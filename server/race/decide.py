"""The one function that decides every room action: ``decide(loaded, command,
config) → Outcome | Refused | Prior | Reload`` — and the move's own rules step,
``(game, racer, move, expected version, race clock) → accepted or refused``.

Pure: no store, no clock, no I/O, no randomness (ids, keys and the clock are
in the command and in :class:`~server.race.outcome.Loaded`). The applier
(:meth:`server.race.apply.Applier.apply`) loads, calls :func:`decide`, writes
the outcome with one compare-and-set and retries on a conflict; every command
goes through it. Every command is checked in the authority's fixed order and
changes nothing when it refuses: shape → the room → credentials, written once
(the command's :class:`~server.race.gate.Gate`), then state → version → rules
in its decision: the commands of rooms are in
:mod:`server.race.decide_room`, those of racers in
:mod:`server.race.decide_racer`, those that make a room in
:mod:`server.race.decide_create`, the move here (docs/protocol.md, "Moves"):

1. the racer's result is not final (``racer/finished``);
2. ``expected_version`` is the game's version (``move/stale_version``);
3. the move parses, text or JSON (``move/invalid``);
4. the rules accept it here (``move/illegal``; rules.md decides).

An accepted move gives the racer's new record: the log grows by the entries
the move became (autoplay expands; undo is an entry), at race clock
``race_clock_ms``; a change of the foundation count makes that time the
reach time (rules.md, "Race ranking"); a won game, or a stuck one where the
room allows no undo, is final.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.rules import MAX_LOG, Game, IllegalMoveError, InvalidMoveError, Move

from . import decide_create as create_
from . import decide_racer as racer_
from . import decide_room as room_
from . import errors as err
from . import present
from .access import check_racing
from .commands import (
    Close,
    Command,
    Countdown,
    Create,
    EndRace,
    FocusLost,
    Forget,
    Join,
    Leave,
    LinkNext,
    OpenRoom,
    PlayMove,
    Ready,
    Rematch,
    RematchSeat,
    Resign,
    SetPar,
    Start,
    TakeQuickSeat,
    Tick,
    TimeOut,
)
from .events import FinishedEvent, progress_logged
from .gate import NO_ROOM, SERVICE, Gate
from .outcome import (
    UNREAD,
    After,
    CheckRaceEnd,
    FirstAnswer,
    Loaded,
    Outcome,
    RacerFinal,
    Refused,
    Reload,
    Result,
)
from .state import RacerRecord, racer_record
from .timers import RaceConfig
from .views import Ack, RacerStatus

__all__ = ["Accepted", "Decision", "Refused", "after_move", "decide", "decide_move",
           "decide_play", "result_of"]


@dataclass(slots=True)
class Accepted:
    """The move is legal: the game and racer record after it, and the log entries
    it became (move texts). Not frozen (a frozen dataclass's ``__init__`` cost 1 %
    of a move): never changed once made."""

    game: Game
    racer: RacerRecord
    applied: list[str]


Decision = Accepted | Refused


def result_of(game: Game) -> tuple[RacerStatus, bool]:
    """The racer's status after ``game`` (``playing``, ``won`` or ``stuck``) and
    whether the result is final: won, or stuck with no undo to try again
    (rules.md, "Race ranking")."""
    state = game.status
    status: RacerStatus = "playing" if state == "playing" else state
    return status, state == "won" or (state == "stuck" and not game.rules.undo)


def after_move(racer: RacerRecord, game: Game, clock: int,
               texts: list[str] | None = None) -> RacerRecord:
    """The racer's record once ``game`` (``racer``'s game plus the entries a move
    became, at race clock ``clock`` ms) is played; ``texts``: those entries'
    texts when known (``str`` of each)."""
    pos = game.position
    if texts is None:
        texts = [str(m) for m in game.log[racer.version:]]
    log = [*racer.log, *[(text, clock) for text in texts]]
    reach = racer.reach_time_ms
    if pos.foundation_cards != racer.foundation_cards:
        reach = clock
    status, final = result_of(game)
    return racer_record(  # built from checked values: no re-validation
        id=racer.id, status=status, log=log, foundation_cards=pos.foundation_cards,
        redeals_used=pos.redeals_used, merci_used=pos.merci_used, reach_time_ms=reach,
        finished_ms=clock if final else None, final=final,
        focus_losses=racer.focus_losses, focus_last_ms=racer.focus_last_ms,
    )


def decide_move(game: Game, racer: RacerRecord, move: Any, expected_version: int,
                race_clock_ms: int) -> Decision:
    """Decide ``move`` (text like ``"3f"`` or its JSON form) for ``racer``, whose
    game is ``game``, at race clock ``race_clock_ms`` (module docstring).

    Never raises for a bad move: the refusal is the answer.
    """
    if racer.final:
        return Refused(err.RacerFinished(f"the result is final ({racer.status})",
                                         {"status": racer.status}))
    if expected_version != racer.version:
        return Refused(err.MoveStaleVersion(
            f"expected version {expected_version}, the game is at {racer.version}"))
    try:
        parsed = Move.from_json(move)
    except InvalidMoveError as exc:
        return Refused(err.MoveInvalid(str(exc), {"move": move}))
    try:
        after = game.play(parsed)
    except IllegalMoveError as exc:
        return Refused(err.MoveIllegal(exc.reason, {"move": str(parsed)}))
    except InvalidMoveError as exc:
        return Refused(err.MoveInvalid(str(exc), {"move": move}))
    assert len(game.log) == racer.version, "the racer's game"
    if len(after.log) > MAX_LOG:
        return Refused(err.MoveLogFull(
            f"the move log holds its most entries ({MAX_LOG:,}: a replay file's limit); "
            "no move may make it longer", {"limit": MAX_LOG, "version": racer.version}))
    applied = [str(m) for m in after.log[len(game.log):]]
    return Accepted(after, after_move(racer, after, race_clock_ms, applied), applied)


_FINAL: tuple[After, ...] = (RacerFinal(), CheckRaceEnd())


def decide_play(loaded: Loaded, cmd: PlayMove,
                config: RaceConfig) -> Outcome[Ack | FirstAnswer] | Reload:
    """One move of a racer → the ack; a repeated ``client_move_id`` → its first
    answer (:class:`~server.race.outcome.FirstAnswer`), nothing applied. On
    cached records (the stored answer unread) a refusal is :class:`Reload`: a
    repeated id is answered before the rules are checked (docs/protocol.md).

    :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
        AuthForbidden, RoomNotRacing, RoomOver (over, closed, or past its time
        limit), RacerFinished, MoveStaleVersion (details.game: the current
        game), MoveInvalid, MoveIllegal:
    """
    room = loaded.room
    assert room is not None  # the gate
    answer = loaded.answer
    if answer is UNREAD:
        if room.state != "racing":
            return Reload()  # a repeated id is answered before the room's state
    elif answer is not None:
        return Outcome(FirstAnswer(answer, None if loaded.racer is None else loaded.racer.log,
                                   room))
    if room.state != "racing":
        check_racing(room)
    racer, game, now = loaded.racer, loaded.game, loaded.now
    assert racer is not None and game is not None and room.start_at_ms is not None
    clock = now - room.start_at_ms
    if clock >= room.time_limit_ms:  # its end not applied yet (the applier ticks first)
        if answer is UNREAD:
            return Reload()
        raise err.RoomOver("the race is over: its time limit passed", {"state": "over"})
    decision = decide_move(game, racer, cmd.move, cmd.expected_version, clock)
    if not isinstance(decision, Accepted):
        if answer is UNREAD:
            return Reload()
        error = decision.error
        if isinstance(error, err.MoveStaleVersion):
            shown = present.race_clock(room, now)
            view = present.game_view(racer, game, present.racer_status(room, racer),
                                     room.state == "racing" and not racer.final, shown)
            error.details = {"game": view.model_dump(mode="json")}
        raise error
    new, after = decision.racer, decision.game
    version = new.version
    shown = present.race_clock(room, now)
    view = present.game_view(new, after, present.racer_status(room, new),
                             room.state == "racing" and not new.final, shown)
    ack = present.ack(cmd.client_move_id, version, clock, decision.applied, view)
    events = [progress_logged(
        race_clock_ms=shown, racer=cmd.racer_id, foundation_cards=new.foundation_cards,
        moves=version, redeals_used=new.redeals_used, merci_used=new.merci_used,
        status=new.status, reach_time_ms=new.reach_time_ms)]
    if new.final:
        events.append(FinishedEvent(race_clock_ms=shown, racer=cmd.racer_id,
                                    status=new.status).logged())
    answered = (cmd.client_move_id, {"version": version, "applied": len(decision.applied),
                                     "reach_time_ms": new.reach_time_ms})
    # positionally (every accepted move makes one): reply, room, racer, events,
    # answer, archive, game, after
    return Outcome(ack, None, new, events, answered, False, after,
                   _FINAL if new.final else ())


_RACER_TOKEN = "this call needs the racer's token"
_JOIN = Gate(shape=racer_.name_of)

_DECISIONS: dict[type, tuple[Gate, Any]] = {
    Create: (Gate(shape=lambda cmd: create_.check_create(cmd.options), room=False),
             create_.decide_create),
    OpenRoom: (NO_ROOM, create_.decide_open_room),
    Start: (Gate("host", "starting needs the host token"), room_.decide_start),
    Countdown: (SERVICE, room_.decide_countdown),
    Close: (Gate("host", "closing needs the host token"), room_.decide_close),
    Tick: (SERVICE, room_.decide_tick),
    EndRace: (SERVICE, room_.decide_end_race),
    Rematch: (Gate("any racer", "a rematch is offered with the racer's token "
                   "(Authorization: Bearer)"), room_.decide_rematch),
    LinkNext: (SERVICE, room_.decide_link_next),
    SetPar: (SERVICE, room_.decide_set_par),
    Forget: (SERVICE, room_.decide_forget),
    Join: (_JOIN, racer_.decide_join),
    TakeQuickSeat: (_JOIN, racer_.decide_join),
    Ready: (Gate("racer", _RACER_TOKEN), racer_.decide_ready),
    Leave: (Gate("racer or host", "this call needs the racer's or the host's token"),
            racer_.decide_leave),
    Resign: (Gate("racer", _RACER_TOKEN), racer_.decide_resign),
    FocusLost: (Gate("racer", _RACER_TOKEN), racer_.decide_focus_lost),
    TimeOut: (SERVICE, racer_.decide_time_out),
    RematchSeat: (SERVICE, racer_.decide_rematch_seat),
    PlayMove: (Gate("racer", "a move needs the racer's token"), decide_play),
}
"""Each command's gate (shape → room → credentials, :mod:`server.race.gate`) and
its decision (state → version → rules)."""


def decide(loaded: Loaded, command: Command, config: RaceConfig) -> Result:
    """The decision of ``command`` on what was ``loaded`` (records and the clock),
    under ``config``'s policies (expiry): an :class:`~.outcome.Outcome` to write,
    a :class:`~.outcome.Refused` refusal (the error's ``code`` is the wire
    code), a :class:`~.outcome.Prior` (commands to apply first) or a
    :class:`~.outcome.Reload` (cached records cannot decide it). Never raises
    for a refusal; pure."""
    gate, decision = _DECISIONS[type(command)]
    try:
        gate.admit(loaded, command)
        result: Result = decision(loaded, command, config)
    except err.RaceError as exc:
        return Refused(exc)
    return result
