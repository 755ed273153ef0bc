"""Scale-out: three ``lucie-server`` processes on one Redis serve the same rooms.

Racers on different processes race one deal; every socket sees one event
sequence; a move sent to several processes at once applies once; killing a
process with ``kill -9`` mid-race loses no accepted move.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.e2e.wire import Api, open_socket, recv, recv_until

from .cluster import REDIS_URL, Cluster
from .racing import Racer, events_of

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]


async def _room(api: Api, names: list[str], **options: Any) -> tuple[dict[str, Any], str,
                                                                    list[tuple[str, str]]]:
    room, host = await api.create(undo=False, **options)
    joined = [await api.join(room["code"], name) for name in names]
    return room, host, joined


def _table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Standings without ``to_par``: the solver's par may arrive after the race
    ended (issue 7), so the race_over event can lack what a later read shows."""
    return [{k: v for k, v in row.items() if k != "to_par"} for row in rows]


def _expected_order(games: dict[str, dict[str, Any]], join: list[str]) -> list[str]:
    return sorted(games, key=lambda r: (-games[r]["position"]["foundation_cards"],
                                        games[r]["reach_time_ms"] or 0, games[r]["moves"],
                                        join.index(r)))


async def test_racers_on_three_processes_see_one_sequence(trio: Cluster) -> None:
    a, b, c = trio.urls[:3]
    apis = [Api(u) for u in trio.urls[:3]]
    api = apis[0]
    room, host, joined = await _room(api, ["Ada", "Bob", "Cy"], deal=123, countdown_s=1)
    racers = [Racer(room, rid, tok) for rid, tok in joined]
    for racer, url in zip(racers, (a, b, c), strict=True):
        await racer.connect(url)
    spectators = [await open_socket(url, room["id"]).__aenter__() for url in (a, b, c)]
    for s in spectators:
        assert (await recv(s))["t"] == "welcome"
    before = (await apis[1].get(f"/rooms/{room['code']}"))["seq"]
    await apis[2].start(room["id"], host)

    async def race(r: Racer) -> dict[str, Any]:
        await r.until("event", "started")
        game = await r.play(await r.game())
        await r.until("event", "race_over")
        return game

    seen: list[list[dict[str, Any]]] = [[] for _ in spectators]
    games = await asyncio.gather(*(race(r) for r in racers))
    for s, msgs in zip(spectators, seen, strict=True):
        await recv_until(s, "event", type_="race_over", seen=msgs)
        await s.close()
    for r in racers:
        await r.close()

    logs = [events_of(m, before) for m in seen] + [events_of(r.msgs, before) for r in racers]
    assert all(log == logs[0] for log in logs)
    seqs = [e["seq"] for e in logs[0]]
    assert seqs == list(range(before + 1, before + 1 + len(seqs)))
    types = [e["type"] for e in logs[0]]
    assert types[:2] == ["countdown", "started"] and types[-1] == "race_over"
    assert types.count("progress") == sum(g["version"] for g in games)
    tables = [await x.get(f"/rooms/{room['id']}/standings") for x in apis]
    # every process gives one table; the solver's par (and each row's to_par) may
    # land between two of these reads (issue 7), which made this flaky under load
    assert tables[0]["final"] and all(t["final"] for t in tables)
    assert all(_table(t["standings"]) == _table(tables[0]["standings"]) for t in tables)
    assert _table(logs[0][-1]["standings"]) == _table(tables[0]["standings"])
    by_id = {g["racer"]: g for g in games}
    order = [rid for rid, _ in joined]
    assert [s["racer"] for s in tables[0]["standings"]] == _expected_order(by_id, order)
    for x in apis:
        await x.aclose()


async def test_same_move_to_three_processes_applies_once(trio: Cluster) -> None:
    api = Api(trio.urls[0])
    room, host, [(racer, token)] = await _room(api, ["twin"], deal=5, countdown_s=0)
    await api.start(room["id"], host)
    apis = [Api(u) for u in trio.urls[:3]]
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/rooms/{room['id']}/racers/{racer}/moves"
    sockets = [await open_socket(u, room["id"], token).__aenter__() for u in trio.urls[:3]]
    for s in sockets:
        await recv(s)
    game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game", token)
    for n in range(6):
        if game["final"]:
            break
        body = {"move": game["legal_moves"][0], "expected_version": game["version"],
                "client_move_id": f"dup{n}"}
        text = json.dumps({"t": "move", "d": body})
        rests = [x.http.post(path, json=body, headers=auth) for x in apis]
        await asyncio.gather(*(s.send(text) for s in sockets))
        answers = [r.json() for r in await asyncio.gather(*rests)]
        async with asyncio.timeout(10):
            acks = [(await recv_until(s, "ack"))["d"] for s in sockets]
        assert all(x == answers[0] for x in answers + acks)
        assert answers[0]["version"] == n + 1
        game = answers[0]["game"]
    for s in sockets:
        await s.close()
    rep = await api.get(f"/rooms/{room['id']}/racers/{racer}/replay", token)
    assert len(rep["moves"]) == game["version"] == 6
    for x in apis:
        await x.aclose()
    await api.aclose()


async def test_kill_9_mid_race_loses_no_accepted_move(trio: Cluster) -> None:
    cluster = trio
    doomed = cluster.add()
    try:
        a, b = cluster.urls[:2]
        api, api_b = Api(a), Api(b)
        room, host, joined = await _room(api, ["Ada", "Bob"], deal=321, countdown_s=0)
        ada, bob = (Racer(room, rid, tok) for rid, tok in joined)
        await ada.connect(doomed)
        await bob.connect(a)
        async with open_socket(b, room["id"]) as spectator:
            await recv(spectator)
            await api.start(room["id"], host)
            await ada.until("event", "started")
            await bob.until("event", "started")
            bob_task = asyncio.create_task(bob.play(await bob.game()))
            game = await ada.play(await ada.game(), limit=5)
            assert game["version"] == 5
            # one more move in flight, then the process dies under it
            cmid = await ada.send_move(game)
            cluster.kill(cluster.urls.index(doomed))
            await ada.close()
            await ada.connect(b, resume=True)  # another process, from the last seq seen
            await ada.send_move(game, cmid)    # the client resends what was not acked
            again = await ada.ack(cmid)
            assert again["version"] == 6
            assert (await ada.game())["version"] == 6
            final = await ada.play(again["game"])
            bob_final = await bob_task
            over = await recv_until(spectator, "event", type_="race_over")
            await ada.until("event", "race_over")
        await ada.close()
        await bob.close()
        # every accepted move is in the log, in order, once
        rep = await api_b.get(f"/rooms/{room['id']}/racers/{ada.id}/replay")
        assert len(rep["moves"]) == final["version"]
        assert [m["version"] for m in rep["moves"]] == list(range(1, final["version"] + 1))
        for ack in ada.acked.values():
            assert rep["moves"][ack["version"] - 1]["move"] == ack["applied"][0]
        # Ada's socket log over both processes: no gap, no repeat
        seqs = [e["seq"] for e in events_of(ada.msgs)]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        table = await api.get(f"/rooms/{room['id']}/standings")
        assert table["final"] and _table(over["d"]["standings"]) == _table(table["standings"])
        games = {ada.id: final, bob.id: bob_final}
        assert [s["racer"] for s in table["standings"]] == \
            _expected_order(games, [ada.id, bob.id])
        await api.aclose()
        await api_b.aclose()
    finally:
        cluster.kill(cluster.urls.index(doomed))


async def test_host_process_dies_in_countdown_race_starts_and_ends_once(
        trio: Cluster) -> None:
    """The start time is stored: the race starts without the host's process, and
    the time-limit end is detected by whichever process looks — once."""
    cluster = trio
    host_url = cluster.add()
    try:
        a, b = cluster.urls[:2]
        apis = [Api(u) for u in (a, b)]
        room, host, joined = await _room(apis[0], ["Ada", "Bob"], deal=11, countdown_s=1,
                                         time_limit_s=10)
        ada, bob = (Racer(room, rid, tok) for rid, tok in joined)
        await ada.connect(a)
        await bob.connect(b)
        host_api = Api(host_url)
        await host_api.start(room["id"], host)
        await host_api.aclose()
        cluster.kill(cluster.urls.index(host_url))
        async with asyncio.timeout(30):
            await ada.until("event", "started")
            await bob.until("event", "started")
            await ada.play(await ada.game(), limit=3)
            over = [await r.until("event", "race_over") for r in (ada, bob)]
        assert over[0] == over[1]
        log = events_of(ada.msgs)
        types = [e["type"] for e in log]
        assert types.count("countdown") == 1 and types.count("started") == 1
        assert types.count("race_over") == 1 and types[-1] == "race_over"
        assert log == events_of(bob.msgs)
        timed_out = [e for e in log if e["type"] == "finished"]
        assert sorted(e["racer"] for e in timed_out) == sorted([ada.id, bob.id])
        assert all(e["status"] == "timed_out" and e["race_clock_ms"] == 10_000
                   for e in timed_out)
        table = over[0]["d"]["standings"]
        games = {r.id: await r.game() for r in (ada, bob)}
        assert games[ada.id]["version"] == 3 and games[bob.id]["version"] == 0
        assert [s["racer"] for s in table] == _expected_order(games, [ada.id, bob.id])
        for r in (ada, bob):
            await r.close()
        for x in apis:
            await x.aclose()
    finally:
        cluster.kill(cluster.urls.index(host_url))


async def test_resume_on_another_process_or_snapshot_when_trimmed() -> None:
    cluster = Cluster(2, redis_url=REDIS_URL + "?retention=5")
    try:
        a, b = cluster.urls
        api = Api(a)
        room, host, [(rid, token)] = await _room(api, ["Ada"], deal=9, countdown_s=0)
        await api.start(room["id"], host)
        ada = Racer(room, rid, token)
        await ada.connect(a)
        game = await ada.play(await ada.game(), limit=3)
        seen = ada.last_seq
        await ada.close()
        # three more moves elsewhere, then resume on the other process: the gap
        # is still in the stream, so the missed events come, none twice
        other = Racer(room, rid, token)
        other.n = ada.n  # the same client, new move ids
        await other.connect(a)
        game = await other.play(game, limit=3)
        await other.close()
        async with open_socket(b, room["id"], since=seen) as ws, asyncio.timeout(10):
            assert (await recv(ws))["t"] == "welcome"
            got = []
            for _ in range(3):
                got.append((await recv(ws))["d"]["seq"])
        assert got == [seen + 1, seen + 2, seen + 3]
        # a gap longer than the stream keeps: a snapshot instead
        async with open_socket(b, room["id"], since=1) as ws:
            assert (await recv(ws))["t"] == "welcome"
            snap = await recv(ws)
        last = (await api.get(f"/rooms/{room['id']}"))["seq"]
        assert snap["t"] == "snapshot" and snap["d"]["seq"] == last
        assert game["version"] == 6 and snap["d"]["room"]["racers"][0]["moves"] == 6
        await api.aclose()
    finally:
        cluster.stop()
