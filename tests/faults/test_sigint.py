"""Ctrl-C in the terminal that runs ``lucie-server`` (``make server``): the
terminal sends SIGINT to the whole process group — the server and its solver
workers. The server stops as on SIGTERM (the same graceful shutdown) and
exits with status 130 (128 + SIGINT, as 143 for SIGTERM), printing no
traceback; a solver worker prints none either. Before, Python printed the
``KeyboardInterrupt`` traceback of the server after "Finished server
process", and one more per solver worker."""

from __future__ import annotations

import os
import signal

import httpx

from tests.conftest import run_dir, start_lucie_server


def test_ctrl_c_stops_the_server_and_its_solver_workers_without_a_traceback() -> None:
    log = run_dir("sigint-") / "server.log"
    proc, url = start_lucie_server({"LUCIE_LOG_LEVEL": "info"}, log, new_session=True)
    try:
        # a solver worker runs: the room's deal is proved winnable in it
        r = httpx.post(f"{url}/api/v1/rooms", json={"deal": 7, "winnable_only": True},
                       timeout=30)
        assert r.status_code == 201, r.text
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal's Ctrl-C does
        status = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = log.read_text()
    assert "Finished server process" in text  # the graceful shutdown ran
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-3000:]
    assert status == 130, text[-2000:]
