"""Must show (issue 33, item 8): restart an embedded ``lucie-server`` — the
daily and all-time boards show the same rows as before (they live in memory;
the archive keeps the races and feeds them again at start). A moderator's
``assisted`` verdict stays applied across the restart."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import run_dir, start_lucie_server

pytestmark = pytest.mark.timeout(180)

TOKEN = os.urandom(16).hex()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _race(api: httpx.Client, names: dict[str, str | None], deal: Any, ups: dict[str, int]
          ) -> str:
    """A race on ``deal``: each racer (name → player key or None) moves up to
    ``ups[name]`` cards to the foundations, then resigns."""
    made = api.post("/rooms", json={"deal": deal, "countdown_s": 0}).json()
    code, host = made["room"]["code"], made["host_token"]
    seats = {}
    for name, key in names.items():
        got = api.post(f"/rooms/{code}/racers", json={} if key else {"name": name},
                       headers=_auth(key) if key else {})
        assert got.status_code == 201, got.text
        seats[name] = got.json()
    assert api.post(f"/rooms/{code}/start", headers=_auth(host)).status_code == 200
    for name, seat in seats.items():
        rid, auth = seat["racer"]["id"], _auth(seat["token"])
        for _ in range(ups.get(name, 0)):
            game = api.get(f"/rooms/{code}/racers/{rid}/game", headers=auth).json()
            up = next((m for m in game["legal_moves"] if m.endswith("f")), None)
            if up is None:
                break
            r = api.post(f"/rooms/{code}/racers/{rid}/moves", headers=auth, json={
                "move": up, "expected_version": game["version"],
                "client_move_id": f"{rid}-{game['version']}"})
            assert r.status_code == 200, r.text
        api.post(f"/rooms/{code}/racers/{rid}/resign", headers=auth)
    return str(code)


def _boards(api: httpx.Client) -> dict[str, Any]:
    return {kind: api.get(f"/leaderboards/belle-lucie/{kind}", params={"limit": 100}).json()
            ["rows"] for kind in ("daily", "all-time")}


def _until_archived(api: httpx.Client, player: str, races: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(api.get(f"/players/{player}/races").json()["races"]) >= races:
            return
        time.sleep(0.1)
    raise AssertionError("the races were not archived")


def _start(data: Path, logs: Path, n: int) -> tuple[subprocess.Popen[bytes], str]:
    return start_lucie_server({"LUCIE_DATA_DIR": str(data), "LUCIE_ARCHIVE_PERIOD_S": "0.2",
                               "LUCIE_MODERATOR_TOKEN": f"alice:{TOKEN}"},
                              logs / f"server-{n}.log")


def test_the_boards_survive_a_restart_of_the_embedded_server() -> None:
    logs = run_dir("boards-restart-")
    data = logs / "data"
    proc, url = _start(data, logs, 0)
    try:
        with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
            made = {n: api.post("/players", json={"name": n}).json()
                    for n in ("Bea Board", "Cal Cheat")}
            bea, cal = made["Bea Board"], made["Cal Cheat"]
            _race(api, {"Bea Board": bea["key"], "anon ann": None}, "daily",
                  {"Bea Board": 3, "anon ann": 1})
            _race(api, {"Bea Board": bea["key"], "Cal Cheat": cal["key"]}, 5,
                  {"Bea Board": 1, "Cal Cheat": 2})
            _race(api, {"Cal Cheat": cal["key"], "anon ann": None}, 7, {"Cal Cheat": 2})
            _until_archived(api, bea["player"]["id"], 2)
            _until_archived(api, cal["player"]["id"], 2)
            # a moderator takes Cal's races off the boards (his verdict window)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                file = api.get(f"/moderation/players/{cal['player']['id']}",
                               headers=_auth(TOKEN)).json()
                if len(file["races"]) == 2:
                    break
                time.sleep(0.2)
            r = api.post(f"/moderation/players/{cal['player']['id']}/verdict",
                         headers=_auth(TOKEN), json={"verdict": "assisted", "note": "test"})
            assert r.status_code == 200 and r.json()["races_removed"] == 2, r.text
            before = _boards(api)
            names = {row["name"] for rows in before.values() for row in rows}
            assert {"Bea Board", "anon ann"} <= names and "Cal Cheat" not in names
            assert before["daily"] and before["all-time"]
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    proc, url = _start(data, logs, 1)
    try:
        with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
            assert _boards(api) == before
            # still barred: Cal's next race feeds no board
            _race(api, {"Cal Cheat": cal["key"], "anon bob": None}, 9, {"Cal Cheat": 2})
            time.sleep(0.5)
            assert all(row["name"] != "Cal Cheat" for row in _boards(api)["all-time"])
    finally:
        proc.terminate()
        proc.wait(timeout=15)
