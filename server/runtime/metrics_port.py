"""The metrics listener: a second port of the same uvicorn server.

``LUCIE_METRICS_PORT`` opens it beside the game port, on the same host
(``LUCIE_HOST``), in the same process: the same app, protocol classes and
limits (:mod:`server.runtime.http_protocol`) answer there, and the app serves
``GET /metrics`` alone on it (:mod:`server.api.guard`; docs/operations.md,
"Metrics"). So Prometheus scrapes each process on a port the load balancer
does not publish, and the room counts it reads at scrape time come from the
same store and authority as the game's.

Why not prometheus-client's own ``start_http_server``: it serves from a
thread of its own with the standard library's HTTP server — no header limits
or timeouts, a thread per connection — and could not read the room counts
from the asynchronous store at scrape time. Why not a second
``uvicorn.Server``: ``serve()`` takes over the process's signal handlers
(SIGTERM would stop only one of them), and ``startup()`` alone exits the
process when its port is taken.

:class:`Server` is :class:`uvicorn.Server` with one more listener, opened at
the end of its public ``startup()``, with the protocol factory uvicorn's own
listener uses (the configured HTTP protocol class, the server's state and
the lifespan's): uvicorn's ``shutdown()`` closes it and its connections with
the rest. A port that cannot be bound stops the start as a taken game port
does (exit status 3).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys

import uvicorn
from uvicorn.config import STARTUP_FAILURE

__all__ = ["Server"]

log = logging.getLogger("server.runtime")


class Server(uvicorn.Server):
    """:class:`uvicorn.Server`, listening on ``metrics_port`` too when it is set
    (module docstring)."""

    def __init__(self, config: uvicorn.Config, metrics_port: int | None = None) -> None:
        super().__init__(config)
        self.metrics_port = metrics_port

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.metrics_port is None or not self.started:
            return
        config = self.config

        def create_protocol(_loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Protocol:
            # as uvicorn's startup() makes the game port's protocols
            return config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state,
                app_state=self.lifespan.state, _loop=_loop)

        try:
            listener = await asyncio.get_running_loop().create_server(
                create_protocol, host=config.host, port=self.metrics_port,
                backlog=config.backlog)
        except OSError as exc:
            log.error("metrics port %d (LUCIE_METRICS_PORT): %s", self.metrics_port, exc)
            for server in self.servers:
                server.close()
            self.started = False
            await self.lifespan.shutdown()
            sys.exit(STARTUP_FAILURE)
        self.servers.append(listener)
        log.info("metrics on http://%s:%d/metrics (LUCIE_METRICS_PORT)",
                 config.host, self.metrics_port)
