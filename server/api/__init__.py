"""The HTTP/WebSocket transport: decodes requests and calls the race authority.

It never decides legality and never imports the store: room events and the
clock come through the authority too. ``rest`` (room routes), ``h2h_routes``
and ``solver_routes`` (head to head, daily deal, leaderboards, hints), ``ws``
(room socket), ``hub`` (per-process event fan-out), ``models`` and
``h2h_models`` (wire models), ``openapi`` (generated spec and WebSocket
schemas), ``errors`` (registry → HTTP answers), ``guard`` (paths that name
nothing, the metrics listener's), ``observe`` (request ids, access lines,
metrics, the headers of every answer), ``ratelimit``.
"""

from __future__ import annotations

__all__: list[str] = []
