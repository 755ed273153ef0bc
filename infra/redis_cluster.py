"""A local Redis Cluster for tests and benchmarks: real ``redis-server`` processes.

:class:`LocalRedisCluster` starts ``masters * (1 + replicas)`` nodes on free
ports of 127.0.0.1 (``redis-server --cluster-enabled yes``, no persistence),
joins them with ``redis-cli --cluster create … --cluster-replicas N
--cluster-yes`` and waits until every node reports ``cluster_state:ok``::

    with LocalRedisCluster() as cluster:       # 3 masters, 3 replicas
        run_server(REDIS_URL=cluster.url)      # any node; redis-py finds the rest
        port = cluster.kill_master(0)          # SIGKILL; its replica takes over

Used by the cluster tests (``tests/redis/test_redis_cluster*.py``) and the
capacity benchmark. To try one by hand, ``python -m infra.redis_cluster
[--masters 3] [--replicas 1]`` starts one, prints its URL and the command that
runs the server on it, and stops and removes the nodes on Ctrl-C or SIGTERM
(docs/operations.md, "Redis Cluster"). Needs ``redis-server`` and ``redis-cli`` (Redis 7 for
sharded pub/sub) on ``PATH``. Errors: :class:`RuntimeError` with the tail of
the failing node's log when a node or the cluster does not come up in time.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType, TracebackType

__all__ = ["LocalRedisCluster", "main"]

_HOST = "127.0.0.1"


def _free_port(taken: set[int]) -> int:
    """A TCP port free on 127.0.0.1 whose cluster bus port (+10000) is free too,
    neither of them in ``taken`` (the ports of the nodes chosen so far, and
    their bus ports)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind((_HOST, 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535 or {port, port + 10000} & taken:
            continue
        with socket.socket() as bus:
            try:
                bus.bind((_HOST, port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair (port, port + 10000) on 127.0.0.1")


class LocalRedisCluster:
    """A Redis Cluster of local processes (module docstring).

    ``masters``: number of primaries (at least 3, Redis's minimum);
    ``replicas``: replicas per primary; ``base_dir``: where the nodes' folders
    go (default: a new temporary folder, removed by :meth:`stop`);
    ``node_timeout_ms``: ``cluster-node-timeout``, how long a silent primary
    takes to be failed over (about this plus a second); ``password``: every
    node requires it (``requirepass``, and ``masterauth`` for the replicas),
    and :attr:`url` carries it.
    """

    def __init__(self, masters: int = 3, replicas: int = 1, *, base_dir: Path | None = None,
                 node_timeout_ms: int = 1000, password: str | None = None) -> None:
        if masters < 3:
            raise ValueError("a Redis Cluster needs at least 3 masters")
        self.masters = masters
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.password = password
        self._given_dir = base_dir
        self._dir: Path | None = None
        self._procs: dict[int, subprocess.Popen[bytes]] = {}
        self.ports: list[int] = []
        """Every node's port, in creation order (the first ``masters`` were created
        as primaries; after a failover :meth:`master_ports` tells the current ones)."""

    # -- life cycle ------------------------------------------------------------------

    def start(self, timeout_s: float = 60.0) -> None:
        """Start the nodes, create the cluster, wait for ``cluster_state:ok``.

        :raises RuntimeError: a node exited, or the cluster was not ok in ``timeout_s``.
        """
        if self._given_dir is not None:
            self._given_dir.mkdir(parents=True, exist_ok=True)
            self._dir = Path(tempfile.mkdtemp(prefix="redis-cluster-", dir=self._given_dir))
        else:
            self._dir = Path(tempfile.mkdtemp(prefix="lucie-redis-cluster-"))
        try:
            taken: set[int] = set()
            for _ in range(self.masters * (1 + self.replicas)):
                port = _free_port(taken)
                taken |= {port, port + 10000}
                self._start_node(port)
            deadline = time.monotonic() + timeout_s
            for port in self.ports:
                self._wait_ping(port, deadline)
            nodes = [f"{_HOST}:{p}" for p in self.ports]
            created = subprocess.run(
                ["redis-cli", *self._auth(), "--cluster", "create", *nodes,
                 "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                capture_output=True, timeout=timeout_s, check=False)
            if created.returncode != 0:
                raise RuntimeError("redis-cli --cluster create failed: "
                                   + created.stdout.decode()[-2000:]
                                   + created.stderr.decode()[-2000:])
            self.wait_ok(deadline - time.monotonic())
            self.wait_replicas(deadline - time.monotonic())
        except BaseException:
            self.stop()
            raise

    def _start_node(self, port: int) -> None:
        assert self._dir is not None
        node_dir = self._dir / str(port)
        node_dir.mkdir()
        log = node_dir / "redis.log"
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", _HOST,
             "--cluster-enabled", "yes", "--cluster-config-file", str(node_dir / "nodes.conf"),
             "--cluster-node-timeout", str(self.node_timeout_ms),
             "--save", "", "--appendonly", "no", "--dir", str(node_dir),
             "--logfile", str(log), "--protected-mode", "no",
             *(("--requirepass", self.password, "--masterauth", self.password)
               if self.password else ())],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self._procs[port] = proc
        self.ports.append(port)

    def _auth(self) -> tuple[str, ...]:
        """``redis-cli``'s options for the password, if any."""
        return ("-a", self.password, "--no-auth-warning") if self.password else ()

    def _cli(self, port: int, *args: str, timeout: float = 5.0) -> str:
        out = subprocess.run(["redis-cli", *self._auth(), "-h", _HOST, "-p", str(port), *args],
                             capture_output=True, timeout=timeout, check=False)
        return out.stdout.decode()

    def _log_tail(self, port: int) -> str:
        assert self._dir is not None
        with contextlib.suppress(OSError):
            return (self._dir / str(port) / "redis.log").read_text()[-2000:]
        return ""

    def _wait_ping(self, port: int, deadline: float) -> None:
        while time.monotonic() < deadline:
            proc = self._procs[port]
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server :{port} exited: {self._log_tail(port)}")
            with contextlib.suppress(subprocess.TimeoutExpired):
                if self._cli(port, "PING", timeout=1.0).strip() == "PONG":
                    return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server :{port} did not answer: {self._log_tail(port)}")

    def wait_ok(self, timeout_s: float = 30.0) -> None:
        """Wait until every running node reports ``cluster_state:ok`` and knows
        ``masters`` primaries that serve slots.

        :raises RuntimeError: not so within ``timeout_s``.
        """
        deadline = time.monotonic() + max(timeout_s, 0.1)
        while time.monotonic() < deadline:
            with contextlib.suppress(subprocess.TimeoutExpired):
                if all("cluster_state:ok" in self._cli(p, "CLUSTER", "INFO", timeout=1.0)
                       for p in self.live_ports()) and len(self.master_ports()) == self.masters:
                    return
            time.sleep(0.1)
        raise RuntimeError("the Redis Cluster is not ok: "
                           + self._cli(self.live_ports()[0], "CLUSTER", "NODES"))

    def wait_replicas(self, timeout_s: float = 30.0) -> None:
        """Wait until every master has ``replicas`` replicas online (synced), so
        that a ``WAIT`` can be answered.

        :raises RuntimeError: not so within ``timeout_s``.
        """
        deadline = time.monotonic() + max(timeout_s, 0.1)
        while time.monotonic() < deadline:
            with contextlib.suppress(subprocess.TimeoutExpired):
                if all(self._cli(p, "INFO", "replication", timeout=1.0).count("state=online")
                       >= self.replicas for p in self.master_ports()):
                    return
            time.sleep(0.1)
        raise RuntimeError("the replicas of the Redis Cluster did not come online")

    def stop(self) -> None:
        """Kill every node (SIGKILL) and remove the nodes' folders. Idempotent."""
        for proc in self._procs.values():
            if proc.poll() is None:
                proc.kill()
        for proc in self._procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        self._procs.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> LocalRedisCluster:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- what runs -------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:<port>/0`` of a current master (any node would do;
        ``redis://:<password>@…`` with a password)."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}{_HOST}:{self.master_ports()[0]}/0"

    def live_ports(self) -> list[int]:
        """Ports of the nodes whose process runs."""
        return [p for p in self.ports if self._procs.get(p) and self._procs[p].poll() is None]

    def master_ports(self) -> list[int]:
        """Ports of the primaries that serve slots now, as a live node sees them
        (sorted by their first slot, so index ``i`` is stable across a failover)."""
        for port in self.live_ports():
            with contextlib.suppress(subprocess.TimeoutExpired):
                text = self._cli(port, "CLUSTER", "NODES", timeout=1.0)
                if text:
                    return _masters_from_nodes(text)
        return []

    def master_of_slot(self, slot: int) -> int:
        """Port of the primary serving ``slot`` now."""
        for port in self.live_ports():
            with contextlib.suppress(subprocess.TimeoutExpired):
                text = self._cli(port, "CLUSTER", "NODES", timeout=1.0)
                for line in text.splitlines():
                    parts = line.split()
                    if len(parts) < 9 or "master" not in parts[2] or "fail" in parts[2]:
                        continue
                    for rng in parts[8:]:
                        lo, _, hi = rng.partition("-")
                        if lo.isdigit() and int(lo) <= slot <= int(hi or lo):
                            return int(parts[1].split("@")[0].rsplit(":", 1)[1])
        raise RuntimeError(f"no master serves slot {slot}")

    def kill_master(self, i: int) -> int:
        """SIGKILL the ``i``-th current master (:meth:`master_ports` order); its
        port. Its replica is promoted after about ``node_timeout_ms``."""
        return self.kill_node(self.master_ports()[i])

    def kill_node(self, port: int) -> int:
        """SIGKILL the node on ``port``; the port."""
        proc = self._procs[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=5)
        return port


def _masters_from_nodes(text: str) -> list[int]:
    """The serving primaries of a ``CLUSTER NODES`` answer, by first slot."""
    found: list[tuple[int, int]] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 9 or "master" not in parts[2] or "fail" in parts[2]:
            continue
        first = parts[8].partition("-")[0]
        if not first.isdigit():
            continue
        port = int(parts[1].split("@")[0].rsplit(":", 1)[1])
        found.append((int(first), port))
    return [port for _, port in sorted(found)]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _server_command() -> str:
    """How to run ``lucie-server`` from here: the script beside this Python
    (``.venv/bin/lucie-server``, relative to the current folder when inside
    it) when there is one — a bare ``lucie-server`` is not on ``PATH``
    unless the virtual environment is activated."""
    beside = Path(sys.executable).parent / "lucie-server"
    if not beside.is_file() or shutil.which("lucie-server") == str(beside):
        return "lucie-server"
    with contextlib.suppress(ValueError):
        return str(beside.relative_to(Path.cwd()))
    return str(beside)


def main(argv: list[str] | None = None) -> int:
    """``python -m infra.redis_cluster``: start a local cluster, say how to use it,
    wait for Ctrl-C (SIGINT), SIGTERM or SIGHUP, then stop and remove the nodes."""
    parser = argparse.ArgumentParser(
        prog="python -m infra.redis_cluster",
        description="Run a local Redis Cluster (redis-server processes on free ports of "
                    "127.0.0.1, nothing kept on disk) until Ctrl-C.")
    parser.add_argument("--masters", type=int, default=3, help="primaries (at least 3)")
    parser.add_argument("--replicas", type=int, default=1, help="replicas per primary")
    args = parser.parse_args(argv)
    if args.masters < 3 or args.replicas < 0:
        parser.error("--masters must be at least 3 and --replicas at least 0")
    missing = [t for t in ("redis-server", "redis-cli") if shutil.which(t) is None]
    if missing:
        print(f"redis_cluster: {' and '.join(missing)} not on PATH (Debian: apt-get install "
              "redis-server; or scripts/ensure-redis.sh)", file=sys.stderr)
        return 1
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    cluster = LocalRedisCluster(args.masters, args.replicas)
    try:
        print(f"Starting {args.masters * (1 + args.replicas)} redis-server nodes "
              f"({args.masters} masters, {args.replicas} replica(s) each)…", flush=True)
        cluster.start()
        server = _server_command()
        lines = [f"Redis Cluster URL: {cluster.url}",
                 f"Nodes: {' '.join(f'{_HOST}:{p}' for p in cluster.ports)} "
                 f"(folders and logs: {cluster._dir})",
                 f"Run the server on it:  LUCIE_REDIS_URL={cluster.url} {server}"]
        if args.replicas:
            lines.append(f"  acknowledging moves once replicated:  LUCIE_REDIS_URL={cluster.url}"
                         f" LUCIE_REDIS_WAIT_REPLICAS=1 {server}")
        print("\n".join([*lines, "Ctrl-C stops the cluster and removes its nodes."]), flush=True)
        while True:
            signal.pause()
    except KeyboardInterrupt:
        print("Stopping the Redis Cluster.", flush=True)
        return 0
    except RuntimeError as exc:
        print(f"redis_cluster: {exc}", file=sys.stderr)
        return 1
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
