"""Fixtures of the scale-out tests: a cluster of server processes on one Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .cluster import Cluster


@pytest.fixture(scope="package")
def trio() -> Iterator[Cluster]:
    """Three ``lucie-server`` processes sharing the test Redis (one prefix), for
    every test of the package; tests that kill a process add their own to it."""
    cluster = Cluster(3)
    yield cluster
    cluster.stop()
