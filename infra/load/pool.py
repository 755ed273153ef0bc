"""Matchmaking inside one load-generator process: fill rooms, then start them.

The first racer without a seat creates a room and becomes its host; the
next ones join it until it is full (or the host stops waiting), then the
host starts the race. Spectators pick a room that is racing. Pure Python,
no I/O: the Locust users do the HTTP calls.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

__all__ = ["Room", "RoomPool"]


@dataclass(slots=True)
class Room:
    """A room this process created: its id, code, rules and seats."""

    id: str
    code: str
    rules: dict[str, object]
    capacity: int
    created: float = field(default_factory=time.monotonic)
    seats: int = 1
    """Seats taken (the host's included)."""
    joined: int = 0
    """Racers other than the host whose join has succeeded."""
    open: bool = True
    racing: bool = False


class RoomPool:
    """Rooms waiting for racers and rooms racing, in this process."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._waiting: list[Room] = []
        self._racing: dict[str, Room] = {}
        self._rng = rng or random.Random()
        self.creating = 0
        """Rooms being created right now (a racer waits briefly for one rather than
        create another, so rooms fill up to their capacity)."""

    def take_seat(self) -> Room | None:
        """A seat in a waiting room (counted), or ``None``: create a room."""
        while self._waiting:
            room = self._waiting[0]
            if room.open and room.seats < room.capacity:
                room.seats += 1
                if room.seats >= room.capacity:
                    self._waiting.pop(0)
                return room
            self._waiting.pop(0)
        return None

    def give_back(self, room: Room) -> None:
        """A seat taken with :meth:`take_seat` that could not be used (join failed)."""
        room.seats -= 1
        if room.open and room not in self._waiting:
            self._waiting.append(room)

    def add(self, room: Room) -> None:
        """A room just created by its host (who holds the first seat)."""
        self._waiting.append(room)

    def close(self, room: Room) -> None:
        """The host starts the race: no more seats; spectators may watch."""
        room.open = False
        if room in self._waiting:
            self._waiting.remove(room)
        room.racing = True
        self._racing[room.id] = room

    def finished(self, room: Room) -> None:
        """The room's race is over (or abandoned)."""
        room.racing = False
        self._racing.pop(room.id, None)

    def racing_room(self) -> Room | None:
        """A random room that is racing, for a spectator."""
        if not self._racing:
            return None
        return self._rng.choice(list(self._racing.values()))
