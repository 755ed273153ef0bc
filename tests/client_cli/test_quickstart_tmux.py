"""End to end in a real terminal: the README quick start, driven through tmux.

``make run`` (with ``LUCIE_SERVER`` pointing at a free local port) must start
the embedded server, open a room with bots and show the board with the room
code; a second person joins with ``lucie join CODE`` in another terminal;
the host starts, plays a move, resigns and quits (warned that he hosts the
server); the embedded server keeps running until bob's race is over, then
the host's terminal prints the results and the server stops (the room's bot
is the server's: it resigns as the server stops, unless it finished first).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest

from client_cli.embedded import server_answers
from tests.conftest import REPO, free_port

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None,
                                reason="tmux is not installed (apt-get install -y tmux)")


RACING = re.compile(r"rank \d+/\d+")
"""A racer's header line once the race runs (no rank before the start)."""


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True,
                          timeout=10).stdout


def _wait_pane(target: str, pred: Callable[[str], object], timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = _tmux("capture-pane", "-p", "-t", target)
        if pred(text):
            return text
        time.sleep(0.2)
    raise AssertionError(f"pane {target} never showed what we waited for:\n{text}")


@pytest.fixture
def session() -> Iterator[str]:
    name = f"lucie-e2e-{os.getpid()}"
    yield name
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, timeout=10)


def test_readme_quick_start_in_tmux(session: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    venv_bin = REPO / ".venv" / "bin"
    host_cmd = (f"cd {shlex.quote(str(REPO))} && LUCIE_SERVER={url} make -s -o "
                f".venv/.installed-test run ARGS='--deal 2 --bots 1 --bot-think 0.5 "
                f"--countdown 1 --name ann'; echo EXITED $?; sleep 60")
    _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", host_cmd)
    host = f"{session}:0"
    board = _wait_pane(host, lambda t: "Room code" in t, timeout=60)
    code = re.search(r"Room code (\S+)", board)
    assert code, board
    assert server_answers(url)  # the embedded server runs

    join_cmd = (f"{shlex.quote(str(venv_bin / 'lucie'))} join {code.group(1)} --name bob "
                f"--server {url}; echo EXITED $?; sleep 60")
    _tmux("new-window", "-t", session, join_cmd)
    guest = f"{session}:1"
    _wait_pane(guest, lambda t: "waiting for the host" in t)

    _tmux("send-keys", "-t", host, "s", "Enter")
    _wait_pane(host, lambda t: "Go!" in t or RACING.search(t), timeout=20)
    _tmux("send-keys", "-t", host, "8f", "Enter")
    _wait_pane(host, lambda t: "8f ✓" in t)
    _wait_pane(guest, lambda t: re.search(r"ann[ │]+█", t))  # ann's bar moved on bob's screen

    _tmux("send-keys", "-t", host, "q", "Enter")
    # the whole question shows, down to its last words
    _wait_pane(host, lambda t: "You host the local server" in t and "their race)." in t)
    _tmux("send-keys", "-t", host, "y")
    # the board closes, but the server stays up for bob until his race is over
    _wait_pane(host, lambda t: "still racing (bob)" in t and "Ctrl-C" in t)
    assert server_answers(url)
    _wait_pane(guest, lambda t: RACING.search(t) or "Go!" in t)  # "Go!" fades
    _tmux("send-keys", "-t", guest, "q", "Enter")
    _wait_pane(guest, lambda t: "Resign from the race" in t)
    _tmux("send-keys", "-t", guest, "y")
    final = _wait_pane(host, lambda t: "EXITED 0" in t)
    # the bot may race on (the server's: it stops with the server, resigning)
    assert re.search(r"final results|standings so far", final), final
    assert "bob" in final and "ann" in final
    if "standings so far" in final:
        assert "The local server stops now: bot-Ada resigns." in final
        assert re.search(r"bot-Ada.*resigns", final) and "playing" not in final, final
    # bob quit last (the bot aside): his terminal shows the results too, server gone or not
    guest_final = _wait_pane(guest, lambda t: "EXITED 0" in t)
    assert re.search(r"final results|standings so far|last known standings", guest_final)
    assert "bob" in guest_final and "ann" in guest_final
    deadline = time.monotonic() + 10
    while server_answers(url) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not server_answers(url), "the embedded server kept running after the race"
