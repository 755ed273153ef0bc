"""Decision tables of the commands that link rooms or amend a finished one
(server/race/decide_room.py, server/race/decide_racer.py): Rematch, LinkNext,
RematchSeat, SetPar, Forget.

Each command has a table of its refusals (every code its decision can give)
and tests of its accepted outcomes: whether the room is written, the events,
the reply, the steps after the write and ``again``. :func:`decided` checks
that every decision is pure.
"""

from __future__ import annotations

import pytest

from server.race import present
from server.race.commands import Forget, LinkNext, Rematch, RematchSeat, SetPar
from server.race.ids import token_digest
from server.race.outcome import (
    Expire,
    LinkKnown,
    ListInLobby,
    Loaded,
    ParKnown,
    Refused,
    RoomCreated,
)
from server.race.state import RoomRecord, RosterEntry, SeriesState
from server.race.views import RoomLink

from .decide_tables import (
    ADA,
    BOB,
    CODE,
    HOST,
    NOW,
    ROOM_ID,
    START,
    STRANGER,
    accepted,
    decided,
    entry,
    load,
    racer,
    refusal,
    room,
    roster,
)

NEW_ID = "next-room-1"
NEW_CODE = "NXTCDE"
ADA_HOST = "ada-host-token"
"""What the rematch room's host token is for ada (she made it)."""
BOB_HOST = "bob-host-token"
LINK = RoomLink(room=NEW_ID, code=NEW_CODE)
OTHER = RoomLink(room="other-room", code="OTHERC")


def next_room(state: str = "waiting", racers: list[RosterEntry] | None = None,
              **fields: object) -> RoomRecord:
    """The rematch room ada made: ada seated, she is its host."""
    return room(state, roster("ada") if racers is None else racers, id=NEW_ID, code=NEW_CODE,
                host_digest=token_digest(ADA_HOST),
                rematch_of=RoomLink(room=ROOM_ID, code=CODE), **fields)


BOB_ENTRY = entry("b", "bob", 2, BOB, ready=True, player="p-bob")
"""Bob as the finished race's room knows him."""


# -- Rematch --------------------------------------------------------------------------

REMATCH_REFUSALS = [
    pytest.param(room("over"), None, "auth/missing", id="no-token"),
    pytest.param(room("over"), "", "auth/missing", id="empty-token"),
    pytest.param(None, None, "auth/missing", id="no-token-no-room"),
    pytest.param(None, ADA, "room/not_found", id="no-room"),
    pytest.param(room("over"), STRANGER, "auth/invalid_token", id="nobody-token"),
    pytest.param(room("over"), HOST, "auth/invalid_token", id="host-token-is-no-racer-s"),
    pytest.param(room("racing"), STRANGER, "auth/invalid_token", id="token-before-state"),
    pytest.param(room(), ADA, "room/not_over", id="waiting"),
    pytest.param(room("countdown"), ADA, "room/not_over", id="countdown"),
    pytest.param(room("racing"), ADA, "room/not_over", id="racing"),
    pytest.param(room("closed"), ADA, "room/not_over", id="closed-before-start"),
]


@pytest.mark.parametrize(("rm", "token", "code"), REMATCH_REFUSALS)
def test_rematch_refusals(rm: RoomRecord | None, token: str | None, code: str) -> None:
    assert refusal(decided(load(rm), Rematch(CODE, token))) == code


@pytest.mark.parametrize(("rm", "token", "racer_id", "link"), [
    pytest.param(room("over"), ADA, "a", None, id="over-no-link-yet"),
    pytest.param(room("over"), BOB, "b", None, id="another-racer"),
    pytest.param(room("closed", ended_ms=NOW), ADA, "a", None, id="closed-after-start"),
    pytest.param(room("over", rematch=LINK), BOB, "b", LINK, id="linked"),
])
def test_rematch_answers_the_room_the_offerer_and_the_link(
        rm: RoomRecord, token: str, racer_id: str, link: RoomLink | None) -> None:
    out = accepted(decided(load(rm), Rematch(CODE, token)))
    assert out.reply == (rm, rm.entry(racer_id), link)
    assert (out.room, out.racer, out.events, out.after, out.again) == (None, None, [], (), False)


# -- LinkNext -------------------------------------------------------------------------

def test_link_next_refusals() -> None:
    assert refusal(decided(load(None), LinkNext(CODE, next_room()))) == "room/not_found"


@pytest.mark.parametrize(("until", "steps"), [
    pytest.param(None, (RoomCreated(next_room()), LinkKnown()), id="private"),
    pytest.param(NOW + 99, (RoomCreated(next_room()), ListInLobby(NOW + 99, NEW_ID),
                            LinkKnown()), id="listed"),
])
def test_link_next_links_the_fresh_room(until: int | None, steps: tuple[object, ...]) -> None:
    rm = room("over")
    out = accepted(decided(load(rm, now=NOW + 5_000), LinkNext(CODE, next_room(), until)))
    assert out.reply == LINK
    assert out.room == rm.model_copy(update={"rematch": LINK}) and out.racer is None
    assert out.events == [{"type": "rematch", "race_clock_ms": NOW - START,
                           "rematch": {"room": NEW_ID, "code": NEW_CODE}, "series": None}]
    assert out.after == steps
    assert not out.again


def test_link_next_of_a_series_tells_its_place() -> None:
    fresh = next_room("countdown", series=SeriesState(id=ROOM_ID, race=2, races=3,
                                                      break_ms=20_000))
    out = accepted(decided(load(room("over")), LinkNext(CODE, fresh)))
    assert out.events[0]["series"] == {"id": ROOM_ID, "race": 2, "races": 3}
    assert out.after == (RoomCreated(fresh), LinkKnown())


@pytest.mark.parametrize(("linked", "steps"), [
    pytest.param(OTHER, (Expire(0, NEW_ID),), id="another-room-won"),
    pytest.param(LINK, (), id="this-room-linked-already"),
])
def test_link_next_once_linked_keeps_the_link(linked: RoomLink,
                                              steps: tuple[object, ...]) -> None:
    out = accepted(decided(load(room("over", rematch=linked)), LinkNext(CODE, next_room(),
                                                                       NOW + 99)))
    assert out.reply == linked
    assert (out.room, out.events, out.after) == (None, [], steps)


# -- RematchSeat ----------------------------------------------------------------------

def seat(rm: RoomRecord | None, who: RosterEntry = BOB_ENTRY, token: str = BOB,
         host_token: str = BOB_HOST) -> tuple[Loaded, RematchSeat]:
    return load(rm), RematchSeat(NEW_ID, who, token, host_token)


SEAT_REFUSALS = [
    pytest.param(*seat(None), "room/not_found", id="no-room"),
    pytest.param(*seat(next_room("countdown")), "room/not_waiting", id="countdown"),
    pytest.param(*seat(next_room("racing")), "room/not_waiting", id="racing"),
    pytest.param(*seat(next_room("over")), "room/not_waiting", id="over"),
    pytest.param(*seat(next_room("closed")), "room/not_waiting", id="closed"),
    pytest.param(*seat(next_room("countdown", capacity=1)), "room/not_waiting",
                 id="state-before-capacity"),
    pytest.param(*seat(next_room(capacity=1)), "room/full", id="full"),
    pytest.param(*seat(next_room(capacity=1), entry("x", "ada", 9, "x-token"), "x-token"),
                 "room/full", id="capacity-before-name"),
    pytest.param(*seat(next_room(), entry("x", "ADA", 9, "x-token"), "x-token"),
                 "racer/name_taken", id="name-taken"),
    pytest.param(*seat(next_room(), entry("a", "ada", 1, STRANGER), STRANGER),
                 "racer/name_taken", id="seat-held-by-another-token"),
]


@pytest.mark.parametrize(("loaded", "cmd", "code"), SEAT_REFUSALS)
def test_rematch_seat_refusals(loaded: Loaded, cmd: RematchSeat, code: str) -> None:
    assert refusal(decided(loaded, cmd)) == code


def test_rematch_seat_not_waiting_names_the_room() -> None:
    loaded, cmd = seat(next_room("racing"))
    result = decided(loaded, cmd)
    assert refusal(result) == "room/not_waiting"
    assert isinstance(result, Refused)
    assert result.error.details == {"state": "racing", "room": NEW_ID}


@pytest.mark.parametrize(("state", "host_token", "is_host"), [
    pytest.param("waiting", ADA_HOST, True, id="host"),
    pytest.param("waiting", "not-the-host", False, id="not-host"),
    pytest.param("countdown", ADA_HOST, True, id="seated-in-a-series-countdown"),
    pytest.param("racing", ADA_HOST, True, id="seated-racing"),
])
def test_rematch_seat_held_answers_alike(state: str, host_token: str, is_host: bool) -> None:
    rm = next_room(state)
    ada = rm.roster[0]
    out = accepted(decided(load(rm), RematchSeat(NEW_ID, ada.model_copy(update={
        "join_order": 7}), ADA, host_token)))
    assert out.reply == (rm, ada, is_host)
    assert (out.room, out.events, out.after, out.again) == (None, [], (), False)


def test_rematch_seat_takes_a_new_seat_then_answers_it() -> None:
    rm = next_room(joins=4)
    out = accepted(decided(load(rm, fresh_cards=4), RematchSeat(NEW_ID, BOB_ENTRY, BOB,
                                                                BOB_HOST)))
    new = out.room
    mine = BOB_ENTRY.model_copy(update={"join_order": 5, "ready": False})
    assert new is not None and out.racer is None
    assert new.roster == [*rm.roster, mine] and new.joins == 5
    assert mine.token_digest == token_digest(BOB) and mine.player == "p-bob"
    assert out.reply == (new, mine, False)
    assert len(out.events) == 1
    joined = out.events[0]
    assert (joined["type"], joined["race_clock_ms"]) == ("joined", None)
    assert (joined["racer"]["id"], joined["racer"]["join_order"],
            joined["racer"]["foundation_cards"]) == ("b", 5, 4)
    assert out.after == () and out.again
    # decided again on the room written: the seat held
    again = accepted(decided(load(new, rev=6), RematchSeat(NEW_ID, BOB_ENTRY, BOB, BOB_HOST)))
    assert again.reply == (new, mine, False) and again.room is None


# -- SetPar ---------------------------------------------------------------------------

@pytest.mark.parametrize(("rm", "code"), [
    pytest.param(None, "room/not_found", id="no-room"),
    pytest.param(room("racing"), "room/not_over", id="racing"),
    pytest.param(room("waiting"), "room/not_over", id="waiting"),
    pytest.param(room("closed"), "room/not_over", id="closed-before-start"),
])
def test_set_par_refusals(rm: RoomRecord | None, code: str) -> None:
    """Par is stored once the race is over (a par event is a final table): on a
    running race the decision refused nothing and the event failed to build."""
    assert refusal(decided(load(rm), SetPar(CODE, 40, ()))) == code


@pytest.mark.parametrize("rm", [
    pytest.param(room("over"), id="over"),
    pytest.param(room("closed", ended_ms=NOW), id="closed-after-start"),
])
def test_set_par_stores_it_with_the_standings_to_par(rm: RoomRecord) -> None:
    views = (present.racer_view(rm, rm.roster[0], racer("a", status="won", final=True,
                                                      foundation_cards=52)),
             present.racer_view(rm, rm.roster[1], racer("b", status="resigned", final=True,
                                                      foundation_cards=30)))
    out = accepted(decided(load(rm, now=NOW + 60_000), SetPar(CODE, 52, views)))
    assert out.room == rm.model_copy(update={"par": 52}) and out.reply is None
    assert len(out.events) == 1
    event = out.events[0]
    assert (event["type"], event["race_clock_ms"], event["final"], event["par"]) == (
        "par", NOW - START, True, 52)
    assert [(s["racer"], s["to_par"]) for s in event["standings"]] == [("a", 0), ("b", 22)]
    assert out.after == (ParKnown(),)


def test_set_par_once() -> None:
    out = accepted(decided(load(room("over", par=50)), SetPar(CODE, 52, ())))
    assert (out.reply, out.room, out.events, out.after) == (None, None, [], ())


# -- Forget ---------------------------------------------------------------------------

def test_forget_refusals() -> None:
    assert refusal(decided(load(None), Forget(CODE, "a", "Forgotten"))) == "room/not_found"


def _players(state: str = "over") -> RoomRecord:
    return room(state, [entry("a", "ada", 1, ADA, player="p-ada"),
                        entry("b", "bob", 2, BOB, player="p-bob")])


@pytest.mark.parametrize("state", ["waiting", "racing", "over"])
def test_forget_unlinks_and_renames_the_racer(state: str) -> None:
    rm = _players(state)
    out = accepted(decided(load(rm), Forget(CODE, "a", "Forgotten 1")))
    new = out.room
    assert new is not None and out.reply is None
    assert [(e.id, e.name, e.player) for e in new.roster] == [
        ("a", "Forgotten 1", None), ("b", "bob", "p-bob")]
    assert new.roster[0].token_digest == rm.roster[0].token_digest
    assert new.model_copy(update={"roster": rm.roster}) == rm
    assert (out.events, out.after) == ([], ())


def test_forget_renames_an_unlinked_racer_of_another_name() -> None:
    out = accepted(decided(load(room("over")), Forget(CODE, "a", "Forgotten 1")))
    assert out.room is not None
    assert (out.room.roster[0].name, out.room.roster[0].player) == ("Forgotten 1", None)


@pytest.mark.parametrize(("rm", "racer_id", "name"), [
    pytest.param(_players(), "z", "Forgotten 1", id="no-such-racer"),
    pytest.param(room("over", [entry("a", "Forgotten 1", 1, ADA)]), "a", "Forgotten 1",
                 id="forgotten-already"),
])
def test_forget_with_nothing_to_change(rm: RoomRecord, racer_id: str, name: str) -> None:
    out = accepted(decided(load(rm), Forget(CODE, racer_id, name)))
    assert (out.reply, out.room, out.events, out.after) == (None, None, [], ())
