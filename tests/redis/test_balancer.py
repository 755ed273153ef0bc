"""The test harness's HAProxy (``tests/redis/balancer.py``) listens on its ports
alone: a frontend port that another listener took after it was chosen (one with
``SO_REUSEPORT``, as another HAProxy has: the kernel would split the connections
between the two) is given up for new ports, and every request through the
frontend then reaches the replica behind it."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from . import balancer
from .balancer import Balancer, haproxy_binary

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(haproxy_binary() is None,
                       reason="haproxy is not installed (make test installs it: "
                              "scripts/ensure-tools.sh)"),
]


class _Ready(BaseHTTPRequestHandler):
    """A replica's probes: ``/healthz`` (the shipped HAProxy's health check) and
    ``/readyz`` (what the harness reads through the frontend): 200 and JSON."""

    def do_GET(self) -> None:
        body = json.dumps({"status": "ready", "store": "test"}).encode()
        self.send_response(200 if self.path in ("/healthz", "/readyz") else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def replica() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ready)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_frontend_port_taken_meanwhile_is_not_shared(
        replica: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as squatter:  # takes the port the harness chose first
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        chosen: list[list[int]] = []
        free_ports = balancer.free_ports

        def first_taken(n: int) -> list[int]:
            ports = free_ports(n)
            chosen.append(ports)
            return [taken, *ports[1:]] if len(chosen) == 1 else ports

        monkeypatch.setattr(balancer, "free_ports", first_taken)
        lb = Balancer([replica])
        try:
            assert len(chosen) == 2 and lb.port not in (taken, lb.stats_port)
            assert "cannot bind socket" not in lb.log()  # the log of the run that listens
            for _ in range(8):  # round robin over one replica: each reaches it
                r = httpx.get(lb.url + "/readyz", timeout=5)
                assert r.json() == {"status": "ready", "store": "test"}
        finally:
            lb.stop()
