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
  file is a 404 ``request/not_found`` (the app's error handler).

Every answer carries :data:`CSP` (no inline script or style, nothing from
another origin; the WebSocket of the same host is ``'self'``) and
``X-Content-Type-Options: nosniff``. The pages use only the public API
(``/api/v1/…`` and the room WebSocket): this module adds no endpoint but
these static files.
"""

from __future__ import annotations

from pathlib import Path

from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
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

PAGES = ("/", "/r/{code}", "/r/{code}/watch", "/leaderboards", "/rules")
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


def web_routes() -> list[BaseRoute]:
    """The routes of the browser client (module docstring): pages, then ``/static``."""
    shell = _Shell()

    routes: list[BaseRoute] = [Route(path, shell, methods=["GET", "HEAD"]) for path in PAGES]
    routes.append(Mount("/static", app=_ClientFiles(f"public, max-age={ASSET_MAX_AGE_S}",
                                                     directory=STATIC_DIR), name="static"))
    return routes
