"""The browser client: static files served by ``lucie-server`` itself (docs/web.md).

:func:`web_routes` gives the Starlette routes of the client:

* the HTML shell (``static/index.html``) at every page the client's router
  knows — ``/``, ``/r/{code}``, ``/r/{code}/watch``, ``/leaderboards``,
  ``/rules`` — answered ``Cache-Control: no-cache`` (revalidated with its
  ``ETag`` on every load, so a new release is picked up at once);
* the files under ``static/`` at ``/static/{path}`` (JavaScript modules,
  the stylesheet, the rule book, the vendored markdown renderer), with
  ``ETag``/``Last-Modified`` and a short ``max-age`` (:data:`ASSET_MAX_AGE_S`;
  the names are not content-hashed: there is no build step). Starlette's
  ``StaticFiles`` serves them: ``HEAD`` answers like ``GET`` without the
  body, a path that leaves the folder (``..``, a symlink out) or names no
  file is a 404 ``request/not_found`` (the app's error handler);
* any other path a browser navigates to (``GET``/``HEAD`` with ``Accept:
  text/html``, outside ``/api`` and ``/static``): the HTML shell with status
  404, where the client's router draws "Page not found" (:class:`_NotFoundPage`).
  Every other request for an unknown path — any ``/api/…`` path, a client
  asking for JSON — is still the app's JSON 404 ``request/not_found``.

Every answer carries :data:`CSP` (no inline script or style, nothing from
another origin; the WebSocket of the same host is ``'self'``) and
``X-Content-Type-Options: nosniff``. The pages use only the public API
(``/api/v1/…`` and the room WebSocket): this module adds no endpoint but
these static files.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Match, Mount, NoMatchFound, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

__all__ = ["ASSET_MAX_AGE_S", "CSP", "PAGES", "STATIC_DIR", "web_routes"]

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The client's files (shipped in the wheel: pyproject's package-data)."""

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
"""The Content-Security-Policy of every page and file of the client."""

ASSET_MAX_AGE_S = 300
"""How long a browser may use a static file before it revalidates it (ETag)."""

PAGES = ("/", "/r/{code}", "/r/{code}/watch", "/leaderboards", "/rules", "/challenges", "/c/{code}")
"""The client's pages: each answers the HTML shell; the client's router draws the page."""

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class _ClientFiles(StaticFiles):
    """``StaticFiles`` with the client's security and caching headers."""

    def __init__(self, cache_control: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cache_control = cache_control

    def file_response(self, *args: object, **kwargs: object) -> Response:
        response = super().file_response(*args, **kwargs)  # type: ignore[arg-type]
        response.headers.update(SECURITY_HEADERS)
        response.headers["Cache-Control"] = self.cache_control
        return response


class _Shell:
    """ASGI app answering ``index.html`` whatever the page's path."""

    def __init__(self) -> None:
        self.files = _ClientFiles("no-cache", directory=STATIC_DIR)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.files({**scope, "path": "/index.html", "root_path": ""}, receive, send)


class _NotFoundPage(BaseRoute):
    """The last route: a page address nobody serves, typed or followed in a browser
    (``GET``/``HEAD`` asking for ``text/html``, not under ``/api`` or ``/static``)
    answers the HTML shell with status 404 — the client's router shows "Page not
    found" with a link home — instead of the API's JSON error. A path ending in
    ``/`` is left to the router's slash redirect (``/rules/`` → ``/rules``)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = scope["path"]
        if (scope["type"] != "http" or scope["method"] not in ("GET", "HEAD")
                or path.endswith("/") or path == "/api" or path.startswith(("/api/", "/static/"))
                or "text/html" not in Headers(scope=scope).get("accept", "")):
            return Match.NONE, {}
        return Match.FULL, {}

    def url_path_for(self, name: str, /, **path_params: object) -> NoReturn:
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        page = FileResponse(STATIC_DIR / "index.html", status_code=404, media_type="text/html",
                            headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})
        await page(scope, receive, send)


def web_routes() -> list[BaseRoute]:
    """The routes of the browser client (module docstring): pages, ``/static``, then
    the "page not found" of browsers."""
    shell = _Shell()

    routes: list[BaseRoute] = [Route(path, shell, methods=["GET", "HEAD"]) for path in PAGES]
    routes.append(Mount("/static", app=_ClientFiles(f"public, max-age={ASSET_MAX_AGE_S}",
                                                     directory=STATIC_DIR), name="static"))
    routes.append(_NotFoundPage())
    return routes
