"""REST routes of the next room (issue 21): ``POST /rooms/{room}/rematch`` and
``GET /series/{series}`` (docs/protocol.md, "Rematch", "Series").

Mounted by :func:`rematch_routes`; :data:`REMATCH_ENDPOINTS` also feeds the
OpenAPI document. Each route decodes its request and calls one method of the
race authority.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import cast

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.errors import RoomNotFound
from server.race.authority import RaceAuthority
from server.race.views import RacerView, RoomView, SeriesView

from .rest import PREFIX, Endpoint, admit, bearer_token, client_address, new_room_slot

__all__ = ["REMATCH_ENDPOINTS", "Rematched", "rematch_routes"]


class Rematched(BaseModel):
    """A seat in the next room: as ``POST /rooms/{room}/racers`` answers (``racer``,
    ``token``), with the room, and the host token for its host (the first offer)."""

    model_config = ConfigDict(extra="forbid")

    room: RoomView = Field(description="the next room, as its new racer (or host) sees it")
    racer: RacerView = Field(description="you in it: the same racer id as before")
    token: str = Field(description="your racer token there: the one you offered with")
    host_token: str | None = Field(
        description="the next room's host token, for the racer whose offer made it (keep "
        "it secret); null for the others")


def _authority(request: Request) -> RaceAuthority:
    return cast(RaceAuthority, request.app.state.authority)


async def rematch(request: Request, _: None) -> Rematched:
    authority, ref = _authority(request), request.path_params["room"]
    counted = None
    try:
        finished = await authority.get_room(ref)
    except RoomNotFound:
        finished = None  # the rematch itself answers the refusal
    if finished is not None and finished.state in ("over", "closed") \
            and finished.rematch is None:
        # this offer makes the next room: a room creation like POST /rooms (its
        # budget, the waiting-rooms cap of the address, the server's room cap)
        request.app.state.admission.take("create", client_address(request))
        counted = await new_room_slot(request)
    seat = await authority.rematch(ref, bearer_token(request.headers))
    if counted is not None and seat.host_token is not None:
        counted(seat.room.id)
    return Rematched(room=seat.room, racer=seat.racer, token=seat.token,
                     host_token=seat.host_token)


async def series(request: Request, _: None) -> SeriesView:
    return await _authority(request).series(request.path_params["series"])


REMATCH_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("POST", "/rooms/{room}/rematch",
             "Offer a rematch: the first offer makes the next room, later ones join it",
             rematch, None, Rematched, 201, auth="racer",
             errors=("auth/missing", "room/not_found", "auth/invalid_token", "room/not_over",
                     "room/not_waiting", "room/full", "racer/name_taken", "request/invalid",
                     "rate/limited", "server/full"),
             budget="join", operation_id="offerRematch"),
    Endpoint("GET", "/series/{series}", "A series of races: its rooms and table", series,
             None, SeriesView, errors=("series/not_found", "archive/unavailable"),
             operation_id="getSeries"),
)
"""The next room's REST routes, in documentation order."""


def _wrap(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        admit(request, endpoint)
        result = await endpoint.handler(request, None)
        assert result is not None
        if isinstance(result, Response):  # a kept answer (server.api.read_cache)
            return result
        return JSONResponse(result.model_dump(mode="json"), status_code=endpoint.status)

    return handle


def rematch_routes() -> list[Route]:
    """Starlette routes of :data:`REMATCH_ENDPOINTS`, under ``/api/v1``."""
    return [Route(PREFIX + ep.path, _wrap(ep), methods=[ep.method])
            for ep in REMATCH_ENDPOINTS]
