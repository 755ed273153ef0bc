"""Decision table of a racer's focus loss (server/race/decide_racer.py,
``decide_focus_lost``; docs/fair-play.md, "Focus"): the gate's refusals, the
no-ops that are not refusals (before the start, after the racer's final
result or the race's end, within a second of race clock of the last loss,
past the cap), and the count written while the racer races — one racer
record, no event, nothing after the write. :func:`decided` also checks every
decision is pure."""

from __future__ import annotations

from typing import Any

import pytest

from server.race.commands import FocusLost
from server.race.decide import after_move
from server.race.decide_racer import FOCUS_CAP, FOCUS_GAP_MS
from server.race.state import RacerRecord, RoomRecord
from server.rules import Move

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
    game_of,
    load,
    racer,
    refusal,
    room,
)

CLOCK = NOW - START
"""The race clock of :data:`NOW` (ms)."""


def focus(racer_id: str = "a", token: str | None = ADA) -> FocusLost:
    return FocusLost(CODE, racer_id, token)


REFUSALS = [
    pytest.param(room("racing"), focus(token=None), "auth/missing", id="no-token"),
    pytest.param(room("racing"), focus(token=""), "auth/missing", id="empty-token"),
    pytest.param(None, focus(), "room/not_found", id="no-room"),
    pytest.param(room("racing"), focus("z"), "racer/not_found", id="no-such-racer"),
    pytest.param(room("racing"), focus(token=BOB), "auth/forbidden", id="a-rivals-token"),
    pytest.param(room("racing"), focus(token=HOST), "auth/forbidden", id="the-host-token"),
    pytest.param(room("racing"), focus(token=STRANGER), "auth/invalid_token",
                 id="nobodys-token"),
    pytest.param(room("waiting"), focus(token=STRANGER), "auth/invalid_token",
                 id="credentials-before-state"),
]


@pytest.mark.parametrize(("rm", "cmd", "code"), REFUSALS)
def test_focus_refusals(rm: RoomRecord | None, cmd: FocusLost, code: str) -> None:
    assert refusal(decided(load(rm, rec=racer()), cmd)) == code


def _counted(loaded: Any) -> RacerRecord:
    """The racer record the decision writes (and checks it writes nothing else)."""
    out = accepted(decided(loaded, focus()))
    assert out.room is None and out.racer is not None
    assert out.events == [] and out.after == () and out.answer is None and out.reply is None
    assert not out.archive and out.game is None and not out.again
    return out.racer


def _nothing(loaded: Any) -> None:
    out = accepted(decided(loaded, focus()))
    assert out.room is None and out.racer is None and out.events == [] and out.after == ()
    assert out.reply is None


def test_a_focus_loss_while_racing_is_counted_at_the_race_clock() -> None:
    rec = racer(status="playing", log=[["1f", 2_000]], foundation_cards=5,
                reach_time_ms=2_000)
    written = _counted(load(room("racing"), rec=rec, racer_rev=3))
    assert (written.focus_losses, written.focus_last_ms) == (1, CLOCK)
    unchanged = written.model_dump(exclude={"focus_losses", "focus_last_ms"})
    assert unchanged == rec.model_dump(exclude={"focus_losses", "focus_last_ms"})


def test_a_fresh_record_counts_from_zero() -> None:
    assert RacerRecord(id="a").focus_losses == 0 and RacerRecord(id="a").focus_last_ms is None
    # a record stored before the field existed loads with 0
    old = RacerRecord.model_validate({"id": "a", "status": "playing", "log": [],
                                      "foundation_cards": 0, "redeals_used": 0,
                                      "merci_used": False, "reach_time_ms": None,
                                      "finished_ms": None, "final": False})
    assert (old.focus_losses, old.focus_last_ms) == (0, None)
    assert _counted(load(room("racing"), rec=old)).focus_losses == 1


@pytest.mark.parametrize(("since_last", "counts"), [
    (0, False), (1, False), (FOCUS_GAP_MS - 1, False), (FOCUS_GAP_MS, True),
    (FOCUS_GAP_MS + 1, True), (9_000, True)])
def test_at_most_one_loss_per_second_of_race_clock(since_last: int, counts: bool) -> None:
    rec = racer(status="playing", focus_losses=4, focus_last_ms=CLOCK - since_last)
    loaded = load(room("racing"), rec=rec)
    if counts:
        written = _counted(loaded)
        assert (written.focus_losses, written.focus_last_ms) == (5, CLOCK)
    else:
        _nothing(loaded)


def test_a_flood_counts_one_loss_per_second() -> None:
    """Reports every 100 ms over 10 s of race clock: 10 losses, 10 writes."""
    rec, writes = racer(status="playing"), 0
    for step in range(100):
        out = accepted(decided(load(room("racing"), rec=rec, now=START + step * 100), focus()))
        if out.racer is not None:
            rec, writes = out.racer, writes + 1
    assert rec.focus_losses == writes == 10


def test_the_count_is_capped() -> None:
    assert FOCUS_CAP == 1_000
    below = racer(status="playing", focus_losses=FOCUS_CAP - 1, focus_last_ms=0)
    assert _counted(load(room("racing"), rec=below)).focus_losses == FOCUS_CAP
    _nothing(load(room("racing"),
                  rec=racer(status="playing", focus_losses=FOCUS_CAP, focus_last_ms=0)))


NOTHING = [
    pytest.param(room("waiting"), None, None, id="waiting"),
    pytest.param(room("countdown"), None, START - 1_000, id="countdown"),
    pytest.param(room("over"), racer(status="won", final=True, finished_ms=5_000), None,
                 id="over"),
    pytest.param(room("over"), racer(status="playing"), None, id="over-unfinished-record"),
    pytest.param(room("closed", ended_ms=NOW), racer(status="playing"), None,
                 id="closed-mid-race"),
    pytest.param(room("closed"), None, None, id="closed-before-the-start"),
    pytest.param(room("racing"), racer(status="won", final=True, finished_ms=5_000), None,
                 id="won"),
    pytest.param(room("racing"), racer(status="resigned", final=True, finished_ms=5_000),
                 None, id="resigned"),
    pytest.param(room("racing"), racer(status="left", final=True, finished_ms=5_000), None,
                 id="left"),
    pytest.param(room("racing"), racer(status="stuck", final=True, finished_ms=5_000), None,
                 id="stuck-without-undo"),
    pytest.param(room("racing"), racer(status="playing"), START + LIMIT,
                 id="past-the-time-limit"),
]


@pytest.mark.parametrize(("rm", "rec", "now"), NOTHING)
def test_no_count_outside_the_race_is_nothing_and_no_refusal(
        rm: RoomRecord, rec: RacerRecord | None, now: int | None) -> None:
    _nothing(load(rm, rec=rec, now=now))


def test_a_move_keeps_the_count() -> None:
    """The move's fast record builder (``after_move``) carries the count on."""
    rm = room("racing")
    rec = racer(status="playing", focus_losses=3, focus_last_ms=4_000)
    game = game_of(rm, rec)
    moved = after_move(rec, game.play(Move.from_text(game.legal_move_texts()[0])), CLOCK)
    assert (moved.focus_losses, moved.focus_last_ms) == (3, 4_000) and moved.version == 1
