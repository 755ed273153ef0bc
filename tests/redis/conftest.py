"""Fixtures of the scale-out tests: a cluster of server processes on one Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .cluster import Cluster


@pytest.fixture(scope="module")
def trio() -> Iterator[Cluster]:
    """Three ``lucie-server`` processes sharing the test Redis (one prefix)."""
    cluster = Cluster(3)
    yield cluster
    cluster.stop()
