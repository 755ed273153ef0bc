"""The shipped load balancer, run for real: a ``haproxy`` process configured from
``infra/haproxy.cfg`` (only its addresses rewritten: ``tests/redis/balancer.py``)
in front of two ``lucie-server`` processes on one Redis that trust it
(``LUCIE_TRUSTED_PROXIES=127.0.0.1``), and, for the negative case, one more
process behind its own ``haproxy`` that does not.

Through HAProxy only: a race whose two racers' WebSockets sit on different
replicas (each sees the other's moves through Redis); two clients on their own
loopback addresses (127.0.0.2, 127.0.0.3) with their own budgets, spoofed
``X-Forwarded-For`` headers buying nothing; without the trust, every client
shares the balancer's budget; a replica killed mid-race costs no request and
the health checks take it out of the pool while its racer resumes on the other.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.conftest import child_pids, wait_gone
from tests.e2e.wire import Api, recv

from .balancer import Balancer, haproxy_binary
from .cluster import Cluster
from .racing import Racer, events_of

pytestmark = [
    pytest.mark.redis, pytest.mark.timeout(60),
    pytest.mark.skipif(haproxy_binary() is None,
                       reason="haproxy is not installed (make test installs it: "
                              "scripts/ensure-tools.sh)"),
]

CREATE_BURST = 3
SOCKETS_PER_ADDRESS = 4
LIMITS = {  # low per-client budgets (per process), refilling too slowly to matter here
    "LUCIE_CREATE_PER_MIN": "1", "LUCIE_CREATE_BURST": str(CREATE_BURST),
    "LUCIE_SOCKETS_PER_ADDRESS": str(SOCKETS_PER_ADDRESS),
}
A, B = "127.0.0.2", "127.0.0.3"
"""The two clients' own addresses (Linux routes all of 127/8 to loopback)."""


class Deployment:
    """Two trusting replicas behind ``lb``; one untrusting replica behind ``lone_lb``."""

    def __init__(self) -> None:
        with ThreadPoolExecutor(2) as pool:  # start both clusters at once
            pair = pool.submit(Cluster, 2, LUCIE_TRUSTED_PROXIES="127.0.0.1",
                               LUCIE_LOG_LEVEL="info", PYTHONUNBUFFERED="1", **LIMITS)
            lone = pool.submit(Cluster, 1, **LIMITS)
            done = [f.result() for f in (pair, lone) if f.exception() is None]
            if len(done) < 2:
                for cluster in done:
                    cluster.stop()
                raise RuntimeError("a cluster did not start") from (
                    pair.exception() or lone.exception())
        self.pair, self.lone = done
        try:
            self.lb = Balancer(self.pair.urls)
            try:
                self.lone_lb = Balancer(self.lone.urls)
            except BaseException:
                self.lb.stop()
                raise
        except BaseException:  # a balancer that did not start leaves no replica running
            self.pair.stop()
            self.lone.stop()
            raise

    def stop(self) -> None:
        """Stop both balancers and every replica; fail if any process, or any
        child of one (solver workers), is left."""
        procs = [self.lb.proc, self.lone_lb.proc, *self.pair.procs, *self.lone.procs]
        kids = set().union(*(child_pids(p.pid) for p in procs if p.poll() is None))
        for lb in (self.lb, self.lone_lb):
            lb.stop()
        self.pair.stop()
        self.lone.stop()
        assert all(p.poll() is not None for p in procs), "a process outlived the module"
        assert not wait_gone(kids, 5), "a child of a replica outlived it"


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    dep = Deployment()  # cleans up after itself when a part does not start
    try:
        yield dep
    finally:
        dep.stop()


def _http(url: str, source: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url + "/api/v1", timeout=10,
                             transport=httpx.AsyncHTTPTransport(local_address=source))


def _ws(url: str, room: str, source: str) -> Any:
    return connect(url.replace("http", "ws", 1) + f"/api/v1/rooms/{room}/ws",
                   open_timeout=10, close_timeout=2, local_addr=(source, 0))


def _sessions(lb: Balancer) -> dict[str, int]:
    """Sessions open now on each replica, by HAProxy's statistics."""
    return {name: int(row["scur"]) for name, row in lb.stats().items() if name in lb.names}


async def _settle(lb: Balancer, expected: dict[str, int]) -> None:
    async with asyncio.timeout(5):
        while _sessions(lb) != expected:
            await asyncio.sleep(0.05)


async def _connect_on(lb: Balancer, racer: Racer, avoid: set[str]) -> str:
    """Connect ``racer``'s socket through ``lb`` onto a replica not in ``avoid``
    (round robin: a retry goes to the next one); the replica's name."""
    for _ in range(len(lb.names) + 1):
        before = _sessions(lb)
        await racer.connect(lb.url)  # returns once the welcome came: the tunnel is up
        after = _sessions(lb)
        gained = [n for n in lb.names if after[n] == before[n] + 1]
        assert len(gained) == 1, (before, after)
        if gained[0] not in avoid:
            return gained[0]
        await racer.close()
        await _settle(lb, before)
    raise AssertionError("round robin never reached another replica")


def _logs(deployment: Deployment) -> list[str]:
    """What the two trusting replicas logged so far (access lines at info)."""
    return [deployment.pair.log(i) for i in range(len(deployment.pair.procs))]


def _order(games: dict[str, dict[str, Any]], join: list[str]) -> list[str]:
    """Standings order: foundation cards, then reach time, moves, join order."""
    return sorted(games, key=lambda r: (-games[r]["position"]["foundation_cards"],
                                        games[r]["reach_time_ms"] or 0, games[r]["moves"],
                                        join.index(r)))


def _table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Standings without ``to_par`` (the solver's par may land after race_over)."""
    return [{k: v for k, v in row.items() if k != "to_par"} for row in rows]


async def test_a_race_runs_through_haproxy_on_both_replicas(deployment: Deployment) -> None:
    lb = deployment.lb
    await _settle(lb, dict.fromkeys(lb.names, 0))  # no session of an earlier test left
    api = Api(lb.url)
    room, host = await api.create(undo=False, deal=123, countdown_s=1)
    joined = [await api.join(room["code"], name) for name in ("Ada", "Bob")]
    ada, bob = (Racer(room, rid, tok) for rid, tok in joined)
    on_ada = await _connect_on(lb, ada, set())
    on_bob = await _connect_on(lb, bob, {on_ada})
    assert {on_ada, on_bob} == {"app1", "app2"}  # each racer's socket on its own process
    before = max(r.msgs[0]["d"]["room"]["seq"] for r in (ada, bob))
    await api.start(room["id"], host)

    async def race(r: Racer) -> dict[str, Any]:
        await r.until("event", "started")
        game = await r.play(await r.game())  # moves over the socket, each acked
        await r.until("event", "race_over")
        return game

    async with asyncio.timeout(40):
        games = dict(zip((ada.id, bob.id), await asyncio.gather(race(ada), race(bob)),
                         strict=True))
    for r in (ada, bob):
        await r.close()
    # one event sequence on both replicas: each racer saw the other's every move,
    # fanned out through Redis from the other process
    log = events_of(ada.msgs, before)
    assert events_of(bob.msgs, before) == log
    assert [e["seq"] for e in log] == list(range(before + 1, before + 1 + len(log)))
    types = [e["type"] for e in log]
    assert types[:2] == ["countdown", "started"] and types[-1] == "race_over"
    for r in (ada, bob):
        progress = [e for e in log if e["type"] == "progress" and e["racer"] == r.id]
        assert len(progress) == games[r.id]["version"] > 0
        assert len(r.acked) == games[r.id]["version"]
    table = await api.get(f"/rooms/{room['id']}/standings")
    assert table["final"] and _table(log[-1]["standings"]) == _table(table["standings"])
    assert [s["racer"] for s in table["standings"]] == _order(games, [ada.id, bob.id])
    await api.aclose()
    # HAProxy's own log: both sockets were upgraded (101), one per replica; no token
    ws_line = re.compile(rf"replicas/(app\d) \S+ 101 .*\"GET /api/v1/rooms/{room['id']}/ws ")
    async with asyncio.timeout(5):
        while len(tunnels := ws_line.findall(lb.log())) < 2:  # logged when they close
            await asyncio.sleep(0.05)
    assert sorted(tunnels) == ["app1", "app2"]
    assert host not in lb.log() and all(tok not in lb.log() for _, tok in joined)


async def test_two_clients_behind_haproxy_have_their_own_budgets(
        deployment: Deployment) -> None:
    lb, direct = deployment.lb, deployment.pair.urls[0]
    async with _http(lb.url, A) as a, _http(lb.url, B) as b:
        # A floods room creation, inventing a new X-Forwarded-For each time: HAProxy
        # appends the real peer, and the replicas believe only that
        codes = [(await a.post("/rooms", json={"visibility": "private"},
                               headers={"X-Forwarded-For": f"203.0.113.{i}"})).status_code
                 for i in range(10)]
        # round robin: each replica gives A its burst, then refuses
        assert codes == [201] * (2 * CREATE_BURST) + [429] * (10 - 2 * CREATE_BURST)
        refused = await a.post("/rooms", json={})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate/limited"
        assert int(refused.headers["Retry-After"]) >= 1
        assert refused.json()["error"]["details"]["retry_after_ms"] > 0
        # B, behind the same balancer, still has all of its own
        made = [await b.post("/rooms", json={"visibility": "private"}) for _ in range(2)]
        assert [r.status_code for r in made] == [201, 201], made[-1].text
        room = made[0].json()["room"]["id"]
        # sockets: the per-address cap counts A, on each replica
        opened: list[Any] = []
        statuses: list[int] = []
        try:
            for _ in range(2 * SOCKETS_PER_ADDRESS + 2):
                try:
                    opened.append(await _ws(lb.url, room, A).__aenter__())
                    assert (await recv(opened[-1]))["t"] == "welcome"
                except InvalidStatus as exc:
                    statuses.append(exc.response.status_code)
                    assert b"rate/limited" in exc.response.body
            assert len(opened) == 2 * SOCKETS_PER_ADDRESS and statuses == [429, 429]
            async with _ws(lb.url, room, B) as ws:  # B connects
                assert (await recv(ws))["t"] == "welcome"
            # the replicas' logs name the real clients (each reached both through
            # HAProxy only, so far), never an invented header's address
            async with asyncio.timeout(5):
                while not all(A in log and B in log for log in _logs(deployment)):
                    await asyncio.sleep(0.05)
            assert not any("203.0.113." in log for log in _logs(deployment))
            # what the replica counted behind HAProxy is A's real address: A's
            # direct requests from 127.0.0.2 find the same budgets spent
            with pytest.raises(InvalidStatus) as full:
                await _ws(direct, room, A).__aenter__()
            assert full.value.response.status_code == 429
        finally:
            await asyncio.gather(*(ws.close() for ws in opened))
    async with _http(direct, A) as a_direct, _http(direct, B) as b_direct:
        assert (await a_direct.post("/rooms", json={})).status_code == 429
        assert (await b_direct.post("/rooms", json={})).status_code == 201


async def test_without_trusted_proxies_every_client_shares_the_balancers_budget(
        deployment: Deployment) -> None:
    """The negative: the replica behind ``lone_lb`` has no LUCIE_TRUSTED_PROXIES,
    so it keys every client on HAProxy's own address — one flood throttles all."""
    lb = deployment.lone_lb
    async with _http(lb.url, A) as a, _http(lb.url, B) as b:
        codes = [(await a.post("/rooms", json={})).status_code for _ in range(CREATE_BURST + 1)]
        assert codes == [201] * CREATE_BURST + [429]
        r = await b.post("/rooms", json={})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate/limited"


async def test_a_replica_killed_mid_race_costs_no_request(deployment: Deployment) -> None:
    """``option redispatch`` + ``retries``: requests meant for a dead replica go to
    the live one; the ``/healthz`` health check takes it out of the pool; its
    racer reconnects through HAProxy and resumes on the other. (Runs last: it
    kills one of the module's replicas.)"""
    lb, pair = deployment.lb, deployment.pair
    await _settle(lb, dict.fromkeys(lb.names, 0))  # the sockets of earlier tests are gone
    api = Api(lb.url)
    room, host = await api.create(undo=False, deal=321, countdown_s=0)
    joined = [await api.join(room["code"], name) for name in ("Cy", "Di")]
    cy, di = (Racer(room, rid, tok) for rid, tok in joined)
    on_cy = await _connect_on(lb, cy, set())
    await _connect_on(lb, di, {on_cy})
    await api.start(room["id"], host)
    await cy.until("event", "started")
    await di.until("event", "started")
    game = await cy.play(await cy.game(), limit=3)
    doomed = pair.procs[lb.names.index(on_cy)]
    kids = child_pids(doomed.pid)  # its solver worker, once a par job ran
    pair.kill(lb.names.index(on_cy))  # Cy's replica dies: its socket drops
    codes = [(await api.http.get(f"/rooms/{room['id']}")).status_code for _ in range(6)]
    assert codes == [200] * 6  # half were sent to the dead one first, and redispatched
    await cy.connect(lb.url, resume=True)  # back through HAProxy, after the last seq seen
    async with asyncio.timeout(30):
        final = await cy.play(await cy.game())
        assert final["version"] > game["version"] == 3
        await di.play(await di.game())
        await cy.until("event", "race_over")
        await di.until("event", "race_over")
    seqs = [e["seq"] for e in events_of(cy.msgs)]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # no gap, no repeat
    for r in (cy, di):
        await r.close()
    await api.aclose()
    await asyncio.to_thread(lb.wait_down, on_cy)  # fall 2 × inter 2 s
    assert lb.stats()[on_cy]["check_status"] in {"L4CON", "L4TOUT"}
    left = wait_gone(kids, 5)
    for pid in left:  # the test fails; leave nothing behind anyway
        os.kill(pid, signal.SIGKILL)
    assert not left, "the killed replica's children live on"
