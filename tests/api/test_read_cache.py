"""Issue 33: comparisons and replays of finished races are kept and answered as
first encoded (one entry whatever the room's form: id, code, any case; racers by
id or name); a running race's comparison is charged to the upload budget; the
cache is bounded in bytes."""

from __future__ import annotations

import gzip
from pathlib import Path

from prometheus_client import REGISTRY
from starlette.testclient import TestClient

from server.api.read_cache import FinishedReads
from server.app import create_app
from server.runtime.settings import Settings

API = "/api/v1"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _hits(kind: str) -> float:
    return REGISTRY.get_sample_value("lucie_read_cache_total",
                                     {"kind": kind, "result": "hit"}) or 0.0


def _race(client: TestClient, *, finish: bool) -> tuple[dict[str, str], dict[str, str]]:
    made = client.post(f"{API}/rooms", json={"countdown_s": 0, "deal": 5}).json()
    room, host = made["room"], made["host_token"]
    seats = {n: client.post(f"{API}/rooms/{room['code']}/racers", json={"name": n}).json()
             for n in ("ada", "bob")}
    client.post(f"{API}/rooms/{room['code']}/start", headers=_auth(host))
    for seat in seats.values():
        rid, auth = seat["racer"]["id"], _auth(seat["token"])
        game = client.get(f"{API}/rooms/{room['code']}/racers/{rid}/game", headers=auth).json()
        r = client.post(f"{API}/rooms/{room['code']}/racers/{rid}/moves", headers=auth,
                        json={"move": game["legal_moves"][0], "expected_version": 0,
                              "client_move_id": "m0"})
        assert r.status_code == 200, r.text
        if finish:
            client.post(f"{API}/rooms/{room['code']}/racers/{rid}/resign", headers=auth)
    return room, {n: s["racer"]["id"] for n, s in seats.items()}


def test_a_finished_races_comparison_and_replays_are_kept(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(data_dir=str(tmp_path)))) as client:
        room, ids = _race(client, finish=True)
        hits = _hits("compare")
        first = client.get(f"{API}/rooms/{room['code']}/compare/ada/bob")
        assert first.status_code == 200 and first.json()["a"]["name"] == "ada"
        for ref, a, b in ((room["code"].lower(), "ADA", "Bob"), (room["id"], ids["ada"], "bob")):
            again = client.get(f"{API}/rooms/{ref}/compare/{a}/{b}")
            assert again.status_code == 200 and again.content == first.content
            assert again.headers["content-type"] == "application/json"
        assert _hits("compare") == hits + 2
        hits = _hits("replay")
        one = client.get(f"{API}/rooms/{room['code']}/racers/{ids['ada']}/replay")
        two = client.get(f"{API}/rooms/{room['id']}/racers/{ids['ada']}/replay")
        assert one.status_code == 200 and one.content == two.content
        assert one.json()["redeal_key"] is not None and _hits("replay") == hits + 1
        # the other order is another comparison (a and b swap), an unknown racer no entry
        assert client.get(f"{API}/rooms/{room['code']}/compare/bob/ada").json()["a"][
            "name"] == "bob"
        assert client.get(f"{API}/rooms/{room['code']}/compare/ada/zed").status_code == 404


def test_a_running_races_comparison_is_charged_to_the_upload_budget(tmp_path: Path) -> None:
    settings = Settings(data_dir=str(tmp_path), upload_burst=3, upload_per_min=1)
    with TestClient(create_app(settings)) as client:
        done, _ = _race(client, finish=True)
        for _ in range(6):  # a finished race's comparison costs no upload
            assert client.get(f"{API}/rooms/{done['code']}/compare/ada/bob").status_code == 200
        running, _ = _race(client, finish=False)
        got = [client.get(f"{API}/rooms/{running['code']}/compare/ada/bob").status_code
               for _ in range(5)]
        assert 429 in got  # spectators see no live log either: 403 until the budget is out
        assert all(code in (403, 429) for code in got) and got[:3] == [403] * 3


def test_the_cache_is_bounded_in_bytes_least_recently_used_out() -> None:
    body = b"x" * 1000  # ~1,000 bytes plain + ~30 gzipped
    each = 1000 + len(gzip.compress(body, compresslevel=5, mtime=0))
    reads = FinishedReads(max_bytes=2 * each + 10)
    reads.put(("compare", "r", "a", "b"), body)
    reads.put(("replay", "r", "a"), body)
    kept = reads.get(("compare", "r", "a", "b"))  # now the most recent
    assert kept is not None and kept[0] == body and gzip.decompress(kept[1]) == body
    reads.put(("replay", "r", "b"), body)  # one too many: the least recent goes
    assert reads.get(("replay", "r", "a")) is None and len(reads) == 2
    assert reads.size == 2 * each
    plain, _ = reads.put(("replay", "r", "c"), b"y" * 5000)  # larger than the cache
    assert plain == b"y" * 5000 and reads.get(("replay", "r", "c")) is None


def test_a_kept_answer_is_gzipped_for_clients_that_accept_it(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(data_dir=str(tmp_path)))) as client:
        room, _ = _race(client, finish=True)
        path = f"{API}/rooms/{room['code']}/compare/ada/bob"
        plain = client.get(path, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers
        packed = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["vary"] == "Accept-Encoding"
        assert packed.content == plain.content  # decoded by the client: the same answer
