"""Start ``lucie-server`` processes on 127.0.0.1 for a load run, and watch them.

:class:`ServerGroup` starts one process per port (with ``REDIS_URL`` when
given), waits for ``/healthz``, samples each process's CPU and resident
memory with :mod:`psutil` while the load runs, and stops them at the end.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

__all__ = ["Sample", "ServerGroup", "free_port", "prioritise"]

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prioritise(pid: int, nice: int) -> None:
    """Set the niceness of process ``pid`` (started in its own session) and of its
    scheduler autogroup, so it also counts against other sessions' programs.

    Linux with ``sched_autogroup_enabled`` shares the CPU equally between
    sessions first, so a plain ``nice`` only matters inside one session.
    Nothing happens for ``nice == 0``; refusals (not root) are ignored.
    """
    if not nice:
        return
    with contextlib.suppress(psutil.Error, OSError):
        psutil.Process(pid).nice(nice)
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/autogroup").write_text(str(nice))


LOAD_LIMITS = {
    "LUCIE_CREATE_PER_MIN": "60000", "LUCIE_CREATE_BURST": "10000",
    "LUCIE_JOIN_PER_MIN": "120000", "LUCIE_JOIN_BURST": "20000",
    "LUCIE_SOCKETS_PER_ADDRESS": "100000", "LUCIE_SPECTATORS_PER_ROOM": "10000",
    "LUCIE_HTTP_CONNECTIONS_PER_ADDRESS": "100000",
    "LUCIE_MAX_SOCKETS": "100000", "LUCIE_WAITING_ROOMS_PER_ADDRESS": "100000",
    "LUCIE_MAX_ROOMS": "1000000",
}
"""The load test's per-address limits, set explicitly: thousands of simulated
players all come from 127.0.0.1, as if behind one proxy (docs/protocol.md,
"Limits"); per-address defaults would refuse them as one abusive client."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One look at one server process."""

    at: float
    cpu_percent: float
    rss: int
    fds: int


@dataclass
class ServerGroup:
    """``count`` server processes, memory store or ``redis_url``; a context manager."""

    count: int = 1
    redis_url: str | None = None
    log_dir: Path = field(default_factory=lambda: REPO / "results")
    env: dict[str, str] = field(default_factory=dict)
    nice: int = 0
    """Scheduling niceness of the servers (negative: ahead of other programs; root only)."""
    urls: list[str] = field(default_factory=list)
    samples: list[list[Sample]] = field(default_factory=list)
    machine: list[tuple[float, float]] = field(default_factory=list)
    """``(monotonic time, CPU % of the whole machine, 0–100·cores)`` every period."""
    _procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _sampler: threading.Thread | None = None

    def __enter__(self) -> ServerGroup:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the processes and wait until each answers ``/healthz`` (30 s at most)."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.update({"LUCIE_LOG_LEVEL": "warning", **LOAD_LIMITS, **self.env})
        if self.redis_url:
            env["REDIS_URL"] = self.redis_url
        for i in range(self.count):
            port = free_port()
            with (self.log_dir / f"server-{i}.log").open("wb") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-c", "from server.app import main; raise SystemExit(main())",
                     "--host", "127.0.0.1", "--port", str(port)],
                    cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True)
            prioritise(proc.pid, self.nice)
            self._procs.append(proc)
            self.urls.append(f"http://127.0.0.1:{port}")
            self.samples.append([])
        for proc, url in zip(self._procs, self.urls, strict=True):
            self._wait_healthy(proc, url)

    def _wait_healthy(self, proc: subprocess.Popen[bytes], url: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"lucie-server exited ({proc.returncode}); see {self.log_dir}")
            try:
                with urllib.request.urlopen(url + "/readyz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"lucie-server at {url} did not come up")

    @property
    def pids(self) -> list[int]:
        """The server processes' ids."""
        return [p.pid for p in self._procs]

    def sample_every(self, period_s: float) -> None:
        """Sample CPU, RSS and open files of every process, and the machine's CPU,
        every ``period_s`` (a thread)."""
        procs = [psutil.Process(p.pid) for p in self._procs]
        for p in procs:
            p.cpu_percent(None)
        psutil.cpu_percent(None)
        cores = psutil.cpu_count() or 1

        def loop() -> None:
            while not self._stop.wait(period_s):
                now = time.monotonic()
                self.machine.append((now, psutil.cpu_percent(None) * cores))
                for i, p in enumerate(procs):
                    with contextlib.suppress(psutil.Error):
                        self.samples[i].append(Sample(now, p.cpu_percent(None),
                                                      p.memory_info().rss, p.num_fds()))

        self._sampler = threading.Thread(target=loop, name="server-sampler", daemon=True)
        self._sampler.start()

    def rss(self) -> list[int]:
        """Resident memory of each process now, bytes."""
        return [psutil.Process(p.pid).memory_info().rss for p in self._procs]

    def stop(self) -> None:
        """Stop sampling and the processes (terminate, then kill after 10 s)."""
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join(5)
        for proc in self._procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self._procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
