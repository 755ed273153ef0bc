"""A real ``haproxy`` in front of test server processes, configured from the
shipped ``infra/haproxy.cfg``.

:func:`render` keeps every option of the shipped file (timeouts,
``option forwardfor``, the WebSocket tunnel timeout, health checks, retries,
logging, the statistics page) and rewrites only where it listens and where the
replicas are: ``bind :8000`` / ``bind :8404`` become loopback test ports, the
``server appN appN:8000`` lines become the test's processes, and the Docker DNS
``resolvers`` (compose's 127.0.0.11) are left out, since the addresses are
literal. Each rewrite must match the shipped file exactly as expected, so the
test fails loudly, rather than testing a copy, when the file changes shape.
The one other change: ``-n`` lowers ``maxconn`` when this machine's open-files
hard limit cannot hold the shipped one (HAProxy refuses to start otherwise).

On the command line, ``-dR``: no ``SO_REUSEPORT``. With it, HAProxy shares a
port with any listener of the same user that has it too — another HAProxy, or
its own ``stats`` frontend when both test ports came out the same — and the
kernel splits the connections: a WebSocket answered 200 by a statistics page
(``stats uri /`` serves every path). Without it, a port taken between choosing
it and binding it makes HAProxy exit at once (``cannot bind socket``), and
:class:`Balancer` starts it again on new ports.
"""

from __future__ import annotations

import csv
import io
import re
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx

from tests.conftest import REPO, free_ports, run_dir

__all__ = ["SHIPPED", "Balancer", "haproxy_binary", "render"]

SHIPPED = REPO / "infra" / "haproxy.cfg"
BIND_TRIES = 5
"""Starts on new ports when a chosen port was taken before HAProxy bound it."""


class _PortTaken(RuntimeError):
    """HAProxy exited at start: a port it was to listen on is in use."""


def haproxy_binary() -> str | None:
    """The ``haproxy`` executable (Debian installs it in /usr/sbin, which a
    non-root PATH may lack), or None."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def _sub_once(pattern: str, repl: str, text: str, count: int = 1) -> str:
    new, n = re.subn(pattern, repl, text, flags=re.MULTILINE)
    assert n == count, f"infra/haproxy.cfg changed shape: {pattern!r} matched {n}×, not {count}×"
    return new


def render(shipped: str, *, bind: str, stats: str, servers: list[str]) -> str:
    """The shipped configuration with the test's addresses.

    :param bind: ``host:port`` of the ``lucie`` frontend (shipped ``:8000``).
    :param stats: ``host:port`` of the statistics page (shipped ``:8404``).
    :param servers: ``host:port`` of each replica, named app1, app2, … in order.
    :raises AssertionError: when a rewritten line is not in the shipped file.
    """
    text = _sub_once(r"^(\s*bind) :8000$", rf"\1 {bind}", shipped)
    text = _sub_once(r"^(\s*bind) :8404$", rf"\1 {stats}", text)
    text = _sub_once(r"^(?:#.*\n)*resolvers docker\n(?:[ \t]+\S.*\n)+\n?", "", text)
    text = _sub_once(r" resolvers docker(?= )", "", text)
    shipped_servers = re.findall(r"^\s*server app\d+ app\d+:8000 check$", text, re.MULTILINE)
    assert shipped_servers, "infra/haproxy.cfg changed shape: no `server appN appN:8000 check`"
    indent = shipped_servers[0][: len(shipped_servers[0]) - len(shipped_servers[0].lstrip())]
    lines = "\n".join(f"{indent}server app{i} {addr} check"
                      for i, addr in enumerate(servers, start=1))
    text = _sub_once(r"^(?:\s*server app\d+ app\d+:8000 check\n)+", lines + "\n", text)
    assert "resolvers" not in text and "app1:8000" not in text
    return text


class Balancer:
    """``haproxy`` on free loopback ports in front of ``servers`` (base URLs).

    ``url`` is the frontend, ``stats_url`` the statistics page; the process
    log (HAProxy's ``option httplog`` lines on stdout) is :meth:`log`.
    """

    def __init__(self, servers: list[str], *, timeout_s: float = 20) -> None:
        exe = haproxy_binary()
        assert exe is not None, "haproxy is not installed (scripts/ensure-tools.sh installs it)"
        addrs = [u.removeprefix("http://") for u in servers]
        self.names = [f"app{i}" for i in range(1, len(addrs) + 1)]
        self.dir = run_dir("haproxy-")
        self.config = self.dir / "haproxy.cfg"
        self.log_path = self.dir / "haproxy.log"
        for attempt in range(1, BIND_TRIES + 1):
            self.port, self.stats_port = free_ports(2)  # two different ports
            self.url = f"http://127.0.0.1:{self.port}"
            self.stats_url = f"http://127.0.0.1:{self.stats_port}"
            self.config.write_text(render(SHIPPED.read_text(), bind=f"127.0.0.1:{self.port}",
                                          stats=f"127.0.0.1:{self.stats_port}", servers=addrs))
            with self.log_path.open("wb") as log:
                self.proc = subprocess.Popen([exe, "-dR", "-f", str(self.config), *_fd_cap()],
                                             cwd=self.dir, stdout=log, stderr=subprocess.STDOUT)
            try:
                self.wait_up(self.names, timeout_s)
                self._wait_frontend(timeout_s)
                return
            except _PortTaken:
                if attempt == BIND_TRIES:
                    raise
            except BaseException:
                self.stop()
                raise

    def stats(self) -> dict[str, dict[str, str]]:
        """The statistics page's CSV rows of the ``replicas`` backend, by server
        name (``scur`` sessions now, ``stot`` in all, ``status``, ``check_status``…)."""
        r = httpx.get(self.stats_url + "/;csv", timeout=5)
        r.raise_for_status()
        rows = csv.DictReader(io.StringIO(r.text.removeprefix("# ")))
        return {row["svname"]: row for row in rows if row["pxname"] == "replicas"}

    def wait_up(self, names: list[str], timeout_s: float = 20) -> None:
        """Wait until the health checks (``GET /healthz``) passed for ``names``."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                log = self.log()
                if "cannot bind socket" in log:
                    raise _PortTaken(f"haproxy could not listen: {log[-2000:]}")
                raise RuntimeError(f"haproxy exited: {log[-2000:]}")
            try:
                rows = self.stats()
                if all(rows[n]["status"] == "UP" and rows[n]["check_status"] == "L7OK"
                       for n in names):
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"replicas not up behind haproxy: {self.log()[-2000:]}")
            time.sleep(0.1)

    def _wait_frontend(self, timeout_s: float) -> None:
        """Wait until a request to the frontend reaches a replica: the server's own
        ``/readyz`` answer (JSON), not any other listener's."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                r = httpx.get(self.url + "/readyz", timeout=5)
                if r.status_code == 200 and r.json().get("status") == "ready":
                    return
            except (httpx.HTTPError, ValueError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the frontend {self.url} does not reach the replicas: "
                                   f"{self.log()[-2000:]}")
            time.sleep(0.1)

    def wait_down(self, name: str, timeout_s: float = 20) -> None:
        """Wait until the health checks took ``name`` out of the pool."""
        deadline = time.monotonic() + timeout_s
        while self.stats()[name]["status"] != "DOWN":
            assert time.monotonic() < deadline, f"{name} never marked down: {self.log()[-2000:]}"
            time.sleep(0.1)

    def log(self) -> str:
        """What haproxy wrote so far (one ``option httplog`` line per request)."""
        return Path(self.log_path).read_text(errors="replace")

    def stop(self) -> int:
        """Hard-stop haproxy (SIGTERM: open tunnels are cut, not waited for);
        its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def _fd_cap() -> list[str]:
    """``-n N`` when this machine's open-files hard limit is below what the
    shipped ``maxconn`` needs (two descriptors per connection; HAProxy refuses
    to start otherwise), else nothing: the shipped value is used."""
    shipped = int(re.search(r"^\s*maxconn (\d+)$", SHIPPED.read_text(), re.MULTILINE)[1])
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard >= 2 * shipped + 100:
        return []
    return ["-n", str((hard - 100) // 2)]
