"""Schemathesis against a real ``lucie-server``: every operation of the served
OpenAPI document with every check, then stateful runs that follow the
document's links (a new room's host token → start/close, a new racer's token
→ ready, moves, resign, hint, …). Settings: schemathesis.toml.

Bounded for ``make test`` (a few dozen cases per operation, well under 90 s on
two cores); ``make fuzz`` sets ``LUCIE_FUZZ_EXAMPLES`` for a long run
(≥ 10,000 cases)."""

from __future__ import annotations

import copy
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import ignored_auth

from server.api.openapi import openapi
from tests.conftest import ServerFactory

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("LUCIE_FUZZ_EXAMPLES", "25"))
"""Examples per operation (the stateful run takes this many scenarios)."""

pytestmark = pytest.mark.timeout(600 if EXAMPLES > 100 else 120)


@pytest.fixture(scope="module")
def api_url(server_factory: ServerFactory) -> str:
    return server_factory()


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
    schema.config.update(base_url=api_url)

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        def validate_response(self, response: Any, case: Any,
                              additional_checks: Any = None, **kwargs: Any) -> None:
            # the links pass valid tokens (the room's or the racer's), which
            # ignored_auth takes for generated ones; the other tests run it
            SEEN["stateful", case.operation.definition.raw.get("operationId", "?"),
                 response.status_code] += 1
            case.validate_response(response, additional_checks=additional_checks,
                                   excluded_checks=[ignored_auth], transport_kwargs=kwargs)

    Workflow.run(settings=settings(max_examples=max(40, EXAMPLES), deadline=None,
                                   stateful_step_count=10, derandomize=EXAMPLES <= 100,
                                   suppress_health_check=list(HealthCheck)))
