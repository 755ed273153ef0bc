"""The room WebSocket's endpoint: admission (``server.api.admission``), the
``since`` parameter, the room and the token, then one
:class:`~server.api.ws.Connection` (docs/protocol.md; the module docstring of
:mod:`server.api.ws`). Errors before and around it close the socket with the
registry's code; a traceback never reaches the peer.
"""

from __future__ import annotations

import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from server.errors import (
    AuthInvalidToken,
    RaceError,
    RequestInvalid,
    RoomNotFound,
    ServiceError,
    StoreError,
    StoreUnavailable,
)
from server.race.authority import RaceAuthority

from .admission import Admission, deny_socket
from .rest import bearer_token
from .ws import Connection, close_args

__all__ = ["room_socket"]

log = logging.getLogger("server.api.ws")


async def room_socket(ws: WebSocket) -> None:
    """The WebSocket endpoint (module docstring), once ``server.api.admission``
    admits the socket (past a cap the upgrade is refused: nothing is opened)."""
    authority: RaceAuthority = ws.app.state.authority
    admission: Admission = ws.app.state.admission
    token = bearer_token(ws.headers)
    address = ws.client.host if ws.client else "-"
    try:
        ticket = admission.open_socket(address, ws.path_params["room"], spectator=token is None)
    except RaceError as exc:
        await deny_socket(ws, exc, close_args(type(exc), exc.message))
        return
    try:
        await _serve(ws, authority, token)
    finally:
        admission.close_socket(ticket)


async def _serve(ws: WebSocket, authority: RaceAuthority, token: str | None) -> None:
    since_raw = ws.query_params.get("since")
    await ws.accept()
    try:
        since = None
        if since_raw is not None:
            if not (since_raw.isascii() and since_raw.isdigit()) or len(since_raw) > 18:
                await ws.close(*close_args(RequestInvalid, "since is a sequence number"))
                return
            since = int(since_raw)
        try:
            room_id = (await authority.get_room(ws.path_params["room"])).id
        except RoomNotFound:
            await ws.close(*close_args(RoomNotFound))
            return
        racer_id = None
        if token is not None:
            try:
                _, racer_id = await authority.authenticate(room_id, token)
            except RaceError:
                await ws.close(*close_args(AuthInvalidToken))
                return
        # the handshake's headers are read (the token above, the request id
        # by server.api.observe): not held for the socket's life, ~1 KB per
        # idle socket (issue 23); starlette's ws.headers is a view of this list
        headers = ws.scope.get("headers")
        if isinstance(headers, list):
            headers.clear()
        await Connection(ws, room_id, racer_id, token).run(since)
    except WebSocketDisconnect:
        return
    except StoreError:  # Redis away: tell the client to come back (IANA 1013)
        with contextlib.suppress(Exception):
            await ws.close(*close_args(StoreUnavailable, "try again in a second"))
    except Exception as exc:  # never leak a traceback to the peer
        log.error("websocket handler failed: %s", type(exc).__name__, exc_info=exc)
        with contextlib.suppress(Exception):
            await ws.close(*close_args(ServiceError))
