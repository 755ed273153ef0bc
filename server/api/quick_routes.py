"""The quick-race route (docs/protocol.md, "Quick race"): ``POST /quick``.

One call puts the caller into the public quick-race lobby of a variant that
starts soonest — in the caller's rating band — or opens one, and answers like
a join (the room, the racer, its token). With a player key
(``Authorization: Bearer <player key>``, exactly as on ``POST
/rooms/{room}/racers``) the racer races as the player, and the player's rating
in the variant (read through ``server.records.players.PlayerArchive``) picks
the band; anonymous racers race in band 0 (:mod:`server.race.quick_state`).
:data:`QUICK_ENDPOINTS` also feeds the OpenAPI document.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.routing import Route

from server.race.authority import RaceAuthority
from server.race.quick_state import QuickConfig
from server.race.views import RacerView, RoomView
from server.rules import VARIANTS
from server.runtime.settings import Settings

from .player_auth import players, racer_name
from .rest import Endpoint, bearer_token, routes

__all__ = ["QUICK_ENDPOINTS", "QuickBody", "QuickJoined", "quick_config", "quick_routes"]

class QuickBody(BaseModel):
    """``POST /quick``: the variant to race; a display name unless a player key
    comes (then the player's name is used)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    variant: str = Field(max_length=40, json_schema_extra={"enum": list(VARIANTS)},
                         description="variant id (docs/rules.md); an unknown one: 400, "
                                     "as on POST /rooms")
    name: str | None = Field(None, min_length=1, max_length=64)


class QuickJoined(BaseModel):
    """The lobby as the racer sees it, the racer, and its secret token (keep it secret)."""

    model_config = ConfigDict(extra="forbid")

    room: RoomView
    racer: RacerView
    token: str


def quick_config(settings: Settings) -> QuickConfig:
    """The authority's quick-race settings from the server's (``LUCIE_QUICK_*``)."""
    return QuickConfig(
        capacity=settings.quick_capacity, wait_ms=round(settings.quick_wait_s * 1000),
        fill_ms=round(settings.quick_fill_s * 1000), bots=settings.quick_bots,
        time_limit_s=settings.quick_time_limit_s, band_width=settings.quick_band_width,
        widen_ms=round(settings.quick_widen_s * 1000))


async def quick(request: Request, body: QuickBody) -> QuickJoined:
    key = bearer_token(request.headers)
    name, player = await racer_name(request, key, body.name)
    rating = None
    if player is not None:
        rating = await players(request).player_rating(player, body.variant)
    authority: RaceAuthority = request.app.state.authority
    room, racer, token = await authority.quick(body.variant, name, player, rating)
    return QuickJoined(room=room, racer=racer, token=token)


QUICK_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("POST", "/quick", "Quick race: a seat in the lobby of a variant that starts "
             "soonest (or a new one)", quick, QuickBody, QuickJoined, 201,
             auth="optional player",
             errors=("request/invalid", "racer/name_taken", "player/invalid_key",
                     "archive/unavailable", "rate/limited"), budget="join",
             operation_id="quickRace"),
)
"""The quick-race route."""


def quick_routes() -> list[Route]:
    """Starlette routes of :data:`QUICK_ENDPOINTS`, under ``/api/v1``."""
    return routes(QUICK_ENDPOINTS)

