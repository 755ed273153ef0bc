"""The browser client's pure modules in Node, without a browser: ``node --test
tests/web/js/`` (the room state, the announcements, the board's keyboard grid, the
page's words; docs/web.md, "Tests"). Any failing case fails this test, with Node's
report. Node 20 or later must be on PATH (``scripts/ensure-node.sh``, run by
``make test``, installs it when it can)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNITS = REPO / "tests" / "web" / "js"

pytestmark = pytest.mark.timeout(120)


def test_the_pure_modules_pass_their_node_tests() -> None:
    node = shutil.which("node")
    assert node is not None, "node is not on PATH: scripts/ensure-node.sh installs it"
    files = sorted(UNITS.glob("*.test.mjs"))
    assert len(files) >= 4, files  # the suite is there (a glob that finds nothing passes)
    done = subprocess.run([node, "--test", *map(str, files)], cwd=REPO, capture_output=True,
                          text=True, timeout=100, check=False)
    report = done.stdout + done.stderr
    assert done.returncode == 0, f"node --test failed ({done.returncode}):\n{report}"
    counts = dict(line[2:].split(" ", 1) for line in report.splitlines()
                  if line.startswith(("# pass ", "# fail ")))
    assert counts.get("fail") == "0" and int(counts.get("pass", "0")) > 0, report
