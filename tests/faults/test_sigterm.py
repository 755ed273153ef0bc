"""A server process gets SIGTERM mid-race (a rolling deploy, a scale-in).

Public reports of this kind: WebSocket servers that drop their sockets
without a close frame on shutdown (clients see 1006 and cannot tell a
restart from a crash), and load-balanced services that lose or double
requests in flight while an instance drains. Here two real ``lucie-server``
processes share one Redis; racers move over REST and a racer and a spectator
hold room sockets on the process that gets SIGTERM.

Promise: the room sockets of the stopping process close with 1012 (service
restart — what uvicorn sends on shutdown) within a second; the clients
resume on the other process with ``?since=`` and see every event once, with
no gap in the sequence numbers; a REST move in flight during the SIGTERM is
either answered (200) or not applied (the other process has the racer at
the last acknowledged version, and the resend with the same client move id
applies it once); nothing but 200 (and the documented 503) is ever answered;
the stopping process exits within 10 s with a clean log (uvicorn re-raises
the SIGTERM it handled: exit status 143).
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tests.e2e.wire import Api, open_socket, recv, recv_until
from tests.race.helpers import pick_move
from tests.redis.cluster import Cluster
from tests.redis.racing import Racer, events_of

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]

CLOSE_WITHIN_S = 1.0
"""How soon after SIGTERM the stopping process's room sockets are closed."""


class RestRacer:
    """A racer moving over REST, one move at a time, on one process then another."""

    def __init__(self, room: dict[str, Any], rid: str, token: str) -> None:
        self.room, self.id = room, rid
        self.auth = {"Authorization": f"Bearer {token}"}
        self.acked: dict[str, dict[str, Any]] = {}
        self.statuses: list[int] = []
        self.in_flight: tuple[str, str, int] | None = None
        """(client move id, move, expected version) of the move that got no answer."""
        self.n = 0

    async def play(self, url: str, game: dict[str, Any], limit: int) -> dict[str, Any]:
        """Move until final or ``limit`` moves are acknowledged; stop at the first
        move without an answer (kept in :attr:`in_flight`)."""
        async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
            while not game["final"] and len(self.acked) < limit:
                move = pick_move(self.room["rules"], game)
                assert move is not None
                self.n += 1
                cmid = f"{self.id}-{self.n}"
                try:
                    r = await http.post(f"/rooms/{self.room['id']}/racers/{self.id}/moves",
                                        headers=self.auth, json={
                                            "move": move, "expected_version": game["version"],
                                            "client_move_id": cmid})
                except httpx.HTTPError:
                    self.in_flight = (cmid, move, game["version"])
                    return game
                self.statuses.append(r.status_code)
                if r.status_code != 200:
                    self.in_flight = (cmid, move, game["version"])
                    return game
                self.acked[cmid] = r.json()
                game = r.json()["game"]
                await asyncio.sleep(0.02)
        return game


async def test_sigterm_closes_1012_clients_resume_elsewhere_moves_kept() -> None:
    cluster = Cluster(2)
    doomed, other = cluster.urls
    api, api_b = Api(doomed), Api(other)
    try:
        room, host = await api.create(deal=4242, countdown_s=0, undo=False)
        joined = [await api.join(room["id"], n) for n in ("Ada", "Bob", "Cy")]
        ada = Racer(room, *joined[0])
        rest = [RestRacer(room, *j) for j in joined[1:]]
        await ada.connect(doomed)
        spec_cm = open_socket(doomed, room["id"])
        spec = await spec_cm.__aenter__()
        spec_msgs = [await recv(spec)]
        await api.start(room["id"], host)
        await ada.until("event", "started")
        game = await ada.play(await ada.game(), limit=3)
        start_games = [await api.get(f"/rooms/{room['id']}/racers/{r.id}/game",
                                     r.auth["Authorization"][7:]) for r in rest]
        loops = [asyncio.create_task(r.play(doomed, g, limit=10_000))
                 for r, g in zip(rest, start_games, strict=True)]

        async def spectate() -> int:
            try:
                while True:
                    spec_msgs.append(await recv(spec))
            except ConnectionClosed as exc:
                assert exc.rcvd is not None, "closed without a close frame"
                return exc.rcvd.code

        spectating = asyncio.create_task(spectate())
        await asyncio.sleep(0.3)  # moves under way on the doomed process
        assert all(not t.done() for t in loops)
        cluster.procs[0].send_signal(signal.SIGTERM)
        sigterm = time.monotonic()
        async with asyncio.timeout(5):
            code = await spectating
            spec_closed_s = time.monotonic() - sigterm
            try:
                while True:
                    ada.msgs.append(await recv(ada.ws))  # type: ignore[arg-type]
            except ConnectionClosed as exc:
                assert exc.rcvd is not None, "closed without a close frame"
                ada_code = exc.rcvd.code
        assert code == 1012 and ada_code == 1012, (code, ada_code)
        assert spec_closed_s < CLOSE_WITHIN_S, spec_closed_s
        games = await asyncio.gather(*loops)
        exit_code = cluster.procs[0].wait(10)
        exited_s = time.monotonic() - sigterm
        # uvicorn shuts down cleanly, then re-raises the signal it caught: the
        # exit status is that of SIGTERM (143 in a shell), its log clean
        assert exit_code == -signal.SIGTERM, (exit_code, cluster.log(0))
        assert "Traceback" not in cluster.log(0) and "ERROR" not in cluster.log(0)
        assert exited_s < 10, exited_s
        statuses = sorted({s for r in rest for s in r.statuses})
        print(f"fault-figure: SIGTERM: sockets closed {code} after {spec_closed_s:.3f} s, "
              f"process gone after {exited_s:.2f} s; REST acks {[len(r.acked) for r in rest]}, "
              f"in flight {[r.in_flight for r in rest]}, statuses {statuses}")

        # the clients resume on the other process, from the last event they saw
        await spec_cm.__aexit__(None, None, None)
        last = max(m["d"]["seq"] for m in spec_msgs if m["t"] == "event")
        async with open_socket(other, room["id"], since=last) as spec:
            assert (await recv(spec))["t"] == "welcome"
            await ada.connect(other, resume=True)
            # the REST moves without an answer were not applied; resent, they apply once
            for r, g in zip(rest, games, strict=True):
                now = await api_b.get(f"/rooms/{room['id']}/racers/{r.id}/game",
                                      r.auth["Authorization"][7:])
                assert now["version"] == g["version"], "a move applied without an answer"
                if r.in_flight is not None:
                    cmid, move, expected = r.in_flight
                    resp = await api_b.http.post(
                        f"/rooms/{room['id']}/racers/{r.id}/moves", headers=r.auth,
                        json={"move": move, "expected_version": expected,
                              "client_move_id": cmid})
                    assert resp.status_code == 200, resp.text
                    assert resp.json()["version"] == expected + 1
                    r.acked[cmid] = resp.json()
            for r, g in zip(rest, games, strict=True):
                if g["final"]:
                    continue
                resp = await api_b.http.post(f"/rooms/{room['id']}/racers/{r.id}/resign",
                                             headers=r.auth)
                assert resp.status_code == 200, resp.text
            final = await ada.play(game)
            seen: list[dict[str, Any]] = []
            await recv_until(spec, "event", type_="race_over", seen=seen)
            await ada.until("event", "race_over")
        await ada.close()

        # one gap-free sequence across both processes, for both sockets
        for log in (events_of(spec_msgs + seen), events_of(ada.msgs)):
            seqs = [e["seq"] for e in log]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        spectated = events_of(spec_msgs + seen)
        # every acknowledged move in the log once, at its version; nothing else
        for r, versions in [(ada, final["version"]),
                            *((r, len(r.acked)) for r in rest)]:
            rep = await api_b.get(f"/rooms/{room['id']}/racers/{r.id}/replay")
            assert [m["version"] for m in rep["moves"]] == list(range(1, versions + 1))
            for ack in r.acked.values():
                assert rep["moves"][ack["version"] - 1]["move"] == ack["applied"][0]
            progress = [e["moves"] for e in spectated
                        if e["type"] == "progress" and e["racer"] == r.id]
            assert progress == list(range(1, versions + 1))
        assert all(s in (200, 503) for r in rest for s in r.statuses)
        assert cluster.procs[1].poll() is None
    finally:
        await api.aclose()
        await api_b.aclose()
        cluster.stop()
