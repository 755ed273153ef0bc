"""Running solver searches off the event loop: a small process pool.

:class:`SolverPool` wraps a :class:`concurrent.futures.ProcessPoolExecutor`
(``spawn`` start method: safe beside the server's threads and event loop).
Each job is bounded in time (the solver's own ``max_seconds`` plus an
``asyncio`` timeout with a margin) and in memory (each worker sets
``RLIMIT_AS`` where the platform has it; a worker that hits it dies and the
job fails with :class:`SolverBusyError`). Searches never run in the server's
process, so they never delay moves or broadcasts. A worker exits when the
server process is gone, even killed outright (``kill -9``, the OOM killer):
it waits on its parent's sentinel (``multiprocessing.parent_process()``).
Without that it lived on for good (it holds both ends of its job queue, so
no end-of-file ever comes), and the multiprocessing resource tracker with it.

Usage::

    pool = SolverPool(workers=1)
    move = await pool.hint(rules, position)
    ...
    pool.close()

:meth:`SolverPool.close` stops the workers at once, a job running or a worker
still starting: at shutdown nobody waits for a hint or a par any more, and
waiting for them held a closing server (and the terminal client that started
it) for up to a job's budget plus a worker's start-up (~2 s).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from server.rules import Move, Position, RuleSet

from .analysis import Difficulty, difficulty, hint, par, proved_winnable
from .errors import SolverError
from .solve import Mode, SolveResult, solve

__all__ = ["DEFAULT_MEMORY_BYTES", "SolverBusyError", "SolverPool"]

DEFAULT_MEMORY_BYTES: Final = 1 << 30
"""Address-space limit of a worker process (1 GiB)."""
_MARGIN: Final = 5.0
"""Seconds allowed beyond a job's own budget (process start, pickling)."""

T = TypeVar("T")


class SolverBusyError(SolverError):
    """A solver job did not finish in time or its worker died."""

    code = "solver/busy"


def _init_worker(limit: int | None) -> None:
    """In each worker: exit with the parent; limit memory to ``limit`` bytes;
    ignore SIGINT (a terminal's Ctrl-C reaches the whole process group: the
    server stops its workers itself, and a worker printed a
    ``KeyboardInterrupt`` traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True,
                         name="exit-with-parent").start()
    if limit is None:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # pragma: no cover - platform dependent
        pass


def _exit_with(sentinel: int) -> None:
    """Wait until the parent process ends (its sentinel becomes ready), then
    exit at once: its jobs have nobody to answer to."""
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


class SolverPool:
    """A process pool for solver jobs; ``workers`` processes, each limited to
    ``memory_bytes`` of address space (``None``: no limit)."""

    def __init__(self, workers: int = 1, *, memory_bytes: int | None = DEFAULT_MEMORY_BYTES):
        self._workers = workers
        self._memory = memory_bytes
        self._executor: ProcessPoolExecutor | None = None
        self._processes: dict[int, multiprocessing.process.BaseProcess] = {}
        """The workers this pool started (``ProcessPoolExecutor`` starts them in
        ``submit``), by pid, for :meth:`close`."""
        self.in_flight = 0
        """Jobs submitted and not finished (running on a worker, or queued)."""
        self.observer: Callable[[int, int], None] | None = None
        """Called with ``(in_flight, workers)`` whenever ``in_flight`` changes
        (the server's metrics: queued = in_flight − workers when positive)."""

    def _count(self, change: int) -> None:
        self.in_flight += change
        if self.observer is not None:
            self.observer(self.in_flight, self._workers)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            ctx = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                self._workers, mp_context=ctx, initializer=_init_worker,
                initargs=(self._memory,),
            )
        return self._executor

    async def run(self, budget: float, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``func(*args, **kwargs)`` in a worker; wait at most ``budget``
        seconds plus a margin.

        :raises SolverBusyError: timed out, or the worker died (pool rebuilt).
        """
        loop = asyncio.get_running_loop()
        before = {p.pid for p in multiprocessing.active_children()}
        fut = loop.run_in_executor(self._pool(), _call, func, args, kwargs)
        self._processes.update({p.pid: p for p in multiprocessing.active_children()
                                if p.pid not in before and p.pid is not None})
        self._count(1)
        try:
            return await asyncio.wait_for(fut, budget + _MARGIN)
        except TimeoutError:
            raise SolverBusyError("the solver did not answer in time") from None
        except BrokenProcessPool:
            self._reset()
            raise SolverBusyError("a solver worker died (memory limit?)") from None
        finally:
            self._count(-1)

    async def solve(self, rules: RuleSet, position: Position, redeal_key: bytes | None = None,
                    *, mode: Mode = "known-redeals", max_seconds: float = 2.0,
                    max_nodes: int = 2_000_000) -> SolveResult:
        """:func:`~server.solver.solve.solve` in a worker."""
        return await self.run(max_seconds, solve, rules, position, redeal_key, mode=mode,
                              max_seconds=max_seconds, max_nodes=max_nodes)

    async def hint(self, rules: RuleSet, position: Position, redeal_key: bytes | None = None,
                   *, max_seconds: float = 1.0) -> Move | None:
        """:func:`~server.solver.analysis.hint` in a worker."""
        return await self.run(max_seconds, hint, rules, position, redeal_key,
                              max_seconds=max_seconds)

    async def par(self, rules: RuleSet, deal_number: int, redeal_key: bytes,
                  *, max_seconds: float = 2.0) -> int:
        """:func:`~server.solver.analysis.par` in a worker."""
        return await self.run(max_seconds, par, rules, deal_number, redeal_key,
                              max_seconds=max_seconds)

    async def proved_winnable(self, rules: RuleSet, deal_number: int, redeal_key: bytes,
                              *, max_seconds: float = 2.0) -> bool:
        """:func:`~server.solver.analysis.proved_winnable` in a worker."""
        return await self.run(max_seconds, proved_winnable, rules, deal_number, redeal_key,
                              max_seconds=max_seconds)

    async def difficulty(self, rules: RuleSet, deal_number: int, redeal_key: bytes,
                         *, max_seconds: float = 2.0) -> Difficulty:
        """:func:`~server.solver.analysis.difficulty` in a worker."""
        return await self.run(2 * max_seconds, difficulty, rules, deal_number, redeal_key,
                              max_seconds=max_seconds)

    def _reset(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        self._processes = {pid: p for pid, p in self._processes.items() if p.is_alive()}

    def close(self) -> None:
        """Stop the workers now (module docstring): queued jobs are cancelled,
        running ones abandoned (their callers get :class:`SolverBusyError`)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        for process in self._processes.values():
            if process.is_alive():
                process.terminate()
        for process in self._processes.values():
            process.join(1.0)
            if process.is_alive():  # SIGTERM not acted on in time (a loaded machine)
                process.kill()
                # SIGKILL is certain; only its delivery may wait, for a worker
                # still starting in the kernel (exec, page-ins) on a busy disk:
                # CI saw one alive 1 s after the kill.
                process.join(3.0)
        self._processes = {}
        if executor is not None:
            executor.shutdown(wait=True)  # its manager thread ends with its workers


def _call(func: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    return func(*args, **kwargs)
