"""The race lifecycle as log lines (``server.race``) and counters, for operators.

One line per transition, written by the process whose compare-and-set made
it (so once per deployment): ``room_created``, ``race_started``,
``racer_final`` (won, stuck, resigned, left, timed out), ``race_ended``
(over, or closed by the host). Each names the room and carries only what a
**spectator** may see at that moment (docs/protocol.md, "Fair play"):
progress — status, foundation cards, moves, times — and the deal number
from the start on (the ``started`` event gives it to everyone; before it,
only rooms whose deal is public anyway show it). Never a board, a move, a
move log, the redeal key, a token or a display name.

Counters (:mod:`server.runtime.metrics`): ``lucie_rooms_created_total``,
``lucie_races_started_total``, ``lucie_races_ended_total{how}``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from server.runtime import metrics

from .state import RacerRecord, RoomRecord
from .views import RacerView

__all__ = ["race_ended", "race_started", "racer_final", "room_closed", "room_created"]

log = logging.getLogger("server.race")


def room_created(room: RoomRecord) -> None:
    """A new room (state ``waiting``)."""
    metrics.ROOMS_CREATED.inc()
    log.info("room %s created", room.id, extra={
        "event": "room_created", "room": room.id, "code": room.code,
        "variant": room.rules.get("variant"), "capacity": room.capacity,
        "visibility": room.visibility, "time_limit_ms": room.time_limit_ms,
        "deal_number": room.deal_number if room.deal_public else None})


def race_started(room: RoomRecord) -> None:
    """The countdown of ``room`` is over: the race runs."""
    metrics.RACES_STARTED.inc()
    log.info("race started in room %s", room.id, extra={
        "event": "race_started", "room": room.id, "racers": len(room.roster),
        "deal_number": room.deal_number})


def racer_final(room_id: str, racer: RacerRecord) -> None:
    """The result of ``racer`` became final."""
    log.info("racer %s %s in room %s", racer.id, racer.status, room_id, extra={
        "event": "racer_final", "room": room_id, "racer": racer.id,
        "racer_status": racer.status, "foundation_cards": racer.foundation_cards,
        "moves": racer.version, "finished_ms": racer.finished_ms})


def room_closed(room: RoomRecord) -> None:
    """The host closed ``room`` before its race started."""
    log.info("room %s closed before the start", room.id, extra={
        "event": "room_closed", "room": room.id, "racers": len(room.roster)})


def race_ended(room: RoomRecord, views: Sequence[RacerView]) -> None:
    """``room`` is over (``state`` ``over``, or ``closed`` by the host mid-race)."""
    how = "closed" if room.state == "closed" else "over"
    metrics.RACES_ENDED.labels(how).inc()
    best = max((v.foundation_cards for v in views), default=0)
    duration = None if room.start_at_ms is None or room.ended_ms is None \
        else room.ended_ms - room.start_at_ms
    log.info("race %s in room %s", how, room.id, extra={
        "event": "race_ended", "room": room.id, "how": how, "racers": len(views),
        "won": sum(1 for v in views if v.status == "won"), "best_foundation_cards": best,
        "duration_ms": duration})
