"""The open-files check of ``lucie-server`` (server/limits.py)."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from server.runtime.limits import ensure_open_files


@pytest.fixture
def restore_limit() -> Iterator[tuple[int, int]]:
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    yield before
    resource.setrlimit(resource.RLIMIT_NOFILE, before)


def test_low_soft_limit_is_raised_to_the_hard_limit(restore_limit: tuple[int, int]) -> None:
    _soft, hard = restore_limit
    if hard != resource.RLIM_INFINITY and hard < 300:
        pytest.skip("hard limit too low to test")
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    wanted = 512 if hard == resource.RLIM_INFINITY else min(hard, 512)
    assert ensure_open_files(wanted) is None
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == wanted


def test_hard_limit_too_low_gives_a_warning_with_the_limit_and_the_fix(
        restore_limit: tuple[int, int]) -> None:
    _soft, hard = restore_limit
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no finite hard limit")
    message = ensure_open_files(hard + 1)
    assert message is not None
    assert f"open-files limit is {hard}" in message and "ulimit -n" in message
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard


def test_enough_is_quiet(restore_limit: tuple[int, int]) -> None:
    assert ensure_open_files(64) is None
