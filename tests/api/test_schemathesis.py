"""Schemathesis against a real ``lucie-server``: every operation of the served
OpenAPI document with every check, then stateful runs that follow the
document's links (a new room's host token → start/close, a new racer's token
→ ready, moves, resign, hint, …). Settings: schemathesis.toml.

Bounded for ``make test`` (25 examples per operation, 40 stateful scenarios:
well under 90 s on two cores); ``make fuzz`` sets ``LUCIE_FUZZ_EXAMPLES`` for
a long run (over 10,000 requests)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from server.api.openapi import openapi
from tests.conftest import ServerFactory

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("LUCIE_FUZZ_EXAMPLES", "25"))
"""Examples per operation (the stateful run takes this many scenarios)."""

pytestmark = pytest.mark.timeout(600 if EXAMPLES > 100 else 120)


@pytest.fixture(scope="module")
def api_url(server_factory: ServerFactory) -> str:
    # moderation on (a random token): its routes answer as documented (401/403
    # without the token); off, they answer 404 as a path the server has not
    return server_factory(LUCIE_MODERATOR_TOKEN=f"fuzz:{os.urandom(16).hex()}")


# the document the server serves (tests/api/test_openapi_valid.py checks they
# are equal), loaded at import: schemathesis' lazy fixture loader does not run
# under pytest 9; every case is sent to the real server (base_url). A copy:
# schemathesis changes the dict it loads (openapi() is cached).
schema = schemathesis.openapi.from_dict(
    copy.deepcopy(openapi()), config=SchemathesisConfig.from_path(REPO / "schemathesis.toml"))

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                     suppress_health_check=list(HealthCheck), print_blob=True)


SEEN: Counter[tuple[str, str, int]] = Counter()
"""(test, operation id, status) of every request sent, for the summary."""


@pytest.fixture(scope="module", autouse=True)
def summary() -> Iterator[None]:
    yield
    total = sum(SEEN.values())
    print(f"\nschemathesis: {total} requests", file=sys.stderr)
    if os.environ.get("LUCIE_FUZZ_SUMMARY"):
        for (test, op, status), n in sorted(SEEN.items()):
            print(f"  {test:9} {op:26} {status} ×{n}", file=sys.stderr)


@schema.parametrize()
@_SETTINGS
def test_api(case: Any, api_url: str) -> None:
    response = case.call_and_validate(base_url=api_url)
    SEEN["cases", case.operation.definition.raw.get("operationId", "?"),
         response.status_code] += 1


def test_stateful(api_url: str) -> None:
    """The stateful phase along the OpenAPI links, with st's own engine: under
    pytest, Hypothesis' state machine calls a run against a live server a
    "flaky strategy" (which links can be followed depends on the server's
    answers, so a replayed choice sequence draws other steps)."""
    if EXAMPLES > 100:
        pytest.skip("make fuzz runs scripts/fuzz_stateful.py with its own server")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "fuzz_stateful.py"), str(max(40, EXAMPLES)),
         "--url", api_url], capture_output=True, text=True, timeout=110)
    print(result.stdout[-3000:], file=sys.stderr)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
