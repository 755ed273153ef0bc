"""Records → views: the race clock, a racer's status, racer / game / room views,
and standings, as pure functions of the stored records and the
service clock (ms).

Every answer of the authority is built here, and the events that announce
them (:mod:`server.race.events`) take their values from the same functions.
"""

from __future__ import annotations

from itertools import cycle
from typing import Any, Final

from server.rules import Game, Position, RuleSet
from server.rules.cards import CARD_TEXTS, SUITS
from server.rules.position import EMPTY_CELL
from server.solver.levels import LEVELS, RATINGS, Level, level_of

from .duel import duel_race_id
from .ranking import standings as rank_standings
from .state import RacerRecord, RoomRecord, RosterEntry
from .trusted import trusted
from .views import Ack, GameView, PositionView, RacerStatus, RacerView, RulesView, Standings

__all__ = [
    "ack",
    "bot_of",
    "game_view",
    "position_view",
    "race_clock",
    "racer_status",
    "racer_view",
    "rules_view",
    "standings",
]


def rules_view(rules: RuleSet) -> RulesView:
    """The wire view of a rule set."""
    return RulesView.model_validate(rules.to_json())


def race_clock(room: RoomRecord, now: int) -> int | None:
    """The race clock at service time ``now`` (ms since the start, at most the time
    limit; frozen at the end), or ``None`` before the start."""
    if room.start_at_ms is None or room.state in ("waiting", "countdown") \
            or (room.state == "closed" and room.ended_ms is None):  # closed unstarted
        return None
    end = room.ended_ms if room.ended_ms is not None else now
    return max(0, min(end - room.start_at_ms, room.time_limit_ms))


def racer_status(room: RoomRecord, racer: RacerRecord) -> RacerStatus:
    """The racer's status as shown: ``playing`` once the race runs."""
    if racer.status == "waiting" and room.state in ("racing", "over"):
        return "playing"
    return racer.status


def racer_view(room: RoomRecord, entry: RosterEntry, racer: RacerRecord) -> RacerView:
    """One racer's public progress."""
    return RacerView(
        id=entry.id, name=entry.name, join_order=entry.join_order, ready=entry.ready,
        status=racer_status(room, racer), foundation_cards=racer.foundation_cards,
        moves=racer.version, redeals_used=racer.redeals_used, merci_used=racer.merci_used,
        reach_time_ms=racer.reach_time_ms, finished_ms=racer.finished_ms, final=racer.final,
        player=entry.player, bot=entry.bot, **bot_of(entry),
    )


def bot_of(entry: RosterEntry) -> dict[str, Any]:
    """A computer racer's ``bot_level`` and ``bot_rating`` as views show them (a
    bot seated before levels plays ``club``); ``None`` for a person."""
    if not entry.bot:
        return {"bot_level": None, "bot_rating": None}
    level: Level = level_of(entry.bot_level) if entry.bot_level in LEVELS else "club"
    return {"bot_level": level, "bot_rating": RATINGS[level]}


_ACK_SET: Final = frozenset(Ack.model_fields)
_VIEW_SET: Final = frozenset(GameView.model_fields) - {"delay_ms"}
_POSITION_SET: Final = frozenset(PositionView.model_fields)


_FAN_TEXTS: dict[tuple[int, ...], tuple[str, ...]] = {}
"""A fan's card texts by the fan (most fans of a position are the previous
position's); emptied when it reaches :data:`_FANS_KEPT` fans."""
_FANS_KEPT: Final = 16_384


def _fans(fans: tuple[tuple[int, ...], ...]) -> list[list[str]]:
    """``[[card_str(c) for c in fan] for fan in fans]``, the texts of each fan
    looked up (about half the cost; issue 23)."""
    known = _FAN_TEXTS
    out: list[list[str]] = []
    add = out.append
    for fan in fans:
        texts = known.get(fan)
        if texts is None:
            if len(known) >= _FANS_KEPT:
                known.clear()
            texts = known[fan] = tuple([CARD_TEXTS[c] for c in fan])
        add(list(texts))
    return out


def position_view(pos: Position) -> PositionView:
    """``PositionView.model_validate(position_to_json(pos))``, made without
    validation from the engine's position (:func:`~server.race.trusted.trusted`):
    the same model, foundations as ``(suit, top rank)`` tuples."""
    cells = pos.cells
    return trusted(PositionView, {
        "fans": _fans(pos.fans),
        "foundations": list(zip(cycle(SUITS), pos.foundations)),
        "cells": [None if c == EMPTY_CELL else CARD_TEXTS[c] for c in cells] if cells else [],
        "redeals_used": pos.redeals_used,
        "merci_used": pos.merci_used,
        "foundation_cards": pos.foundation_cards,
    }, set(_POSITION_SET))


def game_view(racer: RacerRecord, game: Game, status: RacerStatus, active: bool,
              clock: int | None) -> GameView:
    """The game view with the racer's ``status``, whether the racer may move
    (``active``: legal moves and undo listed) and the race clock (ms).

    Made without validation (every value is the authority's or the engine's,
    :func:`~server.race.trusted.trusted`): what ``GameView(...)`` validates to,
    ``delay_ms`` 0 and not set (one view per accepted move, issue 23)."""
    rules = game.rules
    pos = game.position
    version = racer.version
    return trusted(GameView, {
        "racer": racer.id, "version": version, "status": status,
        "final": racer.final, "position": position_view(pos),
        "legal_moves": game.legal_move_texts() if active else [],
        "can_undo": active and game.can_undo, "redeals_left": rules.redeals - pos.redeals_used,
        "merci_available": rules.merci and not pos.merci_used, "moves": version,
        "reach_time_ms": racer.reach_time_ms, "race_clock_ms": clock, "delay_ms": 0,
    }, set(_VIEW_SET))


def ack(client_move_id: str, version: int, race_clock_ms: int, applied: list[str],
        game: GameView) -> Ack:
    """The answer to an accepted move (what ``Ack(...)`` validates to), made
    without validation from the authority's values (one per accepted move)."""
    return trusted(Ack, {"client_move_id": client_move_id, "version": version,
                         "race_clock_ms": race_clock_ms, "applied": applied, "game": game},
                   set(_ACK_SET))


def standings(room: RoomRecord, views: list[RacerView]) -> Standings:
    """The ranked table (rules.md, "Race ranking"), with ``to_par`` when the
    room knows its par; ``final`` once the race is over. One place for the
    ``race_over`` event and ``GET …/standings``, so both always agree."""
    table = rank_standings(views, duel=room.challenge is not None
                           and room.id == duel_race_id(room.challenge))
    if room.par is not None:
        table = [s.model_copy(update={"to_par": room.par - s.foundation_cards})
                 for s in table]
    final = room.state == "over" or (room.state == "closed" and room.ended_ms is not None)
    return Standings(final=final, standings=table, par=room.par)
