"""REST routes of moderation (docs/fair-play.md, "Moderation").
:data:`MODERATION_ENDPOINTS` also feeds the OpenAPI document.

Every route needs a moderator token (``Authorization: Bearer <token>``), one
of ``LUCIE_MODERATOR_TOKEN``'s; its name is recorded with each verdict.
Without ``LUCIE_MODERATOR_TOKEN`` the routes answer 404 ``request/not_found``,
as a path the server does not have. Tokens are compared in constant time and
never logged (the access log prints no headers).
"""

from __future__ import annotations

import hmac
import logging
from typing import cast

from starlette.requests import Request
from starlette.routing import Route

from server.errors import AuthInvalidToken, AuthMissing, RouteNotFound
from server.fairplay.moderation import Moderation
from server.runtime.settings import Settings, moderators

from .moderation_models import ModerationQueue, PlayerFile, VerdictBody, VerdictDone
from .player_auth import resolve_player
from .rest import Endpoint, bearer_token, routes

__all__ = ["MODERATION_ENDPOINTS", "log_moderation", "moderation_routes", "moderator_of"]

log = logging.getLogger("server.fairplay")


def moderator_of(request: Request) -> str:
    """The name of the moderator token the request carries.

    :raises RouteNotFound: moderation is off (no ``LUCIE_MODERATOR_TOKEN``).
    :raises AuthMissing: no token.
    :raises AuthInvalidToken: a token that is no moderator's.
    """
    settings = cast(Settings, request.app.state.settings)
    if settings.moderator_token is None:
        raise RouteNotFound(f"no route {request.url.path}")
    token = bearer_token(request.headers)
    if not token:
        raise AuthMissing("moderation needs a moderator token (Authorization: Bearer)")
    found = None
    for known, name in moderators(settings.moderator_token.get_secret_value()).items():
        if hmac.compare_digest(known.encode(), token.encode()):
            found = name
    if found is None:
        raise AuthInvalidToken("the token is not a moderator's")
    return found


def _moderation(request: Request) -> Moderation:
    return cast(Moderation, request.app.state.moderation)


async def queue(request: Request, _: None) -> ModerationQueue:
    moderator_of(request)
    mod = _moderation(request)
    return ModerationQueue.model_validate({"queue": await mod.queue(),
                                           "min_races": mod.min_races})


async def player_file(request: Request, _: None) -> PlayerFile:
    moderator_of(request)
    found = await resolve_player(request, request.path_params["player"])
    return PlayerFile.model_validate(await _moderation(request).player(found))


async def verdict(request: Request, body: VerdictBody) -> VerdictDone:
    who = moderator_of(request)
    found = await resolve_player(request, request.path_params["player"])
    return VerdictDone.model_validate(
        await _moderation(request).decide(found, body.verdict, body.note, who))


_AUTH = ("request/not_found", "auth/missing", "auth/invalid_token", "archive/unavailable")

MODERATION_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET", "/moderation/queue",
             "Players whose assessed races reach review, likely_assisted first", queue, None,
             ModerationQueue, auth="moderator", errors=_AUTH, operation_id="getModerationQueue",
             store="none", guard=moderator_of),
    Endpoint("GET", "/moderation/players/{player}",
             "A player's fair-play file: assessed races, judgement, verdicts", player_file,
             None, PlayerFile, auth="moderator", errors=(*_AUTH, "player/not_found"),
             operation_id="getModerationPlayer", store="none", guard=moderator_of),
    Endpoint("POST", "/moderation/players/{player}/verdict",
             "Record a verdict: cleared, or assisted (races out of ratings and boards)",
             verdict, VerdictBody, VerdictDone, auth="moderator",
             errors=(*_AUTH, "player/not_found", "request/invalid", "store/unavailable"),
             operation_id="recordModerationVerdict", store="none", guard=moderator_of),
)
"""Moderation routes, in documentation order."""


def moderation_routes() -> list[Route]:
    """Starlette routes of :data:`MODERATION_ENDPOINTS`, under ``/api/v1``."""
    return routes(MODERATION_ENDPOINTS)


def log_moderation(settings: Settings) -> None:
    """Say at start whether moderation is on, and for whom (names, never tokens)."""
    if settings.moderator_token is None:
        log.info("moderation: off (no LUCIE_MODERATOR_TOKEN); rated races are still assessed")
        return
    names = sorted(set(moderators(settings.moderator_token.get_secret_value()).values()))
    log.info("moderation: on for %s (docs/fair-play.md)", ", ".join(names))
