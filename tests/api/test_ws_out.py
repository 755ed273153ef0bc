"""The one encoder of server socket messages (server/api/ws_out.py): its fast
paths write pydantic's bytes, every message it writes is a ServerMessage of
the published schema, and optional fields appear only when given."""

from __future__ import annotations

import asyncio
import random
from typing import Any, cast

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from server.api import ws_out as out
from server.api.models import AckOut, EventOut, ServerMessage
from server.errors import MoveIllegal
from server.race import RaceAuthority, RoomOptions
from server.race.views import Ack
from server.store.memory import MemoryStore

SERVER = TypeAdapter(cast(Any, ServerMessage))


async def _race(seed: int, moves: int) -> tuple[list[Ack], list[dict[str, Any]]]:
    """A race of two racers on a random deal, ``moves`` random legal moves (undo
    and autoplay among them), one resigning: its acks and its logged events."""
    rng = random.Random(seed)
    store = MemoryStore()
    try:
        race = RaceAuthority(store)
        room, host = await race.create_room(RoomOptions(
            deal=rng.randint(1, 32000), countdown_s=0, undo=rng.random() < 0.7,
            capacity=3))
        seats = [await race.join(room.id, name) for name in ("Ada", "Émile 😀")]
        await race.start(room.id, host)
        acks: list[Ack] = []
        for n in range(moves):
            racer, token = seats[n % 2]
            game = await race.game(room.id, racer.id, token)
            if game.final or not game.legal_moves:
                break
            move = rng.choice([*game.legal_moves, "a"] if game.legal_moves else ["a"])
            try:
                acks.append(await race.move(room.id, racer.id, token, move, game.version,
                                            f"m{n}"))
            except MoveIllegal:  # an autoplay with nothing to do
                continue
        for racer, token in seats:
            if not (await race.game(room.id, racer.id, token)).final:
                await race.resign(room.id, racer.id, token)
        return acks, await store.events.events_since(room.id, 0)
    finally:
        await store.close()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 40))
def test_fast_paths_write_pydantics_bytes(seed: int, moves: int) -> None:
    acks, events = asyncio.run(_race(seed, moves))
    assert events and {e["type"] for e in events} >= {"created", "joined", "started",
                                                       "race_over"}
    for ack in acks:
        made = out.ack(ack)
        assert made == AckOut.model_construct(t="ack", d=ack)
        assert made.model_fields_set == {"t", "d"}
        text = out.encode(made)
        assert text == AckOut(t="ack", d=ack).model_dump_json()
        SERVER.validate_json(text)
    for event in events:
        made = out.event(event)
        assert (made.t, made.d, made.model_fields_set) == ("event", event, {"t", "d"})
        text = out.encode(made)
        assert text == EventOut.model_validate({"t": "event", "d": event}).model_dump_json()
        assert orjson.loads(text) == {"t": "event", "d": event}


def test_optional_fields_appear_only_when_given() -> None:
    plain = orjson.loads(out.encode(out.refused("m1", "move/illegal", "no")))
    assert plain == {"t": "refused", "d": {"client_move_id": "m1", "code": "move/illegal",
                                            "message": "no"}}
    retry = orjson.loads(out.encode(out.refused(None, "store/unavailable", "later",
                                                details={"retry_after_ms": 500})))
    assert retry["d"] == {"client_move_id": None, "code": "store/unavailable",
                          "message": "later", "details": {"retry_after_ms": 500}}
    assert orjson.loads(out.encode(out.error("request/invalid", "bad"))) == {
        "t": "error", "d": {"code": "request/invalid", "message": "bad"}}
    assert orjson.loads(out.encode(out.error("request/invalid", "bad", {"errors": []}))) == {
        "t": "error", "d": {"code": "request/invalid", "message": "bad",
                            "details": {"errors": []}}}
    assert orjson.loads(out.encode(out.pong())) == {"t": "pong"}


async def test_every_message_is_one_of_the_schema() -> None:
    """welcome, snapshot and a stale refusal with its game: ServerMessages whose
    data are the authority's views, every field sent."""
    store = MemoryStore()
    try:
        race = RaceAuthority(store)
        room, host = await race.create_room(RoomOptions(deal=5, countdown_s=0))
        ada, token = await race.join(room.id, "Ada")
        await race.start(room.id, host)
        view = await race.get_room(room.id)
        game = await race.game(room.id, ada.id, token)
        for msg in (out.welcome(ada.id, view), out.welcome(None, view), out.snapshot(view)):
            text = out.encode(msg)
            assert type(SERVER.validate_json(text)) is type(msg)
            assert text == msg.model_dump_json()
        stale = out.encode(out.refused("m9", "move/stale_version", "stale",
                                       game=game.model_dump(mode="json")))
        SERVER.validate_json(stale)
        assert orjson.loads(stale)["d"]["game"] == game.model_dump(mode="json")
        welcome = orjson.loads(out.encode(out.welcome(ada.id, view)))
        assert welcome["d"]["room"] == view.model_dump(mode="json")
        snapshot = orjson.loads(out.encode(out.snapshot(view)))
        assert snapshot["d"]["seq"] == view.seq > 0
    finally:
        await store.close()
