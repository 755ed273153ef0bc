"""Players in the archive database: create, find, forget; profile, history,
head-to-head over time, rating history and the rating board.

:class:`server.archive.db.ArchiveDb` holds one :class:`PlayerQueries` and hands
its methods out (``server.records.players.PlayerArchive``). Answers are
JSON-ready dicts shaped as ``server.api.player_models`` (docs/players.md).

Cursors are opaque to clients: ``<ended_at_ms>.<race_id>`` of the last row
shown, base64url; the next page holds the rows strictly older (then lower race
id), newest first — stable while new races are archived. A history leaves out
attempts at challenges still open, and those a settled duel's race holds
(``challenge_results.unlisted``).

Size: every player query in one class (the ``PlayerArchive`` protocol's),
each a few statements; split, the cursor and rating helpers would be shared
across modules.
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, case, delete, exc, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from server.errors import PlayerInvalidKey, PlayerNameTaken, PlayerNotFound, RequestInvalid

from .challenge_results import forget_in_challenges, unlisted
from .ratings import PROVISIONAL_RACES, display_rating
from .schema import archived_racers, player_variants, players, races, rating_history

__all__ = ["PlayerQueries", "anonymous_name"]

_Guard = Callable[[], Any]


_CURSOR_END = re.compile(r"[0-9]{1,15}")
"""A cursor's end time: Unix ms, digits only (well inside a 64-bit column)."""
_CURSOR_RACE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A cursor's race id."""


def anonymous_name(racer_id: str) -> str:
    """The name a forgotten player's racer keeps in archived races."""
    return f"anonymous {racer_id[:6]}"


def _cursor(ended: int, race_id: str) -> str:
    return base64.urlsafe_b64encode(f"{ended}.{race_id}".encode()).decode().rstrip("=")


def _uncursor(cursor: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        ended, race_id = raw.split(".", 1)
        if _CURSOR_END.fullmatch(ended) and _CURSOR_RACE.fullmatch(race_id):
            return int(ended), race_id
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise RequestInvalid("not a cursor from an earlier page", {"field": "cursor"})


def _player(row: Any) -> dict[str, Any]:
    return {"id": row.player_id, "name": row.name, "created_at_ms": row.created_ms}


class PlayerQueries:
    """Player reads and writes over ``engine`` (see the module docstring).

    ``ready``: awaited before each call (migrates a database that was down at
    start); ``guard``: a context manager mapping a database that does not
    answer to :class:`~server.errors.ArchiveUnavailable`.
    """

    def __init__(self, engine: AsyncEngine, ready: Callable[[], Any], guard: _Guard) -> None:
        self.engine = engine
        self._ready = ready
        self._guard = guard

    # -- players -------------------------------------------------------------------

    async def create_player(self, player_id: str, name: str, folded: str,
                            digest: str) -> dict[str, Any]:
        """Store a new player → ``{"id", "name", "created_at_ms"}``.

        :raises PlayerNameTaken, ArchiveUnavailable:
        """
        await self._ready()
        row = {"player_id": player_id, "name": name, "folded": folded, "key_digest": digest,
               "created_ms": time.time_ns() // 1_000_000}
        try:
            with self._guard():
                async with self.engine.begin() as conn:
                    await conn.execute(players.insert().values(row))
        except exc.IntegrityError:
            raise PlayerNameTaken(f"the player name {name!r} is taken", {"name": name}) from None
        return {"id": player_id, "name": name, "created_at_ms": row["created_ms"]}

    async def player_by_key(self, digest: str) -> dict[str, Any] | None:
        """The player whose key digest this is, or ``None``. :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                row = (await conn.execute(
                    select(players).where(players.c.key_digest == digest))).first()
        return None if row is None else _player(row)

    async def find_player(self, ref: str, folded: str | None = None) -> dict[str, Any] | None:
        """The player with id ``ref``, else with folded name ``folded``; or ``None``.

        :raises ArchiveUnavailable:
        """
        if "\x00" in ref:  # PostgreSQL text holds no NUL: nobody's
            return None
        await self._ready()
        cond = players.c.player_id == ref
        if folded:
            cond = or_(cond, players.c.folded == folded)
        with self._guard():
            async with self.engine.connect() as conn:
                row = (await conn.execute(
                    select(players).where(cond)
                    .order_by((players.c.player_id == ref).desc()).limit(1))).first()
        return None if row is None else _player(row)

    async def _need(self, conn: Any, player_id: str) -> Any:
        row = (await conn.execute(select(players).where(players.c.player_id == player_id))
               ).first()
        if row is None:
            raise PlayerNotFound(f"no player {player_id[:32]!r}", {"player": player_id[:32]})
        return row

    async def delete_player(self, player_id: str, digest: str) -> list[tuple[str, str, str]]:
        """Forget a player: the row goes (the name is free again), their ratings
        and rating history with it; in every archived race they raced, their
        racer is renamed :func:`anonymous_name` and unlinked (room record,
        standings and racer row alike) — the other racers' rows stay as they were;
        in challenges as well (``challenge_results.forget_in_challenges``).
        Returns ``(race id, racer id, new name)`` of each racer renamed (their
        live rooms, while they last, are renamed by the caller).

        :raises PlayerNotFound, PlayerInvalidKey, ArchiveUnavailable:
        """
        await self._ready()
        with self._guard():
            async with self.engine.begin() as conn:
                # the player's row first, locked (SQLite: the write lock): a race of
                # theirs being archived now commits first (its racer rows are then
                # read below) or waits for this delete (and stores them forgotten)
                await conn.execute(update(players).where(players.c.player_id == player_id)
                                   .values(key_digest=players.c.key_digest))
                row = await self._need(conn, player_id)
                if row.key_digest != digest:
                    raise PlayerInvalidKey("that key is not this player's")
                mine = (await conn.execute(
                    select(archived_racers.c.race_id, archived_racers.c.racer_id)
                    .where(archived_racers.c.player_id == player_id))).all()
                by_race: dict[str, list[str]] = {}
                for race_id, racer_id in mine:
                    by_race.setdefault(race_id, []).append(racer_id)
                for race_id, racer_ids in by_race.items():
                    got = (await conn.execute(select(races.c.room, races.c.standings)
                                              .where(races.c.race_id == race_id))).first()
                    if got is None:
                        continue
                    room, standings = dict(got.room), dict(got.standings)
                    room["roster"] = [
                        {**e, "name": anonymous_name(e["id"]), "player": None}
                        if e["id"] in racer_ids else e for e in room.get("roster", [])]
                    standings["standings"] = [
                        {**s, "name": anonymous_name(s["racer"])} if s["racer"] in racer_ids
                        else s for s in standings.get("standings", [])]
                    await conn.execute(update(races).where(races.c.race_id == race_id)
                                       .values(room=room, standings=standings))
                    for racer_id in racer_ids:
                        await conn.execute(
                            update(archived_racers)
                            .where(and_(archived_racers.c.race_id == race_id,
                                        archived_racers.c.racer_id == racer_id))
                            .values(player_id=None, name=anonymous_name(racer_id)))
                await forget_in_challenges(conn, player_id, anonymous_name)
                for table in (rating_history, player_variants):
                    await conn.execute(delete(table).where(table.c.player_id == player_id))
                await conn.execute(delete(players).where(players.c.player_id == player_id))
        return [(race_id, racer_id, anonymous_name(racer_id))
                for race_id, racer_id in mine]

    # -- reads ---------------------------------------------------------------------

    async def profile(self, player_id: str) -> dict[str, Any]:
        """The player and their figures per variant (``PlayerProfile``).

        :raises PlayerNotFound, ArchiveUnavailable:
        """
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                row = await self._need(conn, player_id)
                rows = (await conn.execute(
                    select(player_variants).where(player_variants.c.player_id == player_id)
                    .order_by(player_variants.c.variant))).mappings().all()
                total = (await conn.execute(
                    select(func.count()).select_from(archived_racers)
                    .where(archived_racers.c.player_id == player_id))).scalar_one()
        return {"player": _player(row), "races": int(total), "variants": [{
            "variant": v["variant"], "rating": _rating(v), "races": v["races"],
            "wins": v["wins"],
            "average_foundation_cards": round(v["cards_total"] / v["races"], 2)
            if v["races"] else 0.0,
            "best_time_ms": v["best_ms"], "streak": v["streak"],
            "best_streak": v["best_streak"], "last_race_at_ms": v["last_race_ms"] or None,
        } for v in rows]}

    async def player_races(self, player_id: str, limit: int,
                           cursor: str | None) -> dict[str, Any]:
        """One page of the player's archived races, newest first (``PlayerRacesPage``).

        :raises PlayerNotFound, RequestInvalid, ArchiveUnavailable:
        """
        await self._ready()
        r, ra = archived_racers.c, races.c
        cond = and_(r.player_id == player_id, ~unlisted(r.race_id))
        if cursor:
            ended, race_id = _uncursor(cursor)
            # the first bound is implied by the second; it lets the index seek to
            # the cursor instead of reading every newer row (bench/archive.py)
            cond = and_(cond, r.ended_at_ms <= ended,
                        or_(r.ended_at_ms < ended,
                            and_(r.ended_at_ms == ended, r.race_id < race_id)))
        query = (select(r.race_id, r.racer_id, r.name, r.status, r.foundation_cards,
                        r.finished_ms, r.reach_time_ms, r.points, r.rank, r.ended_at_ms,
                        ra.room_code, ra.variant, ra.deal_number, ra.ranked, ra.started_at_ms,
                        ra.par)
                 .join(races, ra.race_id == r.race_id).where(cond)
                 .order_by(r.ended_at_ms.desc(), r.race_id.desc()).limit(limit + 1))
        with self._guard():
            async with self.engine.connect() as conn:
                await self._need(conn, player_id)
                rows = (await conn.execute(query)).mappings().all()
                ids = [x["race_id"] for x in rows[:limit]]
                fields: dict[str, int] = dict((await conn.execute(
                    select(r.race_id, func.count()).where(r.race_id.in_(ids))
                    .group_by(r.race_id))).all()) if ids else {}
        items = [{
            "race": x["race_id"], "room_code": x["room_code"], "racer": x["racer_id"],
            "name": x["name"], "variant": x["variant"], "deal_number": int(x["deal_number"]),
            "ranked": x["ranked"], "started_at_ms": x["started_at_ms"],
            "ended_at_ms": x["ended_at_ms"], "racers": int(fields.get(x["race_id"], 1)),
            "rank": x["rank"], "points": x["points"], "status": x["status"],
            "foundation_cards": x["foundation_cards"], "reach_time_ms": x["reach_time_ms"],
            "finished_ms": x["finished_ms"], "par": x["par"],
        } for x in rows[:limit]]
        more = len(rows) > limit
        last = rows[limit - 1] if more else None
        return {"races": items,
                "next": _cursor(last["ended_at_ms"], last["race_id"]) if last else None}

    async def versus(self, a: str, b: str, limit: int, cursor: str | None) -> dict[str, Any]:
        """Every archived race both players raced: wins, losses and ties of
        ``a`` against ``b`` (a better rank is a win), the average foundation
        card difference (``a`` − ``b``), and a page of the shared races, newest
        first, each with its comparison's path (``VersusView``).

        :raises PlayerNotFound, RequestInvalid, ArchiveUnavailable:
        """
        await self._ready()
        ra, rb = archived_racers.alias("ra"), archived_racers.alias("rb")
        shared = (select(ra.c.race_id, ra.c.ended_at_ms, ra.c.racer_id.label("racer_a"),
                         rb.c.racer_id.label("racer_b"), ra.c.rank.label("rank_a"),
                         rb.c.rank.label("rank_b"), ra.c.foundation_cards.label("cards_a"),
                         rb.c.foundation_cards.label("cards_b"))
                  .join(rb, rb.c.race_id == ra.c.race_id)
                  .where(and_(ra.c.player_id == a, rb.c.player_id == b)))
        sub = shared.subquery()
        totals = select(
            func.count(), func.sum(case((sub.c.rank_a < sub.c.rank_b, 1), else_=0)),
            func.sum(case((sub.c.rank_a > sub.c.rank_b, 1), else_=0)),
            func.avg((sub.c.cards_a - sub.c.cards_b) * 1.0))
        page = shared
        if cursor:
            ended, race_id = _uncursor(cursor)
            page = page.where(ra.c.ended_at_ms <= ended,  # the index seeks (as above)
                              or_(ra.c.ended_at_ms < ended,
                                  and_(ra.c.ended_at_ms == ended, ra.c.race_id < race_id)))
        page = (page.add_columns(races.c.room_code, races.c.variant, races.c.deal_number)
                .join(races, races.c.race_id == ra.c.race_id)
                .order_by(ra.c.ended_at_ms.desc(), ra.c.race_id.desc()).limit(limit + 1))
        with self._guard():
            async with self.engine.connect() as conn:
                pa = await self._need(conn, a)
                pb = await self._need(conn, b)
                count, wins, losses, diff = (await conn.execute(totals)).one()
                rows = (await conn.execute(page)).mappings().all()
        count = int(count or 0)
        wins, losses = int(wins or 0), int(losses or 0)
        items = [{
            "race": x["race_id"], "room_code": x["room_code"], "variant": x["variant"],
            "deal_number": int(x["deal_number"]), "ended_at_ms": x["ended_at_ms"],
            "racer_a": x["racer_a"], "racer_b": x["racer_b"], "rank_a": x["rank_a"],
            "rank_b": x["rank_b"], "foundation_cards_a": x["cards_a"],
            "foundation_cards_b": x["cards_b"],
            "result": "win" if x["rank_a"] < x["rank_b"]
            else "loss" if x["rank_a"] > x["rank_b"] else "tie",
            "comparison": f"/api/v1/rooms/{x['race_id']}/compare/{x['racer_a']}/{x['racer_b']}",
        } for x in rows[:limit]]
        last = rows[limit - 1] if len(rows) > limit else None
        return {"a": _player(pa), "b": _player(pb), "races": count, "wins": wins,
                "losses": losses, "ties": count - wins - losses,
                "average_card_difference": round(float(diff), 2) if diff is not None else None,
                "shared": items,
                "next": _cursor(last["ended_at_ms"], last["race_id"]) if last else None}

    async def rating_history(self, player_id: str, variant: str) -> dict[str, Any]:
        """The player's rating after each rated race of ``variant``, oldest
        first (``RatingHistory``). :raises PlayerNotFound, ArchiveUnavailable:"""
        await self._ready()
        h = rating_history.c
        with self._guard():
            async with self.engine.connect() as conn:
                row = await self._need(conn, player_id)
                rows = (await conn.execute(
                    select(h.race_id, h.mu, h.sigma, h.at_ms)
                    .where(and_(h.player_id == player_id, h.variant == variant))
                    .order_by(h.at_ms, h.race_id))).all()
        return {"player": _player(row), "variant": variant, "points": [
            {"race": x.race_id, "at_ms": x.at_ms, "mu": round(x.mu, 4),
             "sigma": round(x.sigma, 4), "rating": round(display_rating(x.mu, x.sigma), 4)}
            for x in rows]}

    async def rating_board(self, variant: str, limit: int) -> dict[str, Any]:
        """The best ``limit`` ratings of ``variant`` (``RatingBoard``), mu − 3 sigma first,
        provisional flagged; not found ``assisted`` (fair-play.md). :raises ArchiveUnavailable:"""
        await self._ready()
        v = player_variants.c
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(
                    select(v.player_id, players.c.name, v.mu, v.sigma, v.rated_races,
                           v.races, v.wins)
                    .join(players, players.c.player_id == v.player_id)
                    .where(and_(v.variant == variant, v.rated_races > 0,
                                func.coalesce(players.c.fair_play, "") != "assisted"))
                    .order_by(v.rating.desc(), v.player_id).limit(limit))).mappings().all()
        return {"variant": variant, "entries": [{
            "rank": i, "player": {"id": x["player_id"], "name": x["name"]},
            "rating": _rating(x), "races": x["races"], "wins": x["wins"]}
            for i, x in enumerate(rows, 1)]}


def _rating(row: Any) -> dict[str, Any]:
    return {"mu": round(row["mu"], 4), "sigma": round(row["sigma"], 4),
            "rating": round(display_rating(row["mu"], row["sigma"]), 4),
            "rated_races": row["rated_races"],
            "provisional": row["rated_races"] < PROVISIONAL_RACES}
