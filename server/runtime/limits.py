"""The open-files limit, checked when ``lucie-server`` starts.

Every WebSocket and HTTP connection is an open file. A soft limit of 1024
(a common default) makes a busy process fail at a few hundred racers with
``OSError: [Errno 24] Too many open files`` deep inside the event loop.
:func:`ensure_open_files` raises the soft limit up to the hard limit when it
is too low, and returns a warning naming the limit and how to raise it when
even the hard limit is short.
"""

from __future__ import annotations

import sys

__all__ = ["WANTED_OPEN_FILES", "ensure_open_files"]

WANTED_OPEN_FILES = 16_384
"""Open files a process should be allowed: ~2 per racer (socket + HTTP) for
several thousand racers, with room for Redis connections and logs."""

_HOW = ("raise it before starting the server: `ulimit -n {want}` in the shell "
        "(the hard limit too, as root or in /etc/security/limits.conf), "
        "`LimitNOFILE={want}` in a systemd unit, or `ulimits: nofile` in docker-compose")


def ensure_open_files(wanted: int = WANTED_OPEN_FILES) -> str | None:
    """Raise the soft ``RLIMIT_NOFILE`` towards ``wanted`` (never past the hard limit).

    :returns: ``None`` when the limit is (now) at least ``wanted``, else a
        one-line warning with the current limit, the connections it allows
        and how to raise it. Platforms without :mod:`resource` (Windows):
        ``None``.
    """
    if sys.platform == "win32":  # pragma: no cover - no rlimits there
        return None
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return None
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft >= wanted:
        return None
    return (f"the open-files limit is {soft} (hard {_fmt(hard)}): this process holds at "
            f"most ~{max(soft - 64, 0) // 2} racers (a WebSocket and an HTTP connection "
            f"each) before failing with 'Too many open files'; "
            + _HOW.format(want=wanted))


def _fmt(limit: int) -> str:
    import resource

    return "unlimited" if limit == resource.RLIM_INFINITY else str(limit)
