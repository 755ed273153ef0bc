"""Errors of the race authority: one class per stable wire code.

Every refusal of :class:`~server.race.authority.RaceAuthority` is a
:class:`RaceError` with a namespaced ``code`` (docs/protocol.md, "Errors"),
the HTTP ``status`` the REST API answers with, a human ``message`` and
JSON-able ``details``. A refusal never changes state.
"""

from __future__ import annotations

from server.errors import RaceError

__all__ = [
    "AuthForbidden",
    "AuthInvalidToken",
    "AuthMissing",
    "HintsOff",
    "MoveIllegal",
    "MoveInvalid",
    "MoveStaleVersion",
    "RaceError",
    "RacerFinished",
    "RacerNameTaken",
    "RacerNotFound",
    "RequestInvalid",
    "RoomFull",
    "RoomNoRacers",
    "RoomNotFound",
    "RoomNotRacing",
    "RoomNotWaiting",
    "RoomOver",
    "SolverBusy",
]


def _error(name: str, code: str, status: int, doc: str) -> type[RaceError]:
    return type(name, (RaceError,), {"code": code, "status": status, "__doc__": doc})


RequestInvalid = _error("RequestInvalid", "request/invalid", 400, "Bad field values.")
AuthMissing = _error("AuthMissing", "auth/missing", 401, "No token where one is needed.")
AuthInvalidToken = _error("AuthInvalidToken", "auth/invalid_token", 403,
                          "The token is not this racer's (or the host's).")
AuthForbidden = _error("AuthForbidden", "auth/forbidden", 403,
                       "A valid token that may not do this (acting for another racer).")
RoomNotFound = _error("RoomNotFound", "room/not_found", 404, "No live room by that id or code.")
RoomFull = _error("RoomFull", "room/full", 409, "The room holds its capacity of racers.")
RoomNotWaiting = _error("RoomNotWaiting", "room/not_waiting", 409,
                        "Joining or starting after the start.")
RoomNotRacing = _error("RoomNotRacing", "room/not_racing", 409, "A move before the start.")
RoomOver = _error("RoomOver", "room/over", 409, "A move after the race ended or closed.")
RoomNoRacers = _error("RoomNoRacers", "room/no_racers", 409, "Starting a room with no racer.")
RacerNotFound = _error("RacerNotFound", "racer/not_found", 404, "No such racer in the room.")
RacerNameTaken = _error("RacerNameTaken", "racer/name_taken", 409,
                        "Another racer of the room has this name (case-insensitive).")
RacerFinished = _error("RacerFinished", "racer/finished", 409, "The racer's result is final.")
MoveInvalid = _error("MoveInvalid", "move/invalid", 400, "Move text or JSON that does not parse.")
MoveIllegal = _error("MoveIllegal", "move/illegal", 422, "The rules refuse the move here.")
HintsOff = _error("HintsOff", "room/hints_off", 403,
                  "A hint in a room created without the hints option.")
SolverBusy = _error("SolverBusy", "solver/busy", 503, "The solver did not answer in time.")
MoveStaleVersion = _error("MoveStaleVersion", "move/stale_version", 409,
                          "expected_version is not the game's version; details.game is current.")
