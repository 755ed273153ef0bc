"""What a decision reads and what it answers: :class:`Loaded` in, one of
:class:`Outcome`, :class:`Refused`, :class:`Prior` or :class:`Reload` out
(:func:`server.race.decide.decide`).

An :class:`Outcome` is everything the command changes, as data: the room
record or the one racer record to write (never both: each write is one
compare-and-set on one record, :mod:`server.store.base`), the room events and
the stored answer that go in that same write, the caller's reply, and the
:data:`After` steps the applier takes once the write is in — in their order.
The store's timer index and the lobby index follow the room's transition by
themselves (:meth:`~server.race.apply.Applier.apply`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from server.rules import Game

from . import errors as err
from .commands import Command
from .state import RacerRecord, RoomRecord
from .views import RacerView

__all__ = [
    "UNREAD",
    "After",
    "CheckRaceEnd",
    "Expire",
    "FirstAnswer",
    "LinkKnown",
    "ListInLobby",
    "Loaded",
    "Note",
    "Outcome",
    "ParKnown",
    "Prior",
    "RaceEnded",
    "RaceStarted",
    "RacerFinal",
    "Refused",
    "Reload",
    "Result",
    "RetireLobby",
    "RoomClosed",
    "RoomCreated",
    "SaveFresh",
    "SeatBots",
]

R = TypeVar("R")


class _Unread:
    """The stored answer to a client move id was not read (a move decided on
    cached records): a refusal cannot be given before it is."""

    def __repr__(self) -> str:
        return "UNREAD"

    def __copy__(self) -> _Unread:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Unread:
        return self

    def __reduce__(self) -> str:
        return "UNREAD"  # pickled by name: the module's one marker


UNREAD: Any = _Unread()


@dataclass(slots=True)
class Loaded:
    """What the applier read for one command (the service clock ``now``, Unix ms).

    ``room`` is ``None`` only for the commands that make a room; ``rev`` its
    store version (0: none). ``racer``/``racer_rev``/``game``: the command's
    racer when it names one (a racer never saved is a fresh one, rev 0);
    ``racers``: every racer record of the room when the decision needs them
    (closing or ending a race); ``answer``: the stored answer to the move's
    client move id (``None``: none, :data:`UNREAD`: not read); ``known``: the
    records come from this process's cache, so the write checks the room's
    rev too; ``fresh_cards``: a fresh racer's foundation cards on this deal."""

    room: RoomRecord | None
    rev: int
    now: int
    racer: RacerRecord | None = None
    racer_rev: int = 0
    game: Game | None = None
    racers: dict[str, RacerRecord] | None = None
    answer: Any = None
    known: bool = False
    fresh_cards: int = 0


@dataclass(frozen=True, slots=True)
class Refused:
    """The command is refused with ``error`` (its ``code`` is the wire code); nothing
    changes."""

    error: err.RaceError


@dataclass(frozen=True, slots=True)
class Prior:
    """Apply ``commands`` first, then decide again (closing or ending a race
    times its unfinished racers out first, one compare-and-set each)."""

    commands: tuple[Command, ...]
    then: Command | None = None
    """Decide this one instead of the first afterwards (``None``: the same)."""


@dataclass(frozen=True, slots=True)
class Reload:
    """The cached records cannot decide this (a refusal needs the stored answer):
    read everything from the store and decide again."""


@dataclass(frozen=True, slots=True)
class FirstAnswer:
    """A repeated client move id: the stored first answer (``{"version",
    "applied", "reach_time_ms"}``), rebuilt into the first ack by the caller."""

    stored: dict[str, Any]
    racer_log: list[Any] | None
    room: RoomRecord


# -- what happens once the write is in -------------------------------------------------

@dataclass(frozen=True, slots=True)
class Expire:
    """Every key of room ``room_id`` (default: the command's) vanishes ``ms`` later."""

    ms: int
    room_id: str | None = None


@dataclass(frozen=True, slots=True)
class ListInLobby:
    """List room ``room_id`` (default: the command's) in the public lobby until then."""

    until_ms: int
    room_id: str | None = None


@dataclass(frozen=True, slots=True)
class RoomCreated:
    """Log the room's creation (``room``: default the written one)."""

    room: RoomRecord | None = None


@dataclass(frozen=True, slots=True)
class RaceStarted:
    """Log the race's start."""


@dataclass(frozen=True, slots=True)
class RoomClosed:
    """Log a room closed before its start."""


@dataclass(frozen=True, slots=True)
class RaceEnded:
    """Log the race's end, forget its games, run the race-over hooks with ``views``."""

    views: tuple[RacerView, ...]


@dataclass(frozen=True, slots=True)
class RacerFinal:
    """Log a racer's final result (the written racer record)."""


@dataclass(frozen=True, slots=True)
class CheckRaceEnd:
    """End the race if every result is final now (:class:`~.commands.EndRace`)."""


@dataclass(frozen=True, slots=True)
class SaveFresh:
    """Save the joined racer's fresh record (rev 0; one saved meanwhile stays)."""

    racer_id: str


@dataclass(frozen=True, slots=True)
class SeatBots:
    """Seat computer racers of ``levels`` (one each) run by this process, then
    start the countdown (a quick-race lobby's lone racer)."""

    levels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RetireLobby:
    """Drop the quick-race slot's forming-lobby pointer to this room."""

    slot: str


@dataclass(frozen=True, slots=True)
class Note:
    """Log ``message`` as a warning for operators."""

    message: str


@dataclass(frozen=True, slots=True)
class LinkKnown:
    """Tell the archive the room's ``rematch`` link (an archived race gets it too)."""


@dataclass(frozen=True, slots=True)
class ParKnown:
    """Tell the archive the room's par."""


After = (Expire | ListInLobby | RoomCreated | RaceStarted | RoomClosed | RaceEnded
         | RacerFinal | CheckRaceEnd | SaveFresh | SeatBots | RetireLobby | Note | LinkKnown
         | ParKnown)
"""A step the applier takes after the write, in the outcome's order."""


@dataclass(slots=True)
class Outcome(Generic[R]):
    """An accepted command: the records to write, in one compare-and-set, and
    what follows. Not frozen (a frozen dataclass's ``__init__`` costs a move
    ~1 %); never changed once returned but for ``now``/``rev`` (the applier's).

    ``room``: the room record to write (on ``Loaded.rev``; 0 makes the room);
    ``racer``: the racer record to write (on ``Loaded.racer_rev``), with
    ``answer`` ``(client_move_id, stored answer)``; neither: nothing is
    written. ``events`` go in the same write. ``archive``: the write ends the
    race (pending for the archive in the same write). ``game``: the racer's
    game after a move (cached). ``again``: decide again after the write (a
    timer step may make another due)."""

    reply: R
    room: RoomRecord | None = None
    racer: RacerRecord | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    answer: tuple[str, dict[str, Any]] | None = None
    archive: bool = False
    game: Game | None = None
    after: tuple[After, ...] = ()
    again: bool = False
    now: int = 0
    """The service clock when decided (ms; set by the applier)."""
    rev: int = 0
    """The written record's new store version (set by the applier)."""


Result = Outcome[Any] | Refused | Prior | Reload
"""What :func:`~server.race.decide.decide` answers."""
