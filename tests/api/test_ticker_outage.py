"""The room-timer sweep logs a store outage once when it starts and once when
it ends. It logged a line every sweep, ~4 a second, for as long as Redis was
unreachable (found by a new user's trial, issue 23)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from server.errors import StoreUnavailable
from server.race.sweep import run_sweeps


class _Authority:
    """Its sweep fails ``fails`` times, then works."""

    def __init__(self, fails: int) -> None:
        self.fails = fails
        self.calls = 0

    async def tick(self) -> None:
        self.calls += 1
        if self.calls <= self.fails:
            raise StoreUnavailable("redis: ConnectionError; retry in about a second")


async def test_an_outage_is_logged_when_it_starts_and_ends(
        caplog: pytest.LogCaptureFixture) -> None:
    authority = _Authority(fails=20)
    with caplog.at_level(logging.WARNING, logger="server"):
        task = asyncio.create_task(run_sweeps(authority.tick, 0.001))  # type: ignore[arg-type]
        async with asyncio.timeout(10):
            while authority.calls < 30:
                await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    lines: list[Any] = [r.getMessage() for r in caplog.records if "sweep" in r.getMessage()]
    assert len(lines) == 2, lines
    assert lines[0].startswith("room timer sweep paused: StoreUnavailable (store/unavailable)")
    assert lines[1] == "room timer sweep resumed: the store answers again"
