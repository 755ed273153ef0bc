"""Ratings and a player's running figures, updated as each race is archived.

Called by :meth:`server.archive.db.ArchiveDb.write` inside the transaction
that stores the race, so a race counts once (its insert is the idempotence
key) and a crash leaves neither the race nor its ratings.

- **Figures** (``player_variants``): every *rated* race (the race
  authority's ``rated``: a ranked room — not hints, not a ghost room — with
  the variant's own rules, raced to its end, not closed by its host) a
  player raced adds one race, their foundation
  cards, a win when they ranked first of two or more racers (ties for first
  are wins), the streak of wins in a row, and their fastest win (race clock
  of a ``won`` game).
- **Ratings**: a rated race with two or more *players* (racers linked to a
  player; anonymous racers and bots are not rated) updates each player's
  rating for the race's variant with openskill's Plackett–Luce model, ranks
  taken from the standings among those players, ties kept. A rating is
  *provisional* until :data:`PROVISIONAL_RACES` rated races.
- Races count in the order they are archived (a race archived late, after a
  database outage, counts then).

Concurrency: the rows of the race's players are locked (``SELECT … FOR
UPDATE`` on PostgreSQL, in player id order so that two archivers never
deadlock; SQLite holds its one write lock from the race insert on).

Cost: four statements a race whatever its number of players — the fresh
rows inserted (``ON CONFLICT DO NOTHING``), the rows read and locked, all
of them updated at once (an ``executemany`` of one ``UPDATE``), then the
rating points — built once at import (SQLAlchemy's compiled cache then
finds them by identity): the archiver's writes run on the process's event
loop, beside the moves (docs/archive.md, "Catching up beside moves").
"""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from .schema import player_variants, rating_history

__all__ = ["MODEL", "PROVISIONAL_RACES", "apply_race", "display_rating", "rating_of"]

MODEL = PlackettLuce()
"""openskill's Plackett–Luce model with its defaults (mu 25, sigma 25/3)."""

PROVISIONAL_RACES = 10
"""A rating is provisional until this many rated races."""


def display_rating(mu: float, sigma: float) -> float:
    """The conservative rating boards rank by: mu − 3 sigma (openskill's
    ``ordinal``), 0 for a new player."""
    return mu - 3 * sigma


async def rating_of(conn: AsyncConnection, player_id: str, variant: str) -> float | None:
    """The player's rating in ``variant`` (:func:`display_rating`), ``None`` before
    their first rated race there (quick races' rating bands: docs/protocol.md)."""
    v = player_variants.c
    row = (await conn.execute(select(v.mu, v.sigma, v.rated_races).where(
        and_(v.player_id == player_id, v.variant == variant)))).first()
    if row is None or not row.rated_races:
        return None
    return float(display_rating(row.mu, row.sigma))


_v = player_variants.c
_FIGURES = ("mu", "sigma", "rating", "rated_races", "races", "wins", "cards_total", "best_ms",
            "streak", "best_streak", "last_race_ms")
_LOCK = (select(player_variants)
         .where(and_(_v.variant == bindparam("variant"),
                     _v.player_id.in_(bindparam("ids", expanding=True))))
         .order_by(_v.player_id).with_for_update())
_UPDATE = (update(player_variants)
           .where(and_(_v.player_id == bindparam("b_player"), _v.variant == bindparam("b_variant")))
           .values({k: bindparam(k) for k in _FIGURES}))
_FRESH = {"postgresql": postgresql.insert(player_variants).on_conflict_do_nothing(),
          "sqlite": sqlite.insert(player_variants).on_conflict_do_nothing()}
_POINTS = {"postgresql": postgresql.insert(rating_history).on_conflict_do_nothing(),
           "sqlite": sqlite.insert(rating_history).on_conflict_do_nothing()}


def _fresh(player_id: str, variant: str) -> dict[str, Any]:
    mu, sigma = MODEL.mu, MODEL.sigma
    return {"player_id": player_id, "variant": variant, "mu": mu, "sigma": sigma,
            "rating": display_rating(mu, sigma), "rated_races": 0, "races": 0, "wins": 0,
            "cards_total": 0, "best_ms": None, "streak": 0, "best_streak": 0,
            "last_race_ms": 0}


async def apply_race(conn: AsyncConnection, race: dict[str, Any],
                     racers: list[dict[str, Any]], *, rated: bool) -> None:
    """Update figures and ratings for one archived race (module docstring).

    ``race``: the ``races`` row; ``racers``: its ``archived_racers`` rows, with
    ``player_id`` set only for existing players; ``rated``: the race counts
    (the race authority's ``rated``: ranked, plain rules, raced to its end).
    """
    if not rated:
        return
    best: dict[str, dict[str, Any]] = {}
    for r in racers:
        pid = r["player_id"]
        if pid is not None and (pid not in best or r["rank"] < best[pid]["rank"]):
            best[pid] = r
    if not best:
        return
    variant, ended, field = race["variant"], race["ended_at_ms"], len(racers)
    ids = sorted(best)
    dialect = "postgresql" if conn.dialect.name == "postgresql" else "sqlite"
    await conn.execute(_FRESH[dialect], [_fresh(pid, variant) for pid in ids])
    rows = {r["player_id"]: dict(r) for r in (await conn.execute(
        _LOCK, {"variant": variant, "ids": ids})).mappings()}
    for pid in ids:
        row, r = rows[pid], best[pid]
        win = r["rank"] == 1 and field >= 2
        row["races"] += 1
        row["wins"] += int(win)
        row["cards_total"] += r["foundation_cards"]
        row["streak"] = row["streak"] + 1 if win else 0
        row["best_streak"] = max(row["best_streak"], row["streak"])
        if r["status"] == "won" and r["finished_ms"] is not None:
            row["best_ms"] = min(row["best_ms"] or r["finished_ms"], r["finished_ms"])
        row["last_race_ms"] = max(row["last_race_ms"], ended)
    history = []
    if len(ids) >= 2:
        teams = [[MODEL.rating(mu=rows[pid]["mu"], sigma=rows[pid]["sigma"])] for pid in ids]
        new = MODEL.rate(teams, ranks=[float(best[pid]["rank"]) for pid in ids])
        for pid, (after,) in zip(ids, new, strict=True):
            row = rows[pid]
            row.update(mu=after.mu, sigma=after.sigma, rating=display_rating(after.mu, after.sigma),
                       rated_races=row["rated_races"] + 1)
            history.append({"player_id": pid, "variant": variant, "race_id": race["race_id"],
                            "mu": after.mu, "sigma": after.sigma, "at_ms": ended})
    await conn.execute(_UPDATE, [{"b_player": pid, "b_variant": variant,
                                  **{k: rows[pid][k] for k in _FIGURES}} for pid in ids])
    if history:
        await conn.execute(_POINTS[dialect], history)
