"""What the room socket sends: one typed message per send, one encoder.

Every message the server sends on a room WebSocket is a model of
:data:`~server.api.models.ServerMessage` (the union ``ws-schema.json`` is
generated from) — :class:`~.models.WelcomeOut`, :class:`~.models.EventOut`,
:class:`~.models.SnapshotOut`, :class:`~.models.AckOut`,
:class:`~.models.RefusedOut`, :class:`~.models.ErrorOut`,
:class:`~.models.PongOut` — built by the functions below and turned into
text by :func:`encode`, the only encoder of server messages.

:func:`encode` writes what pydantic's ``model_dump_json`` writes, leaving
out the optional fields that were not given (a refusal without a game, an
error without details), as the wire always did. Two messages take a faster
path with the same bytes (``tests/api/test_ws_out.py`` checks both against
pydantic's, over generated messages): an ``ack`` (every accepted move:
:meth:`~server.race.views.Ack.wire_json`, orjson from the fields) and an
``event`` (every event to every socket of a room: the event as the store
logged it, a JSON object, written by orjson — encoded once per event by the
room's feed, :mod:`server.api.hub`, whatever the number of sockets). Both are
made without validation or ``model_construct``'s loop
(:func:`~server.race.trusted.trusted`: ``model_construct`` was ~4 % of the
server's CPU under the ``bench server`` load).
"""

from __future__ import annotations

from typing import Any

from server.errors import ServiceError
from server.race.trusted import trusted
from server.race.views import Ack, GameView, RoomView
from server.runtime.jsoncodec import json_bytes

from .models import (
    AckOut,
    ErrorInfo,
    ErrorOut,
    EventOut,
    PongOut,
    RefusedData,
    RefusedOut,
    SnapshotData,
    SnapshotOut,
    WelcomeData,
    WelcomeOut,
)

__all__ = ["ServerOut", "ack", "encode", "error", "error_of", "event", "pong", "refused",
           "snapshot", "welcome"]

ServerOut = WelcomeOut | EventOut | SnapshotOut | AckOut | RefusedOut | ErrorOut | PongOut
"""Every message the server sends (:data:`~server.api.models.ServerMessage`)."""

_SPARSE = (RefusedOut, ErrorOut, PongOut)
"""Messages whose optional fields are left out when not given."""


def welcome(racer: str | None, room: RoomView) -> WelcomeOut:
    """The first message on every socket (again after ``auth``): who you are, the room."""
    return WelcomeOut(t="welcome", d=WelcomeData(racer=racer, room=room))


def snapshot(room: RoomView) -> SnapshotOut:
    """A full resync: the room now, its last event number."""
    return SnapshotOut(t="snapshot", d=SnapshotData(seq=room.seq, room=room))


def event(logged: dict[str, Any]) -> EventOut:
    """One room event as the store logged it (``seq`` set; the event models of
    :mod:`server.race.events` made it): not validated again, encoded as it is."""
    return trusted(EventOut, {"t": "event", "d": logged}, {"t", "d"})


def ack(accepted: Ack) -> AckOut:
    """An accepted move's answer (made by the authority: not validated again)."""
    return trusted(AckOut, {"t": "ack", "d": accepted}, {"t", "d"})


def refused(client_move_id: str | None, code: str, message: str,
            game: dict[str, Any] | None = None,
            details: dict[str, Any] | None = None) -> RefusedOut:
    """A refused move: its code and message; ``game`` the current game (a stale
    version), ``details`` e.g. ``retry_after_ms``."""
    given: dict[str, Any] = {}
    if game is not None:
        given["game"] = GameView.model_validate(game)
    if details:
        given["details"] = details
    return RefusedOut(t="refused", d=RefusedData(client_move_id=client_move_id, code=code,
                                                 message=message, **given))


def error(code: str, message: str, details: dict[str, Any] | None = None) -> ErrorOut:
    """A message that could not be handled; ``code`` of the one error registry."""
    given: dict[str, Any] = {"details": details} if details else {}
    return ErrorOut(t="error", d=ErrorInfo(code=code, message=message, **given))


def error_of(exc: ServiceError) -> ErrorOut:
    """:func:`error` of a refusal or failure of the registry."""
    return error(**exc.to_json())


def pong() -> PongOut:
    """The answer to ``ping``."""
    return PongOut(t="pong")


def encode(msg: ServerOut) -> str:
    """The JSON text of ``msg`` (module docstring): compact UTF-8, fields in
    model order, optional fields of refusals and errors only when given."""
    if isinstance(msg, EventOut):
        return json_bytes({"t": "event", "d": msg.d}).decode()
    if isinstance(msg, AckOut):
        return '{"t":"ack","d":' + msg.d.wire_json() + "}"
    return msg.model_dump_json(exclude_unset=isinstance(msg, _SPARSE))
