"""The one function that decides a move: ``(game, racer, move, expected version,
race clock) → accepted or refused``.

Pure: no store, no clock, no I/O. Every path of :meth:`Play.move
<server.race.play.Play.move>` — the one-round-trip path on what this process
wrote last, the general path that reads first, either backend — calls
:func:`decide_move`, so they cannot disagree. The checks, in order
(docs/protocol.md, "Moves"):

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

from server.rules import Game, IllegalMoveError, InvalidMoveError, Move

from . import errors as err
from .state import RacerRecord, racer_record
from .views import RacerStatus

__all__ = ["Accepted", "Decision", "Refused", "after_move", "decide_move", "result_of"]


@dataclass(slots=True)
class Accepted:
    """The move is legal: the game and racer record after it, and the log entries
    it became (move texts). Not frozen (a frozen dataclass's ``__init__`` cost 1 %
    of a move): never changed once made."""

    game: Game
    racer: RacerRecord
    applied: list[str]


@dataclass(frozen=True, slots=True)
class Refused:
    """The move is refused with ``error`` (its ``code`` is the wire code)."""

    error: err.RaceError


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
    applied = [str(m) for m in after.log[len(game.log):]]
    return Accepted(after, after_move(racer, after, race_clock_ms, applied), applied)
