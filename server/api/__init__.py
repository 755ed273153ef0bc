"""The HTTP/WebSocket transport: decodes requests and calls the race authority.

``rest`` (routes), ``ws`` (room socket), ``hub`` (event fan-out), ``models``
(wire models), ``openapi`` (generated spec), ``errors``, ``ratelimit``.
"""

from __future__ import annotations

__all__: list[str] = []
