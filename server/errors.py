"""The one error registry: every wire error code, its HTTP status, its
WebSocket close code and its meaning — and one exception class per code.

:data:`REGISTRY` is the single table of the codes a client can receive
(docs/protocol.md, "Errors", is checked against it by
``tests/api/test_error_registry.py``). Each concrete exception class below
names its entry with ``code = "ns/name"``; its ``status`` and ``close`` are
looked up here, so a class cannot disagree with the table, a code outside
the table fails at import, and no two classes may claim one code.

The hierarchy:

- :class:`ServiceError` — the root; unclassified, it is ``server/error`` (500).
- :class:`RaceError` — a refused request (``except RaceError`` catches every
  refusal a client gets; a refusal never changes state).
- :class:`StoreError` — a store failure (not a refusal: the transport answers
  ``store/unavailable`` / ``store/busy`` with a retry hint, anything else as
  ``server/error``).

A leaf module: it imports nothing of the service, so the store, the race
authority, the records and the transport can all raise and catch these.
The rules engine and the solver (:mod:`server.rules`, :mod:`server.solver`)
are standalone libraries with their own ``ValueError`` kinds; the race maps
those to the classes here.

Size: one table and one small class per code (about thirty); split over
modules, the table and its classes could drift apart, which is what this
module exists to prevent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Final

__all__ = [
    "CLOSE_TOO_SLOW",
    "REGISTRY",
    "ArchiveUnavailable",
    "AuthForbidden",
    "AuthInvalidToken",
    "AuthMissing",
    "ChallengeAlreadyPlayed",
    "ChallengeClosed",
    "ChallengeExpired",
    "ChallengeHidden",
    "ChallengeNotFound",
    "CompareDifferentDeal",
    "ErrorCode",
    "EventsTooOld",
    "HiddenUntilOver",
    "HiddenUntilStart",
    "HintsOff",
    "KickAfterStart",
    "MethodNotAllowed",
    "MoveIllegal",
    "MoveInvalid",
    "MoveLogFull",
    "MoveStaleVersion",
    "OriginNotAllowed",
    "PlayerInvalidKey",
    "PlayerNameTaken",
    "PlayerNotFound",
    "RaceError",
    "RacerFinished",
    "RacerNameTaken",
    "RacerNotFound",
    "RateLimited",
    "ReplayError",
    "ReplayForged",
    "ReplayInvalid",
    "RequestHeadersTooLarge",
    "RequestInvalid",
    "RequestTooLarge",
    "RoomFull",
    "RoomNoRacers",
    "RoomNotFound",
    "RoomNotOver",
    "RoomNotRacing",
    "RoomNotWaiting",
    "RoomOver",
    "RouteNotFound",
    "SeriesNotFound",
    "ServerFull",
    "ServiceError",
    "SolverBusy",
    "StoreError",
    "StoreUnavailable",
    "TooManyGhosts",
    "UnsupportedMediaType",
    "UpgradeRequired",
    "VersionConflict",
    "class_of",
]


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """One wire error code.

    ``status`` is its HTTP status, ``close`` the WebSocket close code when a
    socket is closed for it (``None`` when it never closes one), ``meaning``
    one human line. ``also_status`` / ``also_close`` hold the older second
    uses of ``request/invalid`` only (422 for a body that does not match its
    schema; 1007 for socket text that is not UTF-8), kept for compatibility.
    """

    code: str
    status: int
    close: int | None
    meaning: str
    also_status: tuple[int, ...] = ()
    also_close: tuple[int, ...] = ()

    @property
    def statuses(self) -> frozenset[int]:
        """Every HTTP status this code is answered with."""
        return frozenset((self.status, *self.also_status))

    @property
    def closes(self) -> frozenset[int]:
        """Every WebSocket close code sent with this code."""
        return frozenset(c for c in (self.close, *self.also_close) if c is not None)


_TABLE: Final = (
    # transport
    ErrorCode("request/invalid", 400, 1008,
              "not JSON, not an object, a repeated key or bad values (a bad socket message)",
              also_status=(422,), also_close=(1007,)),
    ErrorCode("request/unsupported_media_type", 415, None,
              "a body that is not declared as JSON (Content-Type: application/json)"),
    ErrorCode("request/too_large", 413, 1009, "a body or socket message over the size limit"),
    ErrorCode("request/headers_too_large", 431, None,
              "a request head (request line and header fields) over the size limit; "
              "the connection is closed"),
    ErrorCode("request/not_found", 404, None, "no such route"),
    ErrorCode("request/method_not_allowed", 405, None, "wrong method for the route"),
    ErrorCode("request/upgrade_required", 426, None,
              "a plain HTTP request to the room WebSocket path"),
    ErrorCode("request/origin_not_allowed", 403, 1008,
              "a room socket opened from a page of an origin the server does not allow "
              "(LUCIE_ALLOWED_ORIGINS)"),
    ErrorCode("rate/limited", 429, 1008, "too many requests or socket messages from one client"),
    ErrorCode("server/full", 503, 1013,
              "the process holds its most sockets, new rooms or computer racers: try again "
              "after Retry-After"),
    # auth
    ErrorCode("auth/missing", 401, None, "no token where one is needed"),
    ErrorCode("auth/invalid_token", 403, 1008, "the token is not this racer's (or the host's)"),
    ErrorCode("auth/forbidden", 403, None,
              "a valid token that may not do this (acting for another racer)"),
    # rooms and racers
    ErrorCode("room/not_found", 404, 4004, "no live room by that id or code"),
    ErrorCode("room/full", 409, None, "the room holds its capacity of racers"),
    ErrorCode("room/not_waiting", 409, None, "joining or setting ready after the start"),
    ErrorCode("room/not_racing", 409, None, "a move or resign before the start"),
    ErrorCode("room/over", 409, None, "a move after the race ended or the room closed"),
    ErrorCode("room/no_racers", 409, None, "starting a room with no racer"),
    ErrorCode("room/kick_after_start", 409, None,
              "the host removes a racer after the start (the host may still close the room)"),
    ErrorCode("room/not_over", 409, None,
              "a rematch offered before the race is over (or in a room closed before its start)"),
    ErrorCode("series/not_found", 404, None, "no series by that id (nor a room of one)"),
    ErrorCode("room/hints_off", 403, None, "a hint in a room created without the hints option"),
    ErrorCode("race/hidden_until_over", 403, None,
              "another racer's board or moves while both race (docs/protocol.md, \"Fair play\")"),
    ErrorCode("race/hidden_until_start", 403, None,
              "a board before the start: the first layout is dealt at the start"),
    ErrorCode("racer/not_found", 404, None, "no such racer in the room"),
    ErrorCode("racer/name_taken", 409, None,
              "another racer of the room has this name (case-insensitive)"),
    ErrorCode("racer/finished", 409, None, "the racer's result is final"),
    # players (docs/players.md)
    ErrorCode("player/not_found", 404, None, "no player by that id or name"),
    ErrorCode("player/invalid_key", 403, None, "the player key is not that player's"),
    ErrorCode("player/name_taken", 409, None,
              "a player has this name already (compared after NFKC and case folding)"),
    # challenges and duels (docs/protocol.md, "Challenges and duels")
    ErrorCode("challenge/not_found", 404, None, "no challenge by that id or code"),
    ErrorCode("challenge/already_played", 409, None,
              "a second attempt at a challenge: only the first counts"),
    ErrorCode("challenge/expired", 409, None, "an attempt at a challenge past its expiry"),
    ErrorCode("challenge/closed", 409, None,
              "an attempt at a challenge that takes no more (settled, void, closed, or a "
              "duel: its rival comes from POST /duels)"),
    ErrorCode("challenge/hidden", 403, 1008,
              "another player's challenge attempt while the challenge is open: nothing of it "
              "shows until you played yours (through the challenge) or it closes"),
    # moves
    ErrorCode("move/invalid", 400, None, "move text or JSON that does not parse"),
    ErrorCode("move/illegal", 422, None, "the rules refuse the move here"),
    ErrorCode("move/log_full", 409, None,
              "the racer's move log holds its most entries (20,000: a replay file's limit)"),
    ErrorCode("move/stale_version", 409, None,
              "expected_version is not the game's version; details.game is current"),
    # solver
    ErrorCode("solver/busy", 503, None, "the solver did not answer in time"),
    # records
    ErrorCode("replay/invalid", 400, None, "an imported replay that is not a replay document"),
    ErrorCode("replay/forged", 422, None,
              "an imported replay whose log or result does not hold up when replayed"),
    ErrorCode("compare/different_deal", 409, None,
              "two games on different deal numbers or rule sets"),
    ErrorCode("ghost/too_many", 503, None, "this process drives its most ghost rooms already"),
    # store and server
    ErrorCode("store/unavailable", 503, 1013, "the store does not answer; retry"),
    ErrorCode("store/busy", 503, None, "too many concurrent writes to one record; retry"),
    ErrorCode("archive/unavailable", 503, None,
              "the archive database does not answer (races run on); retry"),
    ErrorCode("server/error", 500, 1011, "a bug; no traceback is sent"),
)

REGISTRY: Final[Mapping[str, ErrorCode]] = MappingProxyType({e.code: e for e in _TABLE})
"""Every wire error code, by code (read-only)."""
assert len(REGISTRY) == len(_TABLE), "a code is listed twice"

CLOSE_TOO_SLOW: Final = 4000
"""WebSocket close code for a client that does not read fast enough (no error code)."""

_CLASSES: dict[str, type[ServiceError]] = {}


def class_of(code: str) -> type[ServiceError]:
    """The exception class of a registry ``code``.

    :raises KeyError: no class claims the code.
    """
    return _CLASSES[code]


class ServiceError(Exception):
    """The root of the service's errors: ``code``, ``status``, ``message``, ``details``.

    A concrete subclass sets ``code`` to its :data:`REGISTRY` entry; ``spec``,
    ``status`` and ``close`` follow from the table. A class that sets no code
    is an abstract base and inherits its parent's entry.
    """

    code: ClassVar[str] = "server/error"
    spec: ClassVar[ErrorCode] = REGISTRY["server/error"]
    status: ClassVar[int] = spec.status
    close: ClassVar[int | None] = spec.close

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "status" in cls.__dict__ or "close" in cls.__dict__ or "spec" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: status and close come from REGISTRY")
        if "code" not in cls.__dict__:
            return
        spec = REGISTRY.get(cls.code)
        if spec is None:
            raise TypeError(f"{cls.__name__}: {cls.code!r} is not in server.errors.REGISTRY")
        if cls.code in _CLASSES:
            raise TypeError(f"{cls.__name__}: {cls.code!r} is already "
                            f"{_CLASSES[cls.code].__name__}'s")
        cls.spec, cls.status, cls.close = spec, spec.status, spec.close
        _CLASSES[cls.code] = cls

    def __init__(self, message: str = "", details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message or self.spec.meaning
        self.details = details or {}

    def to_json(self) -> dict[str, Any]:
        """``{"code", "message", "details"?}`` as sent on the wire."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


_CLASSES["server/error"] = ServiceError


# ----------------------------------------------------------------- refusals


class RaceError(ServiceError):
    """A refused request (abstract): ``except RaceError`` catches every refusal."""


class RequestInvalid(RaceError):
    """Bad field values, or a body or socket message that is not valid JSON."""

    code = "request/invalid"


class UnsupportedMediaType(RaceError):
    """A body that is not declared as JSON (``Content-Type: application/json``)."""

    code = "request/unsupported_media_type"


class RequestTooLarge(RaceError):
    """The body or message is larger than the configured limit."""

    code = "request/too_large"


class RequestHeadersTooLarge(RaceError):
    """The request head is larger than the configured limit (answered by the
    HTTP protocol itself, before any route: :mod:`server.runtime.http_protocol`)."""

    code = "request/headers_too_large"


class RouteNotFound(RaceError):
    """No route at that path."""

    code = "request/not_found"


class MethodNotAllowed(RaceError):
    """The route exists but not with that method."""

    code = "request/method_not_allowed"


class UpgradeRequired(RaceError):
    """A plain HTTP request to the WebSocket endpoint."""

    code = "request/upgrade_required"


class OriginNotAllowed(RaceError):
    """A room socket opened from a page of an origin the server does not allow."""

    code = "request/origin_not_allowed"


class RateLimited(RaceError):
    """Too many requests (or socket messages) from one client."""

    code = "rate/limited"


class ServerFull(RaceError):
    """The process holds its most sockets, new rooms or bots: new ones wait (races go on)."""

    code = "server/full"


class AuthMissing(RaceError):
    """No token where one is needed."""

    code = "auth/missing"


class AuthInvalidToken(RaceError):
    """The token is not this racer's (or the host's)."""

    code = "auth/invalid_token"


class AuthForbidden(RaceError):
    """A valid token that may not do this (acting for another racer)."""

    code = "auth/forbidden"


class RoomNotFound(RaceError):
    """No live room by that id or code."""

    code = "room/not_found"


class RoomFull(RaceError):
    """The room holds its capacity of racers."""

    code = "room/full"


class RoomNotWaiting(RaceError):
    """Joining or starting after the start."""

    code = "room/not_waiting"


class RoomNotRacing(RaceError):
    """A move before the start."""

    code = "room/not_racing"


class KickAfterStart(RaceError):
    """The host's power over the roster ends at the start: no kick once the race
    runs (a kicked leader would hand the host a rated win)."""

    code = "room/kick_after_start"


class RoomOver(RaceError):
    """A move after the race ended or closed."""

    code = "room/over"


class RoomNoRacers(RaceError):
    """Starting a room with no racer."""

    code = "room/no_racers"


class RoomNotOver(RaceError):
    """A rematch offered before the race is over (or in a room closed before its start)."""

    code = "room/not_over"


class SeriesNotFound(RaceError):
    """No series by that id (nor a room of one)."""

    code = "series/not_found"


class HintsOff(RaceError):
    """A hint in a room created without the hints option."""

    code = "room/hints_off"


class HiddenUntilOver(RaceError):
    """A rival's board or move log during the race (docs/protocol.md, "Fair play")."""

    code = "race/hidden_until_over"


class HiddenUntilStart(RaceError):
    """A board before the start: the first layout is dealt at the start."""

    code = "race/hidden_until_start"


class RacerNotFound(RaceError):
    """No such racer in the room."""

    code = "racer/not_found"


class RacerNameTaken(RaceError):
    """Another racer of the room has this name (case-insensitive)."""

    code = "racer/name_taken"


class RacerFinished(RaceError):
    """The racer's result is final."""

    code = "racer/finished"


class MoveInvalid(RaceError):
    """Move text or JSON that does not parse."""

    code = "move/invalid"


class MoveIllegal(RaceError):
    """The rules refuse the move here."""

    code = "move/illegal"


class MoveLogFull(RaceError):
    """The racer's move log holds :data:`server.rules.MAX_LOG` entries: no move
    may make it longer (every game stays exportable as a replay)."""

    code = "move/log_full"


class MoveStaleVersion(RaceError):
    """expected_version is not the game's version; details.game is current."""

    code = "move/stale_version"


class SolverBusy(RaceError):
    """The solver did not answer in time."""

    code = "solver/busy"


class ReplayError(RaceError):
    """A replay document refused (abstract): :class:`ReplayInvalid` or :class:`ReplayForged`."""


class ReplayInvalid(ReplayError):
    """Not a readable replay document (shape, version, rules, deal, key, move text)."""

    code = "replay/invalid"


class ReplayForged(ReplayError):
    """A readable replay document whose log or result does not hold up when replayed."""

    code = "replay/forged"


class CompareDifferentDeal(RaceError):
    """Two games on different deal numbers or rule sets."""

    code = "compare/different_deal"


class TooManyGhosts(RaceError):
    """This process already drives its most ghost rooms; try again later."""

    code = "ghost/too_many"


# ----------------------------------------------------------- store failures


class StoreError(ServiceError):
    """Base class of store errors (abstract; on the wire: ``server/error``)."""


class EventsTooOld(StoreError):
    """Events after the asked sequence number were trimmed from the log
    (internal: the socket sends a snapshot instead)."""


class PlayerNotFound(RaceError):
    """No player by that id or name (or the player was deleted)."""

    code = "player/not_found"


class PlayerInvalidKey(RaceError):
    """A player key that is not that player's (or nobody's)."""

    code = "player/invalid_key"


class PlayerNameTaken(RaceError):
    """Another player has this name (NFKC + case folding: ``Ann`` = ``ａｎｎ``)."""

    code = "player/name_taken"


class ChallengeNotFound(RaceError):
    """No challenge by that id or code."""

    code = "challenge/not_found"


class ChallengeAlreadyPlayed(RaceError):
    """The player has an attempt at this challenge already (only the first counts)."""

    code = "challenge/already_played"


class ChallengeExpired(RaceError):
    """The challenge's life is over: no new attempt."""

    code = "challenge/expired"


class ChallengeClosed(RaceError):
    """The challenge takes no more attempts (settled, void, closed; a duel's rival
    comes from the matchmaker)."""

    code = "challenge/closed"


class ChallengeHidden(RaceError):
    """Another player's attempt at a challenge still open (docs/protocol.md,
    "Fair play")."""

    code = "challenge/hidden"


class VersionConflict(StoreError):
    """Compare-and-set failed: the stored ``rev`` is not the expected one
    (on the wire, once retries are spent: ``store/busy``)."""

    code = "store/busy"


class StoreUnavailable(StoreError):
    """The backend cannot reach its storage (Redis down, timeout)."""

    code = "store/unavailable"


class ArchiveUnavailable(StoreError):
    """The archive database (``server.archive``) does not answer: reads of
    archived races fail, live races go on, pending races wait."""

    code = "archive/unavailable"
