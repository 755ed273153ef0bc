"""Records, commands' inputs and checks shared by the decision tables
(tests/race/test_decide_*.py): small builders of room and racer records, the
:class:`~server.race.outcome.Loaded` a decision reads, and :func:`decided`,
which decides a command twice and checks that the decision is pure (equal
answers, the input records untouched)."""

from __future__ import annotations

import copy
from typing import Any

from server.race.decide import decide
from server.race.ids import token_digest
from server.race.outcome import UNREAD, Loaded, Outcome, Prior, Refused, Reload, Result
from server.race.quick_state import QuickState
from server.race.state import RacerRecord, RoomRecord, RosterEntry
from server.race.timers import RaceConfig
from server.rules import Game, Move, RuleSet, replay

__all__ = [
    "ADA", "BOB", "CAT", "CODE", "CONFIG", "CREATED", "HOST", "KEY", "LIMIT", "NOW", "ROOM_ID",
    "START", "STRANGER", "accepted", "after_types", "decided", "entry", "event_types",
    "game_of", "greedy_line", "load", "quick_state", "racer", "refusal", "room", "roster",
]

HOST = "host-token"
ADA = "ada-token"
BOB = "bob-token"
CAT = "cat-token"
STRANGER = "nobody-token"
"""A token that is nobody's in any room here."""

ROOM_ID = "room-0001"
CODE = "ABCDEF"
DEAL = 7
KEY = bytes(16)
CREATED = 1_000_000
"""When the rooms here were created (service clock, ms)."""
START = 2_000_000
"""When the races here start (service clock, ms)."""
LIMIT = 60_000
"""The rooms' time limit (ms)."""
NOW = START + 10_000
"""The service clock of a running race here: 10 s into it."""
CONFIG = RaceConfig()
_STARTED = ("racing", "over", "closed")


def entry(racer_id: str, name: str, order: int, token: str, **fields: Any) -> RosterEntry:
    """A roster entry whose token digest is ``token``'s."""
    return RosterEntry(id=racer_id, name=name, join_order=order,
                       token_digest=token_digest(token), **fields)


def roster(*names: str, ready: bool = False) -> list[RosterEntry]:
    """Entries of the racers ``"ada"``, ``"bob"``, ``"cat"`` (ids ``a``, ``b``,
    ``c``; tokens :data:`ADA`, :data:`BOB`, :data:`CAT`), in this join order."""
    tokens = {"ada": ("a", ADA), "bob": ("b", BOB), "cat": ("c", CAT)}
    return [entry(tokens[n][0], n, i, tokens[n][1], ready=ready)
            for i, n in enumerate(names, 1)]


def room(state: str = "waiting", racers: list[RosterEntry] | None = None,
         **fields: Any) -> RoomRecord:
    """A belle-lucie room in ``state`` (deal 7, private, 60 s, 3 s countdown,
    host token :data:`HOST`); started at :data:`START` when its state says so,
    over at :data:`NOW` when over (closed: after the start only with
    ``ended_ms``). ``racers``: the roster (default ada and bob)."""
    members = roster("ada", "bob") if racers is None else racers
    data: dict[str, Any] = {
        "id": ROOM_ID, "code": CODE,
        "rules": RuleSet.from_json({"variant": "belle-lucie"}).to_json(),
        "deal_number": DEAL, "redeal_key": KEY.hex(), "state": state, "capacity": 4,
        "time_limit_ms": LIMIT, "visibility": "private", "countdown_ms": 3_000,
        "host_digest": token_digest(HOST), "created_ms": CREATED, "roster": members,
        "joins": len(members),
    }
    if state in ("countdown", *_STARTED):
        data["start_at_ms"] = START
    if state == "over":
        data["ended_ms"] = NOW
    if state == "closed" and "ended_ms" not in fields:
        data["start_at_ms"] = None  # closed before its start
    data.update(fields)
    return RoomRecord.model_validate(data)


def quick_state(**fields: Any) -> QuickState:
    """A quick-race lobby's state: opened at :data:`CREATED`, 20 s wait, 30 s
    fill, 3 computer racers."""
    data: dict[str, Any] = {"slot": "belle-lucie:0", "band": 0, "opened_ms": CREATED,
                            "wait_ms": 20_000, "fill_ms": 30_000, "bots": 3}
    data.update(fields)
    return QuickState.model_validate(data)


def racer(racer_id: str = "a", **fields: Any) -> RacerRecord:
    """A racer record (a fresh one by default)."""
    return RacerRecord.model_validate({"id": racer_id, **fields})


def game_of(rm: RoomRecord, rec: RacerRecord) -> Game:
    """The racer's game on the room's deal, replayed from the record's log."""
    return replay(RuleSet.from_json(rm.rules), rm.deal_number, bytes.fromhex(rm.redeal_key),
                  [Move.from_text(text) for text, _ in rec.log])


def greedy_line(rules: RuleSet, deal_number: int, key: bytes = KEY) -> list[str]:
    """The moves of a greedy player (foundation, else tableau, else redeal) until
    the game is won or stuck: with undo off it always ends (a card built on its
    successor only moves on to the foundation)."""
    game = replay(rules, deal_number, key, [])
    line: list[str] = []
    while game.status == "playing":
        legal = game.legal_move_texts()
        pick = next((t for t in legal if t.endswith("f")), None) \
            or next((t for t in legal if "-" in t), None) \
            or next((t for t in legal if t == "r"), None)
        assert pick is not None, "a playing game has a legal move"
        line.append(pick)
        game = game.play(Move.from_text(pick))
        assert len(line) < 1_000
    return line


def load(rm: RoomRecord | None, *, now: int | None = None, rev: int = 5,
         rec: RacerRecord | None = None, racer_rev: int = 0, game: Game | None = None,
         racers: dict[str, RacerRecord] | None = None, answer: Any = None,
         known: bool = False, fresh_cards: int = 0) -> Loaded:
    """What the applier would load: ``rm`` at ``rev``, the clock ``now`` (default
    :data:`NOW` once started, else :data:`CREATED` + 1 s)."""
    if now is None:
        now = NOW if rm is not None and rm.start_at_ms is not None else CREATED + 1_000
    return Loaded(rm, rev if rm is not None else 0, now, rec, racer_rev, game, racers,
                  answer, known, fresh_cards)


def _snapshot(loaded: Loaded) -> tuple[Any, ...]:
    """Everything of ``loaded`` a decision could change in place."""
    return (
        None if loaded.room is None else loaded.room.model_dump(),
        loaded.rev, loaded.now,
        None if loaded.racer is None else loaded.racer.model_dump(),
        loaded.racer_rev,
        loaded.game, None if loaded.game is None else loaded.game.log,
        None if loaded.racers is None else {k: v.model_dump() for k, v in loaded.racers.items()},
        # UNREAD is a marker compared by identity: a deep copy would be another object
        loaded.answer if loaded.answer is UNREAD else copy.deepcopy(loaded.answer),
        loaded.known, loaded.fresh_cards,
    )


def _comparable(result: Result) -> Any:
    """``result`` in a form equal for equal decisions (an exception equals only itself)."""
    if isinstance(result, Refused):
        error = result.error
        return ("refused", type(error), error.code, error.message, error.details)
    return result


def decided(loaded: Loaded, command: Any, config: RaceConfig = CONFIG) -> Result:
    """``decide(loaded, command, config)``, checked pure: a second decision of the
    same input is equal, and neither the loaded records nor the command changed."""
    before, sent = _snapshot(loaded), copy.deepcopy(command)
    first = decide(loaded, command, config)
    second = decide(loaded, command, config)
    assert _comparable(first) == _comparable(second), "the same input decides alike"
    assert _snapshot(loaded) == before, "the decision changed its input records"
    assert command == sent, "the decision changed its command"
    return first


def refusal(result: Result) -> str:
    """The refusal's wire code (fails unless ``result`` is a refusal)."""
    assert isinstance(result, Refused), f"not refused: {result!r}"
    return result.error.code


def accepted(result: Result) -> Outcome[Any]:
    """The outcome (fails unless ``result`` is one)."""
    assert not isinstance(result, Refused | Prior | Reload), f"not an outcome: {result!r}"
    assert isinstance(result, Outcome)
    return result


def event_types(outcome: Outcome[Any]) -> list[str]:
    """The types of the outcome's events, in order."""
    return [e["type"] for e in outcome.events]


def after_types(outcome: Outcome[Any]) -> list[type]:
    """The types of the outcome's steps after the write, in order."""
    return [type(step) for step in outcome.after]
