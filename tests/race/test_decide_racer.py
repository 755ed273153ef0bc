"""Decision tables of the racers' commands (server/race/decide_racer.py): Join,
TakeQuickSeat, Ready, Leave, Resign, TimeOut.

Each command has a table of its refusals (input records + command → the
refusal's code: every code its decision can give, and the order of the checks
where two apply) and tests of its accepted outcomes: the record written (the
room, or the racer during a race), the events in order, the reply and the
steps after the write. :func:`decided` also checks every decision is pure.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.race.commands import Join, Kick, Leave, Ready, Resign, TakeQuickSeat, TimeOut
from server.race.ids import token_digest
from server.race.outcome import CheckRaceEnd, Expire, RacerFinal, RaceStarted, SaveFresh
from server.race.state import RacerRecord, RoomRecord, RosterEntry
from server.race.timers import race_ttl_ms

from .decide_tables import (
    ADA,
    BOB,
    CODE,
    CONFIG,
    CREATED,
    HOST,
    LIMIT,
    NOW,
    START,
    STRANGER,
    accepted,
    decided,
    entry,
    event_types,
    load,
    quick_state,
    racer,
    refusal,
    room,
    roster,
)

ZED = "zed-token"


def join(name: str = "zed", kind: type[Join] = Join, **fields: Any) -> Join:
    return kind(CODE, name, "z", token_digest(ZED), **fields)


def bot(n: int, order: int) -> RosterEntry:
    return entry(f"bot{n}", f"Bot {n}", order, f"bot-{n}", bot=True)


def lobby(*names: str, capacity: int = 4, **quick: Any) -> RoomRecord:
    return room(racers=roster(*names), capacity=capacity, visibility="public",
                quick=quick_state(**quick))


# -- Join -----------------------------------------------------------------------------

JOIN_REFUSALS = [
    pytest.param(room(), join(""), "request/invalid", id="empty-name"),
    pytest.param(room(), join("   "), "request/invalid", id="blank-name"),
    pytest.param(room(), join("ze\td"), "request/invalid", id="tab-in-name"),
    pytest.param(room(), join("ze\u200bd"), "request/invalid", id="zero-width-in-name"),
    pytest.param(room(), join("z" * 25), "request/invalid", id="name-too-long"),
    pytest.param(None, join(""), "request/invalid", id="name-checked-before-room"),
    pytest.param(None, join(), "room/not_found", id="no-room"),
    pytest.param(room("countdown"), join(), "room/not_waiting", id="countdown"),
    pytest.param(room("racing"), join(), "room/not_waiting", id="racing"),
    pytest.param(room("over"), join(), "room/not_waiting", id="over"),
    pytest.param(room("closed"), join(), "room/not_waiting", id="closed"),
    pytest.param(room("countdown", capacity=2), join("ada"), "room/not_waiting",
                 id="state-before-capacity"),
    pytest.param(room(capacity=2), join(), "room/full", id="full"),
    pytest.param(room(capacity=2), join("ada"), "room/full", id="capacity-before-name"),
    pytest.param(room(), join("ada"), "racer/name_taken", id="same-name"),
    pytest.param(room(), join("  ADA "), "racer/name_taken", id="same-name-other-case"),
    pytest.param(room(), join("\uff21\uff44\uff41"), "racer/name_taken",
                 id="same-name-fullwidth"),
    pytest.param(room(racers=[entry("a", "ada", 1, ADA, player="p1")]), join(player="p1"),
                 "racer/name_taken", id="same-player"),
]


@pytest.mark.parametrize(("rm", "cmd", "code"), JOIN_REFUSALS)
def test_join_refusals(rm: RoomRecord | None, cmd: Join, code: str) -> None:
    assert refusal(decided(load(rm), cmd)) == code


def test_join_seats_the_racer_in_the_room() -> None:
    rm = room(joins=5)
    loaded = load(rm, fresh_cards=4)
    out = accepted(decided(loaded, join("  Zed   Z ", player="p9")))
    new = out.room
    assert new is not None and out.racer is None
    seat = RosterEntry(id="z", name="Zed Z", join_order=6, token_digest=token_digest(ZED),
                       player="p9")
    assert new.roster == [*rm.roster, seat] and new.joins == 6
    assert new.model_copy(update={"roster": rm.roster, "joins": 5}) == rm
    view, written = out.reply
    assert written is new
    assert (view.id, view.name, view.join_order, view.status) == ("z", "Zed Z", 6, "waiting")
    assert (view.foundation_cards, view.moves, view.player, view.bot) == (4, 0, "p9", False)
    assert out.events == [{"type": "joined", "race_clock_ms": None,
                           "racer": view.model_dump(mode="json")}]
    assert out.after == (SaveFresh("z"),)
    assert not out.again


def test_join_of_a_computer_racer() -> None:
    out = accepted(decided(load(room()), join("Bot 1", bot=True)))
    assert out.room is not None and out.room.roster[-1].bot
    assert out.reply[0].bot


def test_join_filling_a_room_does_not_start_it() -> None:
    out = accepted(decided(load(room(capacity=3)), join()))
    assert out.room is not None
    assert (out.room.state, out.room.start_at_ms, len(out.room.roster)) == ("waiting", None, 3)
    assert event_types(out) == ["joined"]


# -- TakeQuickSeat ----------------------------------------------------------------------

QUICK_REFUSALS = [
    pytest.param(lobby(), join("", TakeQuickSeat), "request/invalid", id="empty-name"),
    pytest.param(None, join(kind=TakeQuickSeat), "room/not_found", id="no-room"),
    pytest.param(room(), join(kind=TakeQuickSeat), "room/not_waiting", id="not-a-lobby"),
    pytest.param(room(racers=[]), join(kind=TakeQuickSeat), "room/not_waiting",
                 id="not-a-lobby-empty"),
    pytest.param(room("countdown", quick=quick_state()), join(kind=TakeQuickSeat),
                 "room/not_waiting", id="lobby-counting-down"),
    pytest.param(room("racing", quick=quick_state()), join(kind=TakeQuickSeat),
                 "room/not_waiting", id="lobby-racing"),
    pytest.param(lobby("ada", "bob", capacity=2), join(kind=TakeQuickSeat), "room/full",
                 id="lobby-full"),
    pytest.param(lobby("ada"), join("Ada", TakeQuickSeat), "racer/name_taken",
                 id="name-taken"),
]


@pytest.mark.parametrize(("rm", "cmd", "code"), QUICK_REFUSALS)
def test_take_quick_seat_refusals(rm: RoomRecord | None, cmd: Join, code: str) -> None:
    assert refusal(decided(load(rm), cmd)) == code


@pytest.mark.parametrize(("names", "quick", "changed"), [
    pytest.param((), {}, {"alone_ms": "now"}, id="first-racer-alone"),
    pytest.param(("ada",), {"alone_ms": CREATED}, {"pair_ms": "now"}, id="second-makes-a-pair"),
    pytest.param(("ada", "bob"), {"alone_ms": CREATED, "pair_ms": CREATED + 1},
                 {}, id="third-changes-no-deadline"),
])
def test_take_quick_seat_sets_the_lobby_s_next_step(
        names: tuple[str, ...], quick: dict[str, int], changed: dict[str, str]) -> None:
    rm = lobby(*names, **quick)
    loaded = load(rm)
    out = accepted(decided(loaded, join(kind=TakeQuickSeat)))
    new = out.room
    assert new is not None and new.quick is not None and rm.quick is not None
    expected = {k: loaded.now for k in changed}
    assert new.quick == rm.quick.model_copy(update=expected)
    assert (new.state, len(new.roster)) == ("waiting", len(names) + 1)
    assert event_types(out) == ["joined"]
    assert out.after == (SaveFresh("z"),)


def test_join_filling_a_lobby_starts_its_countdown() -> None:
    rm = lobby("ada", "bob", capacity=3, alone_ms=CREATED, pair_ms=CREATED + 1)
    loaded = load(rm)
    out = accepted(decided(loaded, join(kind=TakeQuickSeat)))
    new = out.room
    assert new is not None
    assert (new.state, new.start_at_ms, len(new.roster)) == ("countdown", loaded.now + 3_000, 3)
    assert event_types(out) == ["joined", "countdown"]
    assert out.after == (Expire(race_ttl_ms(rm, CONFIG, 3_000)), SaveFresh("z"))


def test_join_filling_a_lobby_without_countdown_starts_the_race() -> None:
    rm = lobby("ada", capacity=2, alone_ms=CREATED).model_copy(update={"countdown_ms": 0})
    loaded = load(rm)
    out = accepted(decided(loaded, join()))  # a plain Join of a lobby fills it too
    new = out.room
    assert new is not None
    assert (new.state, new.start_at_ms) == ("racing", loaded.now)
    assert event_types(out) == ["joined", "countdown", "started"]
    assert out.after == (RaceStarted(), Expire(race_ttl_ms(rm, CONFIG, 0)), SaveFresh("z"))


# -- Ready ----------------------------------------------------------------------------

READY_REFUSALS = [
    pytest.param(room(), "a", None, "auth/missing", id="no-token"),
    pytest.param(room(), "a", "", "auth/missing", id="empty-token"),
    pytest.param(None, "a", None, "auth/missing", id="no-token-no-room"),
    pytest.param(None, "a", ADA, "room/not_found", id="no-room"),
    pytest.param(room(), "z", ADA, "racer/not_found", id="no-such-racer"),
    pytest.param(room(), "a", STRANGER, "auth/invalid_token", id="nobody-token"),
    pytest.param(room(), "a", BOB, "auth/forbidden", id="another-racer-token"),
    pytest.param(room(), "a", HOST, "auth/forbidden", id="host-token"),
    pytest.param(room("countdown"), "a", BOB, "auth/forbidden", id="token-before-state"),
    pytest.param(room("countdown"), "a", ADA, "room/not_waiting", id="countdown"),
    pytest.param(room("racing"), "a", ADA, "room/not_waiting", id="racing"),
    pytest.param(room("over"), "a", ADA, "room/not_waiting", id="over"),
    pytest.param(room("closed"), "a", ADA, "room/not_waiting", id="closed"),
]


@pytest.mark.parametrize(("rm", "racer_id", "token", "code"), READY_REFUSALS)
def test_ready_refusals(rm: RoomRecord | None, racer_id: str, token: str | None,
                        code: str) -> None:
    assert refusal(decided(load(rm), Ready(CODE, racer_id, token, True))) == code


@pytest.mark.parametrize(("bob_ready", "ready"), [
    pytest.param(False, True, id="ready-others-not"),
    pytest.param(True, False, id="not-ready"),
    pytest.param(False, False, id="not-ready-again"),
])
def test_ready_without_everyone_ready_only_marks(bob_ready: bool, ready: bool) -> None:
    rm = room(racers=[entry("a", "ada", 1, ADA, ready=not ready),
                      entry("b", "bob", 2, BOB, ready=bob_ready)])
    out = accepted(decided(load(rm, fresh_cards=4), Ready(CODE, "a", ADA, ready)))
    new = out.room
    assert new is not None and out.racer is None
    assert [(e.id, e.ready) for e in new.roster] == [("a", ready), ("b", bob_ready)]
    assert (new.state, new.start_at_ms) == ("waiting", None)
    assert out.events == [{"type": "ready", "race_clock_ms": None, "racer": "a",
                           "ready": ready}]
    assert out.after == ()
    assert (out.reply.id, out.reply.ready, out.reply.foundation_cards) == ("a", ready, 4)


@pytest.mark.parametrize("rm", [
    pytest.param(room(racers=[entry("a", "ada", 1, ADA), entry("b", "bob", 2, BOB, ready=True)]),
                 id="the-last-one"),
    pytest.param(room(racers=roster("ada")), id="alone"),
])
def test_ready_of_everyone_starts_the_countdown(rm: RoomRecord) -> None:
    loaded = load(rm)
    out = accepted(decided(loaded, Ready(CODE, "a", ADA, True)))
    new = out.room
    assert new is not None
    assert all(e.ready for e in new.roster)
    assert (new.state, new.start_at_ms) == ("countdown", loaded.now + 3_000)
    assert event_types(out) == ["ready", "countdown"]
    assert out.after == (Expire(race_ttl_ms(rm, CONFIG, 3_000)),)
    assert out.reply.ready


def test_computer_racers_alone_all_ready_start_no_countdown() -> None:
    """Their person left between the bots' readies: the last bot's ready made
    "every racer ready" and the bots raced alone (the breaker's finding; the
    host may still start them)."""
    rm = room(racers=[entry("bot1", "Bot 1", 2, "bot-1", bot=True, ready=True),
                      entry("bot2", "Bot 2", 3, "bot-2", bot=True)])
    out = accepted(decided(load(rm), Ready(CODE, "bot2", "bot-2", True)))
    assert out.room is not None and all(e.ready for e in out.room.roster)
    assert (out.room.state, out.room.start_at_ms) == ("waiting", None)
    assert event_types(out) == ["ready"] and out.after == ()


# -- Leave ----------------------------------------------------------------------------

FINAL_A = racer("a", status="won", final=True, foundation_cards=52, finished_ms=9_000)

LEAVE_REFUSALS = [
    pytest.param(room(), "a", None, None, "auth/missing", id="no-token"),
    pytest.param(None, "a", "", None, "auth/missing", id="empty-token-no-room"),
    pytest.param(None, "a", ADA, None, "room/not_found", id="no-room"),
    pytest.param(room(), "z", ADA, None, "racer/not_found", id="no-such-racer"),
    pytest.param(room(), "z", HOST, None, "racer/not_found", id="host-kicks-nobody"),
    pytest.param(room(), "a", STRANGER, None, "auth/invalid_token", id="nobody-token"),
    pytest.param(room(), "a", BOB, None, "auth/forbidden", id="another-racer-token"),
    pytest.param(room("over"), "a", BOB, None, "auth/forbidden", id="token-before-state"),
    pytest.param(room("over"), "a", ADA, None, "room/over", id="over"),
    pytest.param(room("closed"), "a", ADA, None, "room/over", id="closed"),
    pytest.param(room("closed", ended_ms=NOW), "a", HOST, None, "room/over",
                 id="closed-after-start-kick"),
    pytest.param(room("racing"), "a", ADA, FINAL_A, "racer/finished", id="result-final"),
    pytest.param(room("racing"), "a", HOST, None, "room/kick_after_start",
                 id="kick-after-start"),
    pytest.param(room("racing"), "a", HOST, FINAL_A, "room/kick_after_start",
                 id="kick-result-final"),
    pytest.param(room("countdown", series={"id": "s1", "race": 2, "races": 3,
                                           "break_ms": 5_000}),
                 "a", HOST, None, "room/kick_after_start", id="kick-between-series-races"),
]


@pytest.mark.parametrize(("rm", "racer_id", "token", "rec", "code"), LEAVE_REFUSALS)
def test_leave_refusals(rm: RoomRecord | None, racer_id: str, token: str | None,
                        rec: RacerRecord | None, code: str) -> None:
    assert refusal(decided(load(rm, rec=rec), Leave(CODE, racer_id, token))) == code


def test_a_kick_is_a_leave_with_the_host_token() -> None:
    assert Kick(CODE, "a", HOST) == Leave(CODE, "a", HOST)
    assert refusal(decided(load(room()), Kick(CODE, "a", BOB))) == "auth/forbidden"
    assert refusal(decided(load(room()), Kick(CODE, "a", None))) == "auth/missing"


@pytest.mark.parametrize(("token", "series"), [
    (ADA, None), (HOST, None), (HOST, {"id": "s1", "race": 1, "races": 3, "break_ms": 0}),
    (ADA, {"id": "s1", "race": 2, "races": 3, "break_ms": 0})],
    ids=["leaves", "kicked", "kicked-before-the-series", "leaves-between-series-races"])
def test_leave_before_the_start_takes_the_racer_off(token: str,
                                                    series: dict[str, int] | None) -> None:
    rm = room(series=series)
    out = accepted(decided(load(rm), Leave(CODE, "a", token)))
    new = out.room
    assert new is not None and out.racer is None and out.reply is None
    assert [e.id for e in new.roster] == ["b"] and new.joins == 2
    assert (new.state, new.start_at_ms) == ("waiting", None)
    assert out.events == [{"type": "left", "race_clock_ms": None, "racer": "a"}]
    assert out.after == ()


@pytest.mark.parametrize(("members", "state", "start_at"), [
    pytest.param([*roster("ada", "bob"), bot(1, 3)], "countdown", START,
                 id="racers-stay-countdown-goes-on"),
    pytest.param([*roster("ada"), bot(1, 2), bot(2, 3)], "waiting", None,
                 id="only-bots-stay-countdown-cancelled"),
    pytest.param(roster("ada"), "waiting", None, id="nobody-stays-countdown-cancelled"),
])
def test_leave_during_the_countdown(members: list[RosterEntry], state: str,
                                    start_at: int | None) -> None:
    rm = room("countdown", racers=members)
    out = accepted(decided(load(rm, now=START - 1_000), Leave(CODE, "a", ADA)))
    new = out.room
    assert new is not None
    assert [e.id for e in new.roster] == [e.id for e in members[1:]]
    assert (new.state, new.start_at_ms) == (state, start_at)
    assert out.events == [{"type": "left", "race_clock_ms": None, "racer": "a"}]


@pytest.mark.parametrize(("token", "now", "clock"), [
    pytest.param(ADA, NOW, 10_000, id="leaves"),
    pytest.param(ADA, START + LIMIT + 500, LIMIT, id="clock-stops-at-the-limit"),
])
def test_leave_during_the_race_makes_the_result_final(token: str, now: int, clock: int) -> None:
    rec = racer("a", status="playing", log=[["16f", 4_000]], foundation_cards=1,
                reach_time_ms=4_000)
    out = accepted(decided(load(room("racing"), now=now, rec=rec, racer_rev=3),
                           Leave(CODE, "a", token)))
    assert out.room is None and out.reply is None
    assert out.racer == rec.model_copy(update={"status": "left", "final": True,
                                               "finished_ms": clock})
    assert out.events == [
        {"type": "left", "race_clock_ms": clock, "racer": "a"},
        {"type": "finished", "race_clock_ms": clock, "racer": "a", "status": "left"}]
    assert out.after == (RacerFinal(), CheckRaceEnd())


# -- Resign ---------------------------------------------------------------------------

RESIGN_REFUSALS = [
    pytest.param(room("racing"), "a", None, None, "auth/missing", id="no-token"),
    pytest.param(None, "a", "", None, "auth/missing", id="empty-token-no-room"),
    pytest.param(None, "a", ADA, None, "room/not_found", id="no-room"),
    pytest.param(room("racing"), "z", ADA, None, "racer/not_found", id="no-such-racer"),
    pytest.param(room("racing"), "a", STRANGER, None, "auth/invalid_token", id="nobody-token"),
    pytest.param(room("racing"), "a", BOB, None, "auth/forbidden", id="another-racer-token"),
    pytest.param(room("racing"), "a", HOST, None, "auth/forbidden", id="host-token"),
    pytest.param(room(), "a", BOB, None, "auth/forbidden", id="token-before-state"),
    pytest.param(room(), "a", ADA, None, "room/not_racing", id="waiting"),
    pytest.param(room("countdown"), "a", ADA, None, "room/not_racing", id="countdown"),
    pytest.param(room("over"), "a", ADA, None, "room/over", id="over"),
    pytest.param(room("closed"), "a", ADA, None, "room/over", id="closed"),
    pytest.param(room("closed", ended_ms=NOW), "a", ADA, None, "room/over",
                 id="closed-after-start"),
    pytest.param(room("racing"), "a", ADA, FINAL_A, "racer/finished", id="result-final"),
]


@pytest.mark.parametrize(("rm", "racer_id", "token", "rec", "code"), RESIGN_REFUSALS)
def test_resign_refusals(rm: RoomRecord | None, racer_id: str, token: str | None,
                         rec: RacerRecord | None, code: str) -> None:
    assert refusal(decided(load(rm, rec=rec), Resign(CODE, racer_id, token))) == code


def test_resign_makes_the_result_final_as_it_stands() -> None:
    rec = racer("a", status="playing", log=[["16f", 4_000], ["10-6", 5_000]],
                foundation_cards=1, reach_time_ms=4_000)
    out = accepted(decided(load(room("racing"), rec=rec, racer_rev=2), Resign(CODE, "a", ADA)))
    assert out.room is None
    assert out.racer == rec.model_copy(update={"status": "resigned", "final": True,
                                               "finished_ms": 10_000})
    assert out.events == [{"type": "finished", "race_clock_ms": 10_000, "racer": "a",
                           "status": "resigned"}]
    assert out.after == (RacerFinal(), CheckRaceEnd())
    view = out.reply
    assert (view.id, view.status, view.final, view.finished_ms) == ("a", "resigned", True, 10_000)
    assert (view.foundation_cards, view.moves, view.reach_time_ms) == (1, 2, 4_000)


def test_resign_with_no_move_left_is_stuck() -> None:
    """The trial (issue 38): a bot with no move left showed ``resigned``. A racer
    whose game is stuck (undo allowed, so not final by itself) who concedes is
    ``stuck``, final — a person as a computer racer."""
    rec = racer("a", status="stuck", log=[["16f", 4_000], ["10-6", 5_000]],
                foundation_cards=1, reach_time_ms=4_000)
    out = accepted(decided(load(room("racing"), rec=rec, racer_rev=2), Resign(CODE, "a", ADA)))
    assert out.racer == rec.model_copy(update={"status": "stuck", "final": True,
                                               "finished_ms": 10_000})
    assert out.events == [{"type": "finished", "race_clock_ms": 10_000, "racer": "a",
                           "status": "stuck"}]
    assert (out.reply.status, out.reply.final) == ("stuck", True)
    left = accepted(decided(load(room("racing"), rec=rec, racer_rev=2), Leave(CODE, "a", ADA)))
    assert left.racer is not None and left.racer.status == "left"  # leaving stays left


# -- TimeOut --------------------------------------------------------------------------

def test_time_out_refusals() -> None:
    assert refusal(decided(load(None, rec=racer("a")), TimeOut(CODE, "a"))) == "room/not_found"


@pytest.mark.parametrize("rec", [
    pytest.param(FINAL_A, id="won"),
    pytest.param(racer("a", status="timed_out", final=True, finished_ms=LIMIT), id="timed-out"),
    pytest.param(racer("a", status="stuck", final=True, finished_ms=3), id="stuck-final"),
])
def test_time_out_keeps_a_final_result(rec: RacerRecord) -> None:
    out = accepted(decided(load(room("racing"), rec=rec), TimeOut(CODE, "a", at_ms=10)))
    assert out.reply == rec
    assert (out.room, out.racer, out.events, out.after) == (None, None, [], ())


@pytest.mark.parametrize(("log", "at_ms", "finished"), [
    pytest.param([], None, LIMIT, id="at-the-limit"),
    pytest.param([], 10_000, 10_000, id="at-the-close"),
    pytest.param([["16f", 9_000]], 10_000, 10_000, id="last-move-earlier"),
    pytest.param([["16f", 10_050]], 10_000, 10_050, id="last-move-later"),
    pytest.param([["16f", 59_000]], None, LIMIT, id="limit-after-last-move"),
])
def test_time_out_makes_the_result_final(log: list[Any], at_ms: int | None,
                                         finished: int) -> None:
    rec = racer("a", status="stuck", log=log)  # stuck with undo: not final
    out = accepted(decided(load(room("racing"), rec=rec, racer_rev=4),
                           TimeOut(CODE, "a", at_ms=at_ms)))
    assert out.room is None
    assert out.racer == rec.model_copy(update={"status": "timed_out", "final": True,
                                               "finished_ms": finished})
    assert out.reply == out.racer
    assert out.events == [{"type": "finished", "race_clock_ms": finished, "racer": "a",
                           "status": "timed_out"}]
    assert out.after == (RacerFinal(),)
    assert not out.again
