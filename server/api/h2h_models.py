"""Wire models of the head-to-head API: comparisons, replay checks, ghost rooms,
daily deal and leaderboards (docs/protocol.md, "Head to head").

Requests refuse unknown fields; answers mirror :mod:`server.records.compare`,
:mod:`server.records.replay_file` and :mod:`server.records.leaderboard`.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetPydanticSchema,
    JsonValue,
    Strict,
    model_validator,
)
from pydantic_core import core_schema

from server.race.views import RacerView, RoomView, RulesView
from server.records.replay_file import EXAMPLE, ReplayDocument

from .models import INTEGRAL

__all__ = [
    "CompareBody",
    "ComparisonView",
    "DailyDealView",
    "DivergenceView",
    "GameSource",
    "GhostRoomBody",
    "GhostRoomCreated",
    "LayoutView",
    "LeadSegmentView",
    "LeadView",
    "LeaderboardRowView",
    "LeaderboardView",
    "ReplayCheck",
    "ReplayCheckBody",
    "ReplayJson",
    "SideView",
    "TimelinePoint",
    "VerdictView",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _as_object(value: Any, _: Any) -> Any:
    if not isinstance(value, dict):
        raise ValueError("a replay document is a JSON object")
    return value


ReplayJson = Annotated[dict[str, Any], GetPydanticSchema(
    lambda _, handler: core_schema.no_info_wrap_validator_function(
        _as_object, handler(ReplayDocument)))]
"""A replay document (docs/replay.md): taken as any JSON object here and checked
by replaying it (:func:`server.records.replay_file.import_replay`:
``replay/invalid``, ``replay/forged``); its schema is
:class:`~server.records.replay_file.ReplayDocument`'s (the wrap validator never
calls the model's: the replay check gives the refusal its code)."""


class TimelinePoint(_Model):
    """The game right after one move."""

    index: int = Field(description="1-based move index in the log")
    move: str
    race_clock_ms: int
    foundation_cards: int
    layout: int = Field(description="1 = the deal, 2 after the first redeal, …")


class LayoutView(_Model):
    """One layout of one game."""

    layout: int
    reached: bool
    cards_to_foundation: int = Field(description="net, undo counted")
    moves: int
    time_ms: int


class SideView(_Model):
    """One of the two games."""

    name: str
    join_order: int | None = Field(description="null across rooms or for a replay file")
    status: str
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    redeals_used: int
    merci_used: bool
    start_foundation_cards: int
    end_ms: int = Field(description="race clock where this game's timeline ends")
    timeline: list[TimelinePoint]
    layouts: list[LayoutView]


class DivergenceView(_Model):
    """First move where the games part; ``move_index`` null: same logs."""

    move_index: int | None
    reason: Literal["moves", "layouts", "ended"] | None
    a_move: str | None
    b_move: str | None


class LeadSegmentView(_Model):
    """Race-clock interval with its leader (null: level)."""

    start_ms: int
    end_ms: int
    leader: Literal["a", "b"] | None


class LeadView(_Model):
    """Who had more foundation cards for how long."""

    a_ms: int
    b_ms: int
    level_ms: int
    changes: int
    segments: list[LeadSegmentView]


class VerdictView(_Model):
    """Better game by rules.md "Race ranking" and the rule that decided."""

    winner: Literal["a", "b"] | None
    decided_by: Literal["foundation_cards", "reach_time", "moves", "join_order", "tie"]


class ComparisonView(_Model):
    """Head-to-head comparison of two games on one deal and rule set."""

    deal_number: int
    rules: RulesView
    a: SideView
    b: SideView
    divergence: DivergenceView
    lead: LeadView
    verdict: VerdictView


_ONE_FORM: Final[list[JsonValue]] = [
    {"required": ["room", "racer"], "properties": {
        "room": {"type": "string"}, "racer": {"type": "string"}, "replay": {"type": "null"}}},
    {"required": ["replay"], "properties": {
        "replay": {"type": "object"}, "room": {"type": "null"}, "racer": {"type": "null"}}},
]
"""A game source is a live racer or a replay document, never both."""
_SHORTER: Final = {**EXAMPLE, "player": "bix", "moves": EXAMPLE["moves"][:4],
                   "result": {**EXAMPLE["result"], "foundation_cards": 4, "moves": 4,
                              "reach_time_ms": 4680, "finished_ms": 5000}}
"""The example replay's first four moves, resigned then (another game on its deal)."""


class GameSource(_Model):
    """A game: a racer of a live room (``room`` + ``racer`` id or name) or a replay document."""

    model_config = ConfigDict(json_schema_extra={"oneOf": _ONE_FORM})

    room: str | None = Field(default=None, min_length=1, max_length=64)
    racer: str | None = Field(default=None, min_length=1, max_length=64)
    replay: ReplayJson | None = Field(
        default=None, description="a replay document (docs/replay.md)")

    @model_validator(mode="after")
    def _one_form(self) -> GameSource:
        by_room = self.room is not None and self.racer is not None and self.replay is None
        by_replay = self.replay is not None and self.room is None and self.racer is None
        if not (by_room or by_replay):
            raise ValueError("give either room and racer, or replay")
        return self


class CompareBody(_Model):
    """Two games to compare."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"a": {"replay": EXAMPLE}, "b": {"replay": _SHORTER}}]})

    a: GameSource
    b: GameSource


class ReplayCheckBody(_Model):
    """A replay document to check."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"replay": EXAMPLE}]})

    replay: ReplayJson


class ReplayCheck(_Model):
    """A replay document that holds up when replayed."""

    valid: Literal[True] = True
    player: str
    rules: RulesView
    deal_number: int
    moves: int
    result: dict[str, Any] = Field(description="the document's result, as checked")


class GhostRoomBody(GameSource):
    """A ghost room: the recorded game (a live racer or a replay document) and room options."""

    model_config = ConfigDict(json_schema_extra={"oneOf": _ONE_FORM, "examples": [
        {"replay": EXAMPLE, "capacity": 4, "countdown_s": 5}]})

    # strict numbers, as POST /rooms's: "8" and true are not numbers, 8.0 is 8
    capacity: Annotated[int, Field(ge=1, le=64), Strict(), INTEGRAL] = 8
    time_limit_s: Annotated[int, Field(ge=10, le=14400), Strict(), INTEGRAL] = 900
    visibility: Literal["public", "private"] = "public"
    countdown_s: Annotated[int, Field(ge=0, le=60), Strict(), INTEGRAL] = 3


class GhostRoomCreated(_Model):
    """The ghost room, its host token and the ghost racer."""

    room: RoomView
    host_token: str
    ghost: RacerView


class DailyDealView(_Model):
    """The daily deal of a variant on a UTC date."""

    variant: str
    date: str = Field(description="YYYY-MM-DD (UTC)")
    deal_number: int


class LeaderboardRowView(_Model):
    """One leaderboard row."""

    rank: int
    name: str
    variant: str
    deal_number: int
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    status: str
    room: str
    finished_at_ms: int


class LeaderboardView(_Model):
    """A leaderboard read."""

    variant: str
    board: Literal["daily", "all-time"]
    date: str | None = Field(description="YYYY-MM-DD for a daily board")
    rows: list[LeaderboardRowView]
