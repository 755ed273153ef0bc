"""What the authority answers: pydantic models of the wire views (docs/protocol.md).

The REST API returns these models as JSON and the OpenAPI document is
generated from them; WebSocket events embed them. Times are milliseconds:
``*_ms`` on the race clock (since the race started) unless named otherwise.
"""

from __future__ import annotations

from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from server.solver.levels import Level

from .quick_state import QuickInfo

__all__ = [
    "Ack",
    "GameView",
    "HintView",
    "PositionView",
    "RaceView",
    "RacerStatus",
    "RacerView",
    "Replay",
    "ReplayMove",
    "RoomLink",
    "RoomState",
    "RoomView",
    "RulesView",
    "SeriesInfo",
    "SeriesRace",
    "SeriesRow",
    "SeriesScore",
    "SeriesView",
    "Standing",
    "Standings",
]

RacerStatus = Literal["waiting", "playing", "won", "stuck", "resigned", "timed_out", "left"]
"""A racer's status; ``stuck`` is final only when the room disables undo."""

_BOT_LEVEL = ("a computer racer's level: novice, club or expert (docs/protocol.md, "
              "\"Computer racers\"); null: a person")
_BOT_RATING = ("a computer racer's level's rating (openskill, mu − 3 sigma like players' "
               "rating), calibrated by racing the levels against each other; null: a person")

RoomState = Literal["waiting", "countdown", "racing", "over", "closed"]
"""A room's life: waiting for racers → countdown → racing → over (or closed by the host)."""


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RulesView(_View):
    """The room's rule set: a variant plus the overrides (rules.md, "Variants")."""

    variant: str
    name: str
    decks: int
    layout: str
    build: str
    max_fan: int | None
    king_fills_empty: bool
    redeals: int
    merci: bool
    undo: bool
    cells: int


class RacerView(_View):
    """One racer's public progress."""

    id: str
    name: str
    join_order: int = Field(description="1 for the first racer to join")
    ready: bool
    status: RacerStatus
    foundation_cards: int
    moves: int = Field(description="moves in the log (undo counts, autoplay expanded)")
    redeals_used: int
    merci_used: bool
    reach_time_ms: int | None = Field(
        description="race clock of the move that last changed the foundation count; "
        "null while none has (ranks as 0)")
    finished_ms: int | None = Field(description="race clock when the result became final")
    final: bool
    player: str | None = Field(None, description="the player id when the racer joined with "
                               "a player key (docs/players.md); null: anonymous")
    bot: bool = Field(False, description="a computer racer run by the server (the room "
                      "option bots); not on the leaderboards, never rated")
    bot_level: Level | None = Field(None, description=_BOT_LEVEL)
    bot_rating: float | None = Field(None, description=_BOT_RATING)


class RoomLink(_View):
    """Another room of a rematch chain or a series: its id and short code."""

    room: str = Field(description="room id")
    code: str = Field(description="its short code (codes are reused once a room is gone: "
                      "the id names it for good)")


class SeriesInfo(_View):
    """A room's place in a series of races (docs/protocol.md, "Series")."""

    id: str = Field(description="the series id (its first room's id): GET /series/{id}")
    race: int = Field(description="this room's race of the series, 1 … races")
    races: int = Field(description="races in the series (2–9)")


class RoomView(_View):
    """A room: rule set, deal, state, racers and the last room event number."""

    id: str
    code: str = Field(description="short human-friendly code; usable wherever {room} is")
    rules: RulesView
    deal_number: int | None = Field(
        description="null before the start but for the host (and in daily and ghost rooms, "
        "whose deal is public anyway); the first layout is dealt at the start")
    deal_commitment: str | None = Field(
        None, pattern="^[0-9a-f]{64}$",
        description="SHA-256 (lower-case hex) of the deal's canonical text, published "
        "at creation (docs/protocol.md, \"Verifying a deal\"); null: a room made before it")
    redeal_key: str | None = Field(
        None, description="hex; null until the race is over (or the room closed)")
    deal_salt: str | None = Field(
        None, pattern="^[0-9a-f]{32}$",
        description="hex of the commitment's 16 random bytes; null until the race is "
        "over (or the room closed), and in rooms made before commitments")
    state: RoomState
    capacity: int
    time_limit_ms: int
    visibility: Literal["public", "private"]
    countdown_ms: int
    starts_in_ms: int | None = Field(description="during the countdown: ms until the start")
    race_clock_ms: int | None = Field(description="ms since the start (null before it)")
    racers: list[RacerView]
    seq: int = Field(description="sequence number of the room's latest event")
    hints: bool = Field(False, description="racers may ask for hints (GET …/hint)")
    winnable_only: bool = Field(
        False, description="the deal and redeal key were proved winnable by the solver")
    spectator_delay_ms: int = Field(
        60_000, description="during the race, spectators see boards this far behind the race "
        "clock (0: live, in open-boards rooms)")
    open_boards: bool = Field(False, description="spectators see boards live during the race")
    rematch: RoomLink | None = Field(
        None, description="the next room, once a racer offered a rematch (or the series made "
        "its next race): follow it (docs/protocol.md, \"Rematch\")")
    rematch_of: RoomLink | None = Field(
        None, description="the room this one is the rematch (or next series race) of")
    series: SeriesInfo | None = Field(None, description="the room's place in its series "
                                      "(null: a single race)")
    quick: QuickInfo | None = Field(None, description="a quick-race lobby while it waits "
                                    "(docs/protocol.md, \"Quick race\"); else null")


class PositionView(_View):
    """A game's table (server.rules.serialize)."""

    fans: list[list[str]] = Field(description="each fan bottom → top; [] = gone")
    foundations: list[tuple[str, int]] = Field(description="[suit, top rank] (0: empty)")
    cells: list[str | None]
    redeals_used: int
    merci_used: bool
    foundation_cards: int


class GameView(_View):
    """A racer's full game state."""

    racer: str
    version: int = Field(description="moves applied so far; name it as expected_version")
    status: RacerStatus
    final: bool
    position: PositionView
    legal_moves: list[str] = Field(description="legal moves now, text notation")
    can_undo: bool
    redeals_left: int
    merci_available: bool
    moves: int
    reach_time_ms: int | None
    race_clock_ms: int | None = Field(
        description="the race clock of this view (ms): now, or now minus delay_ms")
    delay_ms: int = Field(
        0, description="how far behind the race clock this board is (ms): 0 live; a "
        "spectator's view during the race lags by the room's spectator delay")


class Ack(_View):
    """An accepted move; a repeated ``client_move_id`` gets this same answer again."""

    client_move_id: str
    version: int
    race_clock_ms: int
    applied: list[str] = Field(description="the log entries the move became (autoplay expands)")
    game: GameView

    def wire_json(self) -> str:
        """``model_dump_json()``'s text, written by orjson from the fields (1.3
        instead of 4 µs, every accepted move): Ack, GameView and PositionView
        hold plain JSON values, every field, in field order; anything orjson
        refuses goes to ``model_dump_json()`` (tests/race/test_trusted.py)."""
        try:
            return orjson.dumps(self.__dict__, default=_fields).decode()
        except TypeError:
            return self.model_dump_json()


def _fields(model: object) -> dict[str, object]:
    if isinstance(model, (GameView, PositionView)):
        return model.__dict__
    raise TypeError(type(model).__name__)


class Standing(_View):
    """One line of the standings (rules.md, "Race ranking")."""

    rank: int
    racer: str
    name: str
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    join_order: int
    status: RacerStatus
    final: bool
    points: int = Field(description="seed 003: 5 per foundation card; a win adds 500 "
                        "and max(0, 1200 − whole seconds of the reach time)")
    to_par: int | None = Field(None, description="par − foundation cards (null: par unknown)")
    bot_level: Level | None = Field(None, description=_BOT_LEVEL)
    bot_rating: float | None = Field(None, description=_BOT_RATING)


class Standings(_View):
    """Ranked standings; ``final`` once the race is over."""

    final: bool
    standings: list[Standing]
    par: int | None = Field(
        None, description="most foundation cards possible on this deal with these redeals "
        "(solver); known once the race is over, or from the start in winnable-only rooms")


class RaceView(_View):
    """A finished race, from its live room or from the archive (docs/archive.md)."""

    id: str = Field(description="the race id (today the id of the room it was raced in)")
    room_id: str
    room_code: str = Field(description="the room's short code (codes are reused later: "
                           "a code names the latest race with it)")
    rules: RulesView
    deal_number: int
    redeal_key: str = Field(description="hex; the race is over")
    deal_salt: str | None = Field(None, pattern="^[0-9a-f]{32}$",
                                  description="hex of the deal commitment's salt "
                                  "(null: a race from before deal commitments)")
    deal_commitment: str | None = Field(
        None, pattern="^[0-9a-f]{64}$", description="what the room published at creation "
        "(docs/protocol.md, \"Verifying a deal\"); null: as deal_salt")
    started_at_ms: int = Field(description="Unix ms of the start (service clock)")
    ended_at_ms: int = Field(description="Unix ms of the end")
    time_limit_ms: int
    par: int | None = Field(None, description="most foundation cards possible (solver), "
                            "when known when the race was archived")
    live: bool = Field(description="the live room still holds the race (else: only the archive)")
    standings: Standings
    racers: list[RacerView] = Field(description="every racer, in join order")


class HintView(_View):
    """A suggested move for the racer's position (advisory: nothing is played)."""

    racer: str
    version: int = Field(description="the game version the hint is for")
    move: str | None = Field(description="text notation; null when no move is left")


class ReplayMove(_View):
    """One log entry of a replay."""

    move: str
    race_clock_ms: int
    version: int = Field(description="1-based index of the entry in the log")


class Replay(_View):
    """A racer's move log; with the deal number and the redeal key it reproduces the game."""

    rules: RulesView
    deal_number: int
    redeal_key: str | None = Field(description="hex; null until the race is over")
    player: str
    moves: list[ReplayMove]
    result: RacerView


class SeriesScore(_View):
    """One racer's score in one race of a series (docs/protocol.md, "Series")."""

    foundation_cards: int = Field(description="foundation cards at the end of that race "
                                  "(0 when absent)")
    time_ms: int = Field(description="that race's reach time (ms; null counts 0; 0 when "
                         "absent)")
    status: RacerStatus | Literal["absent"] = Field(
        description="the final status in that race; absent: not in that race (left the "
        "series before it)")


class SeriesRow(_View):
    """One racer's line of a series' table."""

    rank: int = Field(description="1 = best; racers equal on cards and time share a rank")
    racer: str = Field(description="racer id (the same in every room of the series)")
    name: str
    join_order: int = Field(description="order of joining the series' first race")
    foundation_cards: int = Field(description="sum over the races that are over")
    time_ms: int = Field(description="sum of the reach times (ms) over the races that are over")
    left: bool = Field(description="left the series (a race, or before one): scores 0 since")
    races: list[SeriesScore | None] = Field(
        description="one per race, in order; null while that race is not over")


class SeriesRace(_View):
    """One race of a series: its room once made."""

    race: int = Field(description="1 … races")
    room: str | None = Field(description="room id (null: not made yet)")
    code: str | None = Field(description="its short code (null: not made yet)")
    state: RoomState | None = Field(description="the room's state (null: not made yet)")


class SeriesView(_View):
    """A series of races on the same racers and its table (docs/protocol.md, "Series")."""

    id: str = Field(description="the series id: its first room's id")
    races: int = Field(description="races in the series (2–9)")
    played: int = Field(description="races over so far")
    state: Literal["running", "over", "stopped"] = Field(
        description="running: races remain; over: every race is over; stopped: it ended "
        "early (its host closed a room, or every racer left)")
    final: bool = Field(description="the table is final (over or stopped)")
    rooms: list[SeriesRace] = Field(description="each race's room, in order")
    table: list[SeriesRow] = Field(description="best first (docs/protocol.md, \"Series\")")

