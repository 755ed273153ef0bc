"""Room events: one pydantic model per event type (docs/protocol.md, "Room events").

The race authority builds every room event through these models and hands the
store :meth:`_Event.logged` (``model_dump(mode="json")`` without ``seq``); the
store numbers the events (``seq`` 1, 2, 3, … per room) and keeps them as
dicts. The WebSocket ``event`` message carries one of them as ``d``
(:data:`RoomEvent`, discriminated on ``type``), and the JSON Schema of that
message (``/api/v1/schemas/ws.json``) is generated from them.

Times are milliseconds. ``race_clock_ms`` is the race clock (ms since the
start, at most the time limit) when the event happened; it is ``null`` before
the start — and so always ``null`` for ``created``, ``joined``, ``ready`` and
``countdown`` — and ``0`` for ``started``.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .views import RacerView, RoomLink, SeriesInfo, Standing

__all__ = [
    "EVENT_ADAPTER",
    "EVENT_MODELS",
    "EVENT_TYPES",
    "ClosedEvent",
    "CountdownEvent",
    "CreatedEvent",
    "FinishedEvent",
    "JoinedEvent",
    "LeftEvent",
    "ParEvent",
    "ProgressEvent",
    "RaceOverEvent",
    "ReadyEvent",
    "RematchEvent",
    "RoomEvent",
    "StartedEvent",
    "parse_event",
    "progress_logged",
]

ProgressStatus = Literal["playing", "won", "stuck"]
"""A racer's status after an accepted move (``stuck``: final only without undo)."""

FinishedStatus = Literal["won", "stuck", "resigned", "left", "timed_out"]
"""How a result became final."""

class _Event(BaseModel):
    """Fields every room event has: ``seq`` (the store's), ``type``, ``race_clock_ms``."""

    # serialization schema: every field is always sent (defaults included)
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    seq: int = Field(0, ge=0, description="the room's event number (1, 2, 3, … without "
                     "gaps), set by the store when it logs the event; 0 until then")

    def logged(self) -> dict[str, Any]:
        """The event as the store takes it: ``model_dump(mode="json")`` without
        ``seq`` (the store numbers it)."""
        return self.model_dump(mode="json", exclude={"seq"})


class CreatedEvent(_Event):
    """The room was created (the room's first event)."""

    type: Literal["created"] = "created"
    race_clock_ms: None = Field(None, description="always null: before the start")
    code: str = Field(description="the room's short code")


class JoinedEvent(_Event):
    """A racer joined the waiting room."""

    type: Literal["joined"] = "joined"
    race_clock_ms: None = Field(None, description="always null: before the start")
    racer: RacerView = Field(description="the new racer")


class LeftEvent(_Event):
    """A racer left or was kicked: before the start they leave the roster; during
    the race a ``finished`` event with status ``left`` follows."""

    type: Literal["left"] = "left"
    race_clock_ms: int | None = Field(
        description="race clock (ms) when they left; null before the start")
    racer: str = Field(description="racer id")


class ReadyEvent(_Event):
    """A racer set (or cleared) ready before the start."""

    type: Literal["ready"] = "ready"
    race_clock_ms: None = Field(None, description="always null: before the start")
    racer: str = Field(description="racer id")
    ready: bool


class CountdownEvent(_Event):
    """The countdown started (the host started, or every racer was ready)."""

    type: Literal["countdown"] = "countdown"
    race_clock_ms: None = Field(None, description="always null: before the start")
    starts_in_ms: int = Field(description="ms until the start (the room's countdown)")


class StartedEvent(_Event):
    """The race started: the race clock runs from 0."""

    type: Literal["started"] = "started"
    race_clock_ms: Literal[0] = Field(0, description="always 0: the start")
    deal_number: int


class ProgressEvent(_Event):
    """A racer's progress after every accepted move (the racer's view fields)."""

    type: Literal["progress"] = "progress"
    race_clock_ms: int = Field(description="race clock (ms) of the move")
    racer: str = Field(description="racer id")
    foundation_cards: int
    moves: int = Field(description="moves in the log (undo counts, autoplay expanded)")
    redeals_used: int
    merci_used: bool
    status: ProgressStatus
    reach_time_ms: int | None = Field(
        description="race clock (ms) of the move that last changed the foundation "
        "count; null while none has")


def progress_logged(*, race_clock_ms: int | None, racer: str, foundation_cards: int,
                    moves: int, redeals_used: int, merci_used: bool, status: str,
                    reach_time_ms: int | None) -> dict[str, Any]:
    """``ProgressEvent(...).logged()`` for values the authority has checked, without
    building and dumping the model: one per accepted move, it was ~4 % of a move's
    CPU (issue 23). The same keys in the same order (tests/race keep them equal)."""
    assert race_clock_ms is not None and status in _PROGRESS, (race_clock_ms, status)
    return {"type": "progress", "race_clock_ms": race_clock_ms, "racer": racer,
            "foundation_cards": foundation_cards, "moves": moves,
            "redeals_used": redeals_used, "merci_used": merci_used, "status": status,
            "reach_time_ms": reach_time_ms}


_PROGRESS: Final = frozenset(get_args(ProgressStatus))


class FinishedEvent(_Event):
    """A racer's result became final."""

    type: Literal["finished"] = "finished"
    race_clock_ms: int = Field(
        description="race clock (ms) when the result became final (timed out: the "
        "time limit, the close time, or the racer's last move if later)")
    racer: str = Field(description="racer id")
    status: FinishedStatus = Field(description="won, stuck (without undo), resigned, left "
                                   "or timed_out")


class RaceOverEvent(_Event):
    """The race is over: the final table, as ``GET …/standings`` gives it then
    (the fields of :class:`~server.race.views.Standings`). Once per race."""

    type: Literal["race_over"] = "race_over"
    race_clock_ms: int = Field(description="race clock (ms) at the end")
    final: Literal[True] = Field(description="always true: the table is final")
    standings: list[Standing]
    par: int | None = Field(description="most foundation cards possible on this deal "
                            "(solver); null when not known yet")


class ParEvent(_Event):
    """The solver's par arrived after ``race_over``: the final table again, with
    ``to_par`` (the fields of :class:`~server.race.views.Standings`). At most once."""

    type: Literal["par"] = "par"
    race_clock_ms: int = Field(description="race clock (ms) at the end of the race")
    final: Literal[True] = Field(description="always true: the table is final")
    standings: list[Standing]
    par: int = Field(description="most foundation cards possible on this deal with "
                     "these redeals (solver)")


class ClosedEvent(_Event):
    """The host closed the room (after ``race_over`` when the race was running)."""

    type: Literal["closed"] = "closed"
    race_clock_ms: int | None = Field(
        description="race clock (ms) at the close; null when closed before the start")


class RematchEvent(_Event):
    """The next room exists: a racer offered a rematch, or the series made its next
    race (docs/protocol.md, "Rematch", "Series"). At most once per room, after
    ``race_over``; the room view's ``rematch`` says the same from then on."""

    type: Literal["rematch"] = "rematch"
    race_clock_ms: int | None = Field(
        description="race clock (ms) at the end of the race (frozen)")
    rematch: RoomLink = Field(description="the next room: follow it (its racers keep their "
                              "ids and tokens)")
    series: SeriesInfo | None = Field(
        description="the next room's place in its series: its racers are already in it and "
        "its countdown runs (null: a plain rematch, offer it to take a seat)")


RoomEvent = Annotated[
    CreatedEvent | JoinedEvent | LeftEvent | ReadyEvent | CountdownEvent | StartedEvent
    | ProgressEvent | FinishedEvent | RaceOverEvent | ParEvent | ClosedEvent | RematchEvent,
    Field(discriminator="type"),
]
"""Every room event, discriminated on ``type``."""

EVENT_ADAPTER: Final[TypeAdapter[Any]] = TypeAdapter(cast(Any, RoomEvent))
"""Validates a stored or received event dict (``seq`` included) as :data:`RoomEvent`."""

EVENT_MODELS: Final[tuple[type[_Event], ...]] = get_args(get_args(RoomEvent)[0])
"""The model of each event type, in the order of a room's life."""

EVENT_TYPES: Final[tuple[str, ...]] = tuple(m.model_fields["type"].default for m in EVENT_MODELS)
"""Every event ``type`` (``created`` … ``closed``)."""


def parse_event(data: Any) -> RoomEvent:
    """The typed event of a stored or received event dict.

    :raises pydantic.ValidationError: unknown ``type``, missing, unknown or
        mistyped fields.
    """
    return cast(RoomEvent, EVENT_ADAPTER.validate_python(data))
