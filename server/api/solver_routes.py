"""REST route of the solver (issue 7): ``GET …/racers/{racer}/hint``.

Mounted by :func:`solver_routes`; the solver's process pool is the
authority's, built by the app (:func:`server.app.create_app`).
:data:`SOLVER_ENDPOINTS` also feeds the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.race.authority import RaceAuthority
from server.race.views import HintView

from .rest import PREFIX, Endpoint, admit, bearer_token

__all__ = ["SOLVER_ENDPOINTS", "solver_routes"]


async def hint(request: Request, _: None) -> HintView:
    p = request.path_params
    authority = cast(RaceAuthority, request.app.state.authority)
    return await authority.hint(p["room"], p["racer"], bearer_token(request.headers))


SOLVER_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET", "/rooms/{room}/racers/{racer}/hint",
             "A suggested move (rooms created with hints)", hint, None, HintView,
             auth="racer",
             errors=("auth/missing", "room/not_found", "racer/not_found",
                     "auth/invalid_token", "auth/forbidden", "room/not_racing", "room/over",
                     "racer/finished", "room/hints_off", "solver/busy"),
             operation_id="getHint", store="read"),
)
"""The solver's REST routes."""


def _wrap(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        admit(request, endpoint)
        result: Any = await endpoint.handler(request, None)
        return JSONResponse(result.model_dump(mode="json"), status_code=endpoint.status)

    return handle


def solver_routes() -> list[Route]:
    """Starlette routes of :data:`SOLVER_ENDPOINTS`, under ``/api/v1``."""
    return [Route(PREFIX + ep.path, _wrap(ep), methods=[ep.method]) for ep in SOLVER_ENDPOINTS]
