"""Server settings from the environment (and ``lucie-server`` flags).

Every setting has a default, so the server runs with no configuration on
the embedded memory store. Environment variables (``LUCIE_`` prefix except
``REDIS_URL``):

==========================  ========  ==================================================
variable                    default   meaning
==========================  ========  ==================================================
``REDIS_URL``               unset     ``redis://…`` for shared state; unset: memory store
``LUCIE_HOST``              127.0.0.1 bind address
``LUCIE_PORT``              8000      port
``LUCIE_MAX_BODY``          16384     largest HTTP request body, bytes (413 above)
``LUCIE_MAX_MESSAGE``       16384     largest WebSocket message, bytes (close 1009)
``LUCIE_SEND_QUEUE``        256       messages queued per socket before it is
                                      closed as too slow (4000)
``LUCIE_WS_RATE``           200       WebSocket messages per second per connection
``LUCIE_WS_BURST``          400       … and burst; above: close 1008
``LUCIE_HTTP_RATE``         2000      HTTP requests per second per client address
``LUCIE_HTTP_BURST``        4000      … and burst; above: 429 ``rate/limited``
``LUCIE_CREATE_PER_MIN``    20        rooms and ghost rooms created per minute per address
``LUCIE_CREATE_BURST``      10        … and burst; above: 429 ``rate/limited`` + Retry-After
``LUCIE_JOIN_PER_MIN``      120       joins per minute per address (a class behind one
``LUCIE_JOIN_BURST``        60        school address still joins one room at once)
``LUCIE_UPLOAD_PER_MIN``    60        replay checks and comparisons per minute per address
``LUCIE_UPLOAD_BURST``      20        … and burst
``LUCIE_WAITING_ROOMS_PER_ADDRESS`` 50 rooms one address may have waiting (not started) here
``LUCIE_MAX_ROOMS``         20000     rooms created here in the last LUCIE_WAITING_TTL_S;
                                      above: 503 ``server/full`` (running races go on)
``LUCIE_SOCKETS_PER_ADDRESS`` 256     room WebSockets open at once per client address
``LUCIE_SPECTATORS_PER_ROOM`` 500     spectator sockets per room in this process
``LUCIE_MAX_SOCKETS``       20000     room WebSockets in this process; above: 503
                                      ``server/full`` (running races go on)
``LUCIE_TRUSTED_PROXIES``   unset     addresses or networks (comma-separated) of load balancers
                                      whose ``X-Forwarded-For`` names the client (the key of
                                      the per-client limits); unset: the TCP peer is the client
``LUCIE_KEEP_ALIVE_S``      75        seconds an idle HTTP keep-alive connection stays open
                                      (longer than the usual proxy's 60 s: see below)
``LUCIE_PING_INTERVAL``     20        seconds between WebSocket pings (dead peers)
``LUCIE_PING_TIMEOUT``      20        seconds to wait for a pong before closing
``LUCIE_WS_COMPRESSION``    0         1: offer permessage-deflate (costs CPU per message)
``LUCIE_WS_IMPL``           auto      uvicorn WebSocket implementation (auto, websockets,
                                      websockets-sansio, wsproto; server.runtime.ws_protocol)
``LUCIE_TICK_MS``           250       room timer sweep period, ms
``LUCIE_ENDED_TTL_S``       3600      rooms vanish this long after their race ends
``LUCIE_WAITING_TTL_S``     1800      rooms that never start vanish after this
``LUCIE_LOG_LEVEL``         info      log level of the server's and uvicorn's lines
``LUCIE_LOG_FORMAT``        auto      ``json`` (one JSON object per line), ``text``, or
                                      ``auto``: text on a terminal, else JSON
                                      (``server.runtime.logs``, docs/operations.md)
``LUCIE_GC_FREEZE_S``       1         seconds between ``gc.freeze()`` of survivors
                                      (``server/gcpolicy.py``); 0: CPython's default GC
``LUCIE_GC_GEN0``           10000     the youngest generation's collection threshold
                                      under that policy (0: CPython's, 700)
``LUCIE_GC_FULL_S``         600       seconds between full collections (cycles)
==========================  ========  ==================================================

The keep-alive time is uvicorn's ``timeout_keep_alive`` (its default is 5 s).
A client that sends on an idle connection just as the server closes it gets
a connection error, not an answer, and nothing tells it whether the request
ran; a server that keeps idle connections longer than its clients and proxies
do (60 s is the common proxy idle timeout) leaves the closing to them. Under
the load test (issue 8), a host waiting 5 s for its room to fill lost its
start request that way on a slow machine.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

__all__ = ["Settings"]


@dataclass(frozen=True, slots=True)
class Settings:
    """Validated server settings (see the module docstring)."""

    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    max_body: int = 16_384
    max_message: int = 16_384
    send_queue: int = 256
    ws_rate: float = 200.0
    ws_burst: int = 400
    http_rate: float = 2000.0
    http_burst: int = 4000
    create_per_min: float = 20.0
    create_burst: int = 10
    join_per_min: float = 120.0
    join_burst: int = 60
    upload_per_min: float = 60.0
    upload_burst: int = 20
    waiting_rooms_per_address: int = 50
    max_rooms: int = 20_000
    sockets_per_address: int = 256
    spectators_per_room: int = 500
    max_sockets: int = 20_000
    trusted_proxies: str = ""
    keep_alive_s: int = 75
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    ws_compression: bool = False
    ws_impl: str = "auto"
    tick_ms: int = 250
    ended_ttl_s: int = 3600
    waiting_ttl_s: int = 1800
    log_level: str = "info"
    log_format: str = "auto"
    gc_freeze_s: float = 1.0
    gc_full_s: float = 600.0
    gc_gen0: int = 10_000

    @property
    def ws_frame_limit(self) -> int:
        """The largest frame the WebSocket layer reads (uvicorn ``ws_max_size``):
        well above ``max_message``, so the room socket sees an oversize message
        and closes with its documented ``request/too_large`` reason."""
        return max(4 * self.max_message, 1 << 20)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``env`` (default ``os.environ``), then ``overrides``.

        :raises ValueError: a value of the wrong type or range, naming the variable.
        """
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for f in fields(cls):
            name = "REDIS_URL" if f.name == "redis_url" else f"LUCIE_{f.name.upper()}"
            raw = env.get(name)
            if raw is None or raw == "":
                continue
            kind = type(getattr(cls(), f.name))
            try:
                if kind is bool:
                    if raw.lower() not in ("0", "1", "true", "false", "yes", "no"):
                        raise ValueError
                    values[f.name] = raw.lower() in ("1", "true", "yes")
                else:
                    values[f.name] = raw if f.name == "redis_url" else kind(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a valid {kind.__name__}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)  # type: ignore[arg-type]
        settings.check()
        return settings

    def check(self) -> None:
        """:raises ValueError: a value out of range."""
        for name in ("port", "max_body", "max_message", "send_queue", "ws_burst",
                     "http_burst", "tick_ms", "create_burst", "join_burst", "upload_burst",
                     "sockets_per_address", "spectators_per_room", "max_sockets",
                     "waiting_rooms_per_address", "max_rooms"):
            if int(getattr(self, name)) <= 0:
                raise ValueError(f"{name} must be positive")
        if not 0 < self.port < 65536:
            raise ValueError("port must be 1…65535")
        if self.ws_impl not in ("auto", "websockets", "websockets-sansio", "wsproto"):
            raise ValueError(f"ws_impl {self.ws_impl!r}: auto, websockets, websockets-sansio "
                             "or wsproto")
        if min(self.ws_rate, self.http_rate, self.create_per_min, self.join_per_min,
               self.upload_per_min) <= 0:
            raise ValueError("rates must be positive")
        for part in filter(None, (p.strip() for p in self.trusted_proxies.split(","))):
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"trusted_proxies: {part!r} is not an address or a network"
                                 ) from None
        if self.log_format not in ("json", "text", "auto"):
            raise ValueError(f"log_format {self.log_format!r}: json, text or auto")
        if self.keep_alive_s <= 0:
            raise ValueError("keep_alive_s must be positive")
        if self.gc_freeze_s < 0 or self.gc_full_s < 0 or self.gc_gen0 < 0:
            raise ValueError("gc_freeze_s, gc_full_s and gc_gen0 must be 0 or more")
