"""Must show (issue 20): a race finished on the embedded server (default
settings, LUCIE_DATA_DIR in a temporary folder), the server restarted — the
race, its replays, its comparison and a ghost room from it still answer."""

from __future__ import annotations

import subprocess
import time

import httpx

from tests.conftest import run_dir, start_lucie_server


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _race(api: httpx.Client) -> tuple[dict[str, object], str, str]:
    created = api.post("/api/v1/rooms", json={"capacity": 2, "countdown_s": 0}).json()
    room, host = created["room"], created["host_token"]
    alice = api.post(f"/api/v1/rooms/{room['id']}/racers", json={"name": "alice"}).json()
    bob = api.post(f"/api/v1/rooms/{room['id']}/racers", json={"name": "bob"}).json()
    start = api.post(f"/api/v1/rooms/{room['id']}/start",
                     headers={"Authorization": f"Bearer {host}"})
    assert start.status_code == 200 and start.json()["state"] == "racing"
    a_id, a_tok = alice["racer"]["id"], alice["token"]
    moved = api.post(f"/api/v1/rooms/{room['id']}/racers/{a_id}/moves",
                     headers={"Authorization": f"Bearer {a_tok}"},
                     json={"move": "r", "expected_version": 0, "client_move_id": "m1"})
    assert moved.status_code == 200, moved.text
    for racer in (alice, bob):
        done = api.post(f"/api/v1/rooms/{room['id']}/racers/{racer['racer']['id']}/resign",
                        headers={"Authorization": f"Bearer {racer['token']}"})
        assert done.status_code == 200
    return room, a_id, bob["racer"]["id"]


def test_a_finished_race_outlives_a_restart() -> None:
    folder = run_dir("restart-")
    env = {"LUCIE_DATA_DIR": str(folder / "data")}
    proc, url = start_lucie_server(env, folder / "first.log")
    try:
        with httpx.Client(base_url=url, timeout=10) as api:
            room, a_id, b_id = _race(api)
            # the par search starts when the race ends and lands on the room
            # (and its archived row) when done: compare once it is there
            deadline = time.monotonic() + 30
            before = api.get(f"/api/v1/races/{room['id']}").json()
            while before["par"] is None and time.monotonic() < deadline:
                time.sleep(0.1)
                before = api.get(f"/api/v1/races/{room['id']}").json()
            assert before["par"] is not None
            replay_before = api.get(f"/api/v1/rooms/{room['id']}/racers/{a_id}/replay").json()
            compare_before = api.get(f"/api/v1/rooms/{room['id']}/compare/alice/bob").json()
    finally:
        _stop(proc)
    assert before["live"] is True and before["standings"]["final"] is True
    assert (folder / "data" / "archive.sqlite3").is_file()

    proc, url = start_lucie_server(env, folder / "second.log")
    try:
        with httpx.Client(base_url=url, timeout=10) as api:
            for ref in (room["id"], room["code"]):
                race = api.get(f"/api/v1/races/{ref}")
                assert race.status_code == 200, race.text
                after = race.json()
                assert after["live"] is False
                assert {k: v for k, v in after.items() if k != "live"} == \
                    {k: v for k, v in before.items() if k != "live"}
            got = api.get(f"/api/v1/rooms/{room['code']}")
            assert got.status_code == 200 and got.json()["state"] == "over"
            standings = api.get(f"/api/v1/rooms/{room['code']}/standings").json()
            assert standings == before["standings"]
            replay = api.get(f"/api/v1/rooms/{room['id']}/racers/{a_id}/replay").json()
            assert replay == replay_before and [m["move"] for m in replay["moves"]] == ["r"]
            assert replay["redeal_key"]
            board = api.get(f"/api/v1/rooms/{room['id']}/racers/{b_id}/game")
            assert board.status_code == 200
            compare = api.get(f"/api/v1/rooms/{room['code']}/compare/alice/bob").json()
            assert compare == compare_before
            posted = api.post("/api/v1/compare", json={
                "a": {"room": room["id"], "racer": "alice"},
                "b": {"room": room["id"], "racer": "bob"}})
            assert posted.status_code == 200 and posted.json() == compare_before
            # the replay document (lucie replay --json) of the archived game checks out
            checked = api.post("/api/v1/replays/check", json={"replay": replay})
            assert checked.status_code == 200, checked.text
            assert checked.json()["moves"] == 1 and checked.json()["player"] == "alice"
            ghost = api.post("/api/v1/ghost-rooms", json={"room": room["id"], "racer": a_id})
            assert ghost.status_code == 201, ghost.text
            missing = api.get("/api/v1/races/nosuchrace")
            assert missing.status_code == 404
            assert missing.json()["error"]["code"] == "room/not_found"
    finally:
        _stop(proc)
