"""Cancellation that Python 3.11 may swallow.

On Python 3.11, ``asyncio.wait_for`` (which redis-py's asyncio connection
awaits when it sends) may return normally although its task was cancelled
meanwhile (CPython gh-86296, fixed in 3.12). A loop around such a call then
never ends: the cancellation was consumed, and the next ``await`` waits as if
nothing happened. :func:`raise_if_cancelled` raises it again; call it after
any store call in a loop a task may be cancelled in.
"""

from __future__ import annotations

import asyncio

__all__ = ["raise_if_cancelled"]


def raise_if_cancelled() -> None:
    """Raise :class:`asyncio.CancelledError` when the current task has a
    cancellation request pending (``Task.cancelling()``), else do nothing.

    :raises asyncio.CancelledError: the task was cancelled meanwhile.
    """
    task = asyncio.current_task()
    cancelling = task is not None and task.cancelling() > 0
    # not kept in the raising frame: its traceback would hold the task, which
    # holds the exception (a cycle, freed only by a full collection)
    del task
    if cancelling:
        raise asyncio.CancelledError
