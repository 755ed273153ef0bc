"""The Node.js example client (examples/node) races against a real ``lucie-server``.

It is the third-party quick start (examples/node/README.md): ``npm ci`` then
``node race.mjs URL``. The script creates a room, races two racers over their
WebSockets, drops and resumes one socket with ``?since=`` and prints a summary;
it exits non-zero on any protocol surprise. Skipped only when ``node`` or
``npm`` is not installed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "node"
STAMP = EXAMPLE / "node_modules" / ".lucie-installed-lock"
"""sha256 of the package-lock.json that ``npm ci`` last installed: the install is
skipped while node_modules exists and the lock file is unchanged."""
NPM_TIMEOUT_S = 120
RACE_TIMEOUT_S = 60

pytestmark = pytest.mark.timeout(NPM_TIMEOUT_S + RACE_TIMEOUT_S + 30)


def _tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    missing = [name for name, path in (("node", node), ("npm", npm)) if path is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not on PATH: the Node.js example client "
                    "(examples/node) needs Node 20 and npm")
    assert node is not None and npm is not None
    return node, npm


def _npm_ci(npm: str) -> None:
    """``npm ci`` in examples/node, unless node_modules is from this very lock file."""
    lock = hashlib.sha256((EXAMPLE / "package-lock.json").read_bytes()).hexdigest()
    if (EXAMPLE / "node_modules").is_dir() and STAMP.is_file() and STAMP.read_text() == lock:
        return
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"], cwd=EXAMPLE, capture_output=True, text=True,
        timeout=NPM_TIMEOUT_S, check=False)
    assert done.returncode == 0, f"npm ci failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    STAMP.write_text(lock)


def test_node_client_races_to_the_end(server_factory: Any) -> None:
    node, npm = _tools()
    _npm_ci(npm)
    url = server_factory()
    env = {k: v for k, v in os.environ.items() if k != "LUCIE_SERVER"}
    t0 = time.monotonic()
    done = subprocess.run(
        [node, "race.mjs", url], cwd=EXAMPLE, env=env, capture_output=True, text=True,
        timeout=RACE_TIMEOUT_S, check=False)
    took = time.monotonic() - t0
    out = done.stdout
    assert done.returncode == 0, f"race.mjs exited {done.returncode}:\n{out}\n{done.stderr}"
    assert "Race summary — room " in out
    assert "race over at " in out
    # Both racers are ranked, with a final status.
    ranked = [line for line in out.splitlines() if line.startswith(("  1. ", "  2. "))]
    assert len(ranked) == 2, out
    assert all(any(s in line for s in ("won", "stuck", "resigned")) for line in ranked), out
    # The dropped socket resumed with ?since= and got the missed events back.
    assert ("replayed" in out and "no gap, no repeat" in out) or "snapshot at seq" in out, out
    assert "first answer again" in out and "nothing applied" in out, out
    assert "replay of Ada: " in out and "redeal key " in out, out
    assert out.rstrip().splitlines()[-1].startswith("OK: a legal race over the WebSocket"), out
    assert done.stderr == "", done.stderr
    assert took < RACE_TIMEOUT_S
