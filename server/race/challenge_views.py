"""The answers of challenges and duels (docs/protocol.md, "Challenges and
duels"): what :class:`~server.race.challenges.Challenges` returns and the
transport sends as it is (the OpenAPI document is generated from them).

Times ``*_at_ms`` are Unix ms of the service clock; ``reach_time_ms`` is on
the attempt's race clock, as in any race.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from . import visibility
from .duel import attempt_key, ranks
from .views import RacerStatus, RacerView, RoomView

__all__ = ["AttemptView", "ChallengeJoined", "ChallengeList", "ChallengePlayer",
           "ChallengeState", "ChallengeView", "DuelResult", "NotificationList",
           "NotificationView", "YourAttempt", "challenge_view"]

ChallengeState = Literal["open", "settled", "void", "closed"]


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChallengePlayer(_View):
    """A player as a challenge names them."""

    id: str
    name: str


class AttemptView(_View):
    """One finished attempt, ranked among the challenge's finished attempts by
    the race ranking (foundation cards, then reach time; equal on both: the
    same rank)."""

    player: ChallengePlayer
    rank: int
    status: RacerStatus
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    room: str = Field(description="the attempt's room id (its race: GET /races/{room})")


class YourAttempt(_View):
    """The caller's own attempt at the challenge."""

    room: str
    racer: str
    finished: bool = Field(description="its result is in (its race is over and archived)")


class DuelResult(_View):
    """A settled duel: its winner, by what, and where its comparison is."""

    winner: str | None = Field(description="the winner's player id; null: a draw")
    decided_by: Literal["foundation_cards", "reach_time", "tie", "tiebreak"] = Field(
        description="tie: a draw (as many foundation cards, the same reach time); tiebreak: "
                    "a draw whose tie-break deal named the winner")
    margin_cards: int = Field(description="foundation cards between the two")
    margin_ms: int | None = Field(description="reach time between the two (ms) when it "
                                  "decided, else null")
    race: str = Field(description="the duel's race id: both attempts as one race "
                                  "(GET /races/{race}; rated once)")
    comparison: str = Field(description="path of the head-to-head view of the two games "
                                        "(GET …/rooms/{race}/compare/{a}/{b})")
    tiebreak: str | None = Field(None, description="a drawn duel: the id of its tie-break "
                                 "challenge (GET /challenges/{challenge}; its two players "
                                 "play it), else null")


class ChallengeView(_View):
    """A challenge as the caller may see it (docs/protocol.md, "Fair play" and
    "Challenges and duels"): its results (``attempts``) and deal number once the
    caller has played theirs (or it closed), its redeal key and deal salt once
    it closed; how many played, always."""

    id: str
    code: str = Field(description="short code (8 characters): usable wherever {challenge} is")
    link: str = Field(description="path of this challenge (GET, and POST …/attempts)")
    variant: str
    open_to: Literal["link", "rated", "tiebreak"] = Field(
        description="link: anyone with its link, unrated; rated: a duel — its creator and "
                    "one rival of a near rating the matchmaker gives it (POST /duels), rated; "
                    "tiebreak: a drawn duel's tie-break — its two players only, unrated, its "
                    "winner the duel's")
    tiebreak_of: str | None = Field(description="a tie-break: the id of the duel it "
                                    "decides, else null")
    deal_number: int | None = Field(description="null until you played yours or it closed")
    deal_commitment: str = Field(description="SHA-256 hex of the deal (\"Verifying a deal\")")
    redeal_key: str | None = Field(description="hex; null until the challenge closes")
    deal_salt: str | None = Field(description="hex; null until the challenge closes")
    creator: ChallengePlayer
    created_at_ms: int
    expires_at_ms: int
    time_limit_ms: int
    state: Literal["open", "settled", "void", "closed"]
    played: int = Field(description="finished attempts")
    attempts: list[AttemptView] | None = Field(
        description="finished attempts, best first; null until you played yours or it "
                    "closed")
    you: YourAttempt | None = Field(description="your attempt (a player key sent), or null")
    result: DuelResult | None = Field(description="a settled duel's result, else null")


class ChallengeJoined(_View):
    """An attempt handed out: the challenge, the attempt's room as its racer sees
    it, the racer and its secret token (keep it secret). The room starts when
    the racer is ready (``POST …/ready`` or the socket's ``ready``)."""

    challenge: ChallengeView
    room: RoomView
    racer: RacerView
    token: str
    matched: bool = Field(description="POST /duels: true when you got someone's open duel, "
                                      "false when yours is a fresh one; otherwise false")


class ChallengeList(_View):
    """Challenges the player made or attempted, newest first."""

    challenges: list[ChallengeView]


class NotificationView(_View):
    """Something the player is told on their next visit."""

    id: int
    at_ms: int
    kind: Literal["duel_settled", "duel_void", "challenge_closed", "tiebreak_settled",
                  "tiebreak_void"]
    challenge: str | None
    message: str
    read: bool = Field(description="listed before (this listing marks the rest read)")


class NotificationList(_View):
    """The player's notifications, newest first."""

    notifications: list[NotificationView]
    unread: int = Field(description="how many were unread before this listing")


def challenge_view(row: dict[str, Any], player_id: str | None) -> ChallengeView:
    """The challenge ``row`` (a ``challenges`` row with its ``attempts``) as
    ``player_id`` (``None``: anyone) may see it: :func:`server.race.visibility.
    attempts_visible` and ``secrets_visible`` decide what shows."""
    closed = row["state"] != "open"
    mine = next((a for a in row["attempts"] if a["player_id"] == player_id), None)
    shown = visibility.attempts_visible(closed, bool(mine and mine.get("race_id")))
    secret = visibility.secrets_visible(closed)
    done = [a for a in row["attempts"] if a.get("race_id")]
    places = ranks([attempt_key(a["foundation_cards"], a["reach_time_ms"]) for a in done])
    attempts = sorted((AttemptView(
        player=ChallengePlayer(id=a["player_id"], name=a["name"]), rank=place,
        status=a["status"], foundation_cards=a["foundation_cards"],
        reach_time_ms=a["reach_time_ms"], moves=a["moves"], room=a["room_id"])
        for a, place in zip(done, places, strict=True)), key=lambda v: v.rank)
    return ChallengeView(
        id=row["challenge_id"], code=row["code"],
        link=f"/api/v1/challenges/{row['challenge_id']}", variant=row["variant"],
        open_to=row["kind"], tiebreak_of=row.get("tiebreak_of"),
        deal_number=int(row["deal_number"]) if shown else None,
        deal_commitment=row["deal_commitment"],
        redeal_key=row["redeal_key"] if secret else None,
        deal_salt=row["deal_salt"] if secret else None,
        creator=ChallengePlayer(id=row["creator_id"], name=row["creator_name"]),
        created_at_ms=row["created_ms"], expires_at_ms=row["expires_ms"],
        time_limit_ms=row["time_limit_ms"], state=row["state"], played=row["played"],
        attempts=attempts if shown else None,
        you=None if mine is None else YourAttempt(
            room=mine["room_id"], racer=mine["racer_id"], finished=bool(mine.get("race_id"))),
        result=DuelResult.model_validate({k: v for k, v in row["result"].items()
                                          if k != "players"})
        if row.get("result") and shown else None)
