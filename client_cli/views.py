"""Typed views of the service's JSON (docs/protocol.md, "Views").

The models ignore fields they do not know, so a newer server does not break
an older client; every field the protocol names is here with its type. Times
are milliseconds of the race clock (``*_ms``); counts are plain ints.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from server.rules import Position, RuleSet, position_from_json

from .errors import ProtocolError

__all__ = [
    "AckView",
    "CreatedRoom",
    "GameView",
    "JoinedRoom",
    "PositionView",
    "QuickInfo",
    "QuickJoined",
    "RacerView",
    "RematchView",
    "ReplayMove",
    "ReplayView",
    "RoomLink",
    "RoomView",
    "RulesView",
    "SeriesInfo",
    "SeriesRace",
    "SeriesRow",
    "SeriesScore",
    "SeriesView",
    "StandingView",
    "StandingsView",
    "parse",
]

RoomState = Literal["waiting", "countdown", "racing", "over", "closed"]
RacerStatus = Literal["waiting", "playing", "won", "stuck", "resigned", "timed_out", "left"]


V = TypeVar("V", bound=BaseModel)


class _View(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class RulesView(_View):
    """A room's rule set: variant plus overrides."""

    variant: str = "belle-lucie"
    name: str = ""
    decks: int = 1
    layout: str = "lucie"
    build: str = "down-suit"
    max_fan: int | None = None
    king_fills_empty: bool = False
    redeals: int = 2
    merci: bool = False
    undo: bool = True
    cells: int = 0

    def rule_set(self) -> RuleSet:
        """The engine's :class:`RuleSet` for these rules (for local move choice).

        :raises server.rules.RulesError: unknown variant or bad overrides.
        """
        return RuleSet.from_json(self.model_dump())


class RacerView(_View):
    """One racer as the room sees them."""

    id: str
    name: str
    join_order: int = 0
    ready: bool = False
    status: str = "waiting"
    foundation_cards: int = 0
    moves: int = 0
    redeals_used: int = 0
    merci_used: bool = False
    reach_time_ms: int | None = None
    finished_ms: int | None = None
    final: bool = False
    player: str | None = None
    """The player id the racer races as (``None``: anonymous, or a computer racer)."""
    bot: bool = False
    """A computer racer run by the server (room option ``bots``, a quick race's
    fill-ins): it stops with the server, resigning."""
    bot_level: str | None = None
    """A computer racer's level (``novice``, ``club``, ``expert``); ``None``: a person."""
    bot_rating: float | None = None
    """The rating of a computer racer's level (docs/protocol.md, "Computer racers")."""


class RoomLink(_View):
    """Another room of a rematch chain or a series: its id and code."""

    room: str
    code: str


class SeriesInfo(_View):
    """A room's place in a series: the series id, this room's race, the races."""

    id: str
    race: int = 1
    races: int = 1


class QuickInfo(_View):
    """A quick-race lobby while it waits (docs/protocol.md, "Quick race"): its
    rating band, and ms until it starts by itself (two racers or more) or until
    computer racers join a racer alone (``None``: not so, or none will)."""

    band: int = 0
    starts_in_ms: int | None = None
    bots_in_ms: int | None = None


class RoomView(_View):
    """A room: rules, deal number, state, racers and its last event number."""

    id: str
    code: str
    rules: RulesView = Field(default_factory=RulesView)
    deal_number: int | None = None
    deal_commitment: str | None = None
    """SHA-256 hex of the deal, published at creation (docs/protocol.md, "Verifying a deal")."""
    redeal_key: str | None = None
    """Hex; revealed once the race is over (else ``None``), as ``deal_salt``."""
    deal_salt: str | None = None
    state: str = "waiting"
    capacity: int = 8
    time_limit_ms: int | None = None
    visibility: str = "public"
    countdown_ms: int | None = None
    starts_in_ms: int | None = None
    race_clock_ms: int | None = None
    racers: list[RacerView] = Field(default_factory=list)
    seq: int = 0
    hints: bool = False
    """Racers may ask for hints (a practice room: unranked)."""
    winnable_only: bool = False
    """The solver proved the deal winnable with the room's redeals."""
    rematch: RoomLink | None = None
    """The next room (a rematch, or the series' next race), once made."""
    rematch_of: RoomLink | None = None
    series: SeriesInfo | None = None
    quick: QuickInfo | None = None
    """A quick-race lobby while it waits; else ``None``."""

    def racer(self, racer_id: str) -> RacerView | None:
        """The racer with ``racer_id``, or ``None``."""
        return next((r for r in self.racers if r.id == racer_id), None)


class PositionView(_View):
    """A game's table: fans bottom → top (``[]`` = gone), foundations as (suit, top rank)."""

    fans: list[list[str]]
    foundations: list[tuple[str, int]]
    cells: list[str | None] = Field(default_factory=list)
    redeals_used: int = 0
    merci_used: bool = False
    foundation_cards: int = 0

    def position(self) -> Position:
        """The engine's :class:`Position` (raises ``InvalidCardError`` on bad cards)."""
        return position_from_json(self.model_dump())


class GameView(_View):
    """A racer's full game state; ``version`` is the number of moves applied."""

    racer: str
    version: int
    status: str = "playing"
    final: bool = False
    position: PositionView
    legal_moves: list[str] = Field(default_factory=list)
    can_undo: bool = False
    redeals_left: int = 0
    merci_available: bool = False
    moves: int = 0
    reach_time_ms: int | None = None
    race_clock_ms: int | None = None
    delay_ms: int = 0
    """How far behind the race clock this board is (ms): a spectator's view during
    the race lags by the room's spectator delay (docs/protocol.md, "Fair play")."""


class AckView(_View):
    """The answer to an accepted move: ``applied`` lists the moves (autoplay expands)."""

    client_move_id: str
    version: int
    race_clock_ms: int | None = None
    applied: list[str] = Field(default_factory=list)
    game: GameView


class StandingView(_View):
    """One line of the standings, best first by ``rank``."""

    rank: int
    racer: str
    name: str
    foundation_cards: int = 0
    reach_time_ms: int | None = None
    moves: int = 0
    join_order: int = 0
    status: str = "playing"
    final: bool = False
    points: int = 0
    bot_level: str | None = None
    """A computer racer's level; ``None``: a person."""
    bot_rating: float | None = None


class StandingsView(_View):
    """Ranked standings; ``final`` once the race is over."""

    final: bool = False
    standings: list[StandingView] = Field(default_factory=list)


class ReplayMove(_View):
    """One logged move with its race-clock time and the version it made."""

    move: str
    race_clock_ms: int | None = None
    version: int = 0


class ReplayView(_View):
    """A racer's move log; ``redeal_key`` (hex) is ``None`` until the race is over."""

    rules: RulesView = Field(default_factory=RulesView)
    deal_number: int | None = None
    redeal_key: str | None = None
    moves: list[ReplayMove] = Field(default_factory=list)
    result: RacerView | None = None


class CreatedRoom(_View):
    """Answer to creating a room: the room and the host's secret token."""

    room: RoomView
    host_token: str


class JoinedRoom(_View):
    """Answer to joining: the racer and the racer's secret token."""

    racer: RacerView
    token: str


class QuickJoined(_View):
    """Answer to a quick race: the lobby (as the racer sees it), the racer, its token."""

    room: RoomView
    racer: RacerView
    token: str


class SeriesScore(_View):
    """One racer's score in one race of a series (``status`` ``absent``: not in it)."""

    foundation_cards: int = 0
    time_ms: int = 0
    status: str = "absent"


class SeriesRow(_View):
    """One line of a series' table, best first by ``rank`` (ties share a rank)."""

    rank: int
    racer: str
    name: str
    join_order: int = 0
    foundation_cards: int = 0
    time_ms: int = 0
    left: bool = False
    races: list[SeriesScore | None] = Field(default_factory=list)


class SeriesRace(_View):
    """One race of a series: its room (``None`` until made)."""

    race: int
    room: str | None = None
    code: str | None = None
    state: str | None = None


class SeriesView(_View):
    """A series of races: its rooms and table (docs/protocol.md, "Series")."""

    id: str
    races: int
    played: int = 0
    state: str = "running"
    final: bool = False
    rooms: list[SeriesRace] = Field(default_factory=list)
    table: list[SeriesRow] = Field(default_factory=list)


class RematchView(_View):
    """Answer to offering a rematch: the next room, you in it (same racer id), your
    token (the same) and, when your offer made the room, its host token."""

    room: RoomView
    racer: RacerView
    token: str
    host_token: str | None = None


def parse(model: type[V], data: Any) -> V:
    """Validate ``data`` as ``model``; raises :class:`~client_cli.errors.ProtocolError`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ProtocolError(f"server sent a {model.__name__} that does not fit: {exc}") from None
