"""``python -m infra.redis_cluster``: a local Redis Cluster to try by hand
(docs/operations.md, "Redis Cluster"). It prints the URL and the command that
runs the server on it, the nodes answer, and Ctrl-C stops and removes them.
A cluster of its own: marker ``cluster_long`` (``make test-cluster``)."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis

from tests.conftest import REPO

pytestmark = [pytest.mark.cluster_long, pytest.mark.timeout(90)]


def _lines_until(proc: subprocess.Popen[str], last: str, timeout_s: float) -> list[str]:
    """The lines ``proc`` prints up to the one that starts with ``last`` (read by a
    thread: a buffered pipe may hold several lines at once)."""
    assert proc.stdout is not None
    out = proc.stdout
    got: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        with out:  # closed at the end of the output (the process gone)
            for line in out:
                got.put(line)
        got.put("")  # the end of the output

    threading.Thread(target=pump, daemon=True).start()
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    while not lines or not lines[-1].startswith(last):
        try:
            line = got.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no line {last!r} in {timeout_s} s: {lines}") from None
        if not line:
            raise AssertionError(f"the output ended before a line {last!r}: {lines}")
        lines.append(line.rstrip("\n"))
    return lines


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_cluster_command_runs_a_cluster_until_ctrl_c() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "infra.redis_cluster"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        lines = _lines_until(proc, "Ctrl-C stops", timeout_s=60)
        text = "\n".join(lines)
        found = re.search(r"^Redis Cluster URL: (redis://\S+)$", text, re.M)
        assert found is not None, text
        url = found[1]
        assert f"LUCIE_REDIS_URL={url} " in text
        # the command runs as printed, virtual environment activated or not
        server = text.split(f"LUCIE_REDIS_URL={url} ", 1)[1].split()[0]
        assert server.endswith("lucie-server"), server
        assert (REPO / server).is_file() or shutil.which(server) == server, server
        nodes = re.search(r"^Nodes: (.+) \(folders and logs: (.+)\)$", text, re.M)
        assert nodes is not None, text
        ports = [int(n.rsplit(":", 1)[1]) for n in nodes[1].split()]
        folder = Path(nodes[2])
        assert len(ports) == 6 and folder.is_dir()  # 3 masters, 1 replica each
        with redis.Redis.from_url(url) as client:
            assert client.ping()
            assert client.info("cluster")["cluster_enabled"] == 1
        pids = []
        for port in ports:
            with redis.Redis(host="127.0.0.1", port=port) as node:
                pids.append(int(node.info("server")["process_id"]))
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        assert proc.wait(timeout=20) == 0
        assert [pid for pid in pids if not _gone(pid)] == []
        assert not folder.exists()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its group: the CLI and its nodes
            proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
