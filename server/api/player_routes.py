"""REST routes of players, ratings, history and head-to-head over time
(docs/players.md). :data:`PLAYER_ENDPOINTS` also feeds the OpenAPI document.

``{player}`` and ``{other}`` take a player id or a player name (compared
after NFKC and case folding). Every answer but ``POST /players`` is public;
the player key is sent as ``Authorization: Bearer <key>`` and only
``POST /players`` ever shows it.
"""

from __future__ import annotations

from typing import cast

from starlette.requests import Request
from starlette.routing import Route

from server.errors import AuthMissing, RequestInvalid
from server.race.authority import RaceAuthority
from server.records.leaderboard import MAX_LIMIT
from server.records.players import (
    check_player_name,
    key_digest,
    new_player_id,
    new_player_key,
)
from server.rules import RulesError, get_variant
from server.runtime.settings import Settings

from .player_auth import as_player, players, resolve_player
from .player_models import (
    CreatePlayer,
    FairPlayNotice,
    PlayerCreated,
    PlayerProfile,
    PlayerRacesPage,
    PlayerView,
    RatingBoard,
    RatingHistory,
    VersusView,
)
from .rest import Endpoint, bearer_token, routes

__all__ = ["PLAYER_ENDPOINTS", "player_routes"]


def _variant(name: str) -> str:
    try:
        return get_variant(name).id
    except RulesError as exc:
        raise RequestInvalid(str(exc), {"field": "variant"}) from None


def _page(request: Request) -> tuple[int, str | None]:
    text = request.query_params.get("limit", "20")
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_LIMIT:
        raise RequestInvalid(f"limit is 1…{MAX_LIMIT}", {"field": "limit"})
    cursor = request.query_params.get("cursor")
    if cursor is not None and not 1 <= len(cursor) <= 200:  # `?cursor=`: not a page's next
        raise RequestInvalid("not a cursor from an earlier page (omit it for the first page)",
                             {"field": "cursor"})
    return int(text), cursor


# -- handlers ----------------------------------------------------------------------


async def create_player(request: Request, body: CreatePlayer) -> PlayerCreated:
    try:
        name, folded = check_player_name(body.name)
    except ValueError as exc:
        raise RequestInvalid(str(exc), {"field": "name"}) from None
    key = new_player_key()
    made = await players(request).create_player(new_player_id(), name, folded, key_digest(key))
    return PlayerCreated(player=PlayerView.model_validate(made), key=key)


async def delete_player(request: Request, _: None) -> None:
    key = bearer_token(request.headers)
    if not key:
        raise AuthMissing("forgetting a player needs its key: Authorization: Bearer <key>")
    found = await resolve_player(request, request.path_params["player"])
    renamed = await players(request).delete_player(found["id"], key_digest(key))
    authority = cast(RaceAuthority, request.app.state.authority)
    for room_id, racer_id, name in renamed:  # their live rooms, while they last
        await authority.forget_racer(room_id, racer_id, name)


async def profile(request: Request, _: None) -> PlayerProfile:
    found = await resolve_player(request, request.path_params["player"])
    answer = PlayerProfile.model_validate(await players(request).profile(found["id"]))
    key = bearer_token(request.headers)
    if key and (await as_player(request, key) or {}).get("id") == found["id"]:
        # the player themself: an `assisted` verdict is said here, to them only
        standing = await players(request).fair_play_of(found["id"]) or {}
        if standing.get("fair_play") == "assisted":
            settings = cast(Settings, request.app.state.settings)
            answer.fair_play = FairPlayNotice(
                verdict="assisted", at_ms=int(standing["fair_play_at_ms"]), rated=False,
                message="A moderator found that your recent rated races were played with "
                        "computer assistance. Those races no longer count for ratings or "
                        "leaderboards, and your races are unrated from now on.",
                appeal=settings.fair_play_contact or "the operator of this server")
    return answer


async def player_races(request: Request, _: None) -> PlayerRacesPage:
    limit, cursor = _page(request)
    found = await resolve_player(request, request.path_params["player"])
    return PlayerRacesPage.model_validate(
        await players(request).player_races(found["id"], limit, cursor))


async def versus(request: Request, _: None) -> VersusView:
    limit, cursor = _page(request)
    a = await resolve_player(request, request.path_params["player"])
    b = await resolve_player(request, request.path_params["other"])
    if a["id"] == b["id"]:
        raise RequestInvalid("head to head needs two players: name another player",
                             {"field": "other"})
    return VersusView.model_validate(
        await players(request).versus(a["id"], b["id"], limit, cursor))


async def ratings(request: Request, _: None) -> RatingHistory:
    variant = _variant(request.path_params["variant"])
    found = await resolve_player(request, request.path_params["player"])
    return RatingHistory.model_validate(
        await players(request).rating_history(found["id"], variant))


async def rating_board(request: Request, _: None) -> RatingBoard:
    variant = _variant(request.path_params["variant"])
    limit, _cursor = _page(request)
    return RatingBoard.model_validate(await players(request).rating_board(variant, limit))


_READ = ("player/not_found", "archive/unavailable")

PLAYER_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("POST", "/players", "Create a player (no sign-up): name → player and secret key",
             create_player, CreatePlayer, PlayerCreated, 201,
             errors=("request/invalid", "player/name_taken", "archive/unavailable",
                     "rate/limited"), budget="create", operation_id="createPlayer",
             store="none"),
    Endpoint("GET", "/players/{player}", "A player's profile: ratings and figures per variant",
             profile, None, PlayerProfile, auth="optional player",
             errors=(*_READ, "player/invalid_key"), operation_id="getPlayer", store="none"),
    Endpoint("DELETE", "/players/{player}",
             "Forget a player (their key): the name is freed, archived races anonymised",
             delete_player, None, None, 204, auth="player",
             errors=("auth/missing", *_READ, "player/invalid_key"),
             operation_id="deletePlayer", store="none"),
    Endpoint("GET", "/players/{player}/races", "A player's archived races, newest first",
             player_races, None, PlayerRacesPage, errors=(*_READ, "request/invalid"),
             operation_id="listPlayerRaces", query=("limit", "cursor"), store="none"),
    Endpoint("GET", "/players/{player}/vs/{other}",
             "Head to head over time: every archived race two players both raced", versus,
             None, VersusView, errors=(*_READ, "request/invalid"),
             operation_id="getPlayersVersus", query=("limit", "cursor"), store="none"),
    Endpoint("GET", "/players/{player}/ratings/{variant}",
             "A player's rating after each rated race of a variant", ratings, None,
             RatingHistory, errors=(*_READ, "request/invalid"),
             operation_id="getRatingHistory", store="none"),
    Endpoint("GET", "/leaderboards/{variant}/rating", "Rating leaderboard of a variant",
             rating_board, None, RatingBoard, errors=("request/invalid", "archive/unavailable"),
             operation_id="getRatingLeaderboard", query=("limit",), store="none"),
)
"""Player routes, in documentation order."""


def player_routes() -> list[Route]:
    """Starlette routes of :data:`PLAYER_ENDPOINTS`, under ``/api/v1``."""
    return routes(PLAYER_ENDPOINTS)
