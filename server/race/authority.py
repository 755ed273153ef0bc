"""The race authority: rooms, racers, the race clock, moves, ranking and replays.

:class:`RaceAuthority` is the single authority over every room; the
transports (REST, WebSocket) decode a request and call **one** method per
action. Each method checks in a fixed order and changes nothing when it
refuses (:mod:`server.race.errors`):

1. **auth** – a token is present where one is needed (``auth/missing``);
2. **room** – the room exists (``room/not_found``), then the token is this
   racer's or the host's (``auth/invalid_token``; another racer's token:
   ``auth/forbidden``); a repeated ``client_move_id`` is answered here with
   its first answer;
3. **state** – the room and the racer are in a state that allows it
   (``room/not_waiting``, ``room/not_racing``, ``room/over``,
   ``racer/finished``);
4. **version** – ``expected_version`` is the game's (``move/stale_version``);
5. **rules** – the engine accepts the move (``move/invalid``, ``move/illegal``);
6. **save** – compare-and-set on the record's store version, with the answer
   and the room events in the same write (:mod:`server.store.base`);
7. **publish** – the events reach subscribers through the store's log.

Time is the store's clock; the race clock is ``now − start``. Room timers
(countdown end, time limit) advance lazily on every access and from
:meth:`RaceAuthority.tick`, which the app runs in the background; the room's
compare-and-set makes each transition (and its events) happen exactly once.
"""

from __future__ import annotations

from .assist import Assist
from .core import RaceConfig, RoomOptions
from .lobby import Lobby
from .play import Play

__all__ = ["RaceAuthority", "RaceConfig", "RoomOptions"]


class RaceAuthority(Lobby, Play, Assist):
    """The authority over every room of one store; one instance per process.

    Construct with ``RaceAuthority(store, RaceConfig(...))``. Every public
    coroutine is one action; refusals are :class:`~server.race.errors.RaceError`.
    """
