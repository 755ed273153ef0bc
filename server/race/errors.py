"""Errors of the race authority: the race's classes of :mod:`server.errors`.

Every refusal of :class:`~server.race.authority.RaceAuthority` is a
:class:`RaceError` with a namespaced ``code`` (docs/protocol.md, "Errors"),
the HTTP ``status`` the REST API answers with, a human ``message`` and
JSON-able ``details``. A refusal never changes state. The classes and their
codes live in the one registry, :mod:`server.errors`; this module only
re-exports the race's.
"""

from __future__ import annotations

from server.errors import (
    AuthForbidden,
    AuthInvalidToken,
    AuthMissing,
    ChallengeAlreadyPlayed,
    ChallengeClosed,
    ChallengeExpired,
    ChallengeHidden,
    ChallengeNotFound,
    HiddenUntilOver,
    HiddenUntilStart,
    HintsOff,
    KickAfterStart,
    MoveIllegal,
    MoveInvalid,
    MoveLogFull,
    MoveStaleVersion,
    RaceError,
    RacerFinished,
    RacerNameTaken,
    RacerNotFound,
    RequestInvalid,
    RoomFull,
    RoomNoRacers,
    RoomNotFound,
    RoomNotOver,
    RoomNotRacing,
    RoomNotWaiting,
    RoomOver,
    SeriesNotFound,
    SolverBusy,
    TooManyGhosts,
)

__all__ = [
    "AuthForbidden",
    "AuthInvalidToken",
    "AuthMissing",
    "ChallengeAlreadyPlayed",
    "ChallengeClosed",
    "ChallengeExpired",
    "ChallengeHidden",
    "ChallengeNotFound",
    "HiddenUntilOver",
    "HiddenUntilStart",
    "HintsOff",
    "KickAfterStart",
    "MoveIllegal",
    "MoveInvalid",
    "MoveLogFull",
    "MoveStaleVersion",
    "RaceError",
    "RacerFinished",
    "RacerNameTaken",
    "RacerNotFound",
    "RequestInvalid",
    "RoomFull",
    "RoomNoRacers",
    "RoomNotFound",
    "RoomNotOver",
    "RoomNotRacing",
    "RoomNotWaiting",
    "RoomOver",
    "SeriesNotFound",
    "SolverBusy",
    "TooManyGhosts",
]
