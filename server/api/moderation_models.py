"""Wire models of moderation (docs/fair-play.md, "Moderation"). Times are Unix
ms; scores are the threshold table's points."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["AssessedRace", "Judged", "ModerationQueue", "PlayerFile",
           "PlayerRef", "QueueEntry", "RaceLinks", "VerdictBody", "VerdictDone",
           "VerdictRecord"]


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VerdictBody(_View):
    """``POST /moderation/players/{player}/verdict``."""

    verdict: Literal["cleared", "assisted"] = Field(
        description="`assisted`: the window's rated races leave the ratings (rivals "
                    "refunded) and the leaderboards, the player races unrated from now on; "
                    "`cleared`: everything stays, the same signals are silenced for 30 days")
    note: str = Field(min_length=1, max_length=2000,
                      description="why, for the record (kept with the verdict)")

    @field_validator("note")
    @classmethod
    def _text(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("a note says why")
        return value


class PlayerRef(_View):
    """A player: id and name."""

    id: str
    name: str


class RaceLinks(_View):
    """Where a moderator reads the race (API paths)."""

    race: str
    replay: str
    compare: str | None = Field(description="the racer against the winner; null: they won")


class AssessedRace(_View):
    """One assessed race of the player (the race's own verdict decides nothing)."""

    race_id: str
    room: str
    racer: str
    variant: str
    ended_at_ms: int
    verdict: Literal["clean", "review", "likely_assisted"]
    score: float
    reasons: list[str]
    signals: dict[str, Any] = Field(description="the race's signals (docs/fair-play.md, "
                                                "\"What is measured\")")
    links: RaceLinks


class VerdictRecord(_View):
    """A verdict a moderator recorded."""

    verdict: Literal["cleared", "assisted"]
    note: str
    moderator: str = Field(description="the name of the moderator token used")
    at_ms: int
    races: list[str] = Field(description="race ids taken out of the ratings (`assisted`)")
    score: float | None


class QueueEntry(_View):
    """A player at `review` or worse."""

    player: PlayerRef
    verdict: Literal["review", "likely_assisted"]
    score: float
    reasons: list[str]
    races_read: int
    ready: bool
    races: list[AssessedRace] = Field(description="newest first")
    previous: list[VerdictRecord]


class ModerationQueue(_View):
    """``GET /moderation/queue``: ``likely_assisted`` first, then by score."""

    queue: list[QueueEntry]
    min_races: int = Field(description="assessed rated races a verdict needs")


class Judged(_View):
    """A player's verdict over their last races (after a ``cleared``: the races
    since it)."""

    verdict: Literal["clean", "review", "likely_assisted"]
    score: float
    reasons: list[str]
    races_read: int
    ready: bool = Field(description="false: fewer races than min_races, no verdict yet "
                                    "(`clean` whatever the score)")


class PlayerFile(_View):
    """``GET /moderation/players/{player}``: everything a moderator reads."""

    player: PlayerRef
    fair_play: Literal["cleared", "assisted"] | None
    fair_play_at_ms: int | None
    judgement: Judged
    races: list[AssessedRace]
    verdicts: list[VerdictRecord]


class VerdictDone(_View):
    """The verdict recorded."""

    player: PlayerRef
    verdict: Literal["cleared", "assisted"]
    moderator: str
    at_ms: int
    races_removed: int = Field(description="rated races taken out of ratings and boards")
    refunded: list[str] = Field(description="players whose ratings were recomputed")
