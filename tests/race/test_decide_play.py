"""Decision table of a racer's move (``decide_play`` in server/race/decide.py):
PlayMove, and the Undo and Autoplay helpers that make one.

The refusal table gives every code the move's decision can give, in the
authority's order (auth → room → answer → state → version → rules); the
other tests check the accepted move (the racer record written, never the
room; its events, the stored answer, the ack, the steps after a final
result), :class:`~server.race.outcome.FirstAnswer` for a repeated client move
id and :class:`~server.race.outcome.Reload` for a refusal decided on cached
records (the stored answer unread). :func:`decided` checks each is pure.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.race.commands import Autoplay, PlayMove, Undo
from server.race.outcome import (
    UNREAD,
    CheckRaceEnd,
    FirstAnswer,
    Loaded,
    RacerFinal,
    Refused,
    Reload,
)
from server.race.state import RacerRecord, RoomRecord
from server.rules import Game, IllegalMoveError, Move, RuleSet

from .decide_tables import (
    ADA,
    BOB,
    CODE,
    HOST,
    LIMIT,
    NOW,
    START,
    STRANGER,
    accepted,
    decided,
    event_types,
    game_of,
    greedy_line,
    load,
    racer,
    refusal,
    room,
)

RACING = room("racing")
NO_UNDO = RuleSet.from_json({"variant": "belle-lucie"}).with_overrides(
    redeals=None, merci=None, undo=False)
FIRST = {"version": 1, "applied": 1, "reach_time_ms": 4_000}
"""A stored first answer."""


def play(move: Any, version: int = 0, token: str | None = ADA, racer_id: str = "a",
         cid: str = "m1") -> PlayMove:
    return PlayMove(CODE, racer_id, token, move, version, cid)


def played(rm: RoomRecord, moves: list[str], **fields: Any) -> tuple[RacerRecord, Game]:
    """Racer ``a``'s record after ``moves`` (the i-th at race clock 100·i ms) and its game."""
    log: list[Any] = [[text, 100 * i] for i, text in enumerate(moves, 1)]
    game = game_of(rm, racer("a", log=log))
    cards, reach = 0, None
    probe = game_of(rm, racer("a"))
    for i, text in enumerate(moves, 1):
        probe = probe.play(Move.from_text(text))
        if probe.foundation_cards != cards:
            cards, reach = probe.foundation_cards, 100 * i
    data = {"status": "playing" if moves else "waiting", "log": log,
            "foundation_cards": game.foundation_cards,
            "redeals_used": game.position.redeals_used, "reach_time_ms": reach, **fields}
    return racer("a", **data), game


FRESH, FRESH_GAME = played(RACING, [])
MOVED, MOVED_GAME = played(RACING, ["16f"])
FINAL, FINAL_GAME = played(RACING, ["16f"], status="resigned", final=True, finished_ms=900)


def racing(rm: RoomRecord = RACING, rec: RacerRecord = FRESH, game: Game | None = FRESH_GAME,
           answer: Any = None, now: int = NOW, known: bool = False) -> Loaded:
    return load(rm, now=now, rec=rec, racer_rev=3 if rec.log else 0, game=game,
                answer=answer, known=known)


# -- refusals -------------------------------------------------------------------------

PLAY_REFUSALS = [
    pytest.param(racing(), play("16f", token=None), "auth/missing", id="no-token"),
    pytest.param(racing(), play("16f", token=""), "auth/missing", id="empty-token"),
    pytest.param(load(None), play("16f", token=None), "auth/missing", id="no-token-no-room"),
    pytest.param(load(None), play("16f"), "room/not_found", id="no-room"),
    pytest.param(racing(game=None), play("16f", racer_id="z"), "racer/not_found",
                 id="no-such-racer"),
    pytest.param(racing(), play("16f", token=STRANGER), "auth/invalid_token",
                 id="nobody-token"),
    pytest.param(racing(), play("16f", token=BOB), "auth/forbidden", id="another-racer-token"),
    pytest.param(racing(), play("16f", token=HOST), "auth/forbidden", id="host-token"),
    pytest.param(racing(room("over")), play("zz", token=BOB), "auth/forbidden",
                 id="token-before-state"),
    pytest.param(racing(room("over"), answer=FIRST), play("16f", token=BOB), "auth/forbidden",
                 id="token-before-answer"),
    pytest.param(racing(room()), play("16f"), "room/not_racing", id="waiting"),
    pytest.param(racing(room("countdown")), play("16f"), "room/not_racing", id="countdown"),
    pytest.param(racing(room("over")), play("16f"), "room/over", id="over"),
    pytest.param(racing(room("closed", ended_ms=NOW)), play("16f"), "room/over",
                 id="closed-after-start"),
    pytest.param(racing(room("closed")), play("16f"), "room/over", id="closed"),
    pytest.param(racing(room("over"), FINAL, FINAL_GAME), play("zz", 7), "room/over",
                 id="state-before-result"),
    pytest.param(racing(rec=FINAL, game=FINAL_GAME), play("10-6", 1), "racer/finished",
                 id="result-final"),
    pytest.param(racing(rec=FINAL, game=FINAL_GAME), play("zz", 0), "racer/finished",
                 id="result-before-version"),
    pytest.param(racing(), play("16f", 1), "move/stale_version", id="version-ahead"),
    pytest.param(racing(rec=MOVED, game=MOVED_GAME), play("10-6", 0), "move/stale_version",
                 id="version-behind"),
    pytest.param(racing(), play("zz", 1), "move/stale_version", id="version-before-parse"),
    pytest.param(racing(), play("zz"), "move/invalid", id="not-a-move"),
    pytest.param(racing(), play(""), "move/invalid", id="empty-text"),
    pytest.param(racing(), play(42), "move/invalid", id="a-number"),
    pytest.param(racing(), play(None), "move/invalid", id="null"),
    pytest.param(racing(), play({"type": "bogus"}), "move/invalid", id="unknown-type"),
    pytest.param(racing(), play("1f"), "move/illegal", id="not-to-its-foundation-yet"),
    pytest.param(racing(), play("17-1"), "move/illegal", id="does-not-build"),
    pytest.param(racing(), play({"type": "play", "from": "1", "to": "f"}), "move/illegal",
                 id="json-illegal"),
    pytest.param(racing(), play("c1f"), "move/illegal", id="no-free-cells"),
    pytest.param(racing(), Undo(CODE, "a", ADA, 0, "m1"), "move/illegal", id="nothing-to-undo"),
    pytest.param(racing(rec=MOVED, game=MOVED_GAME), Autoplay(CODE, "a", ADA, 1, "m1"),
                 "move/illegal", id="nothing-to-autoplay"),
]


@pytest.mark.parametrize(("loaded", "cmd", "code"), PLAY_REFUSALS)
def test_play_refusals(loaded: Loaded, cmd: PlayMove, code: str) -> None:
    assert refusal(decided(loaded, cmd)) == code


def test_play_refusals_cover_a_room_without_undo() -> None:
    rm = room("racing", rules=NO_UNDO.to_json())
    rec, game = played(rm, ["16f"])
    assert refusal(decided(racing(rm, rec, game), Undo(CODE, "a", ADA, 1, "m2"))) \
        == "move/illegal"


def test_stale_version_shows_the_current_game() -> None:
    result = decided(racing(rec=MOVED, game=MOVED_GAME), play("10-6", 0))
    assert refusal(result) == "move/stale_version"
    assert isinstance(result, Refused)
    shown = result.error.details["game"]
    assert (shown["racer"], shown["version"], shown["status"]) == ("a", 1, "playing")
    assert shown["legal_moves"] == MOVED_GAME.legal_move_texts() and shown["can_undo"]
    assert (shown["race_clock_ms"], shown["reach_time_ms"]) == (NOW - START, 100)
    assert shown["position"]["foundation_cards"] == 1


@pytest.mark.parametrize(("cmd", "code"), [
    pytest.param(play("16f", token=None), "auth/missing", id="no-token"),
    pytest.param(play("16f", racer_id="z"), "racer/not_found", id="no-such-racer"),
    pytest.param(play("16f", token=STRANGER), "auth/invalid_token", id="nobody-token"),
    pytest.param(play("16f", token=BOB), "auth/forbidden", id="another-racer-token"),
])
def test_credentials_are_refused_on_cached_records_too(cmd: PlayMove, code: str) -> None:
    assert refusal(decided(racing(answer=UNREAD, known=True), cmd)) == code


@pytest.mark.parametrize(("rec", "game", "cmd"), [
    pytest.param(FINAL, FINAL_GAME, play("10-6", 1), id="result-final"),
    pytest.param(FRESH, FRESH_GAME, play("16f", 1), id="stale-version"),
    pytest.param(FRESH, FRESH_GAME, play("zz"), id="invalid"),
    pytest.param(FRESH, FRESH_GAME, play("1f"), id="illegal"),
    pytest.param(FRESH, FRESH_GAME, Undo(CODE, "a", ADA, 0, "m1"), id="illegal-undo"),
])
def test_a_refused_move_on_cached_records_reloads(rec: RacerRecord, game: Game,
                                                  cmd: PlayMove) -> None:
    assert decided(racing(rec=rec, game=game, answer=UNREAD, known=True), cmd) == Reload()


@pytest.mark.parametrize("rm", [
    pytest.param(room("over"), id="over"),
    pytest.param(room("closed", ended_ms=NOW), id="closed"),
    pytest.param(room("countdown"), id="countdown"),
])
def test_a_room_not_racing_on_cached_records_reloads(rm: RoomRecord) -> None:
    """A repeated client move id is answered before the room's state: cached
    records (the answer unread) cannot refuse a move for the room's state."""
    assert decided(racing(rm, answer=UNREAD, known=True), play("16f")) == Reload()


def test_a_move_past_the_time_limit_is_refused() -> None:
    """The race is over at its time limit even before its end is written: the
    decision never logs a move at a race clock past the limit."""
    past = START + LIMIT + 5_000
    assert refusal(decided(racing(now=past), play("16f"))) == "room/over"
    assert decided(racing(now=past, answer=UNREAD, known=True), play("16f")) == Reload()


def test_the_unread_marker_survives_a_copy() -> None:
    import copy
    import pickle
    assert copy.copy(UNREAD) is UNREAD and copy.deepcopy(UNREAD) is UNREAD
    assert pickle.loads(pickle.dumps(UNREAD)) is UNREAD


# -- a repeated client move id --------------------------------------------------------

@pytest.mark.parametrize(("rm", "rec", "game", "cmd"), [
    pytest.param(RACING, MOVED, MOVED_GAME, play("16f", 0), id="the-same-move-again"),
    pytest.param(RACING, MOVED, MOVED_GAME, play("zz", 9), id="before-the-rules"),
    pytest.param(RACING, FINAL, FINAL_GAME, play("16f", 0), id="result-final-since"),
    pytest.param(room("over"), MOVED, MOVED_GAME, play("16f", 0), id="race-over-since"),
    pytest.param(room("closed", ended_ms=NOW), MOVED, MOVED_GAME, play("16f", 0),
                 id="closed-since"),
])
def test_a_repeated_client_move_id_gets_its_first_answer(
        rm: RoomRecord, rec: RacerRecord, game: Game, cmd: PlayMove) -> None:
    out = accepted(decided(racing(rm, rec, game, answer=FIRST), cmd))
    assert out.reply == FirstAnswer(FIRST, rec.log, rm)
    assert (out.room, out.racer, out.events, out.answer, out.after) == (None, None, [], None, ())
    assert out.game is None


# -- accepted moves -------------------------------------------------------------------

@pytest.mark.parametrize("answer", [None, UNREAD], ids=["answer-read", "cached"])
def test_a_foundation_move_is_written_to_the_racer_record(answer: Any) -> None:
    now = START + 12_345
    out = accepted(decided(racing(now=now, answer=answer, known=answer is UNREAD),
                           play("16f", 0, cid="c-1")))
    assert out.room is None
    new = out.racer
    assert new is not None
    assert (new.id, new.status, new.final, new.finished_ms) == ("a", "playing", False, None)
    assert [list(e) for e in new.log] == [["16f", 12_345]]
    assert (new.foundation_cards, new.reach_time_ms, new.version) == (1, 12_345, 1)
    assert out.answer == ("c-1", {"version": 1, "applied": 1, "reach_time_ms": 12_345})
    assert out.events == [{"type": "progress", "race_clock_ms": 12_345, "racer": "a",
                           "foundation_cards": 1, "moves": 1, "redeals_used": 0,
                           "merci_used": False, "status": "playing",
                           "reach_time_ms": 12_345}]
    assert out.after == () and not out.again and not out.archive
    assert out.game is not None and [str(m) for m in out.game.log] == ["16f"]
    ack = out.reply
    assert (ack.client_move_id, ack.version, ack.race_clock_ms, ack.applied) == (
        "c-1", 1, 12_345, ["16f"])
    view = ack.game
    assert (view.racer, view.version, view.status, view.final) == ("a", 1, "playing", False)
    assert view.legal_moves == out.game.legal_move_texts() and view.can_undo
    assert (view.race_clock_ms, view.reach_time_ms, view.moves) == (12_345, 12_345, 1)
    assert view.position.foundation_cards == 1


def test_a_move_in_its_json_form_is_the_same_move() -> None:
    text = accepted(decided(racing(), play("16f")))
    json_form = accepted(decided(racing(), play({"type": "play", "from": "16", "to": "f"})))
    assert json_form.racer == text.racer and json_form.reply == text.reply
    assert json_form.events == text.events and json_form.answer == text.answer


def test_a_tableau_move_keeps_the_reach_time() -> None:
    out = accepted(decided(racing(rec=MOVED, game=MOVED_GAME), play("10-6", 1, cid="m2")))
    new = out.racer
    assert new is not None
    assert [list(e) for e in new.log] == [["16f", 100], ["10-6", NOW - START]]
    assert (new.foundation_cards, new.reach_time_ms) == (1, 100)
    assert out.answer == ("m2", {"version": 2, "applied": 1, "reach_time_ms": 100})
    assert event_types(out) == ["progress"]


def test_undo_is_an_entry_of_the_log() -> None:
    cmd = Undo(CODE, "a", ADA, 1, "m2")
    assert cmd == PlayMove(CODE, "a", ADA, "u", 1, "m2")
    out = accepted(decided(racing(rec=MOVED, game=MOVED_GAME), cmd))
    new = out.racer
    assert new is not None
    assert [list(e) for e in new.log] == [["16f", 100], ["u", NOW - START]]
    # the foundation count changed back: the undo's time is the reach time
    assert (new.foundation_cards, new.reach_time_ms, new.version) == (0, NOW - START, 2)
    assert out.reply.applied == ["u"]
    assert out.game is not None and out.game.position == FRESH_GAME.position


def test_autoplay_becomes_the_moves_it_made() -> None:
    line = greedy_line(RuleSet.from_json(RACING.rules), RACING.deal_number)
    rec, game = played(RACING, line[:6])
    expanded = [str(m) for m in game.expand(Move.from_text("a"))]
    assert len(expanded) >= 2  # deal 7: several foundation moves at once here
    cmd = Autoplay(CODE, "a", ADA, 6, "m7")
    assert cmd == PlayMove(CODE, "a", ADA, "a", 6, "m7")
    out = accepted(decided(racing(rec=rec, game=game), cmd))
    new = out.racer
    assert new is not None
    clock = NOW - START
    assert [list(e) for e in new.log[6:]] == [[t, clock] for t in expanded]
    assert new.foundation_cards == rec.foundation_cards + len(expanded)
    assert new.version == 6 + len(expanded) == out.reply.version
    assert out.reply.applied == expanded
    assert out.answer == ("m7", {"version": new.version, "applied": len(expanded),
                                 "reach_time_ms": clock})
    assert event_types(out) == ["progress"]


def _before_the_end(deal_number: int) -> tuple[RoomRecord, RacerRecord, Game, str]:
    """A racing room without undo on ``deal_number`` and racer ``a`` one greedy move
    before the end of the game (won or stuck), with that move."""
    rm = room("racing", rules=NO_UNDO.to_json(), deal_number=deal_number)
    line = greedy_line(NO_UNDO, deal_number)
    rec, game = played(rm, line[:-1])
    return rm, rec, game, line[-1]


@pytest.mark.parametrize(("deal_number", "status", "cards"), [
    pytest.param(24, "stuck", 5, id="stuck-without-undo"),
    pytest.param(58, "won", 52, id="won"),
])
def test_a_move_that_ends_the_game_makes_the_result_final(deal_number: int, status: str,
                                                          cards: int) -> None:
    rm, rec, game, last = _before_the_end(deal_number)
    version = rec.version
    out = accepted(decided(racing(rm, rec, game), play(last, version, cid="end")))
    new = out.racer
    clock = NOW - START
    assert new is not None and out.room is None
    assert (new.status, new.final, new.finished_ms) == (status, True, clock)
    assert (new.foundation_cards, new.version) == (cards, version + 1)
    assert event_types(out) == ["progress", "finished"]
    assert out.events[1] == {"type": "finished", "race_clock_ms": clock, "racer": "a",
                             "status": status}
    assert out.after == (RacerFinal(), CheckRaceEnd())
    view = out.reply.game
    assert (view.status, view.final, view.legal_moves, view.can_undo) == (status, True, [],
                                                                          False)


def test_stuck_with_undo_is_not_final() -> None:
    line = greedy_line(NO_UNDO, 24)
    rm = room("racing", deal_number=24)  # undo on
    rec, game = played(rm, line[:-1])
    out = accepted(decided(racing(rm, rec, game), play(line[-1], rec.version)))
    new = out.racer
    assert new is not None
    assert (new.status, new.final, new.finished_ms) == ("stuck", False, None)
    assert event_types(out) == ["progress"] and out.after == ()
    assert out.reply.game.can_undo


def test_an_illegal_move_changes_no_game() -> None:
    """The refused move leaves the loaded game as it was (the engine's games are
    values; :func:`decided` checks the records)."""
    before = FRESH_GAME.position
    with pytest.raises(IllegalMoveError):
        FRESH_GAME.play(Move.from_text("1f"))
    assert refusal(decided(racing(), play("1f"))) == "move/illegal"
    assert FRESH_GAME.position == before and FRESH_GAME.log == ()
