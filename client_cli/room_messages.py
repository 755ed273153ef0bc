"""The room socket's messages as typed values, and the decoding of its frames.

A frame is a JSON object ``{"t": kind, "d": data}`` (docs/protocol.md,
"WebSocket"). :func:`decode_frame` reads one, :func:`decode` turns its kind
and data into a :data:`Decoded` value; neither keeps any state. What to do
with a decoded message (skip an event already seen, resolve a pending move,
resume from the last sequence number) is
:class:`~client_cli.room_socket.RoomConnection`'s business.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .errors import MoveRefused, ProtocolError
from .views import AckView, GameView, RoomView, parse

__all__ = [
    "ConnectionState",
    "Decoded",
    "RoomEvent",
    "ServerError",
    "ServerMessage",
    "Snapshot",
    "Welcome",
    "decode",
    "decode_frame",
    "refused_game",
]


@dataclass(frozen=True, slots=True)
class Welcome:
    """First message on every (re)connection: who we are (``None`` = spectator)."""

    racer: str | None
    room: RoomView


@dataclass(frozen=True, slots=True)
class RoomEvent:
    """A room event: ``type`` (``joined``, ``progress``, ``race_over``…), ``seq``,
    ``race_clock_ms`` and the event's other fields in ``data``."""

    seq: int
    type: str
    race_clock_ms: int | None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The full room, sent instead of missed events when the gap was too old."""

    seq: int
    room: RoomView


@dataclass(frozen=True, slots=True)
class ServerError:
    """An ``error`` message: the server refused a message (not a move)."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ConnectionState:
    """The connection dropped (``connected=False``) or came back (``True``).

    ``attempt`` counts reconnection attempts since the drop; ``reason`` says
    what happened in words.
    """

    connected: bool
    reason: str
    attempt: int = 0


ServerMessage = Welcome | RoomEvent | Snapshot | ServerError | ConnectionState | AckView
"""What iterating a :class:`~client_cli.room_socket.RoomConnection` yields. Acks
of moves sent with :meth:`~client_cli.room_socket.RoomConnection.move` go to
that call and are not yielded; others are."""


Decoded = Welcome | RoomEvent | Snapshot | AckView | MoveRefused | ServerError
"""What one frame of the server decodes to (a refusal of a move is a :class:`MoveRefused`)."""


def decode_frame(raw: str | bytes) -> tuple[Any, Any] | None:
    """The ``(kind, data)`` of a frame, or ``None`` when it is not a protocol frame."""
    try:
        msg = json.loads(raw)
        return msg.get("t"), msg.get("d") or {}
    except (ValueError, AttributeError):
        return None


def decode(kind: Any, data: Any) -> Decoded | None:
    """The typed message for a frame's ``kind`` and ``data``; ``None`` for an unknown kind.

    :raises ProtocolError, KeyError, TypeError, ValueError: the data does
        not fit the kind.
    """
    if kind == "welcome":
        room = parse(RoomView, data["room"])
        return Welcome(data.get("racer"), room)
    if kind == "event":
        seq = int(data["seq"])
        rest = {k: v for k, v in data.items() if k not in ("seq", "type", "race_clock_ms")}
        return RoomEvent(seq, str(data.get("type")), data.get("race_clock_ms"), rest)
    if kind == "snapshot":
        room = parse(RoomView, data["room"])
        return Snapshot(int(data.get("seq", room.seq)), room)
    if kind == "ack":
        return parse(AckView, data)
    if kind == "refused":
        game = data.get("game")
        return MoveRefused(str(data.get("code", "move/illegal")),
                           str(data.get("message", "refused")),
                           client_move_id=data.get("client_move_id"),
                           game=game if isinstance(game, dict) else None)
    if kind == "error":
        return ServerError(str(data.get("code")), str(data.get("message")))
    return None


def refused_game(err: MoveRefused) -> GameView | None:
    """The current game a refusal carried (``move/stale_version``), if any."""
    if err.game is None:
        return None
    try:
        return parse(GameView, err.game)
    except ProtocolError:
        return None
