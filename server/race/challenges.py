"""Challenges and duels: the same deal played at different times, compared and
rated (issue 35; docs/protocol.md, "Challenges and duels").

A **challenge** is a deal (variant, deal number, redeal key — secret until the
challenge closes) that players play one at a time, each alone, each once, within
its life (default 7 days). Each attempt is an ordinary room of one racer
(``RoomOptions.challenge``: the room is *sealed* while the challenge is open,
:mod:`server.race.visibility`), made by the race authority with the
challenge's deal and redeal key: the race clock and every check as in any
race; it starts when its racer is ready. A **duel** is a rated challenge
(``open_to: "rated"``): its creator plays it, then :meth:`Challenges.duel`
hands it to one caller of a near rating (the band widening with the
challenge's age), or gives the caller a fresh one. A duel settled as a
draw gets a **tie-break** (``kind`` ``tiebreak``): a fresh deal for its two
players, made in the settling's transaction, whose winner becomes the
duel's (:mod:`server.race.duel`).

Where things live: challenges, attempts and notifications in the archive
database (:class:`ChallengeArchive`, which ``server.archive.ArchiveDb``
satisfies; this package never imports it). An attempt's result is stored as
its race is archived (``server.archive.challenge_results``); settling and
expiring are :meth:`Challenges.sweep`'s, from every process: each is one
compare-and-set in the database with all its effects (the duel's race,
ratings, notifications), so it happens once, whichever process comes first,
and survives restarts. The pure rules: :mod:`server.race.duel`.

Time: ``clock`` (the service clock, or in tests one that moves) — a
challenge's creation, expiry, age and its attempts' deadlines.

Size: the one service of challenges (making, attempting, matching, reading,
settling, expiring) in one class; its pure rules are :mod:`.duel`, its answers
:mod:`.challenge_views`, what it needs of the rest :mod:`.challenge_ports`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from server.errors import ArchiveUnavailable, RaceError, StoreError
from server.rules import RulesError, RuleSet, new_game
from server.rules.commitment import deal_commitment

from . import errors as err
from .challenge_ports import ChallengeArchive, Clock, Hosting
from .challenge_views import (
    ChallengeJoined,
    ChallengeList,
    ChallengeView,
    NotificationList,
    NotificationView,
    challenge_view,
)
from .duel import (
    closing_notes,
    duel_race,
    settle_notes,
    tiebreak_decides,
    tiebreak_notes,
    tiebreak_row,
)
from .ids import CODE_ALPHABET, new_deal_salt, new_room_id, random_deal_number, token_digest
from .options import RoomOptions
from .views import RacerView, RoomView

__all__ = ["ChallengeArchive", "ChallengeConfig", "Challenges", "Clock", "Hosting"]

log = logging.getLogger("server.race")

CODE_LENGTH = 8
"""Characters of a challenge's code (the room codes' alphabet)."""


@dataclass(frozen=True, slots=True)
class ChallengeConfig:
    """Settings of challenges and duels (``LUCIE_DUEL_*``, docs/settings.md)."""

    life_ms: int = 7 * 24 * 3600 * 1000
    """A challenge's default life (``expires_in_s`` chooses another: 60 s … 30 days)."""
    time_limit_s: int = 900
    """Each attempt's time limit, as a room's default."""
    countdown_s: int = 3
    band_width: float = 5.0
    """Rating points a duel's creator may be from its taker at age 0."""
    widen_ms: int = 3600 * 1000
    """Every this many ms of a duel's age widen its band by ``band_width``."""
    waiting_ms: int = 30 * 60 * 1000
    """How long an attempt's room waits for its racer to be ready (``LUCIE_WAITING_TTL_S``)."""


MAX_LIFE_S = 30 * 24 * 3600
MIN_LIFE_S = 60
_SLACK_MS = 5 * 60 * 1000
"""After an attempt's race must have ended, the time its result may take to arrive
(the archiver's pace; a database outage longer than this frees a duel's hold)."""


def new_challenge_code() -> str:
    """A fresh short code (``CODE_LENGTH`` characters of the room codes' alphabet)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _fresh_deal(variant: str) -> dict[str, str]:
    """A random deal of ``variant`` with a fresh redeal key and deal salt, and
    its commitment: the ``challenges`` row's deal columns."""
    number, key, salt = random_deal_number(), secrets.token_bytes(32), new_deal_salt()
    return {"deal_number": str(number), "redeal_key": key.hex(), "deal_salt": salt.hex(),
            "deal_commitment": deal_commitment(variant, number, key, salt)}


def _rules(variant: str) -> RuleSet:
    try:
        return RuleSet.from_json({"variant": variant})
    except RulesError as exc:
        raise err.RequestInvalid(str(exc), {"field": "variant"}) from None


class Challenges:
    """Challenges and duels over the race authority, the archive and a clock
    (module docstring). Every method that answers a player takes the player
    (``{"id", "name"}``) whose key the transport checked."""

    def __init__(self, hosting: Hosting, archive: ChallengeArchive, clock: Clock,
                 config: ChallengeConfig | None = None) -> None:
        self.hosting = hosting
        self.archive = archive
        self.clock = clock
        self.config = config or ChallengeConfig()
        self._stopping = asyncio.Event()

    # -- attempts ------------------------------------------------------------------

    async def _room(self, row: dict[str, Any], player: dict[str, Any], now: int
                    ) -> tuple[dict[str, Any], RoomView, RacerView, str, str]:
        """An attempt's room with the player seated → the ``challenge_attempts``
        row, the room as its racer sees it, the racer, its token, the host token."""
        options = RoomOptions(
            variant=row["variant"], deal=int(row["deal_number"]),
            redeal_key=bytes.fromhex(row["redeal_key"]), capacity=1,
            time_limit_s=row["time_limit_ms"] // 1000, visibility="private",
            countdown_s=self.config.countdown_s, ranked=False,
            challenge=row["challenge_id"])
        room, host = await self.hosting.create_room(options)
        racer, token = await self.hosting.join(room.id, player["name"], player["id"])
        deadline = (now + self.config.waiting_ms + options.countdown_s * 1000
                    + row["time_limit_ms"] + _SLACK_MS)
        attempt = {"challenge_id": row["challenge_id"], "player_id": player["id"],
                   "name": player["name"], "room_id": room.id, "racer_id": racer.id,
                   "started_ms": now, "deadline_ms": deadline,
                   "token_digest": token_digest(token)}  # its own reads once archived
        return attempt, await self.hosting.get_room(room.id, token), racer, token, host

    async def _abandon(self, room_id: str, host_token: str) -> None:
        """Close an attempt's room that lost its challenge (never started: no race)."""
        with contextlib.suppress(RaceError, StoreError):
            await self.hosting.close(room_id, host_token)

    async def create(self, player: dict[str, Any], variant: str,
                     deal: int | Literal["random"] = "random",
                     open_to: Literal["link", "rated"] = "link",
                     expires_in_s: int | None = None, *, rating: float | None = None
                     ) -> ChallengeJoined:
        """A new challenge of ``variant`` and the creator's attempt at it.
        ``deal``: a deal number (link challenges only: a rated challenge is dealt
        at random), or random; ``expires_in_s``: its life (default
        ``config.life_ms``); ``rating``: the creator's, when the caller read it
        already (``POST /duels``).

        :raises RequestInvalid: an unknown variant (``details.field``: ``variant``),
            a deal the variant has not or a chosen deal for a rated challenge
            (``deal``), a life out of 60 s … 30 days (``expires_in_s``).
        :raises ArchiveUnavailable, StoreUnavailable:
        """
        rules = _rules(variant)
        if deal != "random" and open_to == "rated":
            raise err.RequestInvalid("a rated challenge is dealt at random (a chosen deal "
                                     "could be one its creator knows)", {"field": "deal"})
        number = random_deal_number() if deal == "random" else deal
        try:
            new_game(rules, number, b"")
        except RulesError as exc:
            raise err.RequestInvalid(str(exc), {"field": "deal"}) from None
        if expires_in_s is not None and not MIN_LIFE_S <= expires_in_s <= MAX_LIFE_S:
            raise err.RequestInvalid(f"expires_in_s is {MIN_LIFE_S}…{MAX_LIFE_S}",
                                     {"field": "expires_in_s"})
        now = await self.clock.now_ms()
        key, salt = secrets.token_bytes(32), new_deal_salt()
        if rating is None:
            rating = await self.archive.player_rating(player["id"], variant)
        row = {
            "challenge_id": new_room_id(), "code": new_challenge_code(),
            "kind": open_to, "variant": rules.id, "deal_number": str(number),
            "redeal_key": key.hex(), "deal_salt": salt.hex(),
            "deal_commitment": deal_commitment(rules.id, number, key, salt),
            "time_limit_ms": self.config.time_limit_s * 1000,
            "creator_id": player["id"], "creator_name": player["name"],
            "creator_rating": rating or 0.0, "created_ms": now,
            "expires_ms": now + (expires_in_s * 1000 if expires_in_s else self.config.life_ms),
            "state": "open", "played": 0, "settle_due": False}
        attempt, room, racer, token, _ = await self._room(row, player, now)
        while not await self.archive.create_challenge(row, attempt):  # a code taken: redraw
            row["code"] = new_challenge_code()
        view = challenge_view({**row, "attempts": [attempt]}, player["id"])
        return ChallengeJoined(challenge=view, room=room, racer=racer, token=token,
                               matched=False)

    async def attempt(self, ref: str, player: dict[str, Any]) -> ChallengeJoined:
        """The player's attempt at the challenge ``ref`` (id or code).

        :raises ChallengeNotFound, ChallengeAlreadyPlayed, ChallengeExpired,
            ChallengeClosed (settled, void, closed; or a duel),
            ArchiveUnavailable, StoreUnavailable:
        """
        now = await self.clock.now_ms()
        row = await self.archive.check_attempt(ref, player["id"], now)
        attempt, room, racer, token, host = await self._room(row, player, now)
        try:
            await self.archive.add_attempt(row["challenge_id"], attempt, now)
        except RaceError:
            await self._abandon(room.id, host)
            raise
        row["attempts"] = [*row["attempts"], attempt]
        return ChallengeJoined(challenge=challenge_view(row, player["id"]), room=room,
                               racer=racer, token=token, matched=False)

    async def duel(self, player: dict[str, Any], variant: str) -> ChallengeJoined:
        """A rated duel of ``variant``: an open one a player of a near rating
        played (the nearest first; the band ``band_width × (1 + ⌊age /
        widen⌋)`` rating points), handed to the caller by compare-and-set, else
        a fresh one that waits for the next caller (``matched`` says which).
        The caller's rating: mu − 3 sigma in the variant, 0 before their first
        rated race (docs/players.md).

        :raises RequestInvalid: an unknown variant (``details.field``: ``variant``).
        :raises ArchiveUnavailable, StoreUnavailable:
        """
        rules = _rules(variant)
        now = await self.clock.now_ms()
        rating, candidates = await self.archive.match_duel(
            rules.id, player["id"], now, self.config.band_width, self.config.widen_ms, 3)
        for row in candidates:
            attempt, room, racer, token, host = await self._room(row, player, now)
            try:
                taken = await self.archive.take_duel(row["challenge_id"], attempt, now)
            except RaceError:
                taken = False
            if taken:
                row = {**row, "taker_id": player["id"], "attempts": [attempt]}
                return ChallengeJoined(challenge=challenge_view(row, player["id"]), room=room,
                                       racer=racer, token=token, matched=True)
            await self._abandon(room.id, host)  # another caller took it first
        return await self.create(player, rules.id, "random", "rated", rating=rating)

    # -- reads ---------------------------------------------------------------------

    async def view(self, ref: str, player_id: str | None = None) -> ChallengeView:
        """The challenge ``ref`` (id or code) as ``player_id`` (``None``:
        anyone) may see it (:class:`ChallengeView`).

        :raises ChallengeNotFound, ArchiveUnavailable:
        """
        row = await self.archive.find_challenge(ref)
        if row is None:
            raise err.ChallengeNotFound(f"no challenge {ref[:32]!r}", {"challenge": ref[:32]})
        return challenge_view(row, player_id)

    async def mine(self, player_id: str, limit: int = 50) -> ChallengeList:
        """The challenges the player made or attempted, newest first, as they see
        them. :raises ArchiveUnavailable:"""
        rows = await self.archive.player_challenges(player_id, limit)
        return ChallengeList(challenges=[challenge_view(r, player_id) for r in rows])

    async def notifications(self, player_id: str, limit: int = 50) -> NotificationList:
        """The player's notifications, newest first; listing marks them read.
        :raises ArchiveUnavailable:"""
        rows = await self.archive.notifications(player_id, limit)
        return NotificationList(unread=sum(not r["read"] for r in rows), notifications=[
            NotificationView(id=r["notification_id"], at_ms=r["at_ms"], kind=r["kind"],
                             challenge=r["challenge_id"], message=r["message"],
                             read=r["read"]) for r in rows])

    # -- settling and expiry (every process) ---------------------------------------

    async def sweep(self, limit: int = 50) -> tuple[int, int]:
        """Settle the duels whose two results are in, then close the challenges
        past their expiry (duels void) → how many this call settled and closed.
        Each is one compare-and-set in the archive: another process doing the
        same at once changes nothing twice.

        :raises ArchiveUnavailable:
        """
        settled = closed = 0
        for row in await self.archive.due_settlements(limit):
            if await self._settle(row):
                settled += 1
        now = await self.clock.now_ms()
        for row in await self.archive.due_closings(now, limit):
            state, notes = closing_notes(row)
            if await self.archive.close_challenge(row["challenge_id"], state, notes, now):
                closed += 1
        return settled, closed

    async def _settle(self, row: dict[str, Any]) -> bool:
        by_player = {a["player_id"]: a for a in row["attempts"]}
        sides = []
        for pid in (row["creator_id"], row["taker_id"]):
            race = await self.archive.find_race(by_player[pid]["race_id"])
            if race is None:  # its race row and the result are written together
                log.error("duel %s: the race of %s's attempt is missing", row["challenge_id"],
                          pid)
                return False
            entry = race.room["roster"][0]
            sides.append((race.room, race.racers[entry["id"]]))
        doc, result = duel_race(row, sides[0], sides[1])
        now = await self.clock.now_ms()
        if row["kind"] == "tiebreak":
            duel = await self.archive.find_challenge(row["tiebreak_of"])
            if duel is None or duel.get("result") is None:
                log.error("tie-break %s: its duel %s is not settled", row["challenge_id"],
                          row["tiebreak_of"])
                return False
            names = {pid: a["name"] for pid, a in by_player.items()}
            return await self.archive.settle(
                row["challenge_id"], doc, result, tiebreak_notes(row, names, result), now,
                decides=(duel["challenge_id"], tiebreak_decides(duel["result"], result)))
        tiebreak = None
        if result["winner"] is None:  # a draw: rated so now, and a tie-break deal offered
            tiebreak = tiebreak_row(row, new_room_id(), new_challenge_code(),
                                    _fresh_deal(row["variant"]), now, self.config.life_ms)
            result["tiebreak"] = tiebreak["challenge_id"]
        notes = settle_notes(row, by_player[row["taker_id"]]["name"], result, tiebreak)
        return await self.archive.settle(row["challenge_id"], doc, result, notes, now,
                                         tiebreak=tiebreak)

    async def run(self, period_s: float) -> None:
        """:meth:`sweep` every ``period_s`` seconds until :meth:`stop` (it ends
        after the sweep under way: no query is left in flight at shutdown); a
        database that does not answer is tried again next period (one log line)."""
        while not self._stopping.is_set():
            try:
                await self.sweep()
            except ArchiveUnavailable as exc:
                log.warning("challenges: sweep skipped: %s", exc.code)
            except Exception:  # a bug: logged, the loop goes on
                log.exception("challenges: sweep failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), period_s)

    def stop(self) -> None:
        """End :meth:`run` after its sweep under way."""
        self._stopping.set()
