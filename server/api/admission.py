"""Limits per client: what one address may create, and how many sockets it and
the process may hold (docs/protocol.md, "Limits").

Budgets are token buckets per client address and per kind of route
(:data:`Budget`): ``read`` (every route; generous), ``create`` (rooms and ghost
rooms), ``join`` (a class of 30 behind one school address still joins a room
at once) and ``upload`` (replay checks and comparisons of uploaded replays).
A request past its budget is refused with 429 ``rate/limited`` and a
``Retry-After`` (``details.retry_after_ms``) before anything is done.

Rooms are counted per process too: each address may have
``waiting_rooms_per_address`` rooms it created still waiting (429 past it),
and the process creates at most ``max_rooms`` in any ``waiting_ttl_s``
(503 ``server/full`` past it, while running races go on) — so what anyone
can leave behind is bounded.

Sockets are counted per process: per client address and all together (past
a cap the upgrade is refused with an HTTP answer, 429 ``rate/limited`` or 503
``server/full``, ``Retry-After``), so a flood from one address cannot fill
the process while everyone else still connects; and spectators per room,
keyed by the room's id however the URL spelled the room (its code in any
case, or its id: one cap, not one per spelling). A racer — a socket whose
token was checked — is never counted as a spectator, so the spectator cap
never turns one away: past it, a socket without a token is admitted on
probation (:mod:`server.api.ws_endpoint`: it must ``auth`` as a racer within
``LUCIE_AUTH_GRACE_S``), and a spectator that sends ``auth`` gives its
spectator slot back.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from server.errors import RaceError, RateLimited, ServerFull
from server.runtime.origins import OriginRule
from server.runtime.settings import Settings

from .ratelimit import BucketMap

__all__ = ["Admission", "Budget", "SocketTicket", "deny_socket"]

Budget = Literal["read", "create", "join", "upload"]
"""The budget a route spends (``read`` for most)."""


@dataclass(slots=True)
class SocketTicket:
    """A socket admitted by :meth:`Admission.open_socket`; give it back on close.
    ``room_id``: the room whose spectators it counts in (``None``: none)."""

    address: str
    room_id: str | None = None
    released: bool = field(default=False)


class Admission:
    """Budgets and socket caps of one process (module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._budgets: dict[Budget, BucketMap] = {
            "read": BucketMap(settings.http_rate, settings.http_burst),
            "create": BucketMap(settings.create_per_min / 60, settings.create_burst),
            "join": BucketMap(settings.join_per_min / 60, settings.join_burst),
            "upload": BucketMap(settings.upload_per_min / 60, settings.upload_burst),
        }
        self.origins = OriginRule.parse(settings.allowed_origins)
        """Which pages may open room sockets (``LUCIE_ALLOWED_ORIGINS``)."""
        self.sockets = 0
        self._per_address: Counter[str] = Counter()
        self._spectators: Counter[str] = Counter()
        self._created: OrderedDict[str, tuple[str, float]] = OrderedDict()
        """Rooms created here in the last ``waiting_ttl_s``: id → (address, when),
        oldest first (monotonic seconds)."""
        self._waiting: dict[str, set[str]] = {}
        """Per address, the rooms it created here that may still wait."""

    def _expire_rooms(self) -> None:
        horizon = time.monotonic() - self.settings.waiting_ttl_s
        while self._created:
            room_id, (address, at) = next(iter(self._created.items()))
            if at > horizon:
                break
            del self._created[room_id]
            self._forget_waiting(address, room_id)

    def _forget_waiting(self, address: str, room_id: str) -> None:
        rooms = self._waiting.get(address)
        if rooms is not None:
            rooms.discard(room_id)
            if not rooms:
                del self._waiting[address]

    def _retry_ms(self) -> int:
        """When the oldest counted room leaves the count (ms from now)."""
        if not self._created:
            return 1000
        _, at = next(iter(self._created.values()))
        return max(1000, int((at + self.settings.waiting_ttl_s - time.monotonic()) * 1000))

    async def room_slot(self, address: str,
                        still_waiting: Callable[[str], Awaitable[bool]]) -> None:
        """Check that ``address`` may create one more room here; ``still_waiting``
        tells whether a room it created before has not started yet (asked only
        once the address is at its cap).

        :raises ServerFull: the process created ``max_rooms`` rooms lately.
        :raises RateLimited: ``address`` has ``waiting_rooms_per_address`` rooms
            waiting.
        """
        s = self.settings
        self._expire_rooms()
        if len(self._created) >= s.max_rooms:
            raise ServerFull(f"this server holds its most new rooms ({s.max_rooms}); "
                             "try again later", {"retry_after_ms": self._retry_ms()})
        waiting = self._waiting.get(address, set())
        if len(waiting) >= s.waiting_rooms_per_address:
            for room_id in list(waiting):
                if not await still_waiting(room_id):
                    self._forget_waiting(address, room_id)
            if len(self._waiting.get(address, ())) >= s.waiting_rooms_per_address:
                raise RateLimited(
                    f"this address has {s.waiting_rooms_per_address} rooms waiting for "
                    "racers; start or close one first", {
                        "retry_after_ms": self._retry_ms(),
                        "limit": s.waiting_rooms_per_address})

    def room_created(self, address: str, room_id: str) -> None:
        """Count a room ``address`` just created (after :meth:`room_slot`)."""
        self._created[room_id] = (address, time.monotonic())
        self._waiting.setdefault(address, set()).add(room_id)

    def take(self, budget: Budget, address: str) -> None:
        """Spend one request of ``address``'s ``budget`` (and of its ``read``
        budget, which every route spends).

        :raises RateLimited: past the budget; ``details.retry_after_ms`` says when.
        """
        for kind in ("read", budget) if budget != "read" else ("read",):
            wait_s = self._budgets[kind].take_or_wait(address)
            if wait_s is not None:
                ms = max(1, int(wait_s * 1000 + 0.999))
                what = "requests" if kind == "read" else f"{kind} requests"
                raise RateLimited(f"too many {what} from this address; retry in {ms} ms",
                                  {"retry_after_ms": ms})

    def open_socket(self, address: str) -> SocketTicket:
        """Admit one room socket of ``address`` (spectator or racer: see
        :meth:`spectate`).

        :raises ServerFull: the process holds ``max_sockets``.
        :raises RateLimited: ``address`` holds ``sockets_per_address``.
        """
        s = self.settings
        if self.sockets >= s.max_sockets:
            raise ServerFull(f"this server holds its most sockets ({s.max_sockets}); "
                             "try again soon", {"retry_after_ms": 5000})
        if self._per_address[address] >= s.sockets_per_address:
            raise RateLimited(f"at most {s.sockets_per_address} room sockets per address",
                              {"retry_after_ms": 5000, "limit": s.sockets_per_address})
        self.sockets += 1
        self._per_address[address] += 1
        return SocketTicket(address)

    def spectate(self, ticket: SocketTicket, room_id: str) -> bool:
        """Count ``ticket``'s socket as a spectator of the room ``room_id`` (its
        id, never its code: one count per room); ``False``, nothing counted,
        when the room has ``spectators_per_room`` spectators here."""
        if self._spectators[room_id] >= self.settings.spectators_per_room:
            return False
        self._spectators[room_id] += 1
        ticket.room_id = room_id
        return True

    def over_cap(self) -> RateLimited:
        """The refusal of a socket past the spectator cap."""
        limit = self.settings.spectators_per_room
        return RateLimited(f"this room has its most spectators here ({limit}); a racer "
                           "names its token", {"retry_after_ms": 5000, "limit": limit})

    def racer_now(self, ticket: SocketTicket) -> None:
        """``ticket``'s spectator became a racer (``auth``): its spectator slot is free."""
        if ticket.room_id is not None and not ticket.released:
            self._drop(self._spectators, ticket.room_id)
            ticket.room_id = None

    def close_socket(self, ticket: SocketTicket) -> None:
        """Give back what :meth:`open_socket` admitted (once; later calls do nothing)."""
        if ticket.released:
            return
        self.racer_now(ticket)
        ticket.released = True
        self.sockets -= 1
        self._drop(self._per_address, ticket.address)

    @staticmethod
    def _drop(counter: Counter[str], key: str) -> None:
        counter[key] -= 1
        if counter[key] <= 0:
            del counter[key]


async def deny_socket(ws: WebSocket, exc: RaceError, close: tuple[int, str]) -> None:
    """Refuse a WebSocket upgrade with ``exc`` as an HTTP answer (status, JSON
    error, ``Retry-After``), or, where the server cannot answer an upgrade over
    HTTP, accept and ``close`` (code, reason) at once."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        answer = JSONResponse({"error": exc.to_json()}, status_code=exc.status)
        retry_ms = exc.details.get("retry_after_ms")
        if isinstance(retry_ms, int):
            answer.headers["Retry-After"] = str(max(1, -(-retry_ms // 1000)))
        await ws.send_denial_response(answer)
        return
    await ws.accept()
    await ws.close(*close)
