"""Room actions as data: one small typed command per action of the race authority.

Every change to a room or a racer is a command handed to
:meth:`~server.race.apply.Applier.apply`, which loads what the command needs,
asks :func:`~server.race.decide.decide` for the decision and writes it with one
compare-and-set (docs/architecture.md, "Command → decide → apply"). Commands
are values, never changed once made (not frozen: a frozen dataclass's
``__init__`` is ~4× slower, and every move makes one): everything a decision
needs beyond the stored records and the clock is in them — ids, codes, token
digests, deal numbers, redeal keys and deal salts are drawn by the caller *before* the
command is made, so the decision stays a pure function (no I/O, no clock, no
randomness).

``ref`` is the room id or short code (``Create`` and ``OpenRoom`` carry the
new room instead). Tokens are the presented secrets (checked in constant time
against the stored digests by the decision, never stored or logged).

Commands by who sends them:

- the host: :class:`Create` (with :class:`~.options.RoomOptions`),
  :class:`Start`, :class:`Close`, :func:`Kick` (a :class:`Leave` with the
  host token);
- a racer: :class:`Join` (:class:`TakeQuickSeat` in a quick-race lobby),
  :class:`Ready`, :class:`Leave`, :class:`Resign`, :class:`PlayMove`
  (:func:`Undo` and :func:`Autoplay` are moves of their own kind),
  :class:`FocusLost` (their page lost focus), :class:`Rematch`, :class:`RematchSeat`;
- the service itself: :class:`Tick` (the room's due timer: countdown end,
  time limit, a quick-race lobby's step), :class:`EndRace`, :class:`TimeOut`,
  :class:`Countdown` (a quick-race lobby filled with computer racers),
  :class:`OpenRoom` (a rematch's or a series' next room), :class:`LinkNext`,
  :class:`SetPar`, :class:`Forget` (a forgotten player's racer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .options import RoomOptions
from .state import RoomRecord, RosterEntry
from .views import RacerView

__all__ = [
    "Autoplay",
    "Close",
    "Command",
    "Countdown",
    "Create",
    "EndRace",
    "FocusLost",
    "Forget",
    "Join",
    "Kick",
    "Leave",
    "LinkNext",
    "OpenRoom",
    "PlayMove",
    "Ready",
    "Rematch",
    "RematchSeat",
    "Resign",
    "SetPar",
    "Start",
    "TakeQuickSeat",
    "Tick",
    "TimeOut",
    "Undo",
]


@dataclass(slots=True)
class Create:
    """A new room in state ``waiting`` (``POST /rooms``): ``options`` as asked,
    with the id, short code (claimed), host token digest, deal number,
    redeal key and the salt of its deal commitment (16 bytes) already drawn."""

    options: RoomOptions
    room_id: str
    code: str
    host_digest: str
    deal_number: int
    redeal_key: bytes
    deal_salt: bytes


@dataclass(slots=True)
class OpenRoom:
    """A room made whole by the service (a rematch's or a series' next room):
    ``room`` is saved as it is with ``events``, expiring ``expire_ms`` later
    unless linked; its code is claimed."""

    room: RoomRecord
    events: tuple[dict[str, Any], ...]
    expire_ms: int


@dataclass(slots=True)
class Join:
    """A racer joins a waiting room (``POST /rooms/{room}/racers``) under the
    drawn ``racer_id`` with the digest of their drawn token; ``player``: the
    player id (its key was checked by the caller), ``bot``: a computer racer of
    ``bot_level`` with its drawn ``bot_seed``."""

    ref: str
    name: str
    racer_id: str
    token_digest: str
    player: str | None = None
    bot: bool = False
    bot_level: str | None = None
    bot_seed: int | None = None


@dataclass(slots=True)
class TakeQuickSeat(Join):
    """A :class:`Join` of a quick-race lobby (``POST /quick``): the room must be
    one (else ``room/not_waiting``: the lobby is gone, take another seat)."""


@dataclass(slots=True)
class Ready:
    """A racer says they are (not) ready; all ready starts the countdown."""

    ref: str
    racer_id: str
    token: str | None
    ready: bool


@dataclass(slots=True)
class Start:
    """The host starts the countdown (idempotent once it runs)."""

    ref: str
    host_token: str | None


@dataclass(slots=True)
class Countdown:
    """The service starts a waiting room's countdown when it has racers (a
    quick-race lobby once its computer racers are seated); else nothing."""

    ref: str


@dataclass(slots=True)
class Leave:
    """The racer leaves (their token), or the host kicks them (the host token)."""

    ref: str
    racer_id: str
    token: str | None


def Kick(ref: str, racer_id: str, host_token: str | None) -> Leave:
    """The host removes a racer: a :class:`Leave` with the host's token — before
    the start only (the racer is removed); after it the decision refuses with
    ``room/kick_after_start``."""
    return Leave(ref, racer_id, host_token)


@dataclass(slots=True)
class Resign:
    """The racer concedes: their result becomes final as it stands."""

    ref: str
    racer_id: str
    token: str | None


@dataclass(slots=True)
class FocusLost:
    """The racer's page lost focus (hidden, or the window blurred), as their
    client reports it (docs/fair-play.md, "Focus"): counted on their record
    while they race, never shown (:func:`~server.race.decide_racer.decide_focus_lost`)."""

    ref: str
    racer_id: str
    token: str | None


@dataclass(slots=True)
class Close:
    """The host closes the room: before the start it just closes; during the
    race every result becomes final and the race is over."""

    ref: str
    host_token: str | None
    now_ms: int | None = None
    """Internal: the close's time (ms), once its unfinished racers were timed out
    at its race clock (the decision's :class:`~.outcome.Prior`)."""


@dataclass(slots=True)
class PlayMove:
    """One move of a racer (text like ``"3f"`` or its JSON form; undo and
    autoplay are moves too), expecting the game at ``expected_version``;
    idempotent on ``client_move_id``."""

    ref: str
    racer_id: str
    token: str | None
    move: Any
    expected_version: int
    client_move_id: str


def Undo(ref: str, racer_id: str, token: str | None, expected_version: int,
         client_move_id: str) -> PlayMove:
    """The racer takes back their last move: a :class:`PlayMove` of ``"u"``
    (rules.md, "Undo"; an entry of the log like any move)."""
    return PlayMove(ref, racer_id, token, "u", expected_version, client_move_id)


def Autoplay(ref: str, racer_id: str, token: str | None, expected_version: int,
             client_move_id: str) -> PlayMove:
    """Every safe move to the foundations: a :class:`PlayMove` of ``"a"``
    (rules.md, "Autoplay"; it becomes the moves it made)."""
    return PlayMove(ref, racer_id, token, "a", expected_version, client_move_id)


@dataclass(slots=True)
class Tick:
    """The room's due timer, if any: the countdown's end starts the race, the
    time limit ends it, a quick-race lobby takes its step (computer racers
    for a racer alone when this process may run ``bots_free`` more, or the
    countdown). Nothing due: nothing changes (every read applies it first)."""

    ref: str
    bots_free: int = 0


@dataclass(slots=True)
class EndRace:
    """End the race once every result is final (or the time limit passed:
    the unfinished racers time out first): ``race_over`` is published once."""

    ref: str


@dataclass(slots=True)
class TimeOut:
    """Make a racer's result final as ``timed_out`` at race clock ``at_ms``
    (``None``: the time limit), or at their last move if that is later."""

    ref: str
    racer_id: str
    at_ms: int | None = None


@dataclass(slots=True)
class Rematch:
    """A racer of a finished race offers a rematch: the answer is the next
    room's link, or ``None`` when the caller must make one (:class:`OpenRoom`,
    then :class:`LinkNext`)."""

    ref: str
    token: str | None


@dataclass(slots=True)
class LinkNext:
    """Link the next room ``fresh`` (saved by :class:`OpenRoom`) from the room
    of the finished race, once: a room linked meanwhile wins and ``fresh`` is
    discarded (it vanishes at once, its code with it)."""

    ref: str
    fresh: RoomRecord
    list_until_ms: int | None = None
    """List ``fresh`` in the lobby until then (a public rematch room)."""


@dataclass(slots=True)
class RematchSeat:
    """``entry`` (a racer of the finished race, their ``token``) takes a seat
    in the rematch room ``ref``, keeping their racer id and token; a seat held
    already answers the same (idempotent). ``host_token``: what the rematch
    room's host token would be for them."""

    ref: str
    entry: RosterEntry
    token: str
    host_token: str


@dataclass(slots=True)
class SetPar:
    """Store the room's par (most foundation cards possible, from the solver)
    once, with a ``par`` event carrying the standings ``views``."""

    ref: str
    par: int
    views: tuple[RacerView, ...]


@dataclass(slots=True)
class Forget:
    """A forgotten player's racer takes ``name`` and loses its player link."""

    ref: str
    racer_id: str
    name: str


Command = (Create | OpenRoom | Join | Ready | Start | Countdown | Leave | Resign | FocusLost
           | Close | PlayMove | Tick | EndRace | TimeOut | Rematch | LinkNext | RematchSeat
           | SetPar | Forget)
"""Every room action (:class:`TakeQuickSeat` is a :class:`Join`)."""
