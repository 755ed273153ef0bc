"""Wire models of requests and WebSocket messages (docs/protocol.md).

Every model refuses unknown fields (``extra="forbid"``). Client → server
WebSocket messages form one discriminated union on ``t``
(:data:`ClientMessage`); server → client messages are :data:`ServerMessage`.
Answers of the REST API are the views of :mod:`server.race.views`; room
events (the ``d`` of ``event``) are the models of :mod:`server.race.events`.

Size: one small class per request body and socket message, both directions:
together they are the one source of docs/openapi.json and docs/ws-schema.json
(:mod:`server.api.openapi`), and the unions on ``t`` need every member here.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, cast

import orjson
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, WithJsonSchema

from server.errors import RequestInvalid
from server.race.events import RoomEvent
from server.race.options import LEVELS, BotsOfLevel, BotsOption
from server.race.views import Ack, GameView, RacerView, RoomView
from server.rules import VARIANTS
from server.rules.deal import MAX_DEAL_NUMBER
from server.rules.notation import MOVE_JSON_SCHEMA, MOVE_TEXT_SCHEMA
from server.runtime.jsoncodec import integral

__all__ = [
    "INTEGRAL",
    "ClientMessage",
    "CreateRoom",
    "CreatedRoom",
    "ErrorBody",
    "ErrorInfo",
    "FocusBody",
    "FocusIn",
    "JoinRoom",
    "Joined",
    "JsonInt",
    "MoveBody",
    "MoveIn",
    "ReadyBody",
    "RoomList",
    "SeriesBody",
    "ServerMessage",
    "client_message",
    "json_object_problem",
]

def _whole_deal(value: Any) -> Any:
    """A deal number is written as a JSON integer (digits only): deal numbers
    reach 10²⁰ − 1, far past what a float holds exactly, so a number with a
    fraction or an exponent (``1e19``, ``12345678901234567.0``) would name
    another deal than the one written. Refused as the rules' range is, 400
    ``request/invalid`` with ``details.field`` ``deal`` (raised as is:
    pydantic passes on what is not a ``ValueError``)."""
    if isinstance(value, float):
        raise RequestInvalid("deal: a deal number is a JSON integer, written with digits "
                             "only (no fraction, no exponent)", {"field": "deal"})
    return value


INTEGRAL = BeforeValidator(integral)
"""The validator of an integer request field (:func:`~server.runtime.jsoncodec.integral`)."""
JsonInt = Annotated[int, INTEGRAL]
"""An integer field of a request: strict (no strings, no booleans), but ``3.0`` is 3.
Bounds go inside, before the validator (``Annotated[int, Field(ge=…), INTEGRAL]``),
so that JSON Schema shows them as ``minimum``/``maximum``, also next to ``None``."""

MoveValue = Annotated[
    str | dict[str, str | JsonInt],
    WithJsonSchema({"anyOf": [MOVE_TEXT_SCHEMA, MOVE_JSON_SCHEMA]}),  # the parser's: 400
    Field(description='text notation ("3f", "3-7", "r", "m 5H f", "u", "a") or a JSON move '
          '({"type": "play", "from": "3", "to": "f"})'),
]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


_LEVEL = Field(max_length=20, json_schema_extra={"enum": list(LEVELS)})


class BotsBody(_In):
    """``"bots": {"level", "count"}`` of ``POST /rooms``: computer racers of one level."""

    level: Annotated[str, _LEVEL] = Field(description="novice, club or expert")
    count: Annotated[int, Field(ge=0, le=63), INTEGRAL] = Field(
        1, description="how many (fewer than capacity)")


class SeriesBody(_In):
    """``"series"`` of ``POST /rooms``: the room is the first of a series of races."""

    races: Annotated[int, Field(ge=2, le=9), INTEGRAL] = Field(
        description="races back to back on new deals with the same racers (2–9)")
    break_s: Annotated[int, Field(ge=0, le=300), INTEGRAL] = Field(
        20, description="seconds between a race's end and the next one's countdown (0–300)")


class CreateRoom(_In):
    """``POST /rooms``: a new room."""

    model_config = ConfigDict(json_schema_extra={
        # spectator_delay_s: 0 only with open_boards, and open_boards takes no other
        "if": {"properties": {"open_boards": {"const": True}}, "required": ["open_boards"]},
        "then": {"properties": {"spectator_delay_s": {"enum": [None, 0]}}},
        "else": {"properties": {"spectator_delay_s": {"anyOf": [
            {"type": "null"}, {"type": "integer", "minimum": 10, "maximum": 600}]}}},
    })

    variant: str = Field("belle-lucie", max_length=40,
                         json_schema_extra={"enum": list(VARIANTS)})
    redeals: Annotated[int, Field(ge=0, le=9), INTEGRAL] | None = None
    merci: bool | None = None
    undo: bool | None = None
    deal: (Annotated[int, BeforeValidator(_whole_deal), WithJsonSchema(  # range: the rules' (400)
        {"type": "integer", "minimum": 1, "maximum": MAX_DEAL_NUMBER})]
           | Literal["random", "daily"]) = Field(
        "random", description="a deal number (1 … 10^20 − 1), \"random\" or \"daily\"")
    capacity: Annotated[int, Field(ge=1, le=64), INTEGRAL] = 8
    time_limit_s: Annotated[int, Field(ge=10, le=14400), INTEGRAL] = 900
    visibility: Literal["public", "private"] = "public"
    countdown_s: Annotated[int, Field(ge=0, le=60), INTEGRAL] = 3
    hints: bool = Field(False, description="racers may ask for hints (practice rooms)")
    winnable_only: bool = Field(
        False, description="deal (and redeal key) proved winnable by the solver")
    spectator_delay_s: Annotated[int, Field(ge=0, le=600), INTEGRAL] | None = Field(
        None, description="during the race, spectators see boards this many "
        "seconds behind the race clock (10–600, default 60; 0 only with open_boards)")
    open_boards: bool = Field(
        False, description="spectators see boards live (shown in the room's listing)")
    bots: (Annotated[int, Field(ge=0, le=63), INTEGRAL]
           | Annotated[list[Annotated[str, _LEVEL]], Field(max_length=63)] | BotsBody) = Field(
        0, description="computer racers (bot-Ada, bot-Bix, …) seated at once and run by the "
        "server until their results are final, whoever leaves; fewer than capacity: a count "
        "(a mix of levels: 3 is one novice, one club, one expert), a list of levels, one per "
        "bot, or {\"level\", \"count\"} (docs/protocol.md, \"Computer racers\")")
    series: SeriesBody | None = Field(
        None, description="make the room the first of a series of races (docs/protocol.md, "
        "\"Series\"); null: a single race")

    def bots_option(self) -> BotsOption:
        """``bots`` as the race authority takes it (:class:`RoomOptions`)."""
        if isinstance(self.bots, BotsBody):
            return BotsOfLevel(self.bots.level, self.bots.count)
        return tuple(self.bots) if isinstance(self.bots, list) else self.bots


class CreatedRoom(_In):
    """The new room and its host token (keep it secret)."""

    room: RoomView
    host_token: str


class RoomList(_In):
    """Public rooms waiting for racers."""

    rooms: list[RoomView]


class JoinRoom(_In):
    """``POST /rooms/{room}/racers``. With a player key (``Authorization: Bearer
    <player key>``) the racer races as that player, under the player's name
    (``name`` may be left out and is not used); without one ``name`` is needed."""

    name: str | None = Field(None, min_length=1, max_length=64)


class Joined(_In):
    """The racer and their secret token (keep it secret)."""

    racer: RacerView
    token: str


class ReadyBody(_In):
    """``POST /rooms/{room}/racers/{racer}/ready``: ``ready`` is required."""

    ready: bool


class MoveBody(_In):
    """A move: the move, the game version it expects, a client move id."""

    move: MoveValue
    expected_version: Annotated[int, Field(ge=0, le=1_000_000), INTEGRAL]
    client_move_id: str = Field(min_length=1, max_length=64)


class ErrorInfo(_In):
    """A stable namespaced code, a human message, optional details."""

    code: str
    message: str
    details: dict[str, Any] | None = None


class ErrorBody(_In):
    """Every HTTP error answer."""

    error: ErrorInfo


# -- WebSocket: client → server ----------------------------------------------------


class MoveIn(_In):
    """Submit a move (racers only)."""

    t: Literal["move"]
    d: MoveBody


class ReadyIn(_In):
    """Set ready (racers only, before the start)."""

    t: Literal["ready"]
    d: ReadyBody


class _TokenData(_In):
    token: str = Field(min_length=1, max_length=128)


class AuthIn(_In):
    """Become a racer on this socket (when no Authorization header was sent)."""

    t: Literal["auth"]
    d: _TokenData


class ResignIn(_In):
    """Concede (racers only)."""

    t: Literal["resign"]
    d: dict[str, Any] | None = Field(None, max_length=0)


def _no_number(value: Any) -> Any:
    """``true`` itself: ``Literal[True]`` alone takes ``1`` and ``1.0`` (equal to it)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise ValueError("a JSON boolean, not a number")
    return value


class FocusBody(_In):
    """``lost``: the page was hidden or the window lost focus (only ``true``)."""

    lost: Annotated[Literal[True], BeforeValidator(_no_number)]


class FocusIn(_In):
    """The racer's page lost focus during the race (racers only; no answer):
    counted for the fair-play assessment, at most one a second, never shown."""

    t: Literal["focus"]
    d: FocusBody


class PingIn(_In):
    """Application-level ping; the server answers ``pong``."""

    t: Literal["ping"]
    d: dict[str, Any] | None = Field(None, max_length=0)


ClientMessage = Annotated[MoveIn | ReadyIn | AuthIn | ResignIn | FocusIn | PingIn,
                          Field(discriminator="t")]
"""Every message a client may send."""

_CLIENT: TypeAdapter[Any] = TypeAdapter(cast(Any, ClientMessage))


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def json_object_problem(raw: str | bytes) -> str | None:
    """Why ``raw`` is not one JSON object with distinct keys (at every depth),
    or ``None`` when it is. Request bodies and socket messages are refused
    with ``request/invalid`` for any such reason (docs/protocol.md)."""
    try:  # fast path: an object exactly as orjson writes it has no duplicate keys
        value = orjson.loads(raw)
        if isinstance(value, dict) and orjson.dumps(value) == (
                raw.encode() if isinstance(raw, str) else raw):
            return None
    except (ValueError, TypeError):  # not for orjson (big integers, deep nesting)
        pass
    if not raw.strip():
        return "the body is empty: send a JSON object ({} for all defaults)"
    try:
        value = json.loads(raw, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as exc:
        return f"duplicate key {str(exc)[:64]!r} in the JSON object"
    except (ValueError, RecursionError):
        return "not valid JSON"
    if not isinstance(value, dict):
        return "the body must be a JSON object"
    return None


def client_message(raw: str | bytes) -> MoveIn | ReadyIn | AuthIn | ResignIn | FocusIn | PingIn:
    """Decode one client message.

    :raises pydantic.ValidationError: bad JSON, unknown ``t``, bad fields.
    """
    return _CLIENT.validate_json(raw)  # type: ignore[no-any-return]


# -- WebSocket: server → client ----------------------------------------------------


class WelcomeData(_In):
    """Who you are on this socket and the room now (its ``seq`` included)."""

    racer: str | None
    room: RoomView


class WelcomeOut(_In):
    """First message on every socket, and again after a successful ``auth``."""

    t: Literal["welcome"]
    d: WelcomeData


class EventOut(_In):
    """One room event."""

    t: Literal["event"]
    d: RoomEvent = Field(description="the event: seq, type, race_clock_ms and the fields "
                         "of its type (server.race.events)")


class SnapshotData(_In):
    """The room now; sent instead of missed events that are too old."""

    seq: int
    room: RoomView


class SnapshotOut(_In):
    """A full resync (``since`` too old, or this socket fell behind)."""

    t: Literal["snapshot"]
    d: SnapshotData


class AckOut(_In):
    """A move was accepted (or is a repeat of an accepted one)."""

    t: Literal["ack"]
    d: Ack


class RefusedData(_In):
    """A move was refused; ``game`` is the current game for a stale version."""

    client_move_id: str | None
    code: str
    message: str
    game: GameView | None = None
    details: dict[str, Any] | None = Field(
        None, description="e.g. retry_after_ms for store/unavailable: resend the move "
        "with the same client_move_id after that long")


class RefusedOut(_In):
    """A refused move; nothing changed."""

    t: Literal["refused"]
    d: RefusedData


class ErrorOut(_In):
    """A message that could not be handled (bad shape, not allowed); nothing changed."""

    t: Literal["error"]
    d: ErrorInfo


class PongOut(_In):
    """Answer to ``ping``."""

    t: Literal["pong"]


ServerMessage = Annotated[
    WelcomeOut | EventOut | SnapshotOut | AckOut | RefusedOut | ErrorOut | PongOut,
    Field(discriminator="t"),
]
"""Every message the server sends."""
