"""Wire models of players, ratings, history and head-to-head over time
(docs/players.md). Times are Unix ms (``*_at_ms``) or race-clock ms."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from server.race.views import RacerStatus
from server.records.players import NAME_PATTERN

__all__ = ["CreatePlayer", "FairPlayNotice", "PlayerCreated", "PlayerProfile", "PlayerRace",
           "PlayerRacesPage",
           "PlayerView", "RatingBoard", "RatingBoardEntry", "RatingHistory", "RatingPoint",
           "RatingView", "SharedRace", "VariantFigures", "VersusView"]


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreatePlayer(_View):
    """``POST /players``."""

    name: str = Field(min_length=1, max_length=64, description="2–24 characters after NFKC "
                      "and trimming: letters (one script), digits, spaces and _ - . '; "
                      "unique after NFKC and case folding (the pattern: no character of "
                      "U+0000–U+00FF that no name may hold)",
                      json_schema_extra={"pattern": NAME_PATTERN})  # checked: 400


class PlayerView(_View):
    """A player as anyone may see them."""

    id: str
    name: str
    created_at_ms: int


class PlayerCreated(_View):
    """The new player and their secret key — shown this once; send it as
    ``Authorization: Bearer <key>`` to race as the player or to forget them."""

    player: PlayerView
    key: str


class RatingView(_View):
    """A rating for one variant (openskill Plackett–Luce)."""

    mu: float
    sigma: float
    rating: float = Field(description="mu − 3 sigma, what boards rank by (0 for a new player)")
    rated_races: int
    provisional: bool = Field(description="fewer than 10 rated races")


class VariantFigures(_View):
    """A player's figures in one variant, over ranked archived races."""

    variant: str
    rating: RatingView
    races: int
    wins: int = Field(description="races ranked first of two or more racers (ties included)")
    average_foundation_cards: float
    best_time_ms: int | None = Field(description="fastest win, race clock (null: no win)")
    streak: int = Field(description="wins in a row up to the latest race")
    best_streak: int
    last_race_at_ms: int | None


class FairPlayNotice(_View):
    """On a player's own profile (their key) after an `assisted` verdict."""

    verdict: Literal["assisted"]
    at_ms: int
    rated: bool = Field(description="false: the player's races are no longer rated")
    message: str
    appeal: str = Field(description="where to appeal")


class PlayerProfile(_View):
    """``GET /players/{player}``."""

    player: PlayerView
    races: int = Field(description="archived races, ranked or not")
    variants: list[VariantFigures]
    fair_play: FairPlayNotice | None = Field(
        None, description="only with the player's own key, after a moderator's `assisted` "
                          "verdict (docs/fair-play.md); null otherwise")


class PlayerRace(_View):
    """One race of a player's history."""

    race: str = Field(description="race id: GET /races/{race}")
    room_code: str
    racer: str = Field(description="the player's racer id in that race")
    name: str
    variant: str
    deal_number: int
    ranked: bool
    started_at_ms: int
    ended_at_ms: int
    racers: int
    rank: int
    points: int
    status: RacerStatus
    foundation_cards: int
    reach_time_ms: int | None
    finished_ms: int | None
    par: int | None


class PlayerRacesPage(_View):
    """``GET /players/{player}/races``: newest first."""

    races: list[PlayerRace]
    next: str | None = Field(description="cursor of the next (older) page; null: the last")


class SharedRace(_View):
    """A race both players raced."""

    race: str
    room_code: str
    variant: str
    deal_number: int
    ended_at_ms: int
    racer_a: str
    racer_b: str
    rank_a: int
    rank_b: int
    foundation_cards_a: int
    foundation_cards_b: int
    result: str = Field(description="win, loss or tie, for the first player")
    comparison: str = Field(description="path of the head-to-head comparison of the two games")


class VersusView(_View):
    """``GET /players/{player}/vs/{other}``: every archived race both raced."""

    a: PlayerView
    b: PlayerView
    races: int
    wins: int = Field(description="races where a ranked better than b")
    losses: int
    ties: int
    average_card_difference: float | None = Field(
        description="mean of a's foundation cards − b's (null: no shared race)")
    shared: list[SharedRace] = Field(description="a page of the shared races, newest first")
    next: str | None


class RatingPoint(_View):
    """The rating after one rated race."""

    race: str
    at_ms: int
    mu: float
    sigma: float
    rating: float


class RatingHistory(_View):
    """``GET /players/{player}/ratings/{variant}``: oldest first."""

    player: PlayerView
    variant: str
    points: list[RatingPoint]


class PlayerRef(_View):
    id: str
    name: str


class RatingBoardEntry(_View):
    rank: int
    player: PlayerRef
    rating: RatingView
    races: int
    wins: int


class RatingBoard(_View):
    """``GET /leaderboards/{variant}/rating``: best rating first."""

    variant: str
    entries: list[RatingBoardEntry]
