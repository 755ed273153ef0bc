"""A short, bounded Locust run of the load scenario against a real server (subprocess).

Locust monkey-patches with gevent, so it never runs inside the pytest
process: ``python -m infra.load.run --profile smoke`` starts the server and
Locust as subprocesses (a few racers at bot pace for a few seconds).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.skipif(importlib.util.find_spec("locust") is None
                       or importlib.util.find_spec("websocket") is None,
                       reason="the load extra is not installed (pip install -e '.[load]')"),
]


def test_smoke_profile_races_with_acked_moves_and_no_failures(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "infra.load.run", "--profile", "smoke", "--duration", "6",
         "--out", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=75)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    row = json.loads((tmp_path / "smoke.json").read_text())
    assert row["moves"] > 20 and row["move_failures"] == 0 and row["failures"] == 0
    assert row["p99_ms"] is not None and row["p99_ms"] < 1000
    names = (tmp_path / "smoke_stats.csv").read_text()
    for name in ("move (human)", "move (bot)", "ws connect"):
        assert name in names
    assert (tmp_path / "smoke.html").stat().st_size > 0
    summary = (tmp_path / "summary.md").read_text()
    assert "| smoke (1 proc) |" in summary
    # the machine's speed before and after, so figures from a slow machine show it
    assert len(row["engine_apply_us"]) == 2 and min(row["engine_apply_us"]) > 0
    assert "Engine check + apply median" in summary
