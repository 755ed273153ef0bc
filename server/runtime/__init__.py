"""How the service runs: settings, logging, metrics, server protocol tuning,
GC policy, the open-files limit, secret redaction, store URLs and JSON encoding.

Imports nothing of the service but :mod:`server.errors`, so every layer may
use it. Modules: ``settings`` (and ``settings_doc``), ``logs``, ``metrics``
(and ``metrics_port``, the metrics listener), ``uvicorn_protocols`` (which of
``ws_protocol``, ``ws_wsproto``, ``http_protocol`` or uvicorn's own protocols
run), ``http_limits``, ``ws_budget`` and ``token_bucket`` (a socket's message
budget, counted by the protocol), ``origins`` (the room socket's ``Origin``
rule), ``gcpolicy``, ``limits``, ``cancel``, ``redact``, ``redis_url``,
``jsoncodec``.
"""

from __future__ import annotations

__all__: list[str] = []
