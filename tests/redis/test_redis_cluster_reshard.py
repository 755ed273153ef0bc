"""Resharding mid-race on a real local Redis Cluster: the slot of a live room
moves to another master, key by key, as ``redis-cli --cluster reshard``
moves it (``CLUSTER SETSLOT … IMPORTING/MIGRATING``, ``MIGRATE``, ``SETSLOT
… NODE``), with pauses, so that moves arrive while the slot is half moved.

Two ``lucie-server`` processes, one racer on each. While the slot moves, a
write of the room answers ``ASK``/``TRYAGAIN`` and the racers see nothing but
``store/unavailable`` (they resend with the same client move id); once it
has moved (``MOVED``: the slot map is reloaded) the race goes on, no
acknowledged move is lost (``MIGRATE`` moves each key whole), and each
socket's events stay gap-free: the sharded subscriber that Redis drops when
its slot moves reconnects to the new master and reads the gap from the
room's stream (docs/architecture.md, "Redis Cluster").
"""

from __future__ import annotations

import asyncio
import time

import pytest
import redis
from redis.crc import key_slot

from infra.redis_cluster import LocalRedisCluster
from tests.e2e.wire import Api

from .cluster import Cluster
from .racing import TwoRacers

pytestmark = [pytest.mark.timeout(120)]


def _migrate_slot(slot: int, source: int, target: int, masters: list[int],
                  pause_s: float, password: str | None) -> int:
    """Move ``slot`` from the master on port ``source`` to ``target``, one key
    at a time with ``pause_s`` between keys; the number of keys moved."""
    clients = {port: redis.Redis(port=port, password=password) for port in masters}
    try:
        ids = {port: c.execute_command("CLUSTER", "MYID").decode() for port, c in clients.items()}
        clients[target].execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[source])
        clients[source].execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[target])
        moved = 0
        while keys := clients[source].execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1):
            auth = ("AUTH", password) if password else ()
            clients[source].execute_command("MIGRATE", "127.0.0.1", target, "", 0, 5000,
                                            *auth, "KEYS", *keys)
            moved += len(keys)
            time.sleep(pause_s)
        for port in (target, source, *(p for p in masters if p not in (source, target))):
            clients[port].execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[target])
        return moved
    finally:
        for c in clients.values():
            c.close()


async def test_a_room_whose_slot_moves_mid_race_goes_on(
        redis_cluster: LocalRedisCluster) -> None:
    servers = Cluster(2, redis_url=redis_cluster.url, keep_keys=True)
    apis = [Api(u) for u in servers.urls]
    try:
        race = TwoRacers(apis, servers.urls, deal=4242, pause_s=0.02)
        await race.start()
        slot = key_slot(f"{servers.prefix}{{room:{race.room['id']}}}".encode())
        masters = redis_cluster.master_ports()
        source = redis_cluster.master_of_slot(slot)
        target = next(p for p in masters if p != source)
        started = time.monotonic()
        keys = await asyncio.to_thread(_migrate_slot, slot, source, target, masters, 0.3,
                                        redis_cluster.password)
        moved_s = time.monotonic() - started
        assert keys >= 3, keys  # the room's record, its stream, its racers: moved one by one
        assert redis_cluster.master_of_slot(slot) == target
        await race.goes_on(10, 30)  # the race goes on on the new master
        finals, logs = await race.finish()  # every event, after the move too
    finally:
        for api in apis:
            await api.aclose()
        servers.stop()

    moves = race.moves
    refusals = [code for m in moves for _, code in m.refusals]
    print(f"slot {slot} moved ({keys} keys) in {moved_s:.1f} s; "
          f"refusals {len(refusals)}: {sorted(set(refusals))}")
    assert set(refusals) <= {"store/unavailable"}, refusals
    # zero lost: every acknowledged move is in the final state
    assert [g["version"] for g in finals] == [m.acked[-1] for m in moves]
    assert [g["moves"] for g in finals] == [len(m.acked) for m in moves]
    for log in logs:
        seqs = [e["seq"] for e in log]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert logs[0] == logs[1]
    assert [e["type"] for e in logs[0]].count("progress") == sum(g["version"] for g in finals)
