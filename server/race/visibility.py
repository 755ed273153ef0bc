"""Fair play: who may see what of a room, and when — the one table and the one
place that applies it (docs/protocol.md, "Fair play").

Every racer of a room plays the same deal, so whoever could watch a rival's
board or move list could copy a winning line card for card. :data:`TABLE`
says, for each thing a client may ask for (``what``) and each kind of
viewer, what the answer is before the start, during the race and after it:

- ``yes`` — shown (live);
- ``no`` — refused with ``race/hidden_until_over`` (during the race) or
  ``race/hidden_until_start`` (a board or a move log before the start: a
  replay or a comparison names the deal), never a partial body;
- ``delayed`` — the board as it was ``spectator_delay_ms`` ago on the race
  clock, never newer (live in rooms created with ``open_boards``).

Viewers: the ``racer`` the thing belongs to; a ``rival`` (another racer of
the room whose result is not final); a ``finished`` racer (another racer
whose result is final — seen as a spectator until the race is over: a racer
could otherwise take a second seat, resign it at once and watch the leader
live from it while racing with the first); the ``host`` (the host token); a
``spectator`` (no token). A token that is nobody's in the room is
refused (``auth/invalid_token``). The race authority asks :func:`access`
on every path that shows a board, a move log, the deal number, the redeal
key or the deal commitment's salt (REST, WebSocket welcome and snapshot,
replays, comparisons, ghosts, finished races); nothing else decides it. The
commitment itself (a hash) is public from the room's creation: the salt,
hidden until the race is over, keeps it from naming the deal. Progress
(foundation cards, moves, redeals used, status, reach time: room views,
standings, room events) is public.

Rooms whose deal is public anyway (daily rooms: ``GET /daily`` gives the
number; ghost rooms: the recorded game's replay holds it) show their deal
number before the start too.

**Challenge attempts** (docs/protocol.md, "Challenges and duels"): a room
that is an attempt at a challenge still open is *sealed* (:attr:`Seen.sealed`,
set by ``Rooms.seal``). Its racer sees it as any racer sees their room but
its redeal key and deal salt (the challenge's deal is played by others
after them); everyone else — spectators, archive readers — sees nothing of
it at all, its progress and standings included (``challenge/hidden``): a
player who has not played the challenge yet must learn nothing of how
others played it. :func:`attempts_visible` is the same rule for the
challenge's own answers. Once the challenge closes (settled, void, closed)
its rooms are finished races like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from . import errors as err
from .ids import token_matches
from .state import RoomRecord

__all__ = [
    "PHASES",
    "TABLE",
    "VIEWERS",
    "Answer",
    "Phase",
    "Seen",
    "Viewer",
    "What",
    "access",
    "attempts_visible",
    "check",
    "check_room",
    "phase",
    "secrets_visible",
    "viewer",
]

Viewer = Literal["racer", "rival", "finished", "host", "spectator"]
Phase = Literal["before the start", "during the race", "after the race"]
What = Literal["progress", "deal number", "board", "move log", "redeal key", "deal salt"]
Answer = Literal["yes", "no", "delayed"]

VIEWERS: Final[tuple[Viewer, ...]] = ("racer", "rival", "finished", "host", "spectator")
PHASES: Final[tuple[Phase, ...]] = ("before the start", "during the race", "after the race")

TABLE: Final[dict[tuple[What, Viewer], tuple[Answer, Answer, Answer]]] = {
    ("progress", "racer"): ("yes", "yes", "yes"),
    ("progress", "rival"): ("yes", "yes", "yes"),
    ("progress", "finished"): ("yes", "yes", "yes"),
    ("progress", "host"): ("yes", "yes", "yes"),
    ("progress", "spectator"): ("yes", "yes", "yes"),
    ("deal number", "racer"): ("no", "yes", "yes"),
    ("deal number", "rival"): ("no", "yes", "yes"),
    ("deal number", "finished"): ("no", "yes", "yes"),
    ("deal number", "host"): ("yes", "yes", "yes"),
    ("deal number", "spectator"): ("no", "yes", "yes"),
    ("board", "racer"): ("no", "yes", "yes"),
    ("board", "rival"): ("no", "no", "yes"),
    ("board", "finished"): ("no", "delayed", "yes"),
    ("board", "host"): ("no", "delayed", "yes"),
    ("board", "spectator"): ("no", "delayed", "yes"),
    ("move log", "racer"): ("no", "yes", "yes"),
    ("move log", "rival"): ("no", "no", "yes"),
    ("move log", "finished"): ("no", "no", "yes"),
    ("move log", "host"): ("no", "no", "yes"),
    ("move log", "spectator"): ("no", "no", "yes"),
    ("redeal key", "racer"): ("no", "no", "yes"),
    ("redeal key", "rival"): ("no", "no", "yes"),
    ("redeal key", "finished"): ("no", "no", "yes"),
    ("redeal key", "host"): ("no", "no", "yes"),
    ("redeal key", "spectator"): ("no", "no", "yes"),
    ("deal salt", "racer"): ("no", "no", "yes"),
    ("deal salt", "rival"): ("no", "no", "yes"),
    ("deal salt", "finished"): ("no", "no", "yes"),
    ("deal salt", "host"): ("no", "no", "yes"),
    ("deal salt", "spectator"): ("no", "no", "yes"),
}
"""``(what, viewer) → (before the start, during the race, after the race)``."""


@dataclass(frozen=True, slots=True)
class Seen:
    """Who asks: the kind of viewer and, for a racer's token, that racer's id."""

    kind: Viewer
    racer: str | None = None
    sealed: bool = False
    """The room is an attempt at a challenge still open (module docstring)."""

    @property
    def shut_out(self) -> bool:
        """Sealed, and not a racer of the room: nothing of it shows."""
        return self.sealed and self.kind in ("host", "spectator")


def phase(room: RoomRecord) -> Phase:
    """Where the room is: before the start (waiting, countdown), during the race,
    or after it (over, or closed — a room closed before its start too)."""
    if room.state in ("waiting", "countdown"):
        return "before the start"
    if room.state == "racing":
        return "during the race"
    return "after the race"


def viewer(room: RoomRecord, token: str | None, target: str | None) -> Seen:
    """The kind of viewer ``token`` is for racer ``target``'s things (``None``:
    the room's). Another racer's token is a ``rival``; whether that racer's
    result is final (a ``finished`` viewer) needs their record, which the
    caller reads (``Rooms.seen``).

    :raises AuthInvalidToken: a token that is nobody's in this room.
    """
    if not token:
        return Seen("spectator")
    for entry in room.roster:
        if token_matches(token, entry.token_digest):
            if entry.id == target:
                return Seen("racer", entry.id)
            return Seen("rival", entry.id)
    if token_matches(token, room.host_digest):
        return Seen("host")
    raise err.AuthInvalidToken("the token is neither a racer's of this room nor its host's")


def access(room: RoomRecord, what: What, seen: Seen) -> Answer:
    """The answer :data:`TABLE` gives ``seen`` for ``what`` in ``room`` now, with
    the room's exceptions: a delayed board is live in open-boards rooms (or
    with no delay), and a public deal's number is shown before the start."""
    if seen.shut_out or (seen.sealed and what in ("redeal key", "deal salt")):
        return "no"
    answer = TABLE[(what, seen.kind)][PHASES.index(phase(room))]
    if answer == "delayed" and (room.open_boards or room.spectator_delay_ms == 0):
        return "yes"
    if what == "deal number" and answer == "no" and room.deal_public:
        return "yes"
    return answer


def check(room: RoomRecord, what: What, seen: Seen) -> Answer:
    """:func:`access`, raising instead of answering ``no``.

    :raises ChallengeHidden: a sealed room seen from outside (module docstring).
    :raises HiddenUntilStart: a board or a move log before the start (a
        replay or a comparison would name the deal).
    :raises HiddenUntilOver: anything else the table hides now.
    """
    answer = access(room, what, seen)
    if answer != "no":
        return answer
    check_room(seen)
    if phase(room) == "before the start" and what in ("board", "move log"):
        raise err.HiddenUntilStart(f"the {what} waits for the start: the deal is dealt then",
                                   {"what": what, "state": room.state})
    whose = "a rival's" if seen.kind in ("rival", "finished") else "the"
    raise err.HiddenUntilOver(f"{whose} {what} stays hidden until the race is over",
                              {"what": what, "state": room.state})


def check_room(seen: Seen) -> None:
    """Refuse a look at a sealed room from outside (module docstring): its
    view, standings, race, socket — anything, progress included.

    :raises ChallengeHidden:
    """
    if seen.shut_out:
        raise err.ChallengeHidden(
            "an attempt at a challenge still open: nothing of it shows until the challenge "
            "closes (play yours, then see the others through the challenge)")


def attempts_visible(closed: bool, played: bool) -> bool:
    """Whether a player sees others' attempts at a challenge (their results,
    the deal number, comparisons): once they have played their own
    (``played``: its result is in) or the challenge is ``closed``; the
    number of attempts is public. The redeal key and the deal salt wait for
    the close (:func:`secrets_visible`)."""
    return closed or played


def secrets_visible(closed: bool) -> bool:
    """Whether a challenge's redeal key and deal salt show: once it is closed."""
    return closed
