"""What the transport tells operators: request ids, one log line per HTTP
request and per room socket, the transport's metrics, and ``GET /metrics``.

:class:`Observe` is a pure ASGI middleware (no ``BaseHTTPMiddleware``: it adds
no task and no body copy). For each HTTP request and WebSocket it

* takes the client's ``X-Request-ID`` when it is sane (1–128 of ``A-Z a-z 0-9
  . _ : -``), else makes one (16 hex digits), echoes it in the response's
  ``X-Request-ID`` header (the WebSocket handshake's too), and sets
  :data:`server.runtime.logs.REQUEST_ID` so every line logged while serving it
  carries it;
* logs one line on ``server.api.access`` when it is over — HTTP: ``method``,
  ``path`` (never the query string), ``route`` (the template), ``status``,
  ``duration_ms``, ``client`` (the real address: uvicorn resolves
  ``X-Forwarded-For`` from trusted proxies), ``room`` and ``racer`` when the
  path names them; sockets: also ``code`` (the close code), ``messages_in``,
  ``messages_out``, ``racer`` (``null``: a spectator). ``/healthz``,
  ``/readyz`` and ``/metrics`` log at debug level (probes and scrapes come
  every few seconds);
* counts ``lucie_http_requests_total`` by route template and status and keeps
  ``lucie_sockets_open``;
* gives every HTTP answer (a refused socket upgrade's too) the headers of
  :data:`server.api.errors.NO_STORE` it does not set itself:
  ``X-Content-Type-Options: nosniff``, and ``Cache-Control: no-store`` unless
  the answer has its own ``Cache-Control`` (the browser client's pages and
  static files do: they stay cacheable as they were).

The room socket (:mod:`server.api.ws`) names its room and racer with
:func:`note_socket`, which also logs the ``socket opened`` line.
:func:`observed_move` counts a move and its ack latency on either transport.
"""

from __future__ import annotations

import contextvars
import hmac
import logging
import os
import re
import time
from collections.abc import Awaitable, Mapping
from typing import Any, Final, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.errors import AuthInvalidToken, AuthMissing, RouteNotFound, ServiceError, StoreError
from server.race.authority import RaceAuthority
from server.runtime import metrics
from server.runtime.logs import REQUEST_ID
from server.runtime.settings import Settings

from .errors import NO_STORE

__all__ = ["OPS_PATHS", "Observe", "SocketNote", "metrics_allowed", "metrics_endpoint",
           "note_socket", "observed_move", "request_id_of", "secured", "socket_note"]

log = logging.getLogger("server.api.access")

OPS_PATHS: Final = frozenset({"/healthz", "/readyz", "/metrics"})
"""Paths for orchestrators and scrapers: logged at debug level."""
_SANE_ID: Final = re.compile(rb"[A-Za-z0-9._:\-]{1,128}")
_METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_NOTE: Final[contextvars.ContextVar[SocketNote | None]] = contextvars.ContextVar(
    "lucie_socket", default=None)
"""The :class:`SocketNote` of the socket being served (a context variable, not a
scope key: nothing then refers back from the server's objects to it)."""

_SECURE: Final = tuple((name.lower().encode(), value.encode()) for name, value in NO_STORE.items())

T = TypeVar("T")


def secured(headers: Any, extra: tuple[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    """An answer's raw ``headers`` with ``extra`` and those of :data:`_SECURE`
    it does not set itself (module docstring)."""
    out = [*headers, extra]
    have = {name.lower() for name, _ in out}
    out += [header for header in _SECURE if header[0] not in have]
    return out


def request_id_of(scope: Scope) -> str:
    """The request's ``X-Request-ID`` if it is sane (module docstring), else a new id."""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            if _SANE_ID.fullmatch(value):
                return str(value.decode("ascii"))
            break
    return os.urandom(8).hex()


async def _over_receive() -> Message:
    return {"type": "websocket.disconnect", "code": 1006}


async def _over_send(_: Message) -> None:
    raise OSError("the socket is over")


class SocketNote:
    """One socket's ASGI ``receive``/``send`` wrappers (:meth:`incoming`,
    :meth:`outgoing`: they count messages, note the close code, add the
    ``X-Request-ID`` header) and what its log lines say. One object with slots,
    not closures: thousands of idle sockets each hold one."""

    __slots__ = ("_receive", "_send", "accepted", "code", "logged", "racer", "received",
                 "request_id", "room", "sent", "started", "status")

    def __init__(self, request_id: str, receive: Receive, send: Send) -> None:
        self.request_id = request_id
        self._receive, self._send = receive, send
        self.started = time.perf_counter()
        self.room: str | None = None
        self.racer: str | None = None
        self.received = self.sent = 0
        self.code: int | None = None
        self.status: int | None = None
        self.accepted = self.logged = False

    async def incoming(self) -> Message:
        """The app's ``receive``."""
        message = await self._receive()
        kind = message["type"]
        if kind == "websocket.receive":
            self.received += 1
        elif kind == "websocket.disconnect" and self.code is None:
            self.code = message.get("code", 1005)
        return message

    async def outgoing(self, message: Message) -> None:
        """The app's ``send``."""
        kind = message["type"]
        if kind == "websocket.send":
            self.sent += 1
        elif kind == "websocket.close":
            if self.code is None:
                self.code = message.get("code", 1000)
        elif kind in ("websocket.accept", "websocket.http.response.start"):
            header = (b"x-request-id", self.request_id.encode())
            if kind == "websocket.accept":
                message = {**message, "headers": [*message.get("headers", ()), header]}
                self.accepted = True
                metrics.SOCKETS_OPEN.inc()
            else:
                message = {**message, "headers": secured(message.get("headers", ()), header)}
                self.status = message["status"]
        await self._send(message)

    def release(self) -> None:
        """Forget the server's receive and send once the socket is over: they
        hold its protocol, and a task started while serving the socket keeps
        a copy of the context the note is in, so a closed socket would stay
        in a reference cycle (issue 8; tests/api/test_socket_cycles.py)."""
        self._receive, self._send = _over_receive, _over_send

    def fields(self) -> dict[str, Any]:
        """The fields of its log lines."""
        return {"request_id": self.request_id, "room": self.room, "racer": self.racer,
                "messages_in": self.received, "messages_out": self.sent}


def socket_note() -> SocketNote | None:
    """The :class:`SocketNote` of the socket being served (``None`` outside one,
    or without the middleware): a connection that writes frames past the ASGI
    ``send`` (:data:`server.runtime.ws_protocol.SEND_TEXT_NOW`) counts them on it."""
    return _NOTE.get()


def note_socket(scope: Scope, room_id: str, racer_id: str | None) -> None:
    """The room socket of ``scope`` serves ``room_id`` for ``racer_id`` (``None``:
    a spectator); logs ``socket opened`` the first time."""
    note = _NOTE.get()
    if note is None:
        return
    note.room, note.racer = room_id, racer_id
    if not note.logged:
        note.logged = True
        log.info("socket opened: room %s, %s", room_id, racer_id or "spectator",
                 extra={"event": "socket_opened", **note.fields(), "client": _client(scope)})


async def observed_move(transport: str, started: float, call: Awaitable[T]) -> T:
    """``await call`` (a move), counting it as accepted with its ack latency since
    ``started`` (:func:`time.perf_counter`), or as refused under its code."""
    try:
        ack = await call
    except ServiceError as exc:
        metrics.move_refused(transport, exc.code)
        raise
    metrics.move_accepted(transport, started)
    return ack


def metrics_allowed(request: Request) -> None:
    """Whether ``/metrics`` answers this request (docs/operations.md,
    "Metrics"): on the metrics listener (``LUCIE_METRICS_PORT``), or on the
    game port when ``LUCIE_METRICS_TOKEN`` is set; wherever the token is set,
    only with ``Authorization: Bearer <token>``.

    :raises RouteNotFound: on the game port without a token set (no metrics there).
    :raises AuthMissing: no Bearer token where one is needed.
    :raises AuthInvalidToken: another token.
    """
    settings: Settings = request.app.state.settings
    server = request.scope.get("server")
    listener = settings.metrics_port is not None and server is not None \
        and server[1] == settings.metrics_port
    expected = settings.metrics_token
    if expected is None:
        if not listener:
            raise RouteNotFound("Not Found")
        return
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise AuthMissing("Authorization: Bearer <metrics token> (LUCIE_METRICS_TOKEN)")
    if not hmac.compare_digest(given.strip().encode(),
                               expected.get_secret_value().strip().encode()):
        raise AuthInvalidToken("not the metrics token")


async def metrics_endpoint(request: Request) -> Response:
    """``GET /metrics``: Prometheus text (:func:`server.runtime.metrics.render`)
    where :func:`metrics_allowed` lets it answer; the room counts are read from
    the store first (kept as they were when it does not answer)."""
    metrics_allowed(request)
    authority: RaceAuthority = request.app.state.authority
    try:
        for state, count in (await authority.room_counts()).items():
            metrics.ROOMS.labels(state).set(count)
        metrics.ARCHIVE_PENDING.set(await authority.archive_pending())
    except StoreError:
        log.debug("metrics: room counts unavailable")
    return Response(metrics.render(), headers={"content-type": metrics.CONTENT_TYPE})


def _client(scope: Scope) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def _short(value: Any) -> str | None:
    return None if value is None else str(value)[:64]


class Observe:
    """The middleware (module docstring); ``routes`` maps each route's endpoint
    to its path template (the ``route`` label; ``unmatched`` otherwise)."""

    def __init__(self, app: ASGIApp, routes: Mapping[Any, str] | None = None) -> None:
        self.app = app
        self.routes = dict(routes or {})

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # not a coroutine itself: the caller awaits the handler's coroutine, one
        # frame less held by each open socket (thousands of idle ones)
        if scope["type"] == "http":
            return self._http(scope, receive, send)
        if scope["type"] == "websocket":
            return self._socket(scope, receive, send)
        return self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        request_id = request_id_of(scope)
        header = (b"x-request-id", request_id.encode())
        started = time.perf_counter()
        status = 500  # what the client gets when the app raises before answering

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": secured(message.get("headers", ()), header)}
            await send(message)

        context = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, answer)
        finally:
            REQUEST_ID.reset(context)
            self._log_http(scope, request_id, status, time.perf_counter() - started)

    def _log_http(self, scope: Scope, request_id: str, status: int, seconds: float) -> None:
        endpoint = scope.get("endpoint")
        route = self.routes.get(endpoint, "unmatched") if endpoint is not None else "unmatched"
        method = scope["method"] if scope["method"] in _METHODS else "other"
        metrics.HTTP_REQUESTS.labels(route, method, str(status)).inc()
        metrics.HTTP_SECONDS.labels(route).observe(seconds)
        path = scope["path"]
        level = logging.DEBUG if path in OPS_PATHS else logging.INFO
        if not log.isEnabledFor(level):
            return
        params = scope.get("path_params") or {}
        ms = round(seconds * 1000, 2)
        log.log(level, "%s %s %d %.1f ms", method, path[:256], status, ms, extra={
            "event": "http_request", "request_id": request_id, "method": method,
            "path": path[:256], "route": route, "status": status, "duration_ms": ms,
            "client": _client(scope), "room": _short(params.get("room")),
            "racer": _short(params.get("racer"))})

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        note = SocketNote(request_id_of(scope), receive, send)
        context, noted = REQUEST_ID.set(note.request_id), _NOTE.set(note)
        try:
            await self.app(scope, note.incoming, note.outgoing)
        finally:
            _NOTE.reset(noted)
            REQUEST_ID.reset(context)
            note.release()
            if note.accepted:
                metrics.SOCKETS_OPEN.dec()
            self._log_socket(scope, note)

    def _log_socket(self, scope: Scope, note: SocketNote) -> None:
        if not log.isEnabledFor(logging.INFO):
            return
        ms = round((time.perf_counter() - note.started) * 1000, 1)
        room = note.room or _short((scope.get("path_params") or {}).get("room"))
        if not note.accepted:
            log.info("socket refused: %s", note.status or note.code, extra={
                "event": "socket_refused", **note.fields(), "room": room, "status": note.status,
                "code": note.code, "duration_ms": ms, "client": _client(scope)})
            return
        log.info("socket closed: room %s, %s, code %s, %.0f ms", room,
                 note.racer or "spectator", note.code, ms, extra={
                     "event": "socket_closed", **note.fields(), "room": room,
                     "code": note.code, "duration_ms": ms, "client": _client(scope)})
