"""A room socket's ack and events are written at once when nothing is queued
and its sender is idle (``Listener.direct``, ``Connection._direct``; the
``lucie.send_text_now`` scope extension of ``server.runtime.ws_protocol``,
issue 23): the order, the sequence numbers and the socket's counts stay as
the sender task gives them."""

from __future__ import annotations

import asyncio
import logging

import httpx
import orjson
import pytest
import websockets

from server.api.hub import Item, Listener

from .live import live_server


async def test_items_are_offered_only_while_nothing_is_queued_and_the_sender_idles() -> None:
    offered: list[Item] = []
    take = True

    def direct(item: Item) -> bool:
        offered.append(item)
        return take

    started: list[int] = []
    listener = Listener(8, lambda: None)
    listener.direct = direct
    listener.push(("msg", 0, "before arm"))  # the welcome is being sent: queued
    assert offered == [] and listener.pending() == [("msg", 0, "before arm")]
    assert await listener.get() == ("msg", 0, "before arm")

    listener.arm(lambda: started.append(1))  # idle, no sender task yet
    listener.push(("event", 1, "a"))
    assert offered == [("event", 1, "a")] and listener.pending() == [] and started == []

    take = False  # the socket cannot take it now (paused): queued, the sender starts
    listener.push(("event", 2, "b"))
    assert listener.pending() == [("event", 2, "b")] and started == [1]
    take = True
    listener.push(("event", 3, "c"))  # behind a queued item: never offered
    assert offered[-1] == ("event", 2, "b") and len(offered) == 2
    assert listener.pending() == [("event", 2, "b"), ("event", 3, "c")]
    assert await listener.get() == ("event", 2, "b")
    assert await listener.get() == ("event", 3, "c")

    # the sender is busy with an item it took (not waiting here): queued
    listener.push(("event", 4, "d"))
    assert listener.pending() == [("event", 4, "d")] and len(offered) == 2
    assert await listener.get() == ("event", 4, "d")

    getter = asyncio.ensure_future(listener.get())  # the sender waits again
    await asyncio.sleep(0)
    listener.push(("event", 5, "e"))
    assert offered[-1] == ("event", 5, "e") and not getter.done()
    getter.cancel()


async def test_racers_get_every_event_once_in_order_and_the_log_counts_them(
        caplog: pytest.LogCaptureFixture) -> None:
    """Two racers move in turns, each on its own socket: every ack comes after
    the events before it, every socket sees each event number once, in order,
    with no gap, and its ``socket closed`` line counts every frame it got."""
    access = logging.getLogger("server.api.access")
    async with live_server(join_per_min=600, join_burst=100) as live:
        access.addHandler(caplog.handler)  # the server's logging set up, as uvicorn_logs
        base = f"http://127.0.0.1:{live.port}/api/v1"
        async with httpx.AsyncClient(base_url=base) as http:
            made = (await http.post("/rooms", json={"deal": 11, "countdown_s": 0})).json()
            room, host = made["room"]["id"], made["host_token"]
            seats = [(await http.post(f"/rooms/{room}/racers", json={"name": name})).json()
                     for name in ("ada", "bob")]
            await http.post(f"/rooms/{room}/start", headers={"Authorization": f"Bearer {host}"})
            games = [(await http.get(f"/rooms/{room}/racers/{s['racer']['id']}/game",
                                     headers={"Authorization": f"Bearer {s['token']}"})).json()
                     for s in seats]
        url = f"ws://127.0.0.1:{live.port}/api/v1/rooms/{room}/ws"
        socks = [await websockets.connect(url, compression=None, additional_headers={
            "Authorization": f"Bearer {s['token']}"}) for s in seats]
        got: list[list[dict]] = [[], []]
        try:
            for i, ws in enumerate(socks):
                got[i].append(orjson.loads(await ws.recv()))
            versions = [g["version"] for g in games]
            legal = [g["legal_moves"] for g in games]
            for n in range(40):
                who = n % 2
                move = "u" if versions[who] % 2 else legal[who][n % len(legal[who])]
                await socks[who].send(orjson.dumps({"t": "move", "d": {
                    "move": move, "expected_version": versions[who],
                    "client_move_id": str(n)}}).decode())
                while True:
                    msg = orjson.loads(await socks[who].recv())
                    got[who].append(msg)
                    if msg["t"] == "ack":
                        break
                    assert msg["t"] == "event", msg
                versions[who] = msg["d"]["version"]
                if versions[who] % 2 == 0:
                    legal[who] = msg["d"]["game"]["legal_moves"]
            for i, ws in enumerate(socks):  # the last events of the other's moves
                await ws.send('{"t":"ping"}')
                while (msg := orjson.loads(await ws.recv()))["t"] != "pong":
                    got[i].append(msg)
                got[i].append(msg)
        finally:
            for ws in socks:
                await ws.close()
        # the close lines are logged as the handlers end: a moment later, longer
        # on a loaded machine (CI saw none after a fixed 0.3 s)
        async with asyncio.timeout(10):
            while len(_closed(caplog)) < 2:
                await asyncio.sleep(0.05)
        access.removeHandler(caplog.handler)
    welcome_seq = [g[0]["d"]["room"]["seq"] for g in got]
    for i in range(2):
        seqs = [m["d"]["seq"] for m in got[i] if m["t"] == "event"]
        assert seqs == list(range(welcome_seq[i] + 1, welcome_seq[i] + 1 + len(seqs)))
        assert len([m for m in got[i] if m["t"] == "ack"]) == 20
        assert len(seqs) >= 40  # a progress event per move of either racer
    closed = sorted(_closed(caplog), key=lambda r: r.racer)
    counts = sorted(len(g) for g in got)
    assert sorted(r.messages_out for r in closed) == counts


def _closed(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The racers' ``socket closed`` access lines logged so far."""
    return [r for r in caplog.records
            if getattr(r, "event", "") == "socket_closed" and getattr(r, "racer", None)]
