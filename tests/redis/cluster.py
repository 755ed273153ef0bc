"""Several real ``lucie-server`` processes sharing one Redis, for the scale-out tests.

Each :class:`Cluster` has its own key prefix (``LUCIE_REDIS_PREFIX``), so its
processes share rooms with each other and with nobody else; :meth:`Cluster.stop`
ends the processes and deletes every key under the prefix.
"""

from __future__ import annotations

import secrets
import signal
import subprocess
import sys
import time

import httpx
import redis

from tests.conftest import REPO, TEST_LIMITS, free_port, run_dir, server_env

__all__ = ["REDIS_URL", "Cluster", "drop_prefix"]

REDIS_URL = "redis://127.0.0.1:6379/0"
EXIT_NO_LISTEN = 3
"""lucie-server's exit code when it could not listen (its port taken, say)."""
PORT_TRIES = 4


def drop_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix`` (never anything else)."""
    from server.runtime.redis_url import split_url

    bare, _, _ = split_url(url)
    client = redis.Redis.from_url(bare)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class Cluster:
    """``n`` server processes on free loopback ports, one Redis, one prefix
    (logging warnings only, unless ``LUCIE_LOG_LEVEL`` is in ``env``).
    ``keep_keys``: :meth:`stop` leaves the keys (a private Redis Cluster of
    the test session: it goes with them)."""

    def __init__(self, n: int, *, redis_url: str = REDIS_URL, keep_keys: bool = False,
                 **env: str) -> None:
        self.prefix = f"test:{secrets.token_hex(6)}:"
        self.redis_url = redis_url
        self.keep_keys = keep_keys
        self.env = {**TEST_LIMITS, "REDIS_URL": redis_url, "LUCIE_REDIS_PREFIX": self.prefix,
                    "LUCIE_TICK_MS": "50", **env}
        self.logdir = run_dir("cluster-")
        # the processes of one deployment share one archive (here: its SQLite file)
        self.env.setdefault("LUCIE_DATA_DIR", str(self.logdir / "data"))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.urls: list[str] = []
        try:
            pending = [self._spawn() for _ in range(n)]
            for i, (proc, url) in enumerate(pending):
                self._start(i, proc, url)
        except BaseException:
            self.stop()
            raise

    def _spawn(self, i: int | None = None, **extra: str) -> tuple[subprocess.Popen[bytes], str]:
        """Start process ``i`` (a new one when None) on a free port; ``extra``:
        settings of this process alone."""
        port = free_port()
        env = server_env({**self.env, **extra})
        self.logdir.mkdir(parents=True, exist_ok=True)
        log = (self.logdir / f"server-{len(self.procs) if i is None else i}.log").open("wb")
        level = [] if "LUCIE_LOG_LEVEL" in self.env else ["--log-level", "warning"]
        proc = subprocess.Popen(
            [sys.executable, "-c", "from server.app import main; raise SystemExit(main())",
             "--port", str(port), *level],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        url = f"http://127.0.0.1:{port}"
        if i is None:
            self.procs.append(proc)
            self.urls.append(url)
        else:
            self.procs[i], self.urls[i] = proc, url
        return proc, url

    def _start(self, i: int, proc: subprocess.Popen[bytes], url: str) -> None:
        """Wait for process ``i``; started again on another port while the one it
        was given is taken before it could listen (lucie-server exits with 3)."""
        for _ in range(PORT_TRIES):
            try:
                self._wait(proc, url)
                return
            except RuntimeError:
                if proc.returncode != EXIT_NO_LISTEN \
                        or "address already in use" not in self.log(i):
                    raise
            proc, url = self._spawn(i)
        self._wait(proc, url)

    @staticmethod
    def _wait(proc: subprocess.Popen[bytes], url: str) -> None:
        deadline = time.monotonic() + 60  # a busy machine imports slowly
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"lucie-server exited with {proc.returncode}")
            try:
                if httpx.get(url + "/readyz", timeout=0.5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("lucie-server did not become ready")

    def add(self, **env: str) -> str:
        """Start one more process (``env``: its own settings besides the
        cluster's); its URL."""
        proc, url = self._spawn(**env)
        self._start(len(self.procs) - 1, proc, url)
        return self.urls[-1]

    def kill(self, i: int) -> None:
        """``kill -9`` process ``i`` (nothing if it is gone already)."""
        if self.procs[i].poll() is None:
            self.procs[i].send_signal(signal.SIGKILL)
            self.procs[i].wait(5)

    def log(self, i: int) -> str:
        """What process ``i`` wrote so far."""
        return (self.logdir / f"server-{i}.log").read_text(errors="replace")

    def stop(self) -> None:
        """Stop every process and delete the prefix's keys."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if not self.keep_keys:
            drop_prefix(self.redis_url, self.prefix)
