"""Moderation, by people: the queue of players whose assessed races reach
``review``, and the verdicts moderators record (docs/fair-play.md,
"Moderation").

:class:`Moderation` reads the assessments the assessor stored
(:class:`ModerationArchive`, the archive), judges each player over their last
races (:func:`server.fairplay.verdict.judge_player`) and lists those at
``review`` or worse, ``likely_assisted`` first. Nothing is decided here on
its own: :meth:`Moderation.decide` records what a moderator decided.

- ``assisted``: the player's rated races of the window the queue showed
  leave the ratings (the refund, :mod:`server.archive.refund`, in the
  verdict's transaction) and the leaderboards (``forget_results``), the
  player races unrated from then on (the archive skips them; the boards are
  barred to them), and their own profile says so.
- ``cleared``: everything stays; the races assessed so far no longer count
  towards the player's verdict, and the player is not listed again for
  :data:`CLEARED_SILENCE_MS`. After an ``assisted``, the player races rated
  and feeds the boards again from then on (the races taken out stay out).

Every verdict is kept with who (the moderator token's name) and when.
Flags are never shown to other players: only moderators read this.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal, Protocol

from .signals import RaceSignals
from .verdict import THRESHOLDS, Judgement, judge_player

__all__ = ["CLEARED_SILENCE_MS", "Moderation", "ModerationArchive"]

CLEARED_SILENCE_MS: Final = 30 * 24 * 3600 * 1000
"""After ``cleared``, the player is not listed again for this long (30 days)."""
log = logging.getLogger("server.fairplay")

_WINDOW: Final = int(THRESHOLDS["window"].value)
_ORDER: Final = {"likely_assisted": 0, "review": 1, "clean": 2}


class ModerationArchive(Protocol):
    """What moderation reads and writes (:class:`server.archive.db.ArchiveDb`)."""

    async def assessed_players(self) -> list[dict[str, Any]]: ...
    async def player_assessments(self, player_id: str, limit: int,
                                 since_ms: int | None = None) -> list[dict[str, Any]]: ...
    async def record_verdict(self, player_id: str, verdict: Literal["cleared", "assisted"],
                             note: str, moderator: str, race_ids: list[str],
                             score: float | None) -> dict[str, Any]: ...
    async def verdicts(self, player_id: str) -> list[dict[str, Any]]: ...
    async def fair_play_of(self, player_id: str) -> dict[str, Any] | None: ...


class Boards(Protocol):
    """The leaderboards' side of a verdict (``server.records.leaderboard_store``)."""

    async def bar(self, player_id: str) -> None: ...
    async def unbar(self, player_id: str) -> None: ...


ForgetResults = Callable[[str, list[dict[str, Any]]], Awaitable[object]]
"""``(player id, races)``: take the player's results of those races off the
leaderboards and bar them (``server.records.leaderboard.forget_player_results``)."""


class Moderation:
    """The queue and the verdicts (module docstring). ``min_races``: races a
    player's verdict needs (``LUCIE_FAIR_PLAY_MIN_RACES``)."""

    def __init__(self, archive: ModerationArchive, forget_results: ForgetResults,
                 boards: Boards, *, min_races: int | None = None) -> None:
        self.archive = archive
        self.forget_results = forget_results
        self.boards = boards
        self.min_races = int(THRESHOLDS["min_races"].value) if min_races is None else min_races

    async def _judged(self, player: dict[str, Any]
                      ) -> tuple[Judgement, list[dict[str, Any]]] | None:
        """The player's judgement over their current window and its rows;
        ``None`` for a player found ``assisted`` or silenced by ``cleared``."""
        standing, at = player.get("fair_play"), player.get("fair_play_at_ms")
        if standing == "assisted":
            return None
        since = at if standing == "cleared" else None
        if since is not None and time.time() * 1000 - since < CLEARED_SILENCE_MS:
            return None
        rows = await self.archive.player_assessments(player["id"], _WINDOW, since)
        signals = [RaceSignals.from_json(r["signals"]) for r in rows]
        return judge_player(signals, min_races=self.min_races), rows

    async def queue(self) -> list[dict[str, Any]]:
        """Players at ``review`` or worse, ``likely_assisted`` first, then by
        score: ``{"player": {"id", "name"}, "verdict", "score", "reasons",
        "races": [race entries, newest first], "previous": [verdicts]}``.

        :raises ArchiveUnavailable:
        """
        out: list[dict[str, Any]] = []
        for player in await self.archive.assessed_players():
            got = await self._judged(player)
            if got is None or got[0].verdict == "clean":
                continue
            judged, rows = got
            out.append({"player": {"id": player["id"], "name": player["name"]},
                        **judged.to_json(), "races": [_race(r) for r in reversed(rows)],
                        "previous": await self.archive.verdicts(player["id"])})
        out.sort(key=lambda e: (_ORDER[str(e["verdict"])], -float(e["score"]),
                                str(e["player"]["id"])))
        return out

    async def player(self, player: dict[str, Any]) -> dict[str, Any]:
        """One player's file for a moderator, whatever their verdict:
        ``{"player", "fair_play", "judgement", "races", "verdicts"}`` — the
        judgement as the queue makes it (after a ``cleared``, over the races
        since), the races the last ``window`` whatever the verdicts.

        :raises ArchiveUnavailable:
        """
        standing = await self.archive.fair_play_of(player["id"]) or {}
        rows = await self.archive.player_assessments(player["id"], _WINDOW)
        since = standing.get("fair_play_at_ms") if standing.get("fair_play") == "cleared" \
            else None
        counted = await self.archive.player_assessments(player["id"], _WINDOW, since)
        judged = judge_player([RaceSignals.from_json(r["signals"]) for r in counted],
                              min_races=self.min_races)
        return {"player": {"id": player["id"], "name": player["name"]},
                "fair_play": standing.get("fair_play"),
                "fair_play_at_ms": standing.get("fair_play_at_ms"),
                "judgement": judged.to_json(), "races": [_race(r) for r in reversed(rows)],
                "verdicts": await self.archive.verdicts(player["id"])}

    async def decide(self, player: dict[str, Any], verdict: Literal["cleared", "assisted"],
                     note: str, moderator: str) -> dict[str, Any]:
        """Record a moderator's verdict (module docstring) → ``{"player",
        "verdict", "moderator", "at_ms", "races_removed", "refunded"}``.

        :raises PlayerNotFound, ArchiveUnavailable, StoreUnavailable:
        """
        standing = await self.archive.fair_play_of(player["id"]) or {}
        since = standing.get("fair_play_at_ms") if standing.get("fair_play") == "cleared" \
            else None
        rows = await self.archive.player_assessments(player["id"], _WINDOW, since)
        judged = judge_player([RaceSignals.from_json(r["signals"]) for r in rows],
                              min_races=self.min_races)
        done = await self.archive.record_verdict(
            player["id"], verdict, note, moderator,
            [r["race_id"] for r in rows] if verdict == "assisted" else [], judged.score)
        log.info("fair play: %s recorded %s for player %s (%d races out of the ratings)",
                 moderator, verdict, player["id"], len(done["races"]))
        if verdict == "assisted":
            await self.forget_results(player["id"], done["races"])
        else:  # an appeal that holds: on the boards again from now on
            await self.boards.unbar(player["id"])
        return {"player": {"id": player["id"], "name": player["name"]}, "verdict": verdict,
                "moderator": moderator, "at_ms": done["at_ms"],
                "races_removed": len(done["races"]), "refunded": done["refunded"]}


def _race(row: dict[str, Any]) -> dict[str, Any]:
    """A race entry of the queue, with links to the race, the racer's replay
    and their comparison with the winner (when someone else won)."""
    race, racer, room = row["race_id"], row["racer_id"], row.get("room_code") or row["race_id"]
    winner = row.get("winner")
    return {"race_id": race, "room": room, "racer": racer, "variant": row["variant"],
            "ended_at_ms": row["ended_at_ms"], "verdict": row["verdict"],
            "score": round(float(row["score"]), 2), "reasons": row["reasons"],
            "signals": row["signals"],
            "links": {"race": f"/api/v1/races/{race}",
                      "replay": f"/api/v1/rooms/{room}/racers/{racer}/replay",
                      "compare": None if winner in (None, racer)
                      else f"/api/v1/rooms/{room}/compare/{racer}/{winner}"}}
