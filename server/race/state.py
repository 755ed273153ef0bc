"""The stored records of the authority: a room and a racer's game.

Both are pydantic models stored as JSON through :mod:`server.store`
(``model_dump(mode="json")``). Tokens are kept only as SHA-256 digests.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict

from .quick_state import QuickState
from .trusted import trusted
from .views import RacerStatus, RoomLink, RoomState

__all__ = [
    "FINAL_STATUSES",
    "RacerRecord",
    "RoomRecord",
    "RosterEntry",
    "SeriesState",
    "racer_record",
]

FINAL_STATUSES = frozenset({"won", "resigned", "timed_out", "left"})
"""Statuses that are always final (``stuck`` is final only without undo)."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RosterEntry(_Record):
    """A racer as the room knows them."""

    id: str
    name: str
    join_order: int
    token_digest: str
    ready: bool = False
    player: str | None = None
    """The player id when the racer joined with a player key (docs/players.md)."""
    bot: bool = False
    """A computer racer the server runs (the room option ``bots``)."""
    bot_level: str | None = None
    """A computer racer's level (:data:`server.solver.levels.LEVELS`); ``None``: a
    person, or a bot seated before levels (it plays ``club``)."""
    bot_seed: int | None = None
    """A computer racer's own seed, drawn when it took its seat: its choices and
    think times (:class:`server.solver.levels.BotMind`); never shown."""


class SeriesState(_Record):
    """A series room's place in its series (docs/protocol.md, "Series")."""

    id: str
    """The series id: the id of its first room."""
    race: int
    """This room's race, 1 … ``races``."""
    races: int
    """Races in the series, 2…9."""
    break_ms: int
    """Between two races: the next race's countdown starts this long (plus the
    room's countdown) before its start, as soon as the previous race ends."""


class RoomRecord(_Record):
    """A room; times ``*_at_ms`` / ``created_ms`` are Unix ms of the store clock."""

    id: str
    code: str
    rules: dict[str, object]
    deal_number: int
    redeal_key: str
    deal_salt: str | None = None
    """Hex of the salt of the deal commitment (16 random bytes), revealed after
    the race (docs/protocol.md, "Verifying a deal"); ``None``: a room stored
    before issue 32."""
    deal_commitment: str | None = None
    """SHA-256 (hex) of the deal's canonical text (:mod:`server.rules.commitment`),
    fixed at creation and published from then on; ``None``: as ``deal_salt``."""
    ranked: bool = True
    state: RoomState = "waiting"
    capacity: int
    time_limit_ms: int
    visibility: Literal["public", "private"]
    countdown_ms: int
    host_digest: str
    created_ms: int
    start_at_ms: int | None = None
    ended_ms: int | None = None
    roster: list[RosterEntry] = []
    joins: int = 0
    quick: QuickState | None = None
    """A quick-race lobby's state (:mod:`server.race.quick_state`); ``None``: a room."""
    hints: bool = False
    winnable_only: bool = False
    par: int | None = None
    """Most foundation cards possible with the room's redeals (solver; issue 7)."""
    spectator_delay_ms: int = 60_000
    """How far behind the race clock spectators see boards (docs/protocol.md, "Fair play")."""
    open_boards: bool = False
    """Spectators see boards live (the room was created with ``open_boards``)."""
    deal_public: bool = False
    """The deal number is public anyway (daily and ghost rooms): shown before the start."""
    rematch: RoomLink | None = None
    """The next room (a rematch, or the series' next race), set once by compare-and-set."""
    rematch_of: RoomLink | None = None
    """The room this one is the rematch (or next series race) of."""
    series: SeriesState | None = None
    """The room's place in its series; ``None``: a single race."""
    challenge: str | None = None
    """The challenge this room is an attempt at (sealed while the challenge is
    open: :mod:`server.race.visibility`); ``None``: a room of its own."""

    def entry(self, racer_id: str) -> RosterEntry | None:
        """The roster entry of ``racer_id``, or ``None``."""
        for e in self.roster:
            if e.id == racer_id:
                return e
        return None


class RacerRecord(_Record):
    """A racer's game: the log of ``[move text, race-clock ms]`` and its summary."""

    id: str
    status: RacerStatus = "waiting"
    log: list[Any] = []  # [move text, race-clock ms] pairs; not re-validated per item
    foundation_cards: int = 0
    redeals_used: int = 0
    merci_used: bool = False
    reach_time_ms: int | None = None
    finished_ms: int | None = None
    final: bool = False
    focus_losses: int = 0
    """Times the racer's page lost focus during the race, as their client said
    (``{"t": "focus"}``, docs/fair-play.md, "Focus"): at most one per second of
    race clock, at most 1,000 (:func:`~server.race.decide_racer.decide_focus_lost`).
    A fair-play signal: never shown — no view, event or standings has it; the
    finished race's document for the archive does. 0 in records stored before."""
    focus_last_ms: int | None = None
    """The race clock (ms) of the last focus loss counted (``None``: none yet)."""

    @property
    def version(self) -> int:
        """Moves applied so far (the log length)."""
        return len(self.log)

    def stored(self, log_json: bytes | None = None) -> dict[str, Any]:
        """What the store keeps: the fields as ``model_dump(mode="json")`` gives
        them once encoded, without pydantic's walk of the whole log on every
        move (the store's JSON writes the log's tuples as arrays).

        ``log_json``: the log's JSON bytes (``json_bytes(self.log)``), handed to
        the store as an ``orjson.Fragment`` that it writes as it is."""
        data = dict(self.__dict__)
        if log_json is not None:
            data["log"] = orjson.Fragment(log_json)
        return data


_FIELDS = frozenset(RacerRecord.model_fields)


def racer_record(*, id: str, status: RacerStatus, log: list[Any], foundation_cards: int,
                 redeals_used: int, merci_used: bool, reach_time_ms: int | None,
                 finished_ms: int | None, final: bool, focus_losses: int,
                 focus_last_ms: int | None) -> RacerRecord:
    """``RacerRecord.model_construct(...)`` of every field, for checked values (no
    validation; :func:`~server.race.trusted.trusted`): 0.7 µs instead of 3, one per
    accepted move; every field set (tests/race/test_trusted.py keeps them equal)."""
    return trusted(RacerRecord, {
        "id": id, "status": status, "log": log, "foundation_cards": foundation_cards,
        "redeals_used": redeals_used, "merci_used": merci_used,
        "reach_time_ms": reach_time_ms, "finished_ms": finished_ms, "final": final,
        "focus_losses": focus_losses, "focus_last_ms": focus_last_ms},
        set(_FIELDS))
