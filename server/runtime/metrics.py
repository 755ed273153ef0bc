"""Prometheus metrics of the server (``GET /metrics``, docs/operations.md "Metrics").

Every metric is defined here, once, with ``prometheus-client``; the layers
that count (transport, authority, Redis store) import the objects or the
small helpers below. Names start with ``lucie_``; times are seconds.

Two modes, chosen when this module is imported:

* **one process** (``PROMETHEUS_MULTIPROC_DIR`` unset): the default registry;
  ``/metrics`` also shows the process's own ``process_*`` and ``python_*``.
* **several worker processes** behind one port (``PROMETHEUS_MULTIPROC_DIR``
  set to an empty, writable folder for each start): prometheus-client's
  multiprocess mode — each process writes its values to files there, and
  whichever process answers the scrape sums them
  (:class:`prometheus_client.multiprocess.MultiProcessCollector`). Gauges say
  how they add up (``multiprocess_mode``): ``livesum`` for what each live
  process holds (sockets, solver jobs), ``mostrecent`` for the cluster-wide
  room counts read from the store at scrape time. :func:`process_exit` drops
  a stopped process's live gauges.

Separate server processes behind a load balancer (the compose stack) are each
scraped on their own port, in the one-process mode.

Cost: one labelled child per hot path is bound once here (``.labels(...)`` is
a dict lookup under a lock); an increment is a lock and an add — well under a
microsecond against the ~0.2 ms of CPU a move costs (``python -m bench server``).
"""

from __future__ import annotations

import os
import time
from typing import Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

__all__ = [
    "ACK_SECONDS",
    "CONTENT_TYPE",
    "EVENTS_FANNED_OUT",
    "FEED_EVENTS",
    "HTTP_CONNECTIONS_CUT",
    "HTTP_REQUESTS",
    "HTTP_SECONDS",
    "MOVES_ACCEPTED",
    "MOVES_REFUSED",
    "RACES_ENDED",
    "RACES_STARTED",
    "REDIS_ERRORS",
    "REDIS_SECONDS",
    "ROOMS",
    "ROOMS_CREATED",
    "SLOW_SOCKETS",
    "SOCKETS_OPEN",
    "SOLVER_JOBS",
    "move_accepted",
    "move_refused",
    "moves_accepted",
    "multiprocess_dir",
    "process_exit",
    "redis_error",
    "render",
    "solver_jobs",
]

# no ``*_created`` series: half the scrape, nothing to alert on
disable_created_metrics()  # type: ignore[no-untyped-call]

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
"""``Content-Type`` of :func:`render`'s text (Prometheus text format 0.0.4)."""

_FAST = (.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1.0, 2.5)
"""Buckets (s) for moves and Redis commands: sub-millisecond to seconds."""

MOVES_ACCEPTED = Counter("lucie_moves_accepted", "Moves accepted (acked), by transport",
                         ["transport"])
MOVES_REFUSED = Counter("lucie_moves_refused",
                        "Moves refused, by transport and error code (docs/protocol.md)",
                        ["transport", "code"])
ACK_SECONDS = Histogram("lucie_ack_seconds",
                        "From receiving a move to handing its ack to the socket (ws) or "
                        "building it (rest), seconds", ["transport"], buckets=_FAST)
SOCKETS_OPEN = Gauge("lucie_sockets_open", "Room WebSockets open in this process",
                     multiprocess_mode="livesum")
SLOW_SOCKETS = Counter("lucie_slow_sockets_closed", "Sockets closed as too slow (4000)")
EVENTS_FANNED_OUT = Counter("lucie_events_fanned_out",
                            "Room events queued to sockets (one per event and socket)")
FEED_EVENTS = Counter("lucie_feed_events", "Room events read by this process's room feeds")
ROOMS = Gauge("lucie_rooms",
              "Rooms in the store, read at scrape: live (not yet expired, any state), "
              "lobby (public, waiting, listed), running (countdown or racing)",
              ["state"], multiprocess_mode="mostrecent")
ROOMS_CREATED = Counter("lucie_rooms_created", "Rooms created by this process")
RACES_STARTED = Counter("lucie_races_started", "Races started (countdown over)")
RACES_ENDED = Counter("lucie_races_ended", "Races ended, by how: over or closed", ["how"])
REDIS_SECONDS = Histogram("lucie_redis_seconds",
                          "Redis round trips, by operation (a script's name, pipeline, ...)",
                          ["operation"], buckets=_FAST)
REDIS_ERRORS = Counter("lucie_redis_errors",
                       "Failed Redis round trips, by operation and error class",
                       ["operation", "error"])
RACES_ARCHIVED = Counter("lucie_races_archived",
                         "Finished races this process wrote to the archive database")
ARCHIVE_PENDING = Gauge("lucie_archive_pending",
                        "Finished races of the deployment not archived yet (the archive "
                        "lag), read from the live store at each scrape",
                        multiprocess_mode="mostrecent")
ARCHIVE_OUTAGE = Gauge("lucie_archive_outage",
                       "1 while this process's archiver is paused because the database "
                       "(or the store) does not answer", multiprocess_mode="max")
READ_CACHE = Counter("lucie_read_cache",
                     "Answers of finished races (comparisons, replays) asked of this "
                     "process's cache, by kind and result: hit or miss", ["kind", "result"])
RACERS_ASSESSED = Counter("lucie_racers_assessed",
                          "Player-racers of rated races this process assessed for fair play, "
                          "by the race's verdict (docs/fair-play.md)", ["verdict"])
SOLVER_JOBS = Gauge("lucie_solver_jobs",
                    "Solver jobs of this process: running (on a worker) or queued",
                    ["state"], multiprocess_mode="livesum")
HTTP_REQUESTS = Counter("lucie_http_requests",
                        "HTTP requests, by route template, method and status",
                        ["route", "method", "status"])
HTTP_SECONDS = Histogram("lucie_http_seconds", "HTTP request durations, by route template",
                         ["route"])
HTTP_CONNECTIONS_CUT = Counter(
    "lucie_http_connections_cut",
    "HTTP connections the server answered or closed before any request was served, by "
    "reason: headers_too_large (431), header_timeout (no complete request head in time), "
    "address_cap (429: the address holds its most HTTP connections)", ["reason"])

_ACCEPTED = {t: MOVES_ACCEPTED.labels(t) for t in ("ws", "rest")}
_ACK = {t: ACK_SECONDS.labels(t) for t in ("ws", "rest")}
_SOLVER_RUNNING = SOLVER_JOBS.labels("running")
_SOLVER_QUEUED = SOLVER_JOBS.labels("queued")


def multiprocess_dir() -> str | None:
    """The multiprocess folder (``PROMETHEUS_MULTIPROC_DIR``), or ``None``."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


_MOVES_HERE = [0]


def moves_accepted() -> int:
    """Moves this process acked since it started, every transport: a plain
    count, cheap to read (the archiver's busy signal, ``server.archive.archiver``)."""
    return _MOVES_HERE[0]


def move_accepted(transport: str, started: float) -> None:
    """Count an acked move of ``transport`` (``ws``, ``rest``) received at
    ``started`` (:func:`time.perf_counter`)."""
    _MOVES_HERE[0] += 1
    _ACCEPTED[transport].inc()
    _ACK[transport].observe(time.perf_counter() - started)


def move_refused(transport: str, code: str) -> None:
    """Count a refused move of ``transport`` under its error ``code``."""
    MOVES_REFUSED.labels(transport, code).inc()


def redis_error(operation: str, exc: BaseException) -> None:
    """Count a failed Redis round trip of ``operation``."""
    REDIS_ERRORS.labels(operation, type(exc).__name__).inc()


def solver_jobs(in_flight: int, workers: int) -> None:
    """Set the solver gauges from the jobs submitted and not finished."""
    _SOLVER_RUNNING.set(min(in_flight, workers))
    _SOLVER_QUEUED.set(max(0, in_flight - workers))


def render() -> bytes:
    """The metrics in Prometheus text format: this process's registry, or every
    process's values summed in multiprocess mode (module docstring)."""
    if multiprocess_dir() is None:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    _multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry)


def process_exit(pid: int | None = None) -> None:
    """In multiprocess mode, drop the live gauges of process ``pid`` (default:
    this one) at its exit; its counters and histograms stay counted."""
    if multiprocess_dir() is not None:
        _multiprocess.mark_process_dead(os.getpid() if pid is None else pid)  # type: ignore[no-untyped-call]
