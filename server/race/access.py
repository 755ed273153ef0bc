"""Who may act: token checks and the room-state check of racing actions.

Pure functions of the stored room record; each raises the refusal's error
(:mod:`server.race.errors`) and changes nothing. Tokens are compared in
constant time against their SHA-256 digests (:func:`~server.race.ids.token_matches`).
"""

from __future__ import annotations

from . import errors as err
from .ids import token_matches
from .state import RoomRecord, RosterEntry

__all__ = ["authorize", "authorize_host", "check_racing", "room_of"]


def authorize(room: RoomRecord, racer_id: str, token: str | None) -> RosterEntry:
    """The racer's roster entry when ``token`` is theirs.

    :raises AuthMissing: no token.
    :raises RacerNotFound: no such racer in the room.
    :raises AuthForbidden: the token is another racer's or the host's.
    :raises AuthInvalidToken: the token is nobody's in this room.
    """
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


def authorize_host(room: RoomRecord, token: str | None) -> None:
    """Check the host token.

    :raises AuthMissing, AuthInvalidToken:
    """
    if not token:
        raise err.AuthMissing("this call needs the host token (Authorization: Bearer)")
    if not token_matches(token, room.host_digest):
        raise err.AuthInvalidToken("the token is not this room's host token")


def check_racing(room: RoomRecord) -> None:
    """The race runs.

    :raises RoomNotRacing: before the start (waiting, countdown).
    :raises RoomOver: over or closed.
    """
    if room.state in ("waiting", "countdown"):
        raise err.RoomNotRacing(f"the race has not started (room is {room.state})",
                                {"state": room.state})
    if room.state in ("over", "closed"):
        raise err.RoomOver(f"the race is {room.state}", {"state": room.state})


def room_of(room: RoomRecord | None, ref: str) -> RoomRecord:
    """The loaded room of ``ref`` (its id or short code).

    :raises RoomNotFound: none (never made, expired, or ``ref`` no room's shape).
    """
    if room is None:
        if not ref or len(ref) > 64:
            raise err.RoomNotFound(f"no room {ref[:64]!r}")
        raise err.RoomNotFound(f"no room {ref!r}", {"room": ref})
    return room
