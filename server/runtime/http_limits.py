"""What one HTTP connection may cost before it is served: :class:`HttpLimits`.

The HTTP protocol class holds each connection to them
(:mod:`server.runtime.http_protocol`); they live here, apart from it, because
that module imports uvicorn's private classes and is imported only on the
uvicorn releases it is tested on (:mod:`server.runtime.uvicorn_protocols`).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from server.runtime.settings import Settings

__all__ = ["HttpLimits"]

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """What one HTTP connection may cost before it is served
    (:mod:`server.runtime.http_protocol`): the largest request head (bytes),
    the seconds to send it, the open HTTP connections per client address, and
    the networks of trusted proxies (their connections are not counted)."""

    max_header: int = 16_384
    header_timeout_s: float = 10.0
    per_address: int = 256
    trusted: tuple[_Network, ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> HttpLimits:
        """The limits ``settings`` set (``LUCIE_MAX_HEADER``,
        ``LUCIE_HEADER_TIMEOUT_S``, ``LUCIE_HTTP_CONNECTIONS_PER_ADDRESS``,
        ``LUCIE_TRUSTED_PROXIES``)."""
        networks = tuple(ipaddress.ip_network(part.strip(), strict=False)
                         for part in settings.trusted_proxies.split(",") if part.strip())
        return cls(settings.max_header, settings.header_timeout_s,
                   settings.http_connections_per_address, networks)

    def counts(self, host: str) -> bool:
        """Whether connections from ``host`` count against its cap (not a
        trusted proxy's)."""
        if not self.trusted:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return True
        return not any(address in network for network in self.trusted)
