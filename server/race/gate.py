"""The first checks of every decision, written once: shape → room → credentials.

Each command type has a :class:`Gate` (:data:`server.race.decide._DECISIONS`)
that says whose token it needs and what its own shape check is;
:meth:`Gate.admit` runs, in the authority's fixed order (docs/protocol.md,
"Errors"):

1. **shape** — a token where the command needs one (``auth/missing``), then
   the command's own shape check (a racer's name, a new room's options:
   ``request/invalid``);
2. **room** — the room exists (``room/not_found``);
3. **credentials** — the token is the one the command needs: the racer's
   (``racer/not_found``, ``auth/forbidden`` for another's, else
   ``auth/invalid_token``), the host's (``auth/invalid_token``), either (the
   host kicks a racer), or any racer's of the room (a rematch offer).

The decision itself then checks state → version → rules
(:mod:`server.race.decide_room`, :mod:`server.race.decide_racer`,
:func:`server.race.decide.decide_play`). Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import errors as err
from .access import authorize, authorize_host, room_of
from .ids import token_matches
from .outcome import Loaded
from .state import RoomRecord

__all__ = ["NO_ROOM", "SERVICE", "Gate", "Who", "admitted"]

Who = Literal["racer", "host", "racer or host", "any racer"]
"""Whose token a command needs: the named racer's (``token``), the host's
(``host_token``), either (``token``: the host kicks), any racer's of the room."""


@dataclass(frozen=True, slots=True)
class Gate:
    """The shape, room and credential checks of one command type (module docstring).

    ``who``: whose token (``None``: none — a join, the service's own commands);
    ``missing``: the ``auth/missing`` message; ``shape``: the command's own
    shape check (raises ``request/invalid``); ``room``: the command needs an
    existing room (not: the commands that make one)."""

    who: Who | None = None
    missing: str = ""
    shape: Callable[[Any], object] | None = None
    room: bool = True

    def admit(self, loaded: Loaded, cmd: Any) -> RoomRecord | None:
        """The command's room once it passed the three checks (``None`` for a
        gate without a room).

        :raises AuthMissing, RequestInvalid, RoomNotFound, RacerNotFound,
            AuthForbidden, AuthInvalidToken:
        """
        who = self.who
        if who == "racer":  # the most frequent (every move): the shortest path
            token = cmd.token
            if not token:
                raise err.AuthMissing(self.missing)
            room = loaded.room
            if room is None:
                room = room_of(room, cmd.ref)
            authorize(room, cmd.racer_id, token)
            return room
        token = None
        if who is not None:
            token = cmd.host_token if who == "host" else cmd.token
            if not token:
                raise err.AuthMissing(self.missing)
        if self.shape is not None:
            self.shape(cmd)
        if not self.room:
            return None
        room = room_of(loaded.room, cmd.ref)
        if who == "host":
            authorize_host(room, token)
        elif who == "racer or host":
            if not token_matches(token, room.host_digest):
                authorize(room, cmd.racer_id, token)
            elif room.entry(cmd.racer_id) is None:
                raise err.RacerNotFound(f"no racer {cmd.racer_id!r} in this room")
        elif who == "any racer" and not any(token_matches(token, e.token_digest)
                                            for e in room.roster):
            raise err.AuthInvalidToken("only a racer of this room may offer a rematch: the "
                                       "token is not a racer's of this room")
        return room


SERVICE = Gate()
"""The service's own commands on an existing room: no token."""
NO_ROOM = Gate(room=False)
"""A command that makes its room."""


def admitted(loaded: Loaded) -> RoomRecord:
    """The room a decision runs on, after its gate admitted the command."""
    room = loaded.room
    assert room is not None, "the gate admits a command on an existing room only"
    return room
