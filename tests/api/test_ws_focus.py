"""The ``focus`` socket message against a real server in this process
(docs/protocol.md, "WebSocket"; docs/fair-play.md, "Focus"): a racer's focus
losses are counted on their stored record without an answer or an event —
the racer of a socket authenticated by its header or by ``auth`` — and go to
the archive with the finished race's document; a spectator's are refused
with ``auth/missing``, bad shapes with ``request/invalid``; no socket message
shows the count."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

from server.race.authority import RaceAuthority
from server.race.state import RacerRecord

from .live import live_server

FOCUS = '{"t":"focus","d":{"lost":true}}'


async def _until(ws: Any, t: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Read until a message of type ``t``; every message read goes into ``seen``."""
    async with asyncio.timeout(5):
        while True:
            msg = orjson.loads(await ws.recv())
            seen.append(msg)
            if msg["t"] == t:
                return msg  # type: ignore[no-any-return]


async def _answer_to(ws: Any, text: str, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the socket answers to ``text`` (events aside), up to the pong of a ping
    sent after it."""
    start = len(seen)
    await ws.send(text)
    await ws.send('{"t":"ping"}')
    await _until(ws, "pong", seen)
    return [m for m in seen[start:-1] if m["t"] != "event"]


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


async def test_focus_messages_are_counted_for_racers_and_refused_to_spectators(
        tmp_path: Path) -> None:
    async with live_server(data_dir=str(tmp_path), archive_period_s=0.05) as live:
        app = live.server.config.app
        authority: RaceAuthority = app.state.authority
        archived: list[dict[str, Any]] = []
        write = app.state.archive.write

        async def keep(race: dict[str, Any]) -> bool:  # what the archiver is handed
            archived.append(race)
            return await write(race)

        app.state.archive.write = keep

        async def losses(room: str, racer: str) -> int:
            got = await authority.store.racers.get_racer(room, racer)
            return 0 if got is None else RacerRecord.model_validate(got.data).focus_losses

        base = f"http://127.0.0.1:{live.port}/api/v1"
        async with httpx.AsyncClient(base_url=base) as http:
            made = (await http.post("/rooms", json={"deal": 11, "countdown_s": 0})).json()
            room, host = made["room"]["id"], made["host_token"]
            ada, bob = [(await http.post(f"/rooms/{room}/racers", json={"name": name})).json()
                        for name in ("ada", "bob")]
            url = f"ws://127.0.0.1:{live.port}/api/v1/rooms/{room}/ws"
            seen: list[dict[str, Any]] = []
            racer_ws = await websockets.connect(url, additional_headers={
                "Authorization": f"Bearer {ada['token']}"})
            spectator_ws = await websockets.connect(url)
            try:
                await _until(racer_ws, "welcome", seen)
                await _until(spectator_ws, "welcome", seen)
                assert await _answer_to(racer_ws, FOCUS, seen) == []  # before the start
                await http.post(f"/rooms/{room}/start",
                                headers={"Authorization": f"Bearer {host}"})
                assert (await http.get(f"/rooms/{room}")).json()["state"] == "racing"

                for _ in range(3):  # in the same second: one loss
                    assert await _answer_to(racer_ws, FOCUS, seen) == []
                assert await losses(room, ada["racer"]["id"]) == 1

                answer = await _answer_to(spectator_ws, FOCUS, seen)
                assert [(m["t"], m["d"]["code"]) for m in answer] == [("error", "auth/missing")]
                for bad in ('{"t":"focus","d":{"lost":false}}', '{"t":"focus","d":{"lost":1}}',
                            '{"t":"focus","d":{"lost":"true"}}', '{"t":"focus","d":{}}',
                            '{"t":"focus"}', '{"t":"focus","d":{"lost":true,"x":1}}',
                            '{"t":"focus","d":{"lost":true},"x":1}'):
                    answer = await _answer_to(racer_ws, bad, seen)
                    assert [(m["t"], m["d"]["code"]) for m in answer] == [
                        ("error", "request/invalid")], bad

                # a spectator socket that becomes bob's by its auth message
                await spectator_ws.send(orjson.dumps(
                    {"t": "auth", "d": {"token": bob["token"]}}).decode())
                await _until(spectator_ws, "welcome", seen)
                assert await _answer_to(spectator_ws, FOCUS, seen) == []
                assert await losses(room, bob["racer"]["id"]) == 1
                assert await losses(room, ada["racer"]["id"]) == 1

                for racer in (ada, bob):
                    done = await http.post(f"/rooms/{room}/racers/{racer['racer']['id']}/resign",
                                           headers={"Authorization": f"Bearer {racer['token']}"})
                    assert done.status_code == 200, done.text
                await _until(racer_ws, "event", seen)
                await asyncio.sleep(1.0)  # a second on: counted, were the race still on
                assert await _answer_to(racer_ws, FOCUS, seen) == []  # after the race
                assert await losses(room, ada["racer"]["id"]) == 1
                late = await websockets.connect(url + "?since=0")
                try:
                    await _until(late, "welcome", seen)
                    await late.send('{"t":"ping"}')
                    await _until(late, "pong", seen)  # every event of the room, replayed
                finally:
                    await late.close()
            finally:
                await racer_ws.close()
                await spectator_ws.close()
            assert not {k for k in _keys(seen) if "focus" in k}, "a socket message shows it"

            async with asyncio.timeout(10):
                while not archived:
                    await asyncio.sleep(0.05)
            [doc] = archived
            assert {rid: r["focus_losses"] for rid, r in doc["racers"].items()} == {
                ada["racer"]["id"]: 1, bob["racer"]["id"]: 1}
