"""uvicorn's wsproto WebSocket protocol (``LUCIE_WS_IMPL=wsproto``), with the
fixes of :mod:`server.runtime.ws_protocol` — its parser ends with the
connection, a close does not wait for the peer to read — and the message
budget of :mod:`server.runtime.ws_budget`. wsproto is optional: it is
imported only when :func:`wsproto_protocol` is called.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .token_bucket import TokenBucket
from .ws_budget import BUDGET, Budgeted
from .ws_protocol import _ClosesWithoutWaiting, _Inbox

__all__ = ["wsproto_protocol"]


def wsproto_protocol() -> type:
    """The wsproto protocol class (wsproto, an optional library, imported now)."""
    from uvicorn.protocols.websockets.wsproto_impl import WSProtocol
    from wsproto import events
    from wsproto.utilities import LocalProtocolError

    class WSProtoProtocol(Budgeted, _ClosesWithoutWaiting, WSProtocol):
        """uvicorn's wsproto protocol; a lost connection ends its frame
        parser, a close does not wait for the peer to read, every frame but
        a close spends the message budget (wsproto parses lazily: nothing
        past the budget is parsed)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.queue = _Inbox()
            self._budget = TokenBucket(self.budget_rate, self.budget_burst)

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[BUDGET] = self._budget

        def handle_events(self) -> None:
            # uvicorn's dispatch, each frame but a close spending the budget first
            budget = self._budget
            for event in self.conn.events():
                if not isinstance(event, events.Request | events.CloseConnection) \
                        and not budget.take():
                    self._over_budget()
                    return
                if self.close_sent:
                    if isinstance(event, events.CloseConnection):
                        self.handle_close(event)
                    continue
                if isinstance(event, events.Request):
                    self.handle_connect(event)
                elif isinstance(event, events.TextMessage | events.BytesMessage):
                    self.handle_message(event)
                elif isinstance(event, events.CloseConnection):
                    self.handle_close(event)
                elif isinstance(event, events.Ping):
                    self.handle_ping(event)
                elif isinstance(event, events.Pong):
                    self.handle_pong(event)

        def _send_over_budget_close(self, code: int, reason: str) -> None:
            with contextlib.suppress(LocalProtocolError):  # the peer is closing already
                self.transport.write(self.conn.send(events.CloseConnection(code, reason)))

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            # wsproto has no public way to end its parser: reach the generator,
            # and leave the cycle to the collector if a release renames it
            parser = getattr(getattr(self.conn.connection, "_proto", None), "_parse_more", None)
            if parser is not None:
                parser.close()

    return WSProtoProtocol
