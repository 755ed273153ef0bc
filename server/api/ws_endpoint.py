"""The room WebSocket's endpoint: who may open a socket, and as whom; then one
:class:`~server.api.ws.Connection` (docs/protocol.md, "WebSocket"; the module
docstring of :mod:`server.api.ws`).

In order, before the upgrade is accepted:

1. ``Origin``: a page of an origin the server does not allow
   (``LUCIE_ALLOWED_ORIGINS``, :class:`~server.runtime.origins.OriginRule`) is
   refused 403 ``request/origin_not_allowed``; nothing is counted.
2. The process's and the address's socket caps (:mod:`server.api.admission`):
   past one the upgrade is refused with an HTTP answer.
3. ``since``, the room — resolved to its id, however the URL spells it — and
   the racer token: ``Authorization: Bearer``, or, from a browser (which
   cannot set headers on a WebSocket), the subprotocol
   ``lucie.bearer.<token>`` offered beside :data:`SUBPROTOCOL`, which the
   server answers (never the token). A bad one closes 1008 once accepted, as
   a bad ``auth`` does.
4. Without a racer token the socket is a spectator's, counted in the room's
   spectator cap. Past that cap it is accepted on probation
   (:func:`_probation`): it receives nothing until it sends ``auth`` with a
   racer's token within ``LUCIE_AUTH_GRACE_S`` (older pages and clients
   connect first and ``auth`` at once), and is closed 1008 ``rate/limited``
   otherwise. So the spectator cap never turns a racer away.

The handshake's headers and subprotocols (the token among them) are let go
once read; a token is never logged. Errors before and around the connection
close the socket with the registry's code; a traceback never reaches the
peer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from server.errors import (
    AuthInvalidToken,
    ChallengeHidden,
    OriginNotAllowed,
    RaceError,
    RateLimited,
    RequestInvalid,
    RoomNotFound,
    ServiceError,
    StoreError,
    StoreUnavailable,
)
from server.race.authority import RaceAuthority

from .admission import Admission, SocketTicket, deny_socket
from .models import AuthIn, client_message, json_object_problem
from .rest import bearer_token
from .ws import Connection, close_args

__all__ = ["SUBPROTOCOL", "TOKEN_SUBPROTOCOL", "room_socket"]

log = logging.getLogger("server.api.ws")

SUBPROTOCOL = "lucie.v1"
"""The subprotocol the server answers when a client offers it (a browser that
offers subprotocols fails a handshake answered with none)."""
TOKEN_SUBPROTOCOL = "lucie.bearer."
"""Prefix of the subprotocol that carries a racer token on the upgrade."""


def _offered(ws: WebSocket) -> tuple[str | None, str | None]:
    """The subprotocol to answer (:data:`SUBPROTOCOL` when offered) and the
    racer token a ``lucie.bearer.<token>`` subprotocol names."""
    offered = ws.scope.get("subprotocols") or ()
    token = next((p[len(TOKEN_SUBPROTOCOL):] for p in offered
                  if p.startswith(TOKEN_SUBPROTOCOL) and len(p) > len(TOKEN_SUBPROTOCOL)),
                 None)
    return (SUBPROTOCOL if SUBPROTOCOL in offered else None), token


async def room_socket(ws: WebSocket) -> None:
    """The WebSocket endpoint (module docstring): refused before anything is
    opened or counted when its origin is not allowed or a cap is full."""
    authority: RaceAuthority = ws.app.state.authority
    admission: Admission = ws.app.state.admission
    if not admission.origins.allows(ws.headers.get("origin"), ws.scope.get("scheme", "ws"),
                                    ws.headers.get("host")):
        refusal = OriginNotAllowed("pages of this origin may not open room sockets here")
        await deny_socket(ws, refusal, close_args(OriginNotAllowed, refusal.message))
        return
    subprotocol, offered_token = _offered(ws)
    token = bearer_token(ws.headers) or offered_token
    address = ws.client.host if ws.client else "-"
    try:
        ticket = admission.open_socket(address)
    except RaceError as exc:
        await deny_socket(ws, exc, close_args(type(exc), exc.message))
        return
    try:
        await _serve(ws, authority, admission, ticket, token, subprotocol)
    finally:
        admission.close_socket(ticket)


async def _close(ws: WebSocket, subprotocol: str | None, close: tuple[int, str]) -> None:
    """Close ``ws`` with ``close``, accepting it first if it is not yet."""
    if ws.application_state is WebSocketState.CONNECTING:
        await ws.accept(subprotocol=subprotocol)
    await ws.close(*close)


async def _serve(ws: WebSocket, authority: RaceAuthority, admission: Admission,
                 ticket: SocketTicket, token: str | None, subprotocol: str | None) -> None:
    since_raw = ws.query_params.get("since")
    try:
        since = None
        if since_raw is not None:
            if not (since_raw.isascii() and since_raw.isdigit()) or len(since_raw) > 18:
                await _close(ws, subprotocol,
                             close_args(RequestInvalid, "since is a sequence number"))
                return
            since = int(since_raw)
        try:  # with the token: a challenge's attempt shows to its racer only
            room_id = (await authority.get_room(ws.path_params["room"], token)).id
        except RoomNotFound:
            await _close(ws, subprotocol, close_args(RoomNotFound))
            return
        except ChallengeHidden:
            await _close(ws, subprotocol, close_args(ChallengeHidden))
            return
        except AuthInvalidToken:
            await _close(ws, subprotocol, close_args(AuthInvalidToken))
            return
        racer_id = None
        if token is not None:
            try:
                _, racer_id = await authority.authenticate(room_id, token)
            except RaceError:
                await _close(ws, subprotocol, close_args(AuthInvalidToken))
                return
        on_probation = racer_id is None and not admission.spectate(ticket, room_id)
        # the handshake's headers and subprotocols are read (the token above,
        # the request id by server.api.observe): not held for the socket's
        # life, ~1 KB per idle socket (issue 23); starlette's ws.headers is a
        # view of this list
        for key in ("headers", "subprotocols"):
            held = ws.scope.get(key)
            if isinstance(held, list):
                held.clear()
        await ws.accept(subprotocol=subprotocol)
        if on_probation:
            racer = await _probation(ws, authority, admission, room_id)
            if racer is None:
                return
            racer_id, token = racer
        await Connection(ws, room_id, racer_id, token, ticket).run(since)
    except WebSocketDisconnect:
        return
    except StoreError:  # Redis away: tell the client to come back (IANA 1013)
        with contextlib.suppress(Exception):
            await _close(ws, subprotocol, close_args(StoreUnavailable, "try again in a second"))
    except Exception as exc:  # never leak a traceback to the peer
        log.error("websocket handler failed: %s", type(exc).__name__, exc_info=exc)
        with contextlib.suppress(Exception):
            await _close(ws, subprotocol, close_args(ServiceError))


async def _probation(ws: WebSocket, authority: RaceAuthority, admission: Admission,
                     room_id: str) -> tuple[str, str] | None:
    """A socket past the room's spectator cap: ``(racer id, token)`` when its
    first message, within ``LUCIE_AUTH_GRACE_S``, is an ``auth`` with a racer's
    token; else it is closed (1008 ``rate/limited``, or ``auth/invalid_token``
    for a bad token) and ``None``."""
    refused = close_args(RateLimited, admission.over_cap().message)
    try:
        async with asyncio.timeout(admission.settings.auth_grace_s):
            message = await ws.receive()
    except TimeoutError:
        await ws.close(*refused)
        return None
    if message["type"] == "websocket.disconnect":
        return None
    raw = message.get("text")
    if raw is None:
        raw = message.get("bytes") or b""
    msg = None
    if len(raw) <= admission.settings.max_message and json_object_problem(raw) is None:
        with contextlib.suppress(ValidationError):
            msg = client_message(raw)
    if not isinstance(msg, AuthIn):
        await ws.close(*refused)
        return None
    try:
        _, racer_id = await authority.authenticate(room_id, msg.d.token)
    except RaceError:
        await ws.close(*close_args(AuthInvalidToken))
        return None
    return racer_id, msg.d.token
