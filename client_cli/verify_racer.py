"""``lucie verify``'s check of one racer (docs/client.md, "Verifying a race"):
their move log replayed on the engine against every view of their result.

:func:`check_racer` replays the log on the revealed deal and redeal key —
every move legal, numbered in order, at a race clock from 0, never going
back, before the time limit — and compares what the engine makes of it (the
moves counted, the foundation cards, the reach time: the race clock of the
last move that changed the foundation count, rules.md "Race ranking"; the
redeals and the merci used; the status where the engine can tell it,
``won`` exactly when every card is up, ``stuck`` when no move is left) with
what each view publishes: the standings line, the race view, the room view
and the replay's own result. The views must agree on the rest (name, join
order, status, final, ``finished_ms``), and ``finished_ms`` is neither
before the last move nor after the time limit. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from server.rules import RulesError, RuleSet, new_game, parse_move

from .verify_doc import (
    Check,
    Document,
    Racer,
    ReplayMove,
    Standing,
    as_json,
    clip,
    join_words,
    racer_name,
    short,
)

__all__ = ["check_racer"]

_View = Standing | Racer
_ABSENT: Final = object()


def _claims(views: list[tuple[str, _View]], field: str) -> dict[Any, list[str]]:
    """``field``'s values among ``views`` (those that have it) → who says each."""
    out: dict[Any, list[str]] = {}
    for label, view in views:
        value = getattr(view, field, _ABSENT)
        if value is not _ABSENT:
            out.setdefault(value, []).append(label)
    return out


def _say(labels: list[str]) -> str:
    """``"standings say"``, ``"the race view says"``, ``"standings and the race view say"``."""
    plural = len(labels) > 1 or labels[0] == "standings"
    return join_words(labels) + (" say" if plural else " says")


def _timing(moves: list[ReplayMove], limit: int) -> list[str]:
    """What is wrong with the moves' numbers and race-clock times (first of each kind)."""
    found: dict[str, str] = {}
    previous: ReplayMove | None = None
    for i, entry in enumerate(moves, 1):
        clock = entry.race_clock_ms
        if entry.version != i:
            found.setdefault("version", f"move {i} is numbered {entry.version}")
        if clock < 0:
            found.setdefault("negative", f"move {i} at {clock} ms of race clock, before "
                             "the start")
        if previous is not None and clock < previous.race_clock_ms:
            found.setdefault("order", f"move {i} at {clock} ms of race clock, before move "
                             f"{i - 1} ({previous.race_clock_ms} ms)")
        if clock >= limit:
            found.setdefault("limit", f"move {i} at {clock} ms of race clock, at or after "
                             f"the time limit ({limit} ms)")
        previous = entry
    return list(found.values())


@dataclass(frozen=True, slots=True)
class _Replayed:
    """What the engine makes of a move log."""

    moves: int
    foundation_cards: int
    redeals_used: int
    merci_used: bool
    reach_time_ms: int | None
    reach_move: int
    status: str


def _replay(rules: RuleSet, deal: int, key: str, moves: list[ReplayMove]) -> _Replayed | str:
    """The log replayed on the engine, or what stopped it."""
    try:
        game = new_game(rules, deal, bytes.fromhex(key))
    except RulesError as exc:
        return f"the revealed deal cannot be dealt: {exc}"
    cards, reach, reach_move = game.position.foundation_cards, None, 0
    for i, entry in enumerate(moves, 1):
        try:
            game = game.play(parse_move(entry.move)).with_log(())
        except RulesError as exc:
            kind = "is illegal in the engine" if exc.code == "move/illegal" else "is not a move"
            return f"move {i} ({clip(entry.move)}) {kind}: {exc}"
        if game.position.foundation_cards != cards:
            cards, reach, reach_move = game.position.foundation_cards, entry.race_clock_ms, i
    pos = game.position
    return _Replayed(len(moves), pos.foundation_cards, pos.redeals_used, pos.merci_used,
                     reach, reach_move, game.status)


def _against_engine(done: _Replayed, views: list[tuple[str, _View]]) -> list[str]:
    """Where the views' results are not the replay's."""
    reached = (f"the foundation count last changed at move {done.reach_move} "
               f"({done.reach_time_ms} ms of race clock)" if done.reach_time_ms is not None
               else "no move changed the foundation count")
    wording: list[tuple[str, Any, Callable[[Any, str], str]]] = [
        ("moves", done.moves, lambda v, say: f"the log holds {done.moves} moves, {say} {v}"),
        ("foundation_cards", done.foundation_cards, lambda v, say: "replay reaches "
         f"{done.foundation_cards} foundation cards, {say} {v}"),
        ("reach_time_ms", done.reach_time_ms, lambda v, say: f"{reached}, {say} reach time "
         + ("none" if v is None else f"{v} ms")),
        ("redeals_used", done.redeals_used, lambda v, say: "the replay used "
         f"{done.redeals_used} redeals, {say} {v}"),
        ("merci_used", done.merci_used, lambda v, say: "the replay "
         f"{'used' if done.merci_used else 'did not use'} the merci, {say} merci_used "
         f"{as_json(v)}"),
    ]
    problems = []
    for field, wanted, text in wording:
        for value, labels in _claims(views, field).items():
            if value != wanted:
                problems.append(text(value, _say(labels)))
    for claimed, labels in _claims(views, "status").items():
        if (done.status == "won") != (claimed == "won") or (claimed == "stuck"
                                                            and done.status != "stuck"):
            problems.append(f"the replay ends {done.status}, {_say(labels)} {claimed}")
    return problems


def _between_views(views: list[tuple[str, _View]], player: str) -> list[str]:
    """Where the views disagree on what the engine cannot tell, and the replay's
    player is not the racer's name."""
    problems = []
    for field in ("name", "join_order", "status", "final", "finished_ms"):
        claims = _claims(views, field)
        if len(claims) > 1:
            said = [f"{_say(labels)} {as_json(value)}" for value, labels in claims.items()]
            problems.append(f"the views disagree on {field}: " + ", ".join(said))
    names = list(_claims(views, "name"))
    if player not in names:
        problems.append(f"the replay is of player {as_json(clip(player))}, not "
                        f"{as_json(names[0])}")
    return problems


def _finish(views: list[tuple[str, _View]], moves: list[ReplayMove], limit: int) -> list[str]:
    """``finished_ms`` not before the last move, nor after the time limit."""
    problems = []
    last = moves[-1].race_clock_ms if moves else 0
    for finished, labels in _claims(views, "finished_ms").items():
        if finished is None:
            continue
        if finished < last:
            problems.append(f"{_say(labels)} finished_ms {finished}, before "
                            + (f"the last move ({last} ms)" if moves else "the start"))
        if finished > limit:
            problems.append(f"{_say(labels)} finished_ms {finished}, after the time limit "
                            f"({limit} ms)")
    return problems


def _first(items: Iterable[Any], rid: str, attr: str) -> Any:
    return next((item for item in items if getattr(item, attr) == rid), None)


def check_racer(rules: RuleSet, document: Document, rid: str) -> Check:
    """One racer's move log replayed on the engine against every view of their result."""
    room, race = document.room, document.race
    who = f"racer {racer_name(document, rid)}"
    replay = document.replays.get(rid)
    if replay is None:
        return Check(False, f"{who}: no move log in the document")
    deal, key = room.deal_number, room.redeal_key
    if deal is None or key is None:
        return Check(False, f"{who}: nothing to replay on: the room reveals no "
                     f"{'deal_number' if deal is None else 'redeal_key'}")
    if (replay.deal_number, replay.redeal_key) != (deal, key):
        return Check(False, f"{who}: the move log is for deal {replay.deal_number} "
                     f"(redeal key {short(replay.redeal_key)}), the room revealed "
                     f"deal {deal} (redeal key {short(key)})")
    candidates: list[tuple[str, _View | None]] = [
        ("standings", _first(race.standings.standings, rid, "racer")),
        ("the race view", _first(race.racers, rid, "id")),
        ("the room view", _first(room.racers, rid, "id")),
        ("the replay's result", replay.result)]
    views = [(label, view) for label, view in candidates if view is not None]
    done = _replay(rules, deal, key, replay.moves)
    problems = [done] if isinstance(done, str) else _against_engine(done, views)
    problems += _between_views(views, replay.player)
    problems += _timing(replay.moves, room.time_limit_ms)
    problems += _finish(views, replay.moves, room.time_limit_ms)
    if problems or isinstance(done, str):
        return Check(False, f"{who}: " + "; ".join(problems))
    label, view = views[0]
    reach = "no reach time" if done.reach_time_ms is None else \
        f"reach time {done.reach_time_ms} ms"
    return Check(True, f"{who}: {done.moves} moves replayed, {done.foundation_cards} "
                 f"foundation cards, {reach}, {view.status}, as "
                 + ("the standings say" if label == "standings" else _say([label])))
