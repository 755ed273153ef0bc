"""Closing the solver pool stops its workers at once, a job running or a
worker still starting. It waited for running jobs: the embedded server of a
terminal that closed just as its race ended (the par search starts then)
outlived the 2 s the client allows (tests/faults/test_terminal_close.py)."""

from __future__ import annotations

import asyncio
import time

import pytest

from server.solver.pool import SolverBusyError, SolverPool


async def _close_soon(pool: SolverPool, job: asyncio.Future[None], after_s: float) -> float:
    await asyncio.sleep(after_s)
    started = time.monotonic()
    pool.close()
    took = time.monotonic() - started
    with pytest.raises((SolverBusyError, asyncio.CancelledError)):
        await asyncio.wait_for(job, 10)
    return took


@pytest.mark.parametrize("after_s", [0.0, 3.0], ids=["starting", "running"])
async def test_close_does_not_wait_for_the_job(after_s: float) -> None:
    pool = SolverPool(workers=1, memory_bytes=None)
    job = asyncio.ensure_future(pool.run(60, time.sleep, 30))
    await asyncio.sleep(0)  # submitted: the worker is starting
    workers = list(pool._processes.values())
    assert len(workers) == 1
    took = await _close_soon(pool, job, after_s)
    assert took < 10, f"close() waited {took:.1f} s for a 30 s job"
    assert not workers[0].is_alive()
