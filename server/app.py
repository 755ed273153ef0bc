"""The application factory, its lifespan, and the ``lucie-server`` console script.

``create_app(settings)`` builds the Starlette app: the store chosen by
``REDIS_URL`` (memory when unset), the race authority, the per-process
event hub, a background task that advances room timers, the REST routes,
the room WebSocket, health (``/healthz``: the process is up) and
readiness (``/readyz``: the store answers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import sys
from collections.abc import AsyncIterator
from importlib.metadata import version

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from server.api.admission import Admission
from server.api.errors import exception_handlers
from server.api.h2h_routes import attach_head_to_head, h2h_routes
from server.api.hub import Hub
from server.api.openapi import openapi, ws_schemas
from server.api.rest import PREFIX, routes
from server.api.solver_routes import attach_solver, solver_routes
from server.api.ws import room_socket
from server.errors import StoreError, StoreUnavailable
from server.race.authority import RaceAuthority, RaceConfig
from server.runtime.gcpolicy import run_gc_policy
from server.runtime.limits import ensure_open_files
from server.runtime.redact import install as install_redaction
from server.runtime.settings import Settings
from server.runtime.uvicorn_protocols import protocols
from server.store import open_store

__all__ = ["create_app", "main"]

log = logging.getLogger("server")


async def _ticker(authority: RaceAuthority, period_s: float) -> None:
    """Advance room timers (countdown end, time limit) every ``period_s``."""
    while True:
        try:
            await authority.tick()
        except StoreError as exc:
            log.warning("room timer sweep failed: %s", type(exc).__name__)
        except Exception as exc:
            log.error("room timer sweep crashed: %s", type(exc).__name__, exc_info=exc)
        await asyncio.sleep(period_s)


async def healthz(_: Request) -> Response:
    """The process is up."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    """The store answers: 200, else 503 ``store/unavailable``."""
    try:
        await request.app.state.store.ping()
    except StoreError:
        return JSONResponse({"error": {"code": StoreUnavailable.code,
                                       "message": "the store does not answer"}},
                            status_code=StoreUnavailable.status)
    return JSONResponse({"status": "ready", "store": type(request.app.state.store).__name__})


async def openapi_doc(_: Request) -> Response:
    """The OpenAPI 3.1 document."""
    return JSONResponse(openapi())


async def ws_schema_doc(_: Request) -> Response:
    """JSON Schemas of the WebSocket messages."""
    return JSONResponse(ws_schemas())


def create_app(settings: Settings | None = None) -> Starlette:
    """The ASGI app for ``settings`` (default: from the environment)."""
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = open_store(settings.redis_url)
        authority = RaceAuthority(store, RaceConfig(
            ended_ttl_ms=settings.ended_ttl_s * 1000,
            waiting_ttl_ms=settings.waiting_ttl_s * 1000))
        hub = Hub(authority)
        app.state.store, app.state.authority, app.state.hub = store, authority, hub
        app.state.settings = settings
        app.state.admission = Admission(settings)
        close_h2h = await attach_head_to_head(app.state, authority, settings.redis_url)
        close_solver = await attach_solver(authority)
        ticker = asyncio.create_task(_ticker(authority, settings.tick_ms / 1000))
        collector = asyncio.create_task(
            run_gc_policy(settings.gc_freeze_s, settings.gc_full_s, settings.gc_gen0))
        try:
            yield
        finally:
            ticker.cancel()
            collector.cancel()
            await asyncio.gather(ticker, collector, return_exceptions=True)
            await close_h2h()
            await close_solver()
            await hub.close()
            await store.close()

    return Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route(PREFIX + "/openapi.json", openapi_doc),
            Route(PREFIX + "/schemas/ws.json", ws_schema_doc),
            *routes(),
            *h2h_routes(),
            *solver_routes(),
            WebSocketRoute(PREFIX + "/rooms/{room}/ws", room_socket),
        ],
        exception_handlers=exception_handlers,
        lifespan=lifespan,
    )


def uvicorn_config(settings: Settings) -> uvicorn.Config:
    """The uvicorn configuration ``lucie-server`` runs the app with (the
    protocol classes: :func:`server.runtime.uvicorn_protocols.protocols`)."""
    ws, http = protocols(settings.ws_impl)
    return uvicorn.Config(
        create_app(settings), host=settings.host, port=settings.port,
        # the WebSocket layer lets frames up to ws_frame_limit through so the
        # socket handler refuses an oversize message itself (1009 with a
        # "request/too_large: …" reason, docs/protocol.md); only frames above it
        # are cut off by the library (1009 with its own reason)
        log_level=settings.log_level, ws_max_size=settings.ws_frame_limit,
        ws_ping_interval=settings.ping_interval, ws_ping_timeout=settings.ping_timeout,
        ws=ws, http=http,
        ws_per_message_deflate=settings.ws_compression,
        # X-Forwarded-For names the client only behind a trusted load balancer
        # (LUCIE_TRUSTED_PROXIES): per-client limits then key on the real client
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=settings.trusted_proxies or None,
        timeout_keep_alive=settings.keep_alive_s,
        server_header=False,
    )


def main(argv: list[str] | None = None) -> int:
    """``lucie-server [--host H] [--port P] [--redis-url URL]``: run uvicorn."""
    parser = argparse.ArgumentParser(prog="lucie-server",
                                     description="La Belle Lucie race server.")
    parser.add_argument("--host", help="bind address (LUCIE_HOST, default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (LUCIE_PORT, default 8000)")
    parser.add_argument("--redis-url", help="redis://… (REDIS_URL); default: in-memory store")
    parser.add_argument("--log-level", help="uvicorn log level (LUCIE_LOG_LEVEL)")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {version('belle-lucie-race')}")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env(host=args.host, port=args.port,
                                     redis_url=args.redis_url, log_level=args.log_level)
        open_store(settings.redis_url)  # fail early on a bad URL
    except ValueError as exc:
        print(f"lucie-server: {exc}", file=sys.stderr)
        return 2
    too_low = ensure_open_files()
    if too_low:
        print(f"lucie-server: warning: {too_low}", file=sys.stderr)
    config = uvicorn_config(settings)
    install_redaction()  # after uvicorn set up its log handlers
    gc.collect()
    gc.freeze()  # modules and schemas never need collecting: shorter GC pauses
    server = uvicorn.Server(config)
    server.run()
    return 0 if server.started else 3  # 3: could not start (port taken, bad address)


if __name__ == "__main__":
    sys.exit(main())
