"""A server killed outright (``kill -9``, the OOM killer) leaves no solver
worker behind: each worker watches its parent and exits when it is gone (it
lived on for good, holding its memory, and the multiprocessing resource
tracker with it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.conftest import REPO, alive, child_pids, wait_gone

pytestmark = pytest.mark.timeout(60)

HOLDER = """
import asyncio, os, sys
from server.solver.pool import SolverPool

async def main():
    pool = SolverPool(workers=1)
    print(await pool.run(5, os.getpid), flush=True)  # the worker's pid
    await asyncio.sleep(60)

asyncio.run(main())
"""


def test_solver_workers_exit_when_their_server_is_killed() -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    children: set[int] = set()
    try:
        assert holder.stdout is not None
        worker = int(holder.stdout.readline())
        children = child_pids(holder.pid)
        assert worker in children and len(children) == 2  # the worker, the resource tracker
        holder.send_signal(signal.SIGKILL)
        holder.wait(5)
        left = wait_gone(children)
        assert not left, f"left behind: {left}"
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
        for pid in children:  # only alive when the test fails
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
