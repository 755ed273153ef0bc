"""The server's garbage-collector policy (server/gcpolicy.py)."""

from __future__ import annotations

import asyncio
import gc

from server.runtime.gcpolicy import run_gc_policy


class _Cycle:
    def __init__(self) -> None:
        self.me = self


async def test_survivors_are_frozen_and_full_collections_reclaim_frozen_cycles() -> None:
    gc.unfreeze()
    try:
        cycle = _Cycle()
        task = asyncio.create_task(run_gc_policy(0.02, 0.0))  # freeze only
        await asyncio.sleep(0.1)
        assert gc.get_freeze_count() > 0
        del cycle  # a frozen cycle: only a full collection after unfreeze frees it
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert any(type(o) is _Cycle for o in gc.get_objects() + _frozen())

        task = asyncio.create_task(run_gc_policy(0.02, 0.01))  # full collections too
        await asyncio.sleep(0.1)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        gc.unfreeze()
        assert not any(type(o) is _Cycle for o in gc.get_objects())
    finally:
        gc.unfreeze()


def _frozen() -> list[object]:
    gc.unfreeze()  # frozen objects are not listed by get_objects until unfrozen
    objs = gc.get_objects()
    gc.freeze()
    return objs


async def test_zero_disables_the_policy() -> None:
    gc.unfreeze()
    await asyncio.wait_for(run_gc_policy(0, 600), 1)  # returns at once
    assert gc.get_freeze_count() == 0


async def test_the_young_threshold_is_raised_while_the_policy_runs() -> None:
    before = gc.get_threshold()
    task = asyncio.create_task(run_gc_policy(0.02, 0.0, 10_000))
    try:
        await asyncio.sleep(0.05)
        assert gc.get_threshold() == (10_000, *before[1:])
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        gc.unfreeze()
    assert gc.get_threshold() == before


async def test_a_freeze_runs_no_collection() -> None:
    """The policy's steady state pauses for nothing: it freezes, never collects
    between full collections (closed sockets leave no cycles to collect)."""
    runs: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.unfreeze()
    task = asyncio.create_task(run_gc_policy(0.02, 0.0, 1_000_000))  # no automatic run
    gc.callbacks.append(count)
    try:
        await asyncio.sleep(0.15)  # several freezes
        assert gc.get_freeze_count() > 0
    finally:
        gc.callbacks.remove(count)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        gc.unfreeze()
    assert runs == []
