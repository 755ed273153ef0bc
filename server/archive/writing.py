"""Storing one finished race: the rows :meth:`server.archive.db.ArchiveDb.write`
writes, in the transaction it opens.

- :func:`race_rows` turns the race authority's ``FinishedRace`` document into
  the ``races`` row and its ``archived_racers`` rows (plain dicts, no I/O).
- :func:`store_race` inserts them idempotently — the race id is the key: the
  insert does nothing when the row exists, and then nothing else is written
  — forgets the racers of players deleted since the race (stored as a
  forgotten player's racers are, ``PlayerQueries.delete_player``), and
  updates the players' figures and ratings (:func:`server.archive.ratings.
  apply_race`) — a player a moderator found ``assisted`` races unrated — and
  queues a rated race with players for its fair-play assessment
  (``assessment_queue``, docs/fair-play.md); a challenge attempt's race
  also stores the attempt's result (:mod:`server.archive.challenge_results`).

The statements are built once at import, one per dialect (SQLite,
PostgreSQL): SQLAlchemy's compiled cache then finds them without building or
hashing a new statement per race, and the racers go in one ``executemany``.
A write runs on the process's event loop beside the moves (docs/archive.md,
"Catching up beside moves"): 7 statements a race with players whatever
their number (the race, its players looked up, its racers, then
:func:`~server.archive.ratings.apply_race`'s four), 2 for anonymous racers.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from .challenge_results import record_attempt
from .players import anonymous_name
from .ratings import apply_race
from .schema import archived_racers, assessment_queue, players, races

__all__ = ["race_rows", "store_race"]

_INSERT_RACE = {"postgresql": postgresql.insert(races).on_conflict_do_nothing(),
                "sqlite": sqlite.insert(races).on_conflict_do_nothing()}
_INSERT_RACERS = {"postgresql": postgresql.insert(archived_racers).on_conflict_do_nothing(),
                  "sqlite": sqlite.insert(archived_racers).on_conflict_do_nothing()}
# FOR SHARE: a forgetting of one of them waits for this write, or this write
# for it (PlayerQueries.delete_player)
_KNOWN = (select(players.c.player_id, players.c.fair_play)
          .where(players.c.player_id.in_(bindparam("ids", expanding=True)))
          .with_for_update(read=True))
_QUEUE = {"postgresql": postgresql.insert(assessment_queue).on_conflict_do_nothing(),
          "sqlite": sqlite.insert(assessment_queue).on_conflict_do_nothing()}
_RENAME = (update(races).where(races.c.race_id == bindparam("b_race"))
           .values(room=bindparam("b_room"), standings=bindparam("b_standings")))


def race_rows(race: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``races`` row and the ``archived_racers`` rows (roster order) of one
    finished race document (``race_id``, ``room``, ``racers``, ``standings``,
    ``seq``); ``archived_at_ms``: now (ms since the epoch).

    :raises KeyError: a document without a field the archive needs.
    """
    room, standings = race["room"], race["standings"]
    ranked = {s["racer"]: s for s in standings.get("standings", [])}
    ended = room.get("ended_ms") or room.get("start_at_ms") or 0
    row = {
        "race_id": race["race_id"], "room_id": room["id"], "room_code": room["code"],
        "variant": str(room["rules"].get("variant", "")), "rules": room["rules"],
        "deal_number": str(room["deal_number"]), "redeal_key": room["redeal_key"],
        "ranked": bool(room.get("ranked", True)),
        "started_at_ms": room.get("start_at_ms") or 0,
        "ended_at_ms": ended,
        "time_limit_ms": room["time_limit_ms"], "par": room.get("par"),
        "last_seq": int(race.get("seq", 0)), "room": room, "standings": standings,
        "archived_at_ms": time.time_ns() // 1_000_000,
    }
    racer_rows = []
    for entry in room["roster"]:
        rec = race["racers"].get(entry["id"], {})
        line = ranked.get(entry["id"], {})
        racer_rows.append({
            "race_id": race["race_id"], "racer_id": entry["id"],
            "player_id": entry.get("player"), "ended_at_ms": ended,
            "name": entry["name"], "join_order": entry["join_order"],
            "status": rec.get("status", "waiting"), "final": bool(rec.get("final")),
            "foundation_cards": rec.get("foundation_cards", 0),
            "redeals_used": rec.get("redeals_used", 0),
            "merci_used": bool(rec.get("merci_used")),
            "reach_time_ms": rec.get("reach_time_ms"),
            "finished_ms": rec.get("finished_ms"),
            "points": line.get("points", 0), "rank": line.get("rank", 0),
            "moves": rec.get("log", []),
            "focus_losses": max(0, int(rec.get("focus_losses") or 0)),
        })
    return row, racer_rows


async def store_race(conn: AsyncConnection, row: dict[str, Any],
                     racer_rows: list[dict[str, Any]], *, rated: bool) -> bool:
    """Insert the race and its racers, then its players' figures and ratings,
    in ``conn``'s transaction (module docstring); ``False``: the race was
    stored already (nothing written). ``rated``: the race counts for players.
    ``row`` and ``racer_rows`` (:func:`race_rows`) get the forgotten racers'
    anonymous names.

    :raises sqlalchemy.exc.DBAPIError: the database refused or does not answer
        (the caller maps it, :func:`server.archive.db.unavailable`).
    """
    dialect = "postgresql" if conn.dialect.name == "postgresql" else "sqlite"
    done = await conn.execute(_INSERT_RACE[dialect], row)
    if done.rowcount == 0:
        return False
    linked = {r["player_id"] for r in racer_rows} - {None}
    assisted: set[str] = set()
    if linked:  # a player forgotten since the race raced anonymously
        found = (await conn.execute(_KNOWN, {"ids": sorted(linked)})).all()
        known = {f.player_id for f in found}
        assisted = {f.player_id for f in found if f.fair_play == "assisted"}
        gone = {r["racer_id"] for r in racer_rows
                if r["player_id"] is not None and r["player_id"] not in known}
        if gone:
            await _forget_racers(conn, row, racer_rows, gone)
    if racer_rows:
        await conn.execute(_INSERT_RACERS[dialect], racer_rows)
    await record_attempt(conn, row, racer_rows)
    # a player found `assisted` by a moderator races unrated (docs/fair-play.md)
    rated_rows = [{**r, "player_id": None} if r["player_id"] in assisted else r
                  for r in racer_rows]
    await apply_race(conn, row, rated_rows, rated=rated)
    if rated and any(r["player_id"] is not None for r in rated_rows):
        await conn.execute(_QUEUE[dialect], {"race_id": row["race_id"],
                                             "claimed_until_ms": 0, "tries": 0})
    return True


async def _forget_racers(conn: AsyncConnection, row: dict[str, Any],
                         racer_rows: list[dict[str, Any]], gone: set[str]) -> None:
    """Racers whose player was forgotten before their race was archived: stored
    as a forgotten player's racers are (``PlayerQueries.delete_player``)."""
    for r in racer_rows:
        if r["racer_id"] in gone:
            r.update(player_id=None, name=anonymous_name(r["racer_id"]))
    room, standings = dict(row["room"]), dict(row["standings"])
    room["roster"] = [{**e, "name": anonymous_name(e["id"]), "player": None}
                      if e["id"] in gone else e for e in room["roster"]]
    standings["standings"] = [{**x, "name": anonymous_name(x["racer"])}
                              if x["racer"] in gone else x
                              for x in standings.get("standings", [])]
    row.update(room=room, standings=standings)
    await conn.execute(_RENAME, {"b_race": row["race_id"], "b_room": room,
                                 "b_standings": standings})
