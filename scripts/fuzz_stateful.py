"""``make fuzz``, stateful part: schemathesis' own engine (``st run --phases
stateful``) against a real ``lucie-server`` started as the tests start theirs
(tests/conftest.py, high per-address limits), following the OpenAPI links.

Hypothesis' state machines under pytest (tests/api/test_schemathesis.py)
report long non-derandomized runs against a live server as a "flaky
strategy" (which links can be followed depends on the server's answers);
the CLI engine handles that. ``ignored_auth`` is left out here as in the
pytest run: the links pass valid tokens, which it takes for generated ones.

Usage: ``python scripts/fuzz_stateful.py [MAX_EXAMPLES] [--url URL]`` (with
``--url``, against that server instead of a new one); exits with st's status.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import run_dir, start_lucie_server  # noqa: E402


def run_st(url: str, examples: str) -> int:
    """``st run`` of the stateful phase against ``url``; its exit status."""
    st = Path(sys.executable).with_name("st")
    return subprocess.call(
        [str(st), "--config-file", str(REPO / "schemathesis.toml"), "run",
         url + "/api/v1/openapi.json", "--url", url, "--phases", "stateful",
         "--checks", "all", "--exclude-checks", "ignored_auth",
         "--max-examples", examples, "--workers", "2", "--no-color"], cwd=REPO)


def main(argv: list[str]) -> int:
    examples = argv[0] if argv else "500"
    if "--url" in argv:
        return run_st(argv[argv.index("--url") + 1], examples)
    proc, url = start_lucie_server({}, run_dir("fuzz-") / "server.log")
    try:
        return run_st(url, examples)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
