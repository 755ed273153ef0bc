"""Challenge and duel routes (docs/protocol.md, "Challenges and duels").

``POST /challenges``, ``GET /challenges/{challenge}``, ``POST
/challenges/{challenge}/attempts``, ``POST /duels``, and a player's own
``GET /players/{player}/challenges`` and ``…/notifications``. Each decodes,
checks the player key where one is needed (``Authorization: Bearer <player
key>``, through ``server.records.players.PlayerArchive``) and calls one
method of ``app.state.challenges`` (:class:`server.race.challenges.Challenges`).
Each route that hands out an attempt makes a room: it counts against the
caller's address as any new room (``rest.new_room_slot``: the rooms it has
waiting, the process's new rooms; docs/protocol.md, "Limits").
:data:`CHALLENGE_ENDPOINTS` also feeds the OpenAPI document.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from starlette.requests import Request
from starlette.routing import Route

from server.errors import AuthMissing, PlayerInvalidKey
from server.race.challenge_views import (
    ChallengeJoined,
    ChallengeList,
    ChallengeView,
    NotificationList,
)
from server.race.challenges import MAX_LIFE_S, MIN_LIFE_S, Challenges
from server.rules import VARIANTS
from server.rules.deal import MAX_DEAL_NUMBER

from .models import INTEGRAL, _whole_deal
from .player_auth import as_player, resolve_player
from .rest import Endpoint, bearer_token, new_room_slot, routes

__all__ = ["CHALLENGE_ENDPOINTS", "CreateChallenge", "DuelBody", "challenge_routes"]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CreateChallenge(_In):
    """``POST /challenges``: a new challenge, played at once by its creator."""

    variant: str = Field(max_length=40, json_schema_extra={"enum": list(VARIANTS)},
                         description="variant id (docs/rules.md)")
    deal: (Annotated[int, BeforeValidator(_whole_deal), WithJsonSchema(
        {"type": "integer", "minimum": 1, "maximum": MAX_DEAL_NUMBER})]
           | Literal["random"]) = Field(
        "random", description="a deal number (1 … 10^20 − 1; link challenges only) or "
                              "\"random\"")
    open_to: Literal["link", "rated"] = Field(
        "link", description="link: anyone with its link, unrated; rated: a duel, played by "
                            "one rival of a near rating (POST /duels)")
    expires_in_s: Annotated[int, Field(ge=MIN_LIFE_S, le=MAX_LIFE_S), INTEGRAL] | None = Field(
        None, description="its life in seconds (60 … 30 days; default 7 days)")


class DuelBody(_In):
    """``POST /duels``: a rated duel of a variant."""

    variant: str = Field(max_length=40, json_schema_extra={"enum": list(VARIANTS)},
                         description="variant id (docs/rules.md)")


def _challenges(request: Request) -> Challenges:
    return cast(Challenges, request.app.state.challenges)


async def _player(request: Request, why: str) -> dict[str, Any]:
    """The player whose key the request carries.

    :raises AuthMissing: no key; :raises PlayerInvalidKey, ArchiveUnavailable:
    """
    found = await as_player(request, bearer_token(request.headers))
    if found is None:
        raise AuthMissing(f"{why} needs a player key: Authorization: Bearer <player key>")
    return found


async def _own(request: Request) -> dict[str, Any]:
    """The player the path names, when the request carries their key.

    :raises AuthMissing, PlayerInvalidKey, PlayerNotFound, ArchiveUnavailable:
    """
    me = await _player(request, "this list")
    named = await resolve_player(request, request.path_params["player"])
    if named["id"] != me["id"]:
        raise PlayerInvalidKey("that key is not this player's", {"player": named["id"]})
    return me


async def create_challenge(request: Request, body: CreateChallenge) -> ChallengeJoined:
    player = await _player(request, "a challenge")
    counted = await new_room_slot(request)  # an attempt's room waits as any room
    joined = await _challenges(request).create(player, body.variant, body.deal, body.open_to,
                                               body.expires_in_s)
    counted(joined.room.id)
    return joined


async def get_challenge(request: Request, _: None) -> ChallengeView:
    player = await as_player(request, bearer_token(request.headers))
    return await _challenges(request).view(request.path_params["challenge"],
                                           player["id"] if player else None)


async def attempt(request: Request, _: None) -> ChallengeJoined:
    player = await _player(request, "an attempt")
    counted = await new_room_slot(request)
    joined = await _challenges(request).attempt(request.path_params["challenge"], player)
    counted(joined.room.id)
    return joined


async def duel(request: Request, body: DuelBody) -> ChallengeJoined:
    player = await _player(request, "a duel")
    counted = await new_room_slot(request)
    joined = await _challenges(request).duel(player, body.variant)
    counted(joined.room.id)
    return joined


async def my_challenges(request: Request, _: None) -> ChallengeList:
    me = await _own(request)
    return await _challenges(request).mine(me["id"])


async def notifications(request: Request, _: None) -> NotificationList:
    me = await _own(request)
    return await _challenges(request).notifications(me["id"])


_KEY = ("auth/missing", "player/invalid_key", "archive/unavailable")
_ATTEMPT = ("challenge/not_found", "challenge/already_played", "challenge/expired",
            "challenge/closed")

CHALLENGE_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("POST", "/challenges", "A new challenge, and its creator's attempt (a room of "
             "one racer)", create_challenge, CreateChallenge, ChallengeJoined, 201,
             auth="player", errors=("request/invalid", *_KEY, "rate/limited", "server/full"),
             budget="create", operation_id="createChallenge"),
    Endpoint("GET", "/challenges/{challenge}", "A challenge: what it is and how many played "
             "(the results once you played yours)", get_challenge, None, ChallengeView,
             auth="optional player",
             errors=("challenge/not_found", "player/invalid_key", "archive/unavailable"),
             operation_id="getChallenge", store="none"),
    Endpoint("POST", "/challenges/{challenge}/attempts", "Your attempt at a challenge (a "
             "room of one racer; once per player)", attempt, None, ChallengeJoined, 201,
             auth="player", errors=(*_KEY, *_ATTEMPT, "rate/limited", "server/full"),
             budget="join", operation_id="attemptChallenge"),
    Endpoint("POST", "/duels", "A rated duel: someone's of a near rating, or a fresh one",
             duel, DuelBody, ChallengeJoined, 201, auth="player",
             errors=("request/invalid", *_KEY, "rate/limited", "server/full"),
             budget="join", operation_id="duel"),
    Endpoint("GET", "/players/{player}/challenges", "Your challenges and duels, newest first",
             my_challenges, None, ChallengeList, auth="player",
             errors=(*_KEY, "player/not_found"), operation_id="listMyChallenges",
             store="none"),
    Endpoint("GET", "/players/{player}/notifications", "What you are told (settled and void "
             "duels, closed challenges), newest first; listing marks them read",
             notifications, None, NotificationList, auth="player",
             errors=(*_KEY, "player/not_found"), operation_id="listNotifications",
             store="none"),
)
"""The challenge and duel routes, in documentation order."""


def challenge_routes() -> list[Route]:
    """Starlette routes of :data:`CHALLENGE_ENDPOINTS`, under ``/api/v1``."""
    return routes(CHALLENGE_ENDPOINTS)
