"""Python client library for the La Belle Lucie race service (the API of docs/protocol.md).

This is the supported way to script the service from Python: third-party
bots, tools and the bundled terminal board all use it. Two classes:

* :class:`LucieClient` — the REST routes (rooms, racers, games, moves,
  standings, replays), async over httpx;
* :class:`RoomConnection` — the room's WebSocket: typed events, moves with
  acknowledgements matched by ``client_move_id``, automatic reconnection
  with resume from the last event seen.

Every failure is an :class:`ApiError` whose ``code`` is the server's stable
error code (``move/illegal``, ``room/not_found``…) or a ``client/…`` code
for what the client saw itself (``client/unreachable``). See docs/client.md
for a complete bot.
"""

from __future__ import annotations

from .errors import ApiError, MoveRefused, ProtocolError, RoomGone, ServerUnreachable
from .rest import DEFAULT_SERVER, LucieClient, new_move_id, server_url
from .room_messages import (
    ConnectionState,
    RoomEvent,
    ServerError,
    ServerMessage,
    Snapshot,
    Welcome,
    refused_game,
)
from .room_socket import RoomConnection
from .views import (
    AckView,
    CreatedRoom,
    GameView,
    JoinedRoom,
    PositionView,
    QuickInfo,
    QuickJoined,
    RacerView,
    RematchView,
    ReplayMove,
    ReplayView,
    RoomLink,
    RoomView,
    RulesView,
    SeriesInfo,
    SeriesRow,
    SeriesView,
    StandingsView,
    StandingView,
)

__all__ = [
    "DEFAULT_SERVER",
    "AckView",
    "ApiError",
    "ConnectionState",
    "CreatedRoom",
    "GameView",
    "JoinedRoom",
    "LucieClient",
    "MoveRefused",
    "PositionView",
    "ProtocolError",
    "QuickInfo",
    "QuickJoined",
    "RacerView",
    "RematchView",
    "ReplayMove",
    "ReplayView",
    "RoomConnection",
    "RoomEvent",
    "RoomGone",
    "RoomLink",
    "RoomView",
    "RulesView",
    "SeriesInfo",
    "SeriesRow",
    "SeriesView",
    "ServerError",
    "ServerMessage",
    "ServerUnreachable",
    "Snapshot",
    "StandingView",
    "StandingsView",
    "Welcome",
    "new_move_id",
    "refused_game",
    "server_url",
]
