"""Fixtures of the fault tests: a private ``redis-server`` each test may break.

The ``chaos`` marker (long soak variants) is enabled by ``--chaos``
(``make chaos``); the option lives in ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .parts import PrivateRedis


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A ``redis-server`` with AOF (fsync always) on a free port, for this test."""
    server = PrivateRedis()
    yield server
    server.remove()
