"""The application factory, its lifespan, and the ``lucie-server`` console script.

``create_app(settings)`` builds the Starlette app: the store (``REDIS_URL``;
memory when unset), the race authority, the per-process event hub, the archive
(``LUCIE_DATABASE_URL``, else SQLite in ``LUCIE_DATA_DIR``; migrated at start),
its archiver and the fair-play assessor, the timer sweep, the REST routes, the
room WebSocket, health (``/healthz``: the process is up), readiness (``/readyz``:
the store answers), metrics (``/metrics``: its port or token), the browser client's
pages and static files (``server.web``, docs/web.md), behind the
:class:`~server.api.observe.Observe` middleware (request ids, a log line per
request and socket). ``lucie-server`` configures logging for its lines and
uvicorn's (:mod:`server.runtime.logs`); docs/operations.md tells operators how.

Size: the one composition root (docs/architecture.md, "Packages"): every part
is built and handed what it needs here, in one lifespan that reads top to
bottom; split, the wiring would hide its arrows in several places.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import logging
import os
import sys
from collections.abc import AsyncIterator
from importlib.metadata import version

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from server.api.admission import Admission
from server.api.challenge_routes import challenge_routes
from server.api.errors import exception_handlers
from server.api.guard import Guard
from server.api.h2h_routes import h2h_routes
from server.api.hub import Hub
from server.api.moderation_routes import log_moderation, moderation_routes
from server.api.observe import Observe, metrics_endpoint
from server.api.openapi import openapi, ws_schemas
from server.api.player_routes import player_routes
from server.api.quick_routes import quick_config, quick_routes
from server.api.read_cache import FinishedReads
from server.api.rematch_routes import rematch_routes
from server.api.rest import PREFIX, routes
from server.api.solver_routes import solver_routes
from server.api.ws_endpoint import room_socket
from server.errors import ArchiveUnavailable, StoreError, StoreUnavailable
from server.fairplay.assessor import Assessor
from server.fairplay.moderation import Moderation
from server.race.authority import RaceAuthority, RaceConfig
from server.race.challenges import ChallengeConfig, Challenges
from server.race.ghost_room import GhostRooms
from server.race.sweep import run_sweeps
from server.records.board_upkeep import forget_player_results, rebuild_from_archive
from server.records.ghost import plan_ghost
from server.records.leaderboard import race_over_hook
from server.records.leaderboard_memory import MemoryLeaderboardStore
from server.records.leaderboard_redis import RedisLeaderboardStore
from server.records.leaderboard_store import LeaderboardStore
from server.runtime import metrics
from server.runtime.clock_offset import OffsetClock
from server.runtime.gcpolicy import run_gc_policy
from server.runtime.http_limits import HttpLimits
from server.runtime.limits import ensure_open_files
from server.runtime.logs import log_config
from server.runtime.metrics import process_exit
from server.runtime.metrics_port import Server
from server.runtime.redact import install as install_redaction
from server.runtime.redis_url import cluster_mode_error
from server.runtime.settings import Settings, SettingsError
from server.runtime.uvicorn_protocols import protocols
from server.solver import SolverPool
from server.store import LiveStore, open_store
from server.web import web_routes

__all__ = ["create_app", "main"]

log = logging.getLogger("server")


def leaderboards_of(store: LiveStore) -> LeaderboardStore:
    """The leaderboards beside the room store: in its Redis, on its client and
    under its key prefix (no second client), or in memory with the memory store."""
    client = getattr(store, "client", None)  # a RedisStore's (importing that module
    # here would register its Redis metrics in an embedded server's /metrics)
    if client is not None:
        return RedisLeaderboardStore(client, prefix=str(getattr(store, "prefix", "lucie:")),
                                     owned=False)
    return MemoryLeaderboardStore()


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
        # imported here, not at module level: the solver pool's spawned workers
        # import this module and need none of SQLAlchemy/Alembic (~1 s to import)
        from server.archive import ArchiveDb, Archiver, database_url, describe

        store = open_store(settings.redis_url, default_prefix=settings.redis_prefix,
                           cluster=settings.redis_cluster,
                           wait_replicas=settings.redis_wait_replicas,
                           wait_timeout_ms=settings.redis_wait_timeout_ms)
        archive = ArchiveDb(database_url(settings.database_url, settings.data_dir))
        try:
            await archive.migrate()
        except ArchiveUnavailable as exc:  # races run on; the archiver migrates later
            log.warning("archive %s not ready: %s", describe(archive.url), exc.code)
        pool = SolverPool(workers=1)
        pool.observer = metrics.solver_jobs
        boards = leaderboards_of(store)
        if isinstance(boards, MemoryLeaderboardStore):  # fed again from the archive
            await rebuild_from_archive(boards, archive)
        # the composition root: each part gets what it needs here, nothing is
        # attached to it later (docs/architecture.md, "The authority")
        authority = RaceAuthority(store, RaceConfig(
            ended_ttl_ms=settings.ended_ttl_s * 1000,
            waiting_ttl_ms=settings.waiting_ttl_s * 1000,
            bot_think_ms=settings.bot_think_ms, max_bots=settings.max_bots,
            quick=quick_config(settings)), solver=pool, archive=archive,
            race_over_hooks=[race_over_hook(boards)], challenges=archive)
        ghosts = GhostRooms(authority, plan_ghost)
        challenges = Challenges(  # docs/protocol.md, "Challenges and duels"
            authority, archive, OffsetClock(store.clock, settings.clock_offset_file)
            if settings.clock_offset_file else store.clock, ChallengeConfig(
                band_width=settings.duel_band_width,
                widen_ms=round(settings.duel_widen_s * 1000),
                waiting_ms=settings.waiting_ttl_s * 1000))
        app.state.challenges = challenges
        hub = Hub(authority)
        app.state.store, app.state.authority, app.state.hub = store, authority, hub
        app.state.settings, app.state.admission = settings, Admission(settings)
        app.state.leaderboards, app.state.ghosts = boards, ghosts
        app.state.finished_reads = FinishedReads()  # server.api.read_cache
        archiver = Archiver(authority, archive, period_s=settings.archive_period_s,
                            lease_ms=int(settings.archive_lease_s * 1000),
                            activity=metrics.moves_accepted,
                            busy_share=settings.archive_busy_share)
        app.state.archive, app.state.archiver = archive, archiver
        app.state.players = archive  # server.records.players.PlayerArchive
        app.state.moderation = Moderation(
            archive, functools.partial(forget_player_results, boards), boards,
            min_races=settings.fair_play_min_races)
        if settings.metrics_port is None and settings.metrics_token is None:
            log.info("metrics: off (no LUCIE_METRICS_PORT nor LUCIE_METRICS_TOKEN; "
                     "docs/operations.md)")
        log_moderation(settings)
        app.state.assessor = assessor = Assessor(archive, pool, activity=metrics.moves_accepted)
        archiving = asyncio.create_task(archiver.run())
        assessing = asyncio.create_task(assessor.run())
        ticker = asyncio.create_task(run_sweeps(authority.tick, settings.tick_ms / 1000))
        settling = asyncio.create_task(challenges.run(settings.challenge_period_s))
        collector = asyncio.create_task(
            run_gc_policy(settings.gc_freeze_s, settings.gc_full_s, settings.gc_gen0))
        try:
            yield
        finally:
            await authority.bots.aclose()  # they resign while the store still answers
            challenges.stop()  # its sweep under way ends first: no query left in flight
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(settling), 5)
            ticker.cancel()
            collector.cancel()
            archiving.cancel()
            assessing.cancel()
            settling.cancel()
            await asyncio.gather(ticker, collector, archiving, assessing, settling,
                                 return_exceptions=True)
            await archiver.drain()  # the memory store forgets what is left pending
            await archive.close()
            await ghosts.aclose()
            await boards.close()
            pool.close()
            await hub.close()
            await store.close()
            process_exit()

    app_routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        # for Prometheus, not for clients: outside the OpenAPI document (like the
        # probes) and outside the per-client budgets (a scrape is never refused);
        # answered on the metrics port, or with LUCIE_METRICS_TOKEN (observe.py)
        Route("/metrics", metrics_endpoint),
        Route(PREFIX + "/openapi.json", openapi_doc),
        Route(PREFIX + "/schemas/ws.json", ws_schema_doc),
        *routes(),
        *h2h_routes(),
        *solver_routes(),
        *player_routes(),
        *rematch_routes(),
        *quick_routes(),
        *moderation_routes(),
        *challenge_routes(),
        WebSocketRoute(PREFIX + "/rooms/{room}/ws", room_socket),
    ]
    # the metrics' route label: the path template of each API route; the
    # browser client's pages are one label, its static files "unmatched"
    templates: dict[object, str] = {route.endpoint: route.path for route in app_routes
                                    if isinstance(route, Route | WebSocketRoute)}
    pages = web_routes()
    templates.update({route.endpoint: "(web page)" for route in pages
                      if isinstance(route, Route)})
    app_routes.extend(pages)
    return Starlette(
        routes=app_routes,
        middleware=[Middleware(Observe, routes=templates),
                    Middleware(Guard, metrics_port=settings.metrics_port)],
        exception_handlers=exception_handlers,
        lifespan=lifespan,
    )


def uvicorn_config(settings: Settings) -> uvicorn.Config:
    """The uvicorn configuration ``lucie-server`` runs the app with (the
    protocol classes: :func:`server.runtime.uvicorn_protocols.protocols`)."""
    ws, http = protocols(settings.ws_impl, HttpLimits.of(settings),
                         (settings.ws_rate, settings.ws_burst))
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
        h11_max_incomplete_event_size=settings.max_header,  # stock h11: uvicorn_protocols
        server_header=False,
        # our format for uvicorn's lines too; its access log is replaced by
        # server.api.observe's line per request (request id, duration, room)
        log_config=log_config(settings.log_level, settings.log_format), access_log=False,
    )


async def _migrate(settings: Settings) -> int:
    from server.archive import ArchiveDb, database_url, describe

    archive = ArchiveDb(database_url(settings.database_url, settings.data_dir))
    try:
        await archive.migrate()
    except ArchiveUnavailable as exc:
        print(f"lucie-server migrate: {describe(archive.url)}: {exc}", file=sys.stderr)
        return 1
    finally:
        await archive.close()
    print(f"lucie-server migrate: {describe(archive.url)} is at the newest revision")
    return 0


def _print_lines(lines: list[str]) -> int:
    """Print ``lines`` on stdout: 0; 141 when the reader went away
    (``--print-settings | head -3``): quietly, as a program killed by SIGPIPE
    would (as ``client_cli/cli.py`` does), stdout then on devnull so that the
    interpreter's final flush does not complain either."""
    try:
        print("\n".join(lines))
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return 0
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


def main(argv: list[str] | None = None) -> int:
    """``lucie-server [migrate] [--host H] [--port P] [--redis-url URL]
    [--log-level L] [--print-settings]``: run uvicorn (docs/settings.md), or
    (``migrate``) bring the archive database to the newest revision and exit.

    :returns: the exit code: 0; for ``migrate`` 1 when the database does not
        answer; 2 for settings that cannot be used (one line on stderr naming
        the variable); 3 when the server could not start.
    """
    parser = argparse.ArgumentParser(prog="lucie-server",
                                     description="La Belle Lucie race server.")
    parser.add_argument("command", nargs="?", choices=["migrate"],
                        help="migrate: upgrade the archive database and exit")
    parser.add_argument("--host", help="bind address (LUCIE_HOST, default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (LUCIE_PORT, default 8000)")
    parser.add_argument("--redis-url", help="redis://… (REDIS_URL); default: in-memory store")
    parser.add_argument("--log-level", help="log level (LUCIE_LOG_LEVEL, default info)")
    parser.add_argument("--log-format", choices=("json", "text", "auto"),
                        help="log lines as JSON or text (LUCIE_LOG_FORMAT, default auto: "
                             "text on a terminal, else JSON)")
    parser.add_argument("--print-settings", action="store_true",
                        help="print the settings in effect as NAME=value lines (secrets "
                             "redacted) and exit")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {version('belle-lucie-race')}")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env(host=args.host, port=args.port,
                                     redis_url=args.redis_url, log_level=args.log_level,
                                     log_format=args.log_format)
    except SettingsError as exc:
        print(f"lucie-server: {exc}", file=sys.stderr)
        return 2
    if args.print_settings:
        return _print_lines(settings.env_lines())
    try:
        # a bad URL (no round trip: the mode is asked at start)
        open_store(settings.redis_url, default_prefix=settings.redis_prefix, cluster=False)
        misfit = settings.redis_url and cluster_mode_error(settings.redis_url,
                                                           settings.redis_cluster)
    except ValueError as exc:
        print(f"lucie-server: REDIS_URL: {exc}", file=sys.stderr)
        return 2
    if misfit:
        print(f"lucie-server: {misfit}", file=sys.stderr)
        return 2
    try:
        from server.archive.db import database_url
        database_url(settings.database_url, settings.data_dir)
    except ValueError as exc:
        print(f"lucie-server: LUCIE_DATABASE_URL: {exc}", file=sys.stderr)
        return 2
    if args.command == "migrate":
        return asyncio.run(_migrate(settings))
    config = uvicorn_config(settings)  # configures logging (server.runtime.logs)
    install_redaction()  # after uvicorn set up its log handlers
    logging.captureWarnings(True)  # Python warnings as log lines, in the same format
    too_low = ensure_open_files()
    if too_low:
        log.warning("%s", too_low)
    gc.collect()
    gc.freeze()  # modules and schemas never need collecting: shorter GC pauses
    server = Server(config, metrics_port=settings.metrics_port)
    try:
        server.run()
    except KeyboardInterrupt:  # Ctrl-C: shut down gracefully, as on SIGTERM
        return 130  # 128 + SIGINT (SIGTERM: 143), with no traceback
    return 0 if server.started else 3  # 3: could not start (port taken, bad address)


if __name__ == "__main__":
    sys.exit(main())
