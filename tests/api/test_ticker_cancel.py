"""The room-timer loop ends when cancelled, even when the sweep's store call
swallowed the cancellation (Python 3.11's ``asyncio.wait_for``, CPython
gh-86296): shutdown waited for it for good (a Redis-backed app stopped while
its first sweep connected hung)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from server.race.sweep import run_sweeps
from server.runtime.cancel import raise_if_cancelled


class SwallowingAuthority:
    """A sweep that consumes a cancellation, as wait_for does on 3.11."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.sweeps = 0

    async def tick(self) -> None:
        self.sweeps += 1
        self.entered.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return  # swallowed


async def test_ticker_ends_on_a_swallowed_cancellation() -> None:
    authority = SwallowingAuthority()
    ticker = asyncio.create_task(run_sweeps(cast(Any, authority).tick, 0.01))
    await asyncio.wait_for(authority.entered.wait(), 5)
    ticker.cancel()
    done, _ = await asyncio.wait({ticker}, timeout=5)
    assert ticker in done, "the loop went on after its cancellation"
    assert ticker.cancelled()
    assert authority.sweeps == 1


async def test_raise_if_cancelled_is_silent_without_a_request() -> None:
    raise_if_cancelled()  # nothing pending: no error

    async def cancelled_meanwhile() -> str:
        asyncio.current_task().cancel()  # type: ignore[union-attr]
        raise_if_cancelled()
        return "not reached"

    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(cancelled_meanwhile())
