"""Which protocol classes uvicorn runs: the service's fixes, or uvicorn's own.

:mod:`server.runtime.ws_protocol` and :mod:`server.runtime.http_protocol`
subclass uvicorn's private protocol classes (they end real reference-cycle
leaks, close slow readers at once, upgrade GET requests only). Private classes
change without notice, so they run only on the uvicorn releases their tests
pass on, :data:`KNOWN_GOOD` (docs/dependencies.md has the sweep). On any other
release ``lucie-server`` runs uvicorn's stock public protocols — ``ws``
``websockets-sansio`` (or the ``LUCIE_WS_IMPL`` asked for), ``http`` ``h11``
— and logs one warning saying so: the service works, without those fixes.
The HTTP protocol is then h11, not httptools, because uvicorn bounds a request
head only there (``h11_max_incomplete_event_size``: ``lucie-server`` sets it to
``LUCIE_MAX_HEADER``; an oversize head is answered 400, not 431); the header
timeout and the per-address connection cap are the subclass's and are off.

The modules of the subclasses are imported only inside the range, so an
uvicorn release that renamed a private module cannot break the import.
"""

from __future__ import annotations

import logging
import re
from importlib.metadata import version
from typing import Any

from server.runtime.http_limits import HttpLimits

__all__ = ["KNOWN_GOOD", "in_known_range", "protocols", "uvicorn_version"]

log = logging.getLogger("server.runtime")

KNOWN_GOOD: tuple[tuple[int, int, int], tuple[int, int, int]] = ((0, 52, 1), (0, 55, 0))
"""uvicorn releases the subclasses run on: from the first (inclusive) to the
second (exclusive). The lock's uvicorn and the lowest allowed (0.52.1) are
inside; the fallback is tested with a patched version
(tests/api/test_uvicorn_protocols.py)."""

_STOCK_WS = {"auto": "websockets-sansio"}
"""``LUCIE_WS_IMPL`` → uvicorn's own ``ws`` setting outside the range (``auto``:
the sans-I/O websockets protocol the subclass extends; uvicorn's own ``auto``
would pick the legacy one)."""

_warned = False

def uvicorn_version() -> tuple[int, ...]:
    """The installed uvicorn's release as integers, e.g. ``(0, 54, 0)``."""
    return tuple(int(part) for part in re.findall(r"\d+", version("uvicorn"))[:3])


def in_known_range(release: tuple[int, ...] | None = None) -> bool:
    """Whether ``release`` (default: the installed uvicorn) is in :data:`KNOWN_GOOD`."""
    low, high = KNOWN_GOOD
    return low <= (release or uvicorn_version()) < high


def protocols(ws_impl: str, limits: HttpLimits | None = None,
              budget: tuple[float, int] = (200.0, 400)) -> tuple[Any, Any]:
    """uvicorn's ``(ws, http)`` settings for ``LUCIE_WS_IMPL`` = ``ws_impl``,
    the HTTP ``limits`` (default: the settings' defaults) and a socket's message
    ``budget`` (``(LUCIE_WS_RATE, LUCIE_WS_BURST)``, which the classes count
    frames in): the service's protocol classes inside :data:`KNOWN_GOOD`, else
    uvicorn's stock names (``("websockets-sansio", "h11")`` for ``auto``), with
    one WARNING on the ``server.runtime`` logger per process."""
    if in_known_range():
        from server.runtime.http_protocol import http_protocol_class
        return _ws_protocol_class(ws_impl, budget), http_protocol_class(limits or HttpLimits())
    global _warned
    if not _warned:
        _warned = True
        low, high = (".".join(map(str, v)) for v in KNOWN_GOOD)
        log.warning(
            "uvicorn %s is outside the releases the service's protocol fixes are tested on "
            "(>=%s,<%s): running uvicorn's own protocols (HTTP: h11); closed sockets then "
            "wait for the full garbage collection, a slow reader's close for the ping "
            "timeout, and slow request heads and connections per address are not limited "
            "(docs/dependencies.md)", version("uvicorn"), low, high)
    return _STOCK_WS.get(ws_impl, ws_impl), "h11"


def _ws_protocol_class(ws_impl: str, budget: tuple[float, int]) -> Any:
    """uvicorn's ``ws`` setting for ``LUCIE_WS_IMPL`` inside the range (``auto``:
    websockets, sans-I/O, as uvicorn's own ``auto`` picks it when websockets is
    installed, which it is: a dependency): our class, with the message budget
    ``budget`` (a class of its own per server); the legacy ``websockets``
    implementation as it is."""
    from server.runtime.ws_budget import with_budget
    if ws_impl == "wsproto":  # an optional library: imported only when asked for
        from server.runtime.ws_wsproto import wsproto_protocol
        return with_budget(wsproto_protocol(), budget)
    if ws_impl in ("auto", "websockets-sansio"):
        from server.runtime.ws_protocol import SansIOProtocol
        return with_budget(SansIOProtocol, budget)
    return ws_impl
