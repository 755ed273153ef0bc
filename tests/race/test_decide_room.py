"""Decision tables of the room's commands (server/race/decide_room.py): Create,
OpenRoom, Start, Countdown, Close, Tick, EndRace.

Each command has a table of its refusals (input records + command → the
refusal's code: every code its decision can give) and tests of its accepted
outcomes: the record written, the events in order, the reply, the steps
after the write, ``again``, and :class:`~server.race.outcome.Prior` for a race
with unfinished racers. Every decision goes through :func:`decided`, which
also checks that deciding twice answers alike and changes no input record.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.race.commands import (
    Close,
    Countdown,
    Create,
    EndRace,
    OpenRoom,
    Start,
    Tick,
    TimeOut,
)
from server.race.ids import token_digest
from server.race.options import RoomOptions
from server.race.outcome import (
    Expire,
    ListInLobby,
    Note,
    Prior,
    RaceEnded,
    RaceStarted,
    Refused,
    RetireLobby,
    RoomClosed,
    RoomCreated,
    SeatBots,
)
from server.race.quick_state import FILL_GRACE_MS
from server.race.state import RacerRecord, RoomRecord, SeriesState
from server.race.timers import race_ttl_ms
from server.rules.commitment import deal_commitment
from server.solver.levels import levels_mix

from .decide_tables import (
    ADA,
    CODE,
    CONFIG,
    CREATED,
    HOST,
    LIMIT,
    NOW,
    ROOM_ID,
    START,
    STRANGER,
    accepted,
    after_types,
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

NEW_ID = "new-room-01"
NEW_CODE = "NEWCDE"
REDEAL_KEY = bytes(range(16))
SALT = bytes(range(100, 116))


def create(options: RoomOptions) -> Create:
    return Create(options, NEW_ID, NEW_CODE, token_digest(HOST), 42, REDEAL_KEY, SALT)


def final(racer_id: str, status: str = "resigned", cards: int = 0) -> RacerRecord:
    return racer(racer_id, status=status, final=True, foundation_cards=cards,
                 finished_ms=5_000)


# -- Create ---------------------------------------------------------------------------

CREATE_REFUSALS = [
    pytest.param(RoomOptions(variant="nope"), "variant", id="unknown-variant"),
    pytest.param(RoomOptions(variant="nope", capacity=0), "variant",
                 id="variant-checked-first"),
    pytest.param(RoomOptions(redeals=99), "variant", id="redeals-out-of-range"),
    pytest.param(RoomOptions(capacity=0), "capacity", id="capacity-0"),
    pytest.param(RoomOptions(capacity=65), "capacity", id="capacity-65"),
    pytest.param(RoomOptions(time_limit_s=9), "time_limit_s", id="time-limit-9s"),
    pytest.param(RoomOptions(time_limit_s=4 * 3600 + 1), "time_limit_s",
                 id="time-limit-over-4h"),
    pytest.param(RoomOptions(countdown_s=-1), "countdown_s", id="countdown-negative"),
    pytest.param(RoomOptions(countdown_s=61), "countdown_s", id="countdown-61s"),
    pytest.param(RoomOptions(capacity=2, bots=2), "bots", id="bots-fill-every-seat"),
    pytest.param(RoomOptions(bots=-1), "bots", id="bots-negative"),
    pytest.param(RoomOptions(spectator_delay_s=9), "spectator_delay_s", id="delay-9s"),
    pytest.param(RoomOptions(spectator_delay_s=601), "spectator_delay_s", id="delay-601s"),
    pytest.param(RoomOptions(spectator_delay_s=0), "spectator_delay_s",
                 id="live-without-open-boards"),
    pytest.param(RoomOptions(open_boards=True, spectator_delay_s=30), "spectator_delay_s",
                 id="open-boards-with-delay"),
    pytest.param(RoomOptions(series_races=1), "series", id="series-of-1"),
    pytest.param(RoomOptions(series_races=10), "series", id="series-of-10"),
    pytest.param(RoomOptions(series_races=3, series_break_s=301), "series",
                 id="series-break-301s"),
    pytest.param(RoomOptions(series_races=3, series_break_s=-1), "series",
                 id="series-break-negative"),
]


@pytest.mark.parametrize(("options", "field"), CREATE_REFUSALS)
def test_create_refusals(options: RoomOptions, field: str) -> None:
    result = decided(load(None, now=CREATED), create(options))
    assert refusal(result) == "request/invalid"
    assert isinstance(result, Refused)
    assert result.error.details == {"field": field}


def test_create_writes_a_waiting_public_room_listed_in_the_lobby() -> None:
    out = accepted(decided(load(None, now=CREATED), create(RoomOptions())))
    new = out.room
    assert new is not None and out.racer is None and out.reply is new
    assert (new.id, new.code, new.state) == (NEW_ID, NEW_CODE, "waiting")
    assert new.host_digest == token_digest(HOST)
    assert (new.deal_number, new.redeal_key) == (42, REDEAL_KEY.hex())
    assert new.deal_salt == SALT.hex()  # drawn by the caller, carried on the command
    assert new.deal_commitment == deal_commitment("belle-lucie", 42, REDEAL_KEY, SALT)
    assert new.created_ms == CREATED and new.start_at_ms is None and new.roster == []
    assert (new.capacity, new.time_limit_ms, new.countdown_ms) == (8, 900_000, 3_000)
    assert (new.spectator_delay_ms, new.ranked, new.par, new.series) == (60_000, True, None, None)
    assert new.rules["variant"] == "belle-lucie"
    assert out.events == [{"type": "created", "race_clock_ms": None, "code": NEW_CODE}]
    assert out.after == (RoomCreated(), Expire(CONFIG.waiting_ttl_ms),
                         ListInLobby(CREATED + CONFIG.waiting_ttl_ms))
    assert not out.again and not out.archive


def test_create_private_room_is_not_listed() -> None:
    out = accepted(decided(load(None, now=CREATED), create(RoomOptions(visibility="private"))))
    assert out.after == (RoomCreated(), Expire(CONFIG.waiting_ttl_ms))


CREATE_FIELDS = [
    pytest.param(RoomOptions(hints=True), {"hints": True, "ranked": False}, id="hints-unranked"),
    pytest.param(RoomOptions(ranked=False), {"ranked": False}, id="unranked"),
    pytest.param(RoomOptions(winnable_only=True), {"winnable_only": True, "par": 52},
                 id="winnable-par-known"),
    pytest.param(RoomOptions(open_boards=True), {"open_boards": True, "spectator_delay_ms": 0},
                 id="open-boards-live"),
    pytest.param(RoomOptions(open_boards=True, spectator_delay_s=0),
                 {"spectator_delay_ms": 0}, id="open-boards-delay-0"),
    pytest.param(RoomOptions(spectator_delay_s=10), {"spectator_delay_ms": 10_000},
                 id="delay-10s"),
    pytest.param(RoomOptions(spectator_delay_s=600), {"spectator_delay_ms": 600_000},
                 id="delay-600s"),
    pytest.param(RoomOptions(deal="daily"), {"deal_public": True}, id="daily-deal-public"),
    pytest.param(RoomOptions(deal_public=True), {"deal_public": True}, id="deal-public"),
    pytest.param(RoomOptions(capacity=1, time_limit_s=10, countdown_s=0),
                 {"capacity": 1, "time_limit_ms": 10_000, "countdown_ms": 0}, id="lowest"),
    pytest.param(RoomOptions(capacity=64, time_limit_s=14_400, countdown_s=60, bots=63),
                 {"capacity": 64, "time_limit_ms": 14_400_000, "countdown_ms": 60_000},
                 id="highest"),
    pytest.param(RoomOptions(series_races=3, series_break_s=0),
                 {"series": SeriesState(id=NEW_ID, race=1, races=3, break_ms=0)},
                 id="series"),
    pytest.param(RoomOptions(quick=quick_state()), {"quick": quick_state()}, id="quick"),
]


@pytest.mark.parametrize(("options", "fields"), CREATE_FIELDS)
def test_create_takes_the_options(options: RoomOptions, fields: dict[str, Any]) -> None:
    new = accepted(decided(load(None, now=CREATED), create(options))).room
    assert new is not None
    assert {k: getattr(new, k) for k in fields} == fields


def test_create_takes_rule_overrides() -> None:
    new = accepted(decided(load(None, now=CREATED),
                           create(RoomOptions(undo=False, redeals=0, merci=True)))).room
    assert new is not None
    assert (new.rules["undo"], new.rules["redeals"], new.rules["merci"]) == (False, 0, True)


# -- OpenRoom -------------------------------------------------------------------------

def test_open_room_saves_the_room_as_it_is() -> None:
    fresh = room("countdown", id=NEW_ID, code=NEW_CODE)
    events = ({"type": "created", "race_clock_ms": None, "code": NEW_CODE},
              {"type": "countdown", "race_clock_ms": None, "starts_in_ms": 3_000})
    out = accepted(decided(load(None, now=CREATED), OpenRoom(fresh, events, 123_456)))
    assert out.room == fresh and out.reply == fresh and out.racer is None
    assert out.events == list(events)
    assert out.after == (Expire(123_456),)
    assert not out.again and not out.archive


# -- Start ----------------------------------------------------------------------------

START_REFUSALS = [
    pytest.param(room(), None, "auth/missing", id="no-token"),
    pytest.param(room(), "", "auth/missing", id="empty-token"),
    pytest.param(None, None, "auth/missing", id="no-token-no-room"),
    pytest.param(None, HOST, "room/not_found", id="no-room"),
    pytest.param(room(), ADA, "auth/invalid_token", id="racer-token"),
    pytest.param(room(), STRANGER, "auth/invalid_token", id="nobody-token"),
    pytest.param(room("over"), ADA, "auth/invalid_token", id="token-before-state"),
    pytest.param(room("over"), HOST, "room/over", id="over"),
    pytest.param(room("closed"), HOST, "room/over", id="closed"),
    pytest.param(room("closed", ended_ms=NOW), HOST, "room/over", id="closed-after-start"),
    pytest.param(room(racers=[]), HOST, "room/no_racers", id="no-racers"),
]


@pytest.mark.parametrize(("rm", "token", "code"), START_REFUSALS)
def test_start_refusals(rm: RoomRecord | None, token: str | None, code: str) -> None:
    assert refusal(decided(load(rm), Start(CODE, token))) == code


def test_start_starts_the_countdown() -> None:
    rm = room()
    loaded = load(rm)
    out = accepted(decided(loaded, Start(CODE, HOST)))
    new = out.room
    assert new is not None and out.reply is new and out.racer is None
    assert (new.state, new.start_at_ms) == ("countdown", loaded.now + 3_000)
    assert new.roster == rm.roster
    assert out.events == [{"type": "countdown", "race_clock_ms": None, "starts_in_ms": 3_000}]
    assert out.after == (Expire(race_ttl_ms(rm, CONFIG, 3_000)),)
    assert not out.again


def test_start_with_no_countdown_starts_the_race() -> None:
    rm = room(countdown_ms=0)
    loaded = load(rm)
    out = accepted(decided(loaded, Start(CODE, HOST)))
    assert out.room is not None
    assert (out.room.state, out.room.start_at_ms) == ("racing", loaded.now)
    assert event_types(out) == ["countdown", "started"]
    assert out.events[1] == {"type": "started", "race_clock_ms": 0, "deal_number": 7}
    assert out.after == (RaceStarted(), Expire(race_ttl_ms(rm, CONFIG, 0)))


@pytest.mark.parametrize("state", ["countdown", "racing"])
def test_start_once_started_changes_nothing(state: str) -> None:
    rm = room(state)
    out = accepted(decided(load(rm), Start(CODE, HOST)))
    assert out.reply == rm
    assert (out.room, out.racer, out.events, out.after) == (None, None, [], ())


# -- Countdown ------------------------------------------------------------------------

def test_countdown_refusals() -> None:
    assert refusal(decided(load(None), Countdown(CODE))) == "room/not_found"


def test_countdown_of_a_waiting_room_with_racers() -> None:
    rm = room()
    loaded = load(rm)
    out = accepted(decided(loaded, Countdown(CODE)))
    assert out.reply is None and out.room is not None
    assert (out.room.state, out.room.start_at_ms) == ("countdown", loaded.now + 3_000)
    assert event_types(out) == ["countdown"]
    assert out.after == (Expire(race_ttl_ms(rm, CONFIG, 3_000)),)


@pytest.mark.parametrize("rm", [
    pytest.param(room(racers=[]), id="waiting-empty"),
    pytest.param(room("countdown"), id="countdown"),
    pytest.param(room("racing"), id="racing"),
    pytest.param(room("over"), id="over"),
    pytest.param(room("closed"), id="closed"),
    pytest.param(room(racers=[entry("x", "bot-Ada", 2, "bot-token", bot=True)]),
                 id="computer-racers-alone"),
])
def test_countdown_otherwise_changes_nothing(rm: RoomRecord) -> None:
    """A quick lobby whose lone racer left while their computer racers were
    seated does not start a race for the computer racers alone (as
    ``timers.deadline`` and Leave agree; the old ``QuickRace._start`` did)."""
    out = accepted(decided(load(rm), Countdown(CODE)))
    assert (out.reply, out.room, out.events, out.after) == (None, None, [], ())


# -- Close ----------------------------------------------------------------------------

CLOSE_REFUSALS = [
    pytest.param(room(), None, "auth/missing", id="no-token"),
    pytest.param(None, "", "auth/missing", id="empty-token-no-room"),
    pytest.param(None, HOST, "room/not_found", id="no-room"),
    pytest.param(room("racing"), ADA, "auth/invalid_token", id="racer-token"),
    pytest.param(room(), STRANGER, "auth/invalid_token", id="nobody-token"),
    pytest.param(room("closed"), ADA, "auth/invalid_token", id="token-before-state"),
    pytest.param(room("over"), HOST, "room/over", id="over"),
    pytest.param(room("closed"), HOST, "room/over", id="closed"),
    pytest.param(room("closed", ended_ms=NOW), HOST, "room/over", id="closed-after-start"),
]


@pytest.mark.parametrize(("rm", "token", "code"), CLOSE_REFUSALS)
def test_close_refusals(rm: RoomRecord | None, token: str | None, code: str) -> None:
    assert refusal(decided(load(rm), Close(CODE, token))) == code


@pytest.mark.parametrize("state", ["waiting", "countdown"])
def test_close_before_the_start_just_closes(state: str) -> None:
    rm = room(state)
    out = accepted(decided(load(rm, now=START - 1_000), Close(CODE, HOST)))
    new = out.room
    assert new is not None and out.reply == new
    assert (new.state, new.ended_ms, new.start_at_ms) == ("closed", None, rm.start_at_ms)
    assert out.events == [{"type": "closed", "race_clock_ms": None}]
    assert out.after == (Expire(CONFIG.ended_ttl_ms), RoomClosed())
    assert not out.archive and not out.again


@pytest.mark.parametrize(("racers", "now", "unfinished", "clock"), [
    pytest.param({"a": final("a"), "b": racer("b")}, NOW, ["b"], 10_000, id="one-playing"),
    pytest.param({"a": final("a")}, NOW, ["b"], 10_000, id="one-never-saved"),
    pytest.param({}, NOW, ["a", "b"], 10_000, id="none-saved"),
    pytest.param({"a": racer("a", status="stuck", log=[["16f", 10]]), "b": final("b")},
                 NOW, ["a"], 10_000, id="stuck-with-undo-is-not-final"),
    pytest.param({"a": racer("a"), "b": racer("b")}, START + LIMIT + 5_000, ["a", "b"], LIMIT,
                 id="past-the-limit-at-the-limit"),
])
def test_close_of_a_race_times_out_the_unfinished_first(
        racers: dict[str, RacerRecord], now: int, unfinished: list[str], clock: int) -> None:
    result = decided(load(room("racing"), now=now, racers=racers), Close(CODE, HOST))
    assert result == Prior(tuple(TimeOut(ROOM_ID, r, at_ms=clock) for r in unfinished),
                           then=Close(CODE, HOST, now_ms=now))


@pytest.mark.parametrize(("now_ms", "ended"), [
    pytest.param(None, NOW + 500, id="now"),
    pytest.param(NOW, NOW, id="at-the-close-time"),
])
def test_close_of_a_race_whose_results_are_final_ends_it(now_ms: int | None,
                                                         ended: int) -> None:
    rm = room("racing")
    racers = {"a": final("a", "resigned", 4), "b": final("b", "timed_out", 9)}
    out = accepted(decided(load(rm, now=NOW + 500, racers=racers),
                           Close(CODE, HOST, now_ms=now_ms)))
    new = out.room
    assert new is not None and out.reply == new and out.racer is None
    assert (new.state, new.ended_ms) == ("closed", ended)
    assert event_types(out) == ["race_over", "closed"]
    over, closed = out.events
    assert over["final"] is True and over["race_clock_ms"] == ended - START
    assert [s["racer"] for s in over["standings"]] == ["b", "a"]
    assert closed == {"type": "closed", "race_clock_ms": ended - START}
    assert out.archive
    assert after_types(out) == [Expire, RaceEnded]
    assert out.after[0] == Expire(CONFIG.ended_ttl_ms)
    ended_step = out.after[1]
    assert isinstance(ended_step, RaceEnded)
    assert [(v.id, v.status, v.final) for v in ended_step.views] == [
        ("a", "resigned", True), ("b", "timed_out", True)]


# -- Tick -----------------------------------------------------------------------------

def test_tick_refusals() -> None:
    assert refusal(decided(load(None), Tick(CODE))) == "room/not_found"


def _lobby(*names: str, bots: int = 0, capacity: int = 4, **quick: Any) -> RoomRecord:
    members = roster(*names) + [entry(f"bot{i}", f"Bot {i}", len(names) + i + 1, f"bot-{i}",
                                      bot=True) for i in range(bots)]
    return room(racers=members, capacity=capacity, visibility="public",
                quick=quick_state(**quick))


NOT_DUE = [
    pytest.param(room(), CREATED + 10**9, id="waiting-room"),
    pytest.param(room("countdown"), START - 1, id="countdown-running"),
    pytest.param(room("racing"), START + LIMIT - 1, id="race-running"),
    pytest.param(room("over"), NOW + 10**9, id="over"),
    pytest.param(room("closed"), NOW, id="closed"),
    pytest.param(_lobby(), CREATED + 10**9, id="empty-lobby"),
    pytest.param(_lobby("ada", alone_ms=CREATED), CREATED + 29_999, id="lobby-alone-early"),
    pytest.param(_lobby("ada", "bob", "cat", bots=1, alone_ms=CREATED, pair_ms=CREATED),
                 CREATED + 19_999, id="lobby-pair-with-a-bot-early"),
    pytest.param(_lobby(bots=2, alone_ms=CREATED), CREATED + 10**9, id="lobby-only-bots"),
    pytest.param(_lobby("ada", "bob", alone_ms=CREATED, pair_ms=CREATED + 1_000),
                 CREATED + 20_999, id="lobby-pair-early"),
]


@pytest.mark.parametrize(("rm", "now"), NOT_DUE)
def test_tick_with_nothing_due_answers_the_room(rm: RoomRecord, now: int) -> None:
    out = accepted(decided(load(rm, now=now, rev=7), Tick(CODE, bots_free=10)))
    assert out.reply == (rm, 7, now)
    assert (out.room, out.racer, out.events, out.after, out.again) == (None, None, [], (), False)


def test_tick_lobby_alone_without_bots_to_come_waits() -> None:
    rm = room(racers=roster("ada"), quick=quick_state(alone_ms=CREATED, bots=0))
    out = accepted(decided(load(rm, now=CREATED + 10**9), Tick(CODE, bots_free=10)))
    assert (out.room, out.events, out.after, out.again) == (None, [], (), False)
    assert out.reply[0] == rm


def test_tick_countdown_end_starts_the_race() -> None:
    rm = room("countdown")
    out = accepted(decided(load(rm, now=START), Tick(CODE)))
    new = out.room
    assert new is not None and out.reply is None
    assert (new.state, new.start_at_ms) == ("racing", START)
    assert out.events == [{"type": "started", "race_clock_ms": 0, "deal_number": 7}]
    assert out.after == (RaceStarted(), Expire(race_ttl_ms(rm, CONFIG, 0)))
    assert out.again


def test_tick_time_limit_ends_a_race_whose_results_are_final() -> None:
    rm = room("racing")
    racers = {"a": final("a"), "b": final("b", "won", 52)}
    out = accepted(decided(load(rm, now=START + LIMIT + 7, racers=racers), Tick(CODE)))
    assert out.room is not None
    assert (out.room.state, out.room.ended_ms) == ("over", START + LIMIT)
    assert event_types(out) == ["race_over"]
    assert out.events[0]["race_clock_ms"] == LIMIT
    assert out.archive and out.again
    assert after_types(out) == [Expire, RaceEnded]


def test_tick_time_limit_times_out_the_unfinished_first() -> None:
    racers = {"a": final("a"), "b": racer("b", log=[["10-6", 100]])}
    result = decided(load(room("racing"), now=START + LIMIT, racers=racers), Tick(CODE))
    assert result == Prior((TimeOut(ROOM_ID, "b"),))


@pytest.mark.parametrize(("capacity", "bots", "count"), [
    pytest.param(4, 3, 3, id="three-bots"),
    pytest.param(3, 3, 2, id="as-many-as-seats"),
    pytest.param(6, 1, 1, id="one-bot"),
])
def test_tick_lobby_alone_claims_computer_racers(capacity: int, bots: int, count: int) -> None:
    rm = room(racers=roster("ada"), capacity=capacity, visibility="public",
              quick=quick_state(alone_ms=CREATED, bots=bots))
    now = CREATED + 30_000
    out = accepted(decided(load(rm, now=now), Tick(CODE, bots_free=count)))
    new = out.room
    assert new is not None and new.quick is not None
    assert new.state == "waiting" and new.quick.filling_ms == now
    assert new.model_copy(update={"quick": rm.quick}) == rm  # nothing else changes
    assert out.events == []
    # an anonymous racer alone: a mix of levels (issue 38)
    assert out.after == (RetireLobby("belle-lucie:0"), SeatBots(levels_mix(count)))
    assert out.again


@pytest.mark.parametrize(("band", "level"), [
    pytest.param(0, "novice", id="a-new-player-band-0"),
    pytest.param(4, "club", id="rating-20-to-25"),
    pytest.param(6, "expert", id="rating-30-to-35"),
    pytest.param(-3, "novice", id="below-every-level"),
])
def test_tick_lobby_alone_seats_a_players_bots_of_the_level_nearest_their_band(
        band: int, level: str) -> None:
    """A player alone in a quick lobby gets computer racers of the level whose
    rating is nearest the lobby's band (width 5: band 4 is ratings 20–25)."""
    ada = entry("a", "ada", 1, ADA, player="p-ada")
    rm = room(racers=[ada], capacity=6, visibility="public",
              quick=quick_state(alone_ms=CREATED, bots=3, band=band,
                                slot=f"belle-lucie:{band}"))
    out = accepted(decided(load(rm, now=CREATED + 30_000), Tick(CODE, bots_free=3)))
    assert out.after == (RetireLobby(f"belle-lucie:{band}"), SeatBots((level,) * 3))


def test_tick_lobby_alone_without_free_bots_races_alone() -> None:
    rm = _lobby("ada", alone_ms=CREATED)
    now = CREATED + 30_000
    out = accepted(decided(load(rm, now=now), Tick(CODE, bots_free=2)))
    new = out.room
    assert new is not None
    assert (new.state, new.start_at_ms, len(new.roster)) == ("countdown", now + 3_000, 1)
    assert event_types(out) == ["countdown"]
    assert after_types(out) == [Note, Expire, RetireLobby]
    assert out.after[1:] == (Expire(race_ttl_ms(rm, CONFIG, 3_000)),
                             RetireLobby("belle-lucie:0"))
    assert out.again


@pytest.mark.parametrize(("rm", "now"), [
    pytest.param(_lobby("ada", "bob", alone_ms=CREATED, pair_ms=CREATED + 1_000),
                 CREATED + 21_000, id="pair-waited"),
    pytest.param(_lobby("ada", "bob", alone_ms=CREATED), CREATED + 1,
                 id="pair-without-deadline"),
    pytest.param(_lobby("ada", "bob", "cat", capacity=3, alone_ms=CREATED, pair_ms=CREATED),
                 CREATED + 1, id="full"),
    pytest.param(_lobby("ada", bots=2, alone_ms=CREATED, filling_ms=CREATED + 30_000),
                 CREATED + 30_000 + FILL_GRACE_MS, id="bots-claimed-grace-over"),
])
def test_tick_lobby_starts_the_countdown(rm: RoomRecord, now: int) -> None:
    out = accepted(decided(load(rm, now=now), Tick(CODE, bots_free=10)))
    new = out.room
    assert new is not None
    assert (new.state, new.start_at_ms) == ("countdown", now + 3_000)
    assert event_types(out) == ["countdown"]
    assert out.after == (Expire(race_ttl_ms(rm, CONFIG, 3_000)), RetireLobby("belle-lucie:0"))
    assert out.again


# -- EndRace --------------------------------------------------------------------------

def test_end_race_refusals() -> None:
    assert refusal(decided(load(None), EndRace(CODE))) == "room/not_found"


@pytest.mark.parametrize("rm", [
    pytest.param(room(), id="waiting"),
    pytest.param(room("countdown"), id="countdown"),
    pytest.param(room("over"), id="over"),
    pytest.param(room("closed"), id="closed"),
    pytest.param(room("closed", ended_ms=NOW), id="closed-after-start"),
])
def test_end_race_of_no_running_race_changes_nothing(rm: RoomRecord) -> None:
    out = accepted(decided(load(rm, now=START + 10 * LIMIT), EndRace(CODE)))
    assert (out.reply, out.room, out.events, out.after) == (None, None, [], ())


@pytest.mark.parametrize("racers", [
    pytest.param({"a": final("a"), "b": racer("b")}, id="one-playing"),
    pytest.param({"a": final("a")}, id="one-never-saved"),
])
def test_end_race_waits_for_every_result_before_the_limit(
        racers: dict[str, RacerRecord]) -> None:
    out = accepted(decided(load(room("racing"), now=START + LIMIT - 1, racers=racers),
                           EndRace(CODE)))
    assert (out.reply, out.room, out.events, out.after) == (None, None, [], ())


@pytest.mark.parametrize(("racers", "unfinished"), [
    pytest.param({"a": final("a"), "b": racer("b")}, ["b"], id="one-playing"),
    pytest.param({"b": final("b")}, ["a"], id="one-never-saved"),
    pytest.param({}, ["a", "b"], id="none-saved"),
])
def test_end_race_at_the_limit_times_out_the_unfinished(
        racers: dict[str, RacerRecord], unfinished: list[str]) -> None:
    result = decided(load(room("racing"), now=START + LIMIT, racers=racers), EndRace(CODE))
    assert result == Prior(tuple(TimeOut(ROOM_ID, r) for r in unfinished))
    assert isinstance(result, Prior) and result.then is None


@pytest.mark.parametrize(("now", "ended"), [
    pytest.param(NOW, NOW, id="before-the-limit"),
    pytest.param(START + LIMIT + 9_000, START + LIMIT, id="after-the-limit"),
])
def test_end_race_with_every_result_final_is_over(now: int, ended: int) -> None:
    rm = room("racing", par=40)
    racers = {"a": final("a", "resigned", 12), "b": final("b", "won", 52)}
    out = accepted(decided(load(rm, now=now, racers=racers), EndRace(CODE)))
    new = out.room
    assert new is not None and out.reply is None and out.racer is None
    assert (new.state, new.ended_ms) == ("over", ended)
    assert new.model_copy(update={"state": "racing", "ended_ms": None}) == rm
    assert event_types(out) == ["race_over"]
    over = out.events[0]
    assert (over["race_clock_ms"], over["final"], over["par"]) == (ended - START, True, 40)
    assert [(s["racer"], s["rank"], s["to_par"]) for s in over["standings"]] == [
        ("b", 1, -12), ("a", 2, 28)]
    assert out.archive and not out.again
    assert after_types(out) == [Expire, RaceEnded]
    assert out.after[0] == Expire(CONFIG.ended_ttl_ms)
    step = out.after[1]
    assert isinstance(step, RaceEnded)
    assert [(v.id, v.status, v.foundation_cards) for v in step.views] == [
        ("a", "resigned", 12), ("b", "won", 52)]
