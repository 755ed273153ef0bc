"""What one process keeps of the rooms it serves: games, the racer records and room
records it last wrote or read, rule sets and fresh deals.

A cache only saves work: anything missing or stale is rebuilt from the store
(a game from its move log), and every write is still a compare-and-set on the
store's revs, so a cache can never make two processes disagree. One
:class:`RaceCache` per :class:`~server.race.authority.RaceAuthority`, handed
explicitly to the collaborators that read it (lobby, play, timers).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from server.rules import Game, Move, RuleSet, new_game, replay
from server.runtime.jsoncodec import json_bytes

from .state import RacerRecord, RoomRecord

__all__ = ["GAME_CACHE", "RaceCache"]

GAME_CACHE = 4_096
"""Games kept in memory for fast moves (about 4× the racers one process holds
active); an evicted game is rebuilt from its log. 20,000 held mostly finished
games: the load test's server RSS fell from 937 to 766 MB at 4,096 with the
same throughput and latency (issue 8)."""

RacerKey = tuple[str, str]
"""``(room id, racer id)``."""


def _trim(cache: dict[str, Any]) -> None:
    """Keep a per-room cache to :data:`GAME_CACHE` entries (oldest out first)."""
    while len(cache) > GAME_CACHE:
        del cache[next(iter(cache))]


class RaceCache:
    """Games, known records and per-room derived values of one process."""

    def __init__(self) -> None:
        self.games: OrderedDict[RacerKey, Game] = OrderedDict()
        self.known_racers: dict[RacerKey, tuple[RacerRecord, int]] = {}
        """The racer records (and revs) this process last wrote, beside their
        cached games: a move decided on them needs no read (``Play.move``)."""
        self.log_json: dict[RacerKey, tuple[list[Any], bytes]] = {}
        """The JSON bytes of each known racer record's log, beside that log list
        (:meth:`log_bytes`)."""
        self.known_rooms: OrderedDict[str, tuple[RoomRecord, int]] = OrderedDict()
        """The last room record (and rev) this process read of each room."""
        self._rules: dict[str, RuleSet] = {}
        self._fresh_cards: dict[str, int] = {}

    def ruleset(self, room: RoomRecord) -> RuleSet:
        """The room's rule set, parsed once per room."""
        rules = self._rules.get(room.id)
        if rules is None:
            rules = self._rules[room.id] = RuleSet.from_json(room.rules)
            _trim(self._rules)
        return rules

    def fresh(self, room: RoomRecord, racer_id: str) -> RacerRecord:
        """A racer record before any move: the deal's foundation cards (trefoil
        starts with four)."""
        return RacerRecord(id=racer_id, foundation_cards=self.fresh_cards(room))

    def fresh_cards(self, room: RoomRecord) -> int:
        """The foundation cards of the room's deal before any move."""
        # every racer of a room starts from the same deal: deal it once per room
        # (room views list every racer; dealing per racer dominated a welcome)
        cards = self._fresh_cards.get(room.id)
        if cards is None:
            game = new_game(self.ruleset(room), room.deal_number,
                            bytes.fromhex(room.redeal_key))
            cards = self._fresh_cards[room.id] = game.foundation_cards
            _trim(self._fresh_cards)
        return cards

    def replay(self, room: RoomRecord, log: list[Any]) -> Game:
        """The game of ``log`` (``[move text, race-clock ms]`` pairs) on the room's deal."""
        return replay(self.ruleset(room), room.deal_number, bytes.fromhex(room.redeal_key),
                      [Move.from_text(text) for text, _ in log])

    def game(self, room: RoomRecord, racer: RacerRecord) -> Game:
        """The racer's game at ``racer.version``: cached, else replayed from the log."""
        key = (room.id, racer.id)
        game = self.games.get(key)
        if game is not None and len(game.log) == racer.version:
            self.games.move_to_end(key)
            return game
        game = self.replay(room, racer.log)
        if not racer.final:  # a final game only serves views now: not worth a cache slot
            self.remember(key, game)
        return game

    def remember(self, key: RacerKey, game: Game,
                 written: tuple[RacerRecord, int] | None = None) -> None:
        """Cache ``game`` (and the racer record ``written`` with its rev, or forget
        the one known); the least recently used beyond :data:`GAME_CACHE` go."""
        self.games[key] = game
        self.games.move_to_end(key)
        if written is None:
            self.unknown(key)
        else:
            self.known_racers[key] = written
        while len(self.games) > GAME_CACHE:
            old, _ = self.games.popitem(last=False)
            self.unknown(old)

    def unknown(self, key: RacerKey) -> None:
        """Forget the racer record (and its log's bytes) this process last wrote."""
        self.known_racers.pop(key, None)
        self.log_json.pop(key, None)

    def log_bytes(self, key: RacerKey, before: list[Any], after: list[Any]) -> bytes:
        """The JSON bytes of the log ``after`` (``json_bytes(after)``), which is the
        log ``before`` plus a move's entries: the bytes of ``before`` kept by the
        last call (for that very list) plus the new entries' bytes, so a move
        encodes its own entries, not the whole log again (~3 µs a move at 150
        entries, growing with the log). Kept for ``after`` until :meth:`unknown`."""
        known = self.log_json.get(key)
        n = len(before)
        if known is not None and known[0] is before and len(after) > n \
                and (n == 0 or after[n - 1] is before[n - 1]):
            tail = json_bytes(after[n:])
            raw = known[1][:-1] + (b"," + tail[1:] if n else tail[1:])
        else:
            raw = json_bytes(after)
        self.log_json[key] = (after, raw)
        return raw

    def forget(self, key: RacerKey) -> None:
        """Drop the cached game and record of a racer whose result is final: no
        move will need them (a view rebuilds the game from the log). Finished
        games otherwise filled the cache: a 12-minute load run reached 4,096
        games per process, most of them over, and the server's RSS doubled."""
        self.games.pop(key, None)
        self.unknown(key)

    def saw_room(self, room: RoomRecord, rev: int) -> None:
        """Remember the room record read at ``rev`` (the newest one wins)."""
        known = self.known_rooms.get(room.id)
        if known is None or known[1] <= rev:
            self.known_rooms[room.id] = (room, rev)
            self.known_rooms.move_to_end(room.id)
            while len(self.known_rooms) > GAME_CACHE:
                self.known_rooms.popitem(last=False)
