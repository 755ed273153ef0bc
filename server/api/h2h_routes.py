"""REST routes of head-to-head: comparisons, replay checks, ghost rooms, daily deal,
leaderboards (docs/protocol.md, "Head to head").

Mounted by :func:`h2h_routes`; the leaderboard store, the ghost room drivers
and the leaderboard feed at the end of every race are built by the app
(:func:`server.app.create_app`) and read from ``app.state``.
:data:`H2H_ENDPOINTS` also feeds the OpenAPI document. Bodies may be up to
:data:`MAX_BODY` bytes here (a replay document is larger than a move).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import Final, Literal, cast

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.errors import RequestInvalid, RequestTooLarge
from server.race.authority import RaceAuthority, RoomOptions
from server.race.ghost_room import GhostRooms
from server.records.head_to_head import (
    LiveGames,
    RacerRef,
    Source,
    check_replay,
    compare_sources,
    racer_record,
)
from server.records.leaderboard import MAX_LIMIT, leaderboard
from server.records.leaderboard_store import LeaderboardStore
from server.records.record import GameRecord
from server.rules import RulesError, get_variant
from server.rules.daily import daily_deal, parse_date, utc_date

from .h2h_models import (
    CompareBody,
    ComparisonView,
    DailyDealView,
    GameSource,
    GhostRoomBody,
    GhostRoomCreated,
    LeaderboardView,
    ReplayCheck,
    ReplayCheckBody,
)
from .read_cache import FinishedReads, answer, finished_room, racer_id
from .rest import (
    PREFIX,
    Endpoint,
    admit,
    bearer_token,
    client_address,
    new_room_slot,
    parse_body,
)

__all__ = ["H2H_ENDPOINTS", "MAX_BODY", "h2h_routes"]

MAX_BODY: Final = 2 * 1024 * 1024
"""Largest body of these routes, bytes (a replay of the longest allowed log fits)."""


def _authority(request: Request) -> RaceAuthority:
    return cast(RaceAuthority, request.app.state.authority)


def _logs(request: Request) -> LiveGames:
    """Live racers' logs as the caller (``Authorization``, optional) may see them."""
    return _authority(request).logs_for(bearer_token(request.headers))


def _reads(request: Request) -> FinishedReads:
    return cast(FinishedReads, request.app.state.finished_reads)


def _boards(request: Request) -> LeaderboardStore:
    return cast(LeaderboardStore, request.app.state.leaderboards)


def _variant(name: str) -> str:
    try:
        return get_variant(name).id
    except RulesError as exc:
        raise RequestInvalid(str(exc), {"field": "variant"}) from None


def _date(text: str) -> date:
    try:
        return parse_date(text)
    except ValueError as exc:
        raise RequestInvalid(str(exc), {"field": "date"}) from None


async def _today(request: Request) -> date:
    return utc_date(await _authority(request).now_ms())


def _source(src: GameSource) -> Source:
    if src.replay is not None:
        return check_replay(src.replay)
    assert src.room is not None and src.racer is not None
    return RacerRef(src.room, src.racer)


# -- handlers ----------------------------------------------------------------------


async def compare_in_room(request: Request, _: None) -> ComparisonView | Response:
    """A finished race's comparison is kept and answered as first encoded; a
    running one is charged to the caller's upload budget (:mod:`.read_cache`)."""
    p = request.path_params
    room = await finished_room(_authority(request), p["room"])
    key = None
    if room is not None:
        a, b = racer_id(room, p["a"]), racer_id(room, p["b"])
        if a is not None and b is not None:
            key = ("compare", room.id, a, b)
            kept = _reads(request).get(key)
            if kept is not None:
                return answer(request, kept)
    else:
        request.app.state.admission.take("upload", client_address(request))
    c = await compare_sources(_logs(request), RacerRef(p["room"], p["a"]),
                              RacerRef(p["room"], p["b"]))
    view = ComparisonView.model_validate(c.to_json())
    if key is None:
        return view
    return answer(request, _reads(request).put(
        key, bytes(JSONResponse(view.model_dump(mode="json")).body)))


async def compare_games(request: Request, body: CompareBody) -> ComparisonView:
    c = await compare_sources(_logs(request), _source(body.a), _source(body.b))
    return ComparisonView.model_validate(c.to_json())


async def check_replay_doc(request: Request, body: ReplayCheckBody) -> ReplayCheck:
    record = check_replay(body.replay)
    return ReplayCheck(player=record.name, rules=record.rules.to_json(),
                       deal_number=record.deal_number, moves=len(record.moves),
                       result=body.replay["result"])


async def create_ghost_room(request: Request, body: GhostRoomBody) -> GhostRoomCreated:
    source = _source(body)
    if isinstance(source, RacerRef):
        # the recorded room's redeal key is secret until its race is over: a ghost
        # room on it would let anyone preview the redeals of a running race
        state = (await _authority(request).get_room(source.room)).state
        if state not in ("over", "closed"):
            raise RequestInvalid(f"that room's race is not over yet ({state})",
                                 {"field": "room", "state": state})
        source, _ = await racer_record(_authority(request).logs_for(None), source)
    ghosts: GhostRooms[GameRecord] = request.app.state.ghosts
    counted = await new_room_slot(request)
    room, host_token, ghost = await ghosts.create(RoomOptions(
        capacity=body.capacity, time_limit_s=body.time_limit_s, visibility=body.visibility,
        countdown_s=body.countdown_s), source)
    counted(room.id)
    return GhostRoomCreated(room=room, host_token=host_token, ghost=ghost)


async def daily(request: Request, _: None) -> DailyDealView:
    p = request.path_params
    variant = _variant(p["variant"])
    day = _date(p["date"]) if "date" in p else await _today(request)
    return DailyDealView(variant=variant, date=day.isoformat(),
                         deal_number=daily_deal(variant, day))


def _limit(request: Request) -> int:
    text = request.query_params.get("limit", "20")
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_LIMIT:
        raise RequestInvalid(f"limit is 1…{MAX_LIMIT}", {"field": "limit"})
    return int(text)


async def _board(request: Request, kind: Literal["daily", "all-time"]) -> LeaderboardView:
    p = request.path_params
    variant = _variant(p["variant"])
    limit = _limit(request)
    day = None
    if kind == "daily":
        day = _date(p["date"]) if "date" in p else await _today(request)
    rows = await leaderboard(_boards(request), variant, kind, day, limit)
    return LeaderboardView.model_validate({
        "variant": variant, "board": kind, "date": day.isoformat() if day else None,
        "rows": [r.to_json() for r in rows]})


async def daily_board(request: Request, _: None) -> LeaderboardView:
    return await _board(request, "daily")


async def all_time_board(request: Request, _: None) -> LeaderboardView:
    return await _board(request, "all-time")


_ROOM = ("room/not_found", "racer/not_found", "auth/invalid_token", "race/hidden_until_over",
         "archive/unavailable", "challenge/hidden")
_REPLAY = ("replay/invalid", "replay/forged")

H2H_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET", "/rooms/{room}/compare/{a}/{b}",
             "Compare two racers of a room (ids or names)", compare_in_room, None,
             ComparisonView, auth="optional", errors=(*_ROOM, "rate/limited"),
             operation_id="compareInRoom",
             store="read"),
    Endpoint("POST", "/compare", "Compare two games on one deal (live racers or replays)",
             compare_games, CompareBody, ComparisonView, auth="optional", budget="upload",
             errors=("request/invalid", *_ROOM, *_REPLAY, "compare/different_deal",
                     "rate/limited"), operation_id="compareGames", store="read"),
    Endpoint("POST", "/replays/check", "Check a replay document by replaying it",
             check_replay_doc, ReplayCheckBody, ReplayCheck, budget="upload",
             errors=("request/invalid", *_REPLAY, "rate/limited"), operation_id="checkReplay",
             store="none"),
    Endpoint("POST", "/ghost-rooms", "Create a room that races a recorded game",
             create_ghost_room, GhostRoomBody, GhostRoomCreated, 201, budget="create",
             errors=("request/invalid", *_ROOM, *_REPLAY, "ghost/too_many", "rate/limited",
                     "server/full"), operation_id="createGhostRoom"),
    Endpoint("GET", "/daily/{variant}", "Today's daily deal (UTC)", daily, None,
             DailyDealView, errors=("request/invalid",), operation_id="getDaily",
             store="read"),
    Endpoint("GET", "/daily/{variant}/{date}", "The daily deal of a UTC date", daily, None,
             DailyDealView, errors=("request/invalid",), operation_id="getDailyOfDate",
             store="none"),
    Endpoint("GET", "/leaderboards/{variant}/daily", "Today's daily leaderboard",
             daily_board, None, LeaderboardView, errors=("request/invalid",),
             operation_id="getDailyLeaderboard", query=("limit",), store="read"),
    Endpoint("GET", "/leaderboards/{variant}/daily/{date}", "A date's daily leaderboard",
             daily_board, None, LeaderboardView, errors=("request/invalid",),
             operation_id="getDailyLeaderboardOfDate", query=("limit",), store="read"),
    Endpoint("GET", "/leaderboards/{variant}/all-time",
             "All-time leaderboard: best per name and deal", all_time_board, None,
             LeaderboardView, errors=("request/invalid",),
             operation_id="getAllTimeLeaderboard", query=("limit",), store="read"),
)
"""Head-to-head REST routes, in documentation order."""


async def _read_body(request: Request) -> bytes:
    length = request.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > MAX_BODY:
        raise RequestTooLarge(f"the body is larger than {MAX_BODY} bytes", {"limit": MAX_BODY})
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RequestTooLarge(f"the body is larger than {MAX_BODY} bytes",
                                  {"limit": MAX_BODY})
    return bytes(data)


def _wrap(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        admit(request, endpoint)
        body: BaseModel | None = None
        if endpoint.body is not None:
            body = parse_body(request, await _read_body(request), endpoint.body)
        result = await endpoint.handler(request, body)
        assert result is not None
        if isinstance(result, Response):  # a kept answer (server.api.read_cache)
            return result
        return JSONResponse(result.model_dump(mode="json"), status_code=endpoint.status)

    return handle


def h2h_routes() -> list[Route]:
    """Starlette routes of :data:`H2H_ENDPOINTS`, under ``/api/v1``."""
    return [Route(PREFIX + ep.path, _wrap(ep), methods=[ep.method]) for ep in H2H_ENDPOINTS]
