"""REST routes of the v1 API (docs/protocol.md, "REST").

Each route decodes its request (size limit, JSON, pydantic model with
``extra="forbid"``), takes the bearer token from ``Authorization`` and calls
**one** method of the race authority. :data:`ENDPOINTS` is also the source
of the OpenAPI document (:mod:`server.api.openapi`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.errors import (
    RequestInvalid,
    RequestTooLarge,
    UnsupportedMediaType,
    UpgradeRequired,
)
from server.race.authority import RaceAuthority, RoomOptions
from server.race.views import Ack, GameView, RacerView, RaceView, Replay, RoomView, Standings

from .admission import Admission, Budget
from .bearer import bearer_token
from .models import (
    CreatedRoom,
    CreateRoom,
    Joined,
    JoinRoom,
    MoveBody,
    ReadyBody,
    RoomList,
    json_object_problem,
)
from .observe import observed_move
from .player_auth import racer_name
from .read_cache import replay

__all__ = ["ENDPOINTS", "Endpoint", "bearer_token", "is_json", "parse_body", "routes",
           "upgrade_required", "wrap"]

PREFIX = "/api/v1"

Handler = Callable[[Request, Any], Awaitable[BaseModel | Response | None]]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One REST route: method, path (under ``/api/v1``), models, errors, handler."""

    method: str
    path: str
    summary: str
    handler: Handler
    body: type[BaseModel] | None = None
    answer: type[BaseModel] | None = None
    status: int = 200
    auth: str | None = None
    errors: tuple[str, ...] = ()
    budget: Budget = "read"
    """The per-address budget the route spends (``server.api.admission``)."""
    operation_id: str = ""
    """The OpenAPI ``operationId``: unique, stable (clients generate method names
    from it), camelCase. Required: :func:`server.api.openapi.check_endpoints`."""
    query: tuple[str, ...] = ()
    """Query parameters the route reads (their schemas: ``server.api.openapi``)."""
    store: Literal["none", "read", "write"] = "write"
    """What it does with the store: ``read`` may answer 503 ``store/unavailable``,
    ``write`` also ``store/busy``; ``none`` neither."""
    guard: Callable[[Request], object] | None = None  # before the body (moderation's token)


async def _read_body(request: Request, limit: int) -> bytes:
    length = request.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > limit:
        raise RequestTooLarge(f"the body is larger than {limit} bytes", {"limit": limit})
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise RequestTooLarge(f"the body is larger than {limit} bytes", {"limit": limit})
    return bytes(data)


def is_json(content_type: str) -> bool:
    """Whether a ``Content-Type`` declares JSON (``application/(…+)json``, any parameters)."""
    media = content_type.partition(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json"))


def parse_body(request: Request, raw: bytes, model: type[BaseModel]) -> BaseModel:
    """The body as ``model``: declared as JSON (else 415
    ``request/unsupported_media_type``), one JSON object with distinct keys
    (else 400 ``request/invalid``), matching the model (else 422
    ``request/invalid``).

    :raises UnsupportedMediaType, RequestInvalid, pydantic.ValidationError:
    """
    if not is_json(request.headers.get("content-type", "")):
        raise UnsupportedMediaType("the body must be JSON (Content-Type: application/json)",
                                   {"content_type": request.headers.get("content-type",
                                                                        "")[:64]})
    problem = json_object_problem(raw)
    if problem is not None:
        raise RequestInvalid(problem)
    return model.model_validate_json(raw)


def client_address(request: Request) -> str:
    """The client's address, the key of its budgets and socket counts."""
    return request.client.host if request.client else "-"


def admit(request: Request, endpoint: Endpoint) -> None:
    """Spend the request from its address's budgets (``server.api.admission``).
    :raises RateLimited: past a budget (429 with ``Retry-After``)."""
    admission: Admission = request.app.state.admission
    admission.take(endpoint.budget, client_address(request))


def _authority(request: Request) -> RaceAuthority:
    authority: RaceAuthority = request.app.state.authority
    return authority


def wrap(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette handler of ``endpoint``: budget, body (size limit, JSON,
    model), the handler, then its model as JSON (``None``: an empty answer)."""

    async def handle(request: Request) -> Response:
        admit(request, endpoint)
        if endpoint.guard is not None:
            endpoint.guard(request)
        body = None
        if endpoint.body is not None:
            raw = await _read_body(request, request.app.state.settings.max_body)
            body = parse_body(request, raw, endpoint.body)
        result = await endpoint.handler(request, body)
        if result is None or isinstance(result, Response):  # a kept answer: as it is
            return result or Response(status_code=endpoint.status)
        return JSONResponse(result.model_dump(mode="json"), status_code=endpoint.status)

    return handle


# -- handlers ----------------------------------------------------------------------


async def new_room_slot(request: Request) -> Callable[[str], None]:
    """Check the caller may leave one more room behind (``Admission.room_slot``);
    returns what counts the room once it is created.

    :raises RateLimited, ServerFull:
    """
    admission: Admission = request.app.state.admission
    address = client_address(request)
    await admission.room_slot(address, _authority(request).still_waiting)
    return lambda room_id: admission.room_created(address, room_id)


async def create_room(request: Request, body: CreateRoom) -> CreatedRoom:
    fields: dict[str, Any] = body.model_dump(exclude={"series", "bots"})
    if body.series is not None:
        fields.update(series_races=body.series.races, series_break_s=body.series.break_s)
    options = RoomOptions(**fields, bots=body.bots_option())
    for _ in range(options.bot_count):  # each computer racer takes a seat: a join here
        request.app.state.admission.take("join", client_address(request))
    counted = await new_room_slot(request)
    room, host_token = await _authority(request).create_room(options)
    counted(room.id)
    return CreatedRoom(room=room, host_token=host_token)


async def list_rooms(request: Request, _: None) -> RoomList:
    return RoomList(rooms=await _authority(request).list_rooms())


async def get_room(request: Request, _: None) -> RoomView:
    return await _authority(request).get_room(request.path_params["room"],
                                              bearer_token(request.headers))


async def start(request: Request, _: None) -> RoomView:
    return await _authority(request).start(request.path_params["room"],
                                           bearer_token(request.headers))


async def close(request: Request, _: None) -> RoomView:
    return await _authority(request).close(request.path_params["room"],
                                           bearer_token(request.headers))


async def join(request: Request, body: JoinRoom) -> Joined:
    name, player = await racer_name(request, bearer_token(request.headers), body.name)
    racer, token = await _authority(request).join(request.path_params["room"], name, player)
    return Joined(racer=racer, token=token)


async def leave(request: Request, _: None) -> None:
    p = request.path_params
    await _authority(request).leave(p["room"], p["racer"], bearer_token(request.headers))


async def ready(request: Request, body: ReadyBody) -> RacerView:
    p = request.path_params
    return await _authority(request).set_ready(p["room"], p["racer"],
                                               bearer_token(request.headers), body.ready)


async def game(request: Request, _: None) -> GameView:
    p = request.path_params
    return await _authority(request).game(p["room"], p["racer"], bearer_token(request.headers))


async def move(request: Request, body: MoveBody) -> BaseModel:
    p, started = request.path_params, time.perf_counter()
    return await observed_move("rest", started, _authority(request).move(
        p["room"], p["racer"], bearer_token(request.headers), body.move, body.expected_version,
        body.client_move_id))


async def resign(request: Request, _: None) -> RacerView:
    p = request.path_params
    return await _authority(request).resign(p["room"], p["racer"],
                                            bearer_token(request.headers))


async def standings(request: Request, _: None) -> Standings:
    return await _authority(request).standings(request.path_params["room"],
                                               bearer_token(request.headers))


async def race(request: Request, _: None) -> RaceView:
    return await _authority(request).race(request.path_params["race"])


_ROOM = ("room/not_found",)
_READ = ("room/not_found", "archive/unavailable")
"""A room read: a live room, else an archived race (docs/archive.md)."""
_HIDDEN = (*_READ, "racer/not_found", "auth/invalid_token", "race/hidden_until_start",
           "race/hidden_until_over", "challenge/hidden")
"""What a board or move log may answer besides itself (docs/protocol.md, "Fair play")."""
_RACER_AUTH = ("auth/missing", "room/not_found", "racer/not_found", "auth/invalid_token",
               "auth/forbidden")

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("POST", "/rooms", "Create a room", create_room, CreateRoom, CreatedRoom, 201,
             errors=("request/invalid", "rate/limited", "server/full"), budget="create",
             operation_id="createRoom"),
    Endpoint("GET", "/rooms", "Public rooms waiting for racers", list_rooms, None, RoomList,
             operation_id="listRooms", store="read"),
    Endpoint("GET", "/rooms/{room}", "A room", get_room, None, RoomView, auth="optional",
             errors=(*_READ, "auth/invalid_token", "challenge/hidden"), operation_id="getRoom",
             store="read"),
    Endpoint("POST", "/rooms/{room}/start", "Host starts the countdown", start, None, RoomView,
             auth="host", errors=("auth/missing", *_ROOM, "auth/invalid_token",
                                  "room/over", "room/no_racers"),
             operation_id="startRoom"),
    Endpoint("POST", "/rooms/{room}/close", "Host closes the room", close, None, RoomView,
             auth="host", errors=("auth/missing", *_ROOM, "auth/invalid_token", "room/over"),
             operation_id="closeRoom"),
    Endpoint("POST", "/rooms/{room}/racers", "Join with a display name (or as a player)",
             join, JoinRoom, Joined, 201, auth="optional",
             errors=(*_ROOM, "request/invalid", "room/not_waiting", "room/full",
                     "racer/name_taken", "player/invalid_key", "archive/unavailable",
                     "rate/limited"), budget="join", operation_id="joinRoom"),
    Endpoint("DELETE", "/rooms/{room}/racers/{racer}", "Leave (racer) or kick (host, "
             "before the start)", leave, None, None, 204, auth="racer or host",
             errors=(*_RACER_AUTH, "room/over", "racer/finished", "room/kick_after_start"),
             operation_id="leaveRoom"),
    Endpoint("POST", "/rooms/{room}/racers/{racer}/ready", "Set ready", ready, ReadyBody,
             RacerView, auth="racer", errors=(*_RACER_AUTH, "room/not_waiting"),
             operation_id="setReady"),
    Endpoint("GET", "/rooms/{room}/racers/{racer}/game", "A racer's full game state", game,
             None, GameView, auth="optional", errors=_HIDDEN, operation_id="getGame",
             store="read"),
    Endpoint("POST", "/rooms/{room}/racers/{racer}/moves", "Submit a move", move, MoveBody,
             Ack, auth="racer",
             errors=(*_RACER_AUTH, "room/not_racing", "room/over", "racer/finished",
                     "move/stale_version", "move/invalid", "move/illegal", "move/log_full"),
             operation_id="submitMove"),
    Endpoint("POST", "/rooms/{room}/racers/{racer}/resign", "Concede", resign, None,
             RacerView, auth="racer", errors=(*_RACER_AUTH, "room/not_racing", "room/over",
                                              "racer/finished"),
             operation_id="resign"),
    Endpoint("GET", "/rooms/{room}/standings", "Ranked standings", standings, None, Standings,
             auth="optional", errors=(*_READ, "auth/invalid_token", "challenge/hidden"),
             operation_id="getStandings", store="read"),
    Endpoint("GET", "/rooms/{room}/racers/{racer}/replay", "A racer's move log", replay, None,
             Replay, auth="optional", errors=_HIDDEN, operation_id="getReplay", store="read"),
    Endpoint("GET", "/races/{race}", "A finished race (live or archived)", race, None,
             RaceView, errors=(*_READ, "race/hidden_until_over", "challenge/hidden"),
             operation_id="getRace",
             store="read"),
)
"""Every REST route, in documentation order."""


async def upgrade_required(request: Request) -> Response:
    """A plain ``GET`` of the room WebSocket: 426 ``request/upgrade_required``."""
    raise UpgradeRequired("this is a WebSocket endpoint: connect with a WebSocket "
                          "client (Upgrade: websocket)")


def routes(endpoints: tuple[Endpoint, ...] = ENDPOINTS) -> list[Route]:
    """Starlette routes of ``endpoints`` (grouped by path; :data:`ENDPOINTS`
    also gets the room socket path's plain-HTTP answer)."""
    by_path: dict[str, dict[str, Callable[[Request], Awaitable[Response]]]] = {}
    for ep in endpoints:
        by_path.setdefault(ep.path, {})[ep.method] = wrap(ep)
    out = []
    for path, methods in by_path.items():
        async def dispatch(request: Request, _m: dict[str, Any] = methods) -> Response:
            # Starlette's Route answers HEAD wherever GET is allowed (RFC 9110
            # 9.3.2): the GET handler's answer, its body dropped by the server
            method = "GET" if request.method == "HEAD" else request.method
            response: Response = await _m[method](request)
            return response
        out.append(Route(PREFIX + path, dispatch, methods=list(methods)))
    if endpoints is ENDPOINTS:
        # the room socket's path answers plain HTTP too (the WebSocket route only
        # matches WebSocket requests): tell the caller to upgrade
        out.append(Route(PREFIX + "/rooms/{room}/ws", upgrade_required, methods=["GET"]))
    return out
