"""``raise_if_cancelled`` raises without keeping its task: the raising frame
held the task, whose kept CancelledError's traceback holds that frame — a
cycle, freed only by a full collection (``server.runtime.gcpolicy``)."""

from __future__ import annotations

import asyncio
import contextlib

from server.runtime.cancel import raise_if_cancelled
from tests.conftest import freed_once_cancelled


async def test_a_task_ended_by_raise_if_cancelled_is_freed_at_once(no_collector: None) -> None:
    started = asyncio.Event()

    async def body() -> None:
        with contextlib.suppress(asyncio.CancelledError):  # swallowed, as 3.11's wait_for may
            started.set()
            await asyncio.sleep(10)
        raise_if_cancelled()
        await asyncio.sleep(10)  # not reached

    assert await freed_once_cancelled(body(), started)
