"""A move hands the store its racer's log as JSON bytes grown one move at a time
(``RaceCache.log_bytes``, issue 23); the stored bytes are the same as when the
whole record was encoded every move."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.race.authority import RaceAuthority, RoomOptions
from server.race.cache import RaceCache
from server.race.errors import RaceError
from server.race.state import RacerRecord
from server.store.base import decode_record, encode_record, json_bytes
from tests.rules.test_properties import PROPERTY_SETTINGS

from .helpers import ClockStore

_ENTRY = st.tuples(st.sampled_from(["1f", "3-7", "u", "r", "m 5H f", "c1-2", "é"]),
                   st.integers(0, 10**12))


@PROPERTY_SETTINGS
@given(steps=st.lists(st.tuples(st.lists(_ENTRY, min_size=1, max_size=4),
                                st.sampled_from(["known", "read", "forgot"])),
                      min_size=1, max_size=40))
def test_log_bytes_are_the_whole_logs_bytes(
        steps: list[tuple[list[tuple[str, int]], str]]) -> None:
    cache = RaceCache()
    key = ("room", "racer")
    log: list[Any] = []
    for entries, how in steps:
        if how == "read":  # the general path: the record as read from the store
            log = [list(e) for e in log]
        elif how == "forgot":
            cache.unknown(key)
        after = [*log, *entries]
        raw = cache.log_bytes(key, log, after)
        assert raw == json_bytes(after)
        log = after


def test_stored_with_log_bytes_encodes_the_same() -> None:
    for log in ([], [("1f", 10)], [["1f", 10], ("u", 20), ("3-7", 10**10)]):
        racer = RacerRecord(id="r", status="playing", log=log, foundation_cards=1)
        assert encode_record(racer.stored(json_bytes(log))) == encode_record(racer.stored()) \
            == encode_record(racer.model_dump(mode="json"))


async def test_stored_racers_are_the_whole_records_bytes() -> None:
    """Moves, undos, autoplay, refusals and a forgotten record (the general path):
    every racer's stored bytes are its record's full encoding."""
    store = ClockStore()
    race = RaceAuthority(store)
    room, host = await race.create_room(RoomOptions(deal=11, countdown_s=0, time_limit_s=600))
    seats = [(await race.join(room.id, name))[:2] for name in ("ada", "bob")]
    await race.start(room.code, host)
    n = 0
    for step in range(60):
        for racer, token in seats:
            game = await race.game(room.id, racer.id, token)
            if game.final:
                continue
            n += 1
            choice = ("u" if game.version % 2 and step % 5 else
                      "a" if step % 7 == 3 else game.legal_moves[step % len(game.legal_moves)])
            with suppress(RaceError):  # refused (autoplay with nothing to move, ...)
                await race.move(room.id, racer.id, token, choice, game.version, f"m{n}")
            if step % 11 == 5:
                race.cache.unknown((room.id, racer.id))
            store.advance(37)
            raw, _ = store._state.rooms[room.id].racers[racer.id]
            record = RacerRecord.model_validate(decode_record(raw))
            assert raw == encode_record(record.model_dump(mode="json"))
    assert n > 60 and race.cache.log_json
