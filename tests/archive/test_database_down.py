"""The archive database goes away and comes back (a real PostgreSQL behind a
TCP relay the test cuts): reads of the archive answer 503
``archive/unavailable``, races run on, and the archiver catches up after —
with one log line for the outage, not one per try."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from pathlib import Path

import asyncpg
import httpx

from tests.conftest import SERVER_LOGS, ServerFactory, free_port


class Relay:
    """A TCP relay 127.0.0.1:port → 127.0.0.1:target that can be cut and restored."""

    def __init__(self, target: int) -> None:
        self.port, self.target = free_port(), target
        self._socks: list[socket.socket] = []
        self._listener: socket.socket | None = None

    def up(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        for s in self._socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self._socks.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def _archived(url: str) -> int:
    async def count() -> int:
        conn = await asyncpg.connect(url, timeout=3)
        try:
            return int(await conn.fetchval("SELECT count(*) FROM races"))
        finally:
            await conn.close()
    return asyncio.run(count())


def _finish_race(api: httpx.Client) -> str:
    created = api.post("/api/v1/rooms", json={"capacity": 1, "countdown_s": 0}).json()
    room, host = created["room"], created["host_token"]
    me = api.post(f"/api/v1/rooms/{room['id']}/racers", json={"name": "solo"}).json()
    assert api.post(f"/api/v1/rooms/{room['id']}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200
    auth = {"Authorization": f"Bearer {me['token']}"}
    moved = api.post(f"/api/v1/rooms/{room['id']}/racers/{me['racer']['id']}/moves",
                     headers=auth, json={"move": "r", "expected_version": 0,
                                         "client_move_id": "m1"})
    assert moved.status_code == 200, moved.text
    assert api.post(f"/api/v1/rooms/{room['id']}/racers/{me['racer']['id']}/resign",
                    headers=auth).status_code == 200
    return str(room["id"])


def _wait(check: object, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_database_down_races_run_reads_503_then_catch_up(
        server_factory: ServerFactory, pg_database: str, pg_server: int) -> None:
    from .conftest import reset_pg
    asyncio.run(reset_pg(pg_database))
    relay = Relay(pg_server)
    relay.up()
    db_name = pg_database.rsplit("/", 1)[1]
    url = server_factory(LUCIE_DATABASE_URL=f"postgresql://postgres@127.0.0.1:{relay.port}/"
                         f"{db_name}", LUCIE_ARCHIVE_PERIOD_S="0.2", LUCIE_ARCHIVE_LEASE_S="1",
                         LUCIE_LOG_LEVEL="warning")
    try:
        with httpx.Client(base_url=url, timeout=15) as api:
            first = _finish_race(api)
            _wait(lambda: _archived(pg_database) == 1, 20)
            made = api.post("/api/v1/players", json={"name": "Dora Down"}).json()

            relay.down()
            gone = api.get("/api/v1/races/nosuchrace")
            assert gone.status_code == 503, gone.text
            assert gone.json()["error"]["code"] == "archive/unavailable"
            assert gone.headers["retry-after"]
            for path in (f"/api/v1/players/{made['player']['id']}",
                         "/api/v1/leaderboards/belle-lucie/rating"):
                player = api.get(path)
                assert player.status_code == 503, player.text
                assert player.json()["error"]["code"] == "archive/unavailable"
            room = api.post("/api/v1/rooms", json={}).json()["room"]
            as_player = api.post(f"/api/v1/rooms/{room['id']}/racers", json={},
                                 headers={"Authorization": f"Bearer {made['key']}"})
            assert as_player.status_code == 503  # anonymous joins still work:
            assert api.post(f"/api/v1/rooms/{room['id']}/racers",
                            json={"name": "anon"}).status_code == 201
            second = _finish_race(api)  # the race runs on
            assert api.get(f"/api/v1/races/{second}").json()["live"] is True
            time.sleep(2)
            assert _archived(pg_database) == 1  # pending, not lost

            relay.up()
            _wait(lambda: _archived(pg_database) == 2, 45)
            for race in (first, second):
                assert api.get(f"/api/v1/races/{race}").status_code == 200
            assert api.get(f"/api/v1/players/{made['player']['id']}").status_code == 200
    finally:
        relay.down()
    text = Path(SERVER_LOGS[url]).read_text()
    assert text.count("archiving paused") == 1, text[-3000:]
    assert text.count("archiving resumed") == 1, text[-3000:]
