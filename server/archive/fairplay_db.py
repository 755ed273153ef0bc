"""Fair play in the archive database: the assessment queue, assessments,
moderators' verdicts and a player's standing (docs/fair-play.md).

:class:`server.archive.db.ArchiveDb` holds one :class:`FairPlayQueries` and
hands its methods out. The verdicts themselves are computed above the
archive (:mod:`server.fairplay`); this module stores and reads.

- A rated race with players is queued in the transaction that archives it
  (:func:`server.archive.writing.store_race`); :meth:`claim_assessments`
  leases a few (so two processes do not assess one race at once; a process
  that dies leaves them to another when the lease runs out), and
  :meth:`store_assessments` writes the results and takes the race off the
  queue, in one transaction.
- :meth:`record_verdict` keeps every verdict (who, when, note) and sets the
  player's standing; ``assisted`` also runs the rating refund
  (:func:`server.archive.refund.refund`) in the same transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final, Literal

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from server.errors import PlayerNotFound

from .refund import refund
from .schema import (
    archived_racers,
    assessment_queue,
    assessments,
    moderation_verdicts,
    players,
    races,
)

__all__ = ["MAX_TRIES", "FairPlayQueries"]

MAX_TRIES: Final = 3
"""A race whose assessment failed this many times leaves the queue (logged)."""

_Guard = Callable[[], Any]
_q, _s, _r, _a, _p = (assessment_queue.c, assessments.c, races.c, archived_racers.c,
                      players.c)


_winner = (select(_a.racer_id).where(and_(_a.race_id == _s.race_id, _a.rank == 1))
           .order_by(_a.join_order).limit(1).scalar_subquery().label("winner"))


def _now() -> int:
    return time.time_ns() // 1_000_000


class FairPlayQueries:
    """Fair-play reads and writes over ``engine`` (module docstring); ``ready``
    and ``guard`` as :class:`~server.archive.players.PlayerQueries`'."""

    def __init__(self, engine: AsyncEngine, ready: Callable[[], Any], guard: _Guard) -> None:
        self.engine = engine
        self._ready = ready
        self._guard = guard

    async def claim_assessments(self, limit: int, lease_ms: int) -> list[dict[str, Any]]:
        """Up to ``limit`` queued races, leased for ``lease_ms``: ``{"race_id",
        "rules", "deal_number", "redeal_key", "ended_at_ms", "archived_at_ms",
        "tries", "racers": [{"racer_id", "player_id", "status", "moves",
        "focus_losses"}]}`` — the racers who are players not found
        ``assisted``. :raises ArchiveUnavailable:"""
        await self._ready()
        now = _now()
        out: list[dict[str, Any]] = []
        with self._guard():
            async with self.engine.begin() as conn:
                free = (await conn.execute(
                    select(_q.race_id, _q.tries).where(_q.claimed_until_ms <= now)
                    .order_by(_q.claimed_until_ms, _q.race_id).limit(limit))).all()
                for row in free:
                    got = await conn.execute(update(assessment_queue).where(and_(
                        _q.race_id == row.race_id, _q.claimed_until_ms <= now)).values(
                        claimed_until_ms=now + lease_ms, tries=row.tries + 1))
                    if not got.rowcount:
                        continue  # another process took it
                    race = (await conn.execute(select(
                        _r.race_id, _r.rules, _r.deal_number, _r.redeal_key, _r.ended_at_ms,
                        _r.archived_at_ms).where(_r.race_id == row.race_id))).one()
                    racers = (await conn.execute(
                        select(_a.racer_id, _a.player_id, _a.status, _a.moves,
                               _a.focus_losses)
                        .join(players, _p.player_id == _a.player_id)
                        .where(and_(_a.race_id == row.race_id, or_(
                            _p.fair_play.is_(None), _p.fair_play != "assisted"))))
                              ).mappings().all()
                    out.append({**race._asdict(), "tries": row.tries + 1,
                                "racers": [dict(r) for r in racers]})
        return out

    async def store_assessments(self, race_id: str, rows: list[dict[str, Any]]) -> None:
        """The race's assessments (``assessments`` rows but ``race_id``), then
        the race off the queue; a row stored already stays. :raises ArchiveUnavailable:"""
        await self._ready()
        now = _now()
        with self._guard():
            async with self.engine.begin() as conn:
                have = set((await conn.execute(select(_s.racer_id).where(
                    _s.race_id == race_id))).scalars())
                fresh = [{**r, "race_id": race_id, "assessed_at_ms": now}
                         for r in rows if r["racer_id"] not in have]
                if fresh:
                    await conn.execute(insert(assessments), fresh)
                await conn.execute(delete(assessment_queue).where(_q.race_id == race_id))

    async def drop_assessment(self, race_id: str) -> None:
        """Take a race whose assessment keeps failing off the queue.
        :raises ArchiveUnavailable:"""
        with self._guard():
            async with self.engine.begin() as conn:
                await conn.execute(delete(assessment_queue).where(_q.race_id == race_id))

    async def pending_assessments(self) -> int:
        """Races waiting in the queue (metrics, tests). :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                return len((await conn.execute(select(_q.race_id))).all())

    async def assessed_players(self) -> list[dict[str, Any]]:
        """Every player with an assessment, with their standing: ``{"id",
        "name", "fair_play", "fair_play_at_ms"}``. :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(
                    select(_p.player_id, _p.name, _p.fair_play, _p.fair_play_at_ms)
                    .where(_p.player_id.in_(select(_s.player_id).distinct()))
                    .order_by(_p.player_id))).all()
        return [{"id": r.player_id, "name": r.name, "fair_play": r.fair_play,
                 "fair_play_at_ms": r.fair_play_at_ms} for r in rows]

    async def player_assessments(self, player_id: str, limit: int,
                                 since_ms: int | None = None) -> list[dict[str, Any]]:
        """The player's last ``limit`` assessments (of races archived after
        ``since_ms`` when given), oldest first: ``{"race_id", "room_code",
        "racer_id", "variant", "ended_at_ms", "signals", "verdict", "score",
        "reasons", "winner"}`` (``winner``: the racer ranked first).
        :raises ArchiveUnavailable:"""
        await self._ready()
        cond = _s.player_id == player_id
        if since_ms is not None:
            cond = and_(cond, _s.archived_at_ms > since_ms)
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(
                    select(_s.race_id, _r.room_code, _s.racer_id, _s.variant, _s.ended_at_ms,
                           _s.signals, _s.verdict, _s.score, _s.reasons, _winner)
                    .join(races, _r.race_id == _s.race_id).where(cond)
                    .order_by(_s.archived_at_ms.desc(), _s.race_id.desc())
                    .limit(limit))).mappings().all()
        return [dict(r) for r in reversed(rows)]

    async def record_verdict(self, player_id: str, verdict: Literal["cleared", "assisted"],
                             note: str, moderator: str, race_ids: list[str],
                             score: float | None) -> dict[str, Any]:
        """Keep a moderator's verdict and set the player's standing; for
        ``assisted`` (unless the player is ``assisted`` already: then nothing
        more is taken out), the rating refund over ``race_ids`` in the same
        transaction → ``{"verdict_id", "at_ms", "races": [{"race_id",
        "variant", "deal_number", "name", "created_ms", "ended_at_ms"}],
        "refunded": [player ids]}`` (the races' rows, for the leaderboards).

        :raises PlayerNotFound, ArchiveUnavailable:
        """
        await self._ready()
        now = _now()
        with self._guard():
            async with self.engine.begin() as conn:
                found = (await conn.execute(select(_p.player_id, _p.fair_play).where(
                    _p.player_id == player_id).with_for_update())).first()
                if found is None:
                    raise PlayerNotFound(f"no player {player_id!r}", {"player": player_id})
                # a second `assisted` (two moderators at once) takes nothing out again
                again = found.fair_play == "assisted"
                taken = race_ids if verdict == "assisted" and not again else []
                done = await conn.execute(insert(moderation_verdicts).values(
                    player_id=player_id, verdict=verdict, note=note, moderator=moderator,
                    at_ms=now, races=taken, score=score))
                await conn.execute(update(players).where(_p.player_id == player_id).values(
                    fair_play=verdict, fair_play_at_ms=now))
                refunded = await refund(conn, player_id, taken)
                rows = (await conn.execute(
                    select(_r.race_id, _r.variant, _r.deal_number, _r.room, _r.ended_at_ms,
                           _a.name)
                    .join(archived_racers, _a.race_id == _r.race_id)
                    .where(and_(_r.race_id.in_(taken), _a.player_id == player_id)))).all()
        key = done.inserted_primary_key
        return {"verdict_id": int(key[0]) if key else 0, "at_ms": now, "refunded": refunded,
                "races": [{"race_id": r.race_id, "variant": r.variant,
                           "deal_number": int(r.deal_number), "name": r.name,
                           "created_ms": int((r.room or {}).get("created_ms") or 0),
                           "ended_at_ms": r.ended_at_ms} for r in rows]}

    async def verdicts(self, player_id: str) -> list[dict[str, Any]]:
        """Every verdict on the player, newest first: ``{"verdict", "note",
        "moderator", "at_ms", "races", "score"}``. :raises ArchiveUnavailable:"""
        await self._ready()
        v = moderation_verdicts.c
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(
                    select(v.verdict, v.note, v.moderator, v.at_ms, v.races, v.score)
                    .where(v.player_id == player_id)
                    .order_by(v.at_ms.desc(), v.verdict_id.desc()))).mappings().all()
        return [dict(r) for r in rows]

    async def board_results(self) -> tuple[list[dict[str, Any]], set[str]]:
        """Every ranked archived race, in the order races ended, as the boards
        read a finished race (``{"room": {"id", "code", "rules", "deal_number",
        "ranked", "created_ms", "ended_ms"}, "racers": [{"name", "final",
        "status", "foundation_cards", "reach_time_ms", "moves", "bot",
        "player"}]}``) — without the results a moderator's ``assisted`` verdict
        took off the boards (its races, and the player's races after it) — and
        the players barred from the boards. :raises ArchiveUnavailable:"""
        await self._ready()
        v = moderation_verdicts.c
        with self._guard():
            async with self.engine.connect() as conn:
                barred = {r.player_id: int(r.fair_play_at_ms or 0) for r in (await conn.execute(
                    select(_p.player_id, _p.fair_play_at_ms)
                    .where(_p.fair_play == "assisted"))).all()}
                taken: set[tuple[str, str]] = set()
                for verdict in (await conn.execute(select(v.player_id, v.races).where(
                        v.verdict == "assisted"))).all():
                    taken.update((verdict.player_id, race) for race in verdict.races or ())
                races_ = (await conn.execute(
                    select(_r.race_id, _r.room, _r.archived_at_ms).where(_r.ranked)
                    .order_by(_r.ended_at_ms, _r.race_id))).all()
                rows = (await conn.execute(
                    select(_a.race_id, _a.racer_id, _a.player_id, _a.name, _a.final,
                           _a.status, _a.foundation_cards, _a.reach_time_ms,
                           func.json_array_length(_a.moves).label("moves"))
                    .join(races, _r.race_id == _a.race_id).where(_r.ranked)
                    .order_by(_a.join_order))).all()
        by_race: dict[str, list[Any]] = {}
        for row in rows:
            by_race.setdefault(row.race_id, []).append(row)
        out = []
        for race in races_:
            room = race.room or {}
            bots = {e["id"] for e in room.get("roster", []) if e.get("bot")}
            racers = [{"name": r.name, "final": bool(r.final), "status": r.status,
                       "foundation_cards": r.foundation_cards, "reach_time_ms": r.reach_time_ms,
                       "moves": int(r.moves or 0), "bot": r.racer_id in bots,
                       "player": r.player_id}
                      for r in by_race.get(race.race_id, [])
                      if not (r.player_id in barred and (
                          (r.player_id, race.race_id) in taken
                          or race.archived_at_ms > barred[r.player_id]))]
            out.append({"room": {k: room.get(k) for k in (
                "id", "code", "rules", "deal_number", "ranked", "created_ms", "ended_ms")},
                        "racers": racers})
        return out, set(barred)

    async def fair_play_of(self, player_id: str) -> dict[str, Any] | None:
        """The player's standing ``{"fair_play", "fair_play_at_ms"}`` (values
        null: no verdict), ``None``: no such player. :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                row = (await conn.execute(select(_p.fair_play, _p.fair_play_at_ms).where(
                    _p.player_id == player_id))).first()
        return None if row is None else {"fair_play": row.fair_play,
                                         "fair_play_at_ms": row.fair_play_at_ms}
