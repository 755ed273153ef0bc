"""Fair play over the real authority: one test per row of the visibility table
(docs/protocol.md, "Fair play"), and the table in the doc is the server's."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.race.visibility import PHASES, TABLE, VIEWERS
from server.records.head_to_head import RacerRef, compare_sources
from server.rules.daily import daily_deal, utc_date
from tests.conftest import REPO

from .helpers import ClockStore


@dataclass
class Room:
    id: str
    host: str
    ada: str
    ada_token: str
    bob: str
    bob_token: str
    cy: str
    cy_token: str


async def _room(race: RaceAuthority, **opts: object) -> Room:
    options = RoomOptions(**{"deal": 7, "countdown_s": 0, "time_limit_s": 600, **opts})  # type: ignore[arg-type]
    room, host = await race.create_room(options)
    ids = [await race.join(room.id, name) for name in ("ada", "bob", "cy")]
    return Room(room.id, host, ids[0][0].id, ids[0][1], ids[1][0].id, ids[1][1],
                ids[2][0].id, ids[2][1])


async def _play(race: RaceAuthority, r: Room, n: int) -> None:
    """Ada plays ``n`` moves (her own token: she always sees her board)."""
    for _ in range(n):
        game = await race.game(r.id, r.ada, r.ada_token)
        await race.move(r.id, r.ada, r.ada_token, game.legal_moves[0], game.version,
                        f"m{game.version}")


def test_the_protocol_table_is_the_servers_table() -> None:
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("## Fair play: who sees what, when", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([a-z ]+) \| ([a-z]+) \| (\w+) \| (\w+) \| (\w+) \|$", section, re.M)
    documented = {(what, viewer): (a, b, c) for what, viewer, a, b, c in rows}
    assert documented == TABLE
    header = re.search(r"^\| what \| viewer \| (.+) \|$", section, re.M)
    assert header is not None and tuple(header.group(1).split(" | ")) == PHASES
    assert {viewer for _, viewer in TABLE} == set(VIEWERS)


async def test_before_the_start_no_board_and_the_deal_number_is_the_hosts(
        race: RaceAuthority) -> None:
    r = await _room(race)
    for token in (r.ada_token, r.bob_token, r.host, None):
        with pytest.raises(err.HiddenUntilStart):
            await race.game(r.id, r.ada, token)
    assert (await race.get_room(r.id)).deal_number is None
    assert (await race.get_room(r.id, r.ada_token)).deal_number is None
    assert (await race.get_room(r.id, r.host)).deal_number == 7
    assert [room.deal_number for room in await race.list_rooms()] == [None]
    # a replay or a comparison names the deal: no move log before the start either
    # (a racer read the deal number of their own empty replay; found by a trial)
    for token in (r.ada_token, r.bob_token, r.host, None):
        with pytest.raises(err.HiddenUntilStart):
            await race.replay(r.id, r.ada, token)
    with pytest.raises(err.HiddenUntilStart):
        await compare_sources(race.logs_for(r.ada_token), RacerRef(r.id, "ada"),
                              RacerRef(r.id, "ada"))
    with pytest.raises(err.AuthInvalidToken):
        await race.get_room(r.id, "not-a-token-of-this-room")


async def test_daily_and_ghost_rooms_show_their_public_deal_before_the_start(
        race: RaceAuthority, store: ClockStore) -> None:
    room, _ = await race.create_room(RoomOptions(deal="daily"))
    today = daily_deal("belle-lucie", utc_date(await store.clock.now_ms()))
    assert (await race.get_room(room.id)).deal_number == today
    ghost, _ = await race.create_room(RoomOptions(deal=12, deal_public=True, ranked=False))
    assert (await race.get_room(ghost.id)).deal_number == 12


async def test_during_the_race_a_rivals_board_and_log_are_hidden(race: RaceAuthority) -> None:
    r = await _room(race)
    await race.start(r.id, r.host)
    await _play(race, r, 2)
    own = await race.game(r.id, r.ada, r.ada_token)
    assert own.version == 2 and own.legal_moves and own.delay_ms == 0
    assert len((await race.replay(r.id, r.ada, r.ada_token)).moves) == 2
    with pytest.raises(err.HiddenUntilOver) as hidden:
        await race.game(r.id, r.ada, r.bob_token)
    assert hidden.value.code == "race/hidden_until_over" and hidden.value.status == 403
    with pytest.raises(err.HiddenUntilOver):
        await race.replay(r.id, r.ada, r.bob_token)
    with pytest.raises(err.HiddenUntilOver):
        await compare_sources(race.logs_for(r.bob_token), RacerRef(r.id, "ada"),
                              RacerRef(r.id, "bob"))
    with pytest.raises(err.HiddenUntilOver):  # a spectator's comparison: the move log row
        await compare_sources(race, RacerRef(r.id, "ada"), RacerRef(r.id, "bob"))
    # progress stays public: the standings and the room view
    assert {s.name: s.moves for s in (await race.standings(r.id)).standings}["ada"] == 2
    assert (await race.get_room(r.id)).deal_number == 7  # public once the race runs


async def test_spectators_and_the_host_see_boards_late_never_newer(
        race: RaceAuthority, store: ClockStore) -> None:
    r = await _room(race, spectator_delay_s=30)
    await race.start(r.id, r.host)
    store.advance(1_000)
    await _play(race, r, 2)  # two moves at ~1 s
    store.advance(20_000)
    await _play(race, r, 1)  # a third at ~21 s
    for token in (None, r.host):
        late = await race.game(r.id, r.ada, token)
        assert late.version == 0 and late.legal_moves == [] and late.moves == 0
        assert late.delay_ms == 30_000 or late.race_clock_ms == 0
    store.advance(11_000)  # ~32 s: the first two moves are over 30 s old, the third is not
    late = await race.game(r.id, r.ada, None)
    live = await race.game(r.id, r.ada, r.ada_token)
    assert (late.version, live.version) == (2, 3)
    assert late.delay_ms == 30_000 and late.race_clock_ms is not None
    assert live.race_clock_ms is not None and late.race_clock_ms <= live.race_clock_ms - 30_000
    assert late.legal_moves == [] and not late.can_undo
    with pytest.raises(err.HiddenUntilOver):  # the log is not delayed: it is hidden
        await race.replay(r.id, r.ada, None)


async def test_open_boards_rooms_show_spectators_boards_live(race: RaceAuthority) -> None:
    r = await _room(race, open_boards=True)
    assert (await race.get_room(r.id)).open_boards is True
    assert (await race.list_rooms())[0].spectator_delay_ms == 0
    await race.start(r.id, r.host)
    await _play(race, r, 2)
    view = await race.game(r.id, r.ada, None)
    assert view.version == 2 and view.delay_ms == 0
    with pytest.raises(err.HiddenUntilOver):  # a rival's token still sees nothing
        await race.game(r.id, r.ada, r.bob_token)


async def test_a_finished_racer_sees_boards_as_a_spectator_until_the_race_is_over(
        race: RaceAuthority, store: ClockStore) -> None:
    # the spare seat: cy resigns at once and would watch ada live from that seat
    r = await _room(race, spectator_delay_s=30)
    await race.start(r.id, r.host)
    store.advance(1_000)
    await _play(race, r, 2)
    await race.resign(r.id, r.cy, r.cy_token)
    view = await race.game(r.id, r.ada, r.cy_token)
    assert (view.version, view.legal_moves) == (0, []) and view.delay_ms > 0
    store.advance(31_000)
    assert (await race.game(r.id, r.ada, r.cy_token)).version == 2  # as a spectator: late
    with pytest.raises(err.HiddenUntilOver):  # the move log is not delayed: hidden
        await race.replay(r.id, r.ada, r.cy_token)
    with pytest.raises(err.HiddenUntilOver):  # nor in a comparison
        await compare_sources(race.logs_for(r.cy_token), RacerRef(r.id, "ada"),
                              RacerRef(r.id, "bob"))
    with pytest.raises(err.HiddenUntilOver):  # bob still races: still blind
        await race.game(r.id, r.ada, r.bob_token)
    for racer, token in ((r.ada, r.ada_token), (r.bob, r.bob_token)):
        await race.resign(r.id, racer, token)
    # the race is over: everything is public, to cy too
    assert (await race.game(r.id, r.ada, r.cy_token)).delay_ms == 0
    assert (await race.replay(r.id, r.ada, r.cy_token)).redeal_key is not None


async def test_a_finished_racer_sees_boards_live_in_open_boards_rooms(
        race: RaceAuthority) -> None:
    r = await _room(race, open_boards=True)
    await race.start(r.id, r.host)
    await _play(race, r, 2)
    await race.resign(r.id, r.cy, r.cy_token)
    view = await race.game(r.id, r.ada, r.cy_token)
    assert view.version == 2 and view.delay_ms == 0


async def test_after_the_race_everything_is_public(race: RaceAuthority) -> None:
    r = await _room(race)
    await race.start(r.id, r.host)
    await _play(race, r, 2)
    for racer, token in ((r.ada, r.ada_token), (r.bob, r.bob_token), (r.cy, r.cy_token)):
        await race.resign(r.id, racer, token)
    assert (await race.get_room(r.id)).state == "over"
    for token in (None, r.host, r.bob_token, r.ada_token):
        assert (await race.game(r.id, r.ada, token)).version == 2
        replay = await race.replay(r.id, r.ada, token)
        assert len(replay.moves) == 2 and replay.redeal_key is not None
    c = await compare_sources(race, RacerRef(r.id, "ada"), RacerRef(r.id, "bob"))
    assert [s.move for s in c.a.steps][:2] == [m.move for m in replay.moves]


async def test_a_token_of_nobody_in_the_room_is_refused(race: RaceAuthority) -> None:
    r = await _room(race)
    other = await _room(race)
    await race.start(r.id, r.host)
    for token in ("forged", other.ada_token, other.host):
        with pytest.raises(err.AuthInvalidToken):
            await race.game(r.id, r.ada, token)


async def test_spectator_delay_options_are_checked(race: RaceAuthority) -> None:
    for opts in ({"spectator_delay_s": 0}, {"spectator_delay_s": 601},
                 {"spectator_delay_s": -1}, {"open_boards": True, "spectator_delay_s": 30}):
        with pytest.raises(err.RequestInvalid) as bad:
            await race.create_room(RoomOptions(**opts))  # type: ignore[arg-type]
        assert bad.value.details == {"field": "spectator_delay_s"}
    room, _ = await race.create_room(RoomOptions(spectator_delay_s=10))
    assert (room.spectator_delay_ms, room.open_boards) == (10_000, False)
    with pytest.raises(err.RequestInvalid):  # a near-live "delay" is refused
        await race.create_room(RoomOptions(spectator_delay_s=9))
    room, _ = await race.create_room(RoomOptions())
    assert (room.spectator_delay_ms, room.open_boards) == (60_000, False)
