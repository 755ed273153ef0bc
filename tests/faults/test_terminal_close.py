"""Closing the terminal mid-race (issue 25, part 2): the board resigns and exits.

Each test runs the real terminal client in a real pseudo-terminal whose
session it leads (``pty.fork``: as in a terminal window or a tmux pane), with
``lucie play`` itself or ``make run`` (the README's main command) as the
session leader. It waits for the board to draw the room code, types ``s``
and Enter to start the race, then closes the terminal (the pty master),
which hangs up the tty and sends SIGHUP to the session leader only. Every
process of that session (make, the client, the embedded server) must be gone
within :data:`GONE_WITHIN_S` seconds, and the racer must have resigned: on a
server that stays up for others its result is final; an embedded server must
have stopped, after the resignation (its log shows it).

Before the fix, under ``make run`` the client never got SIGHUP (``make``,
the session leader, catches it and waits for its children), and Textual's
Linux driver went wrong on the hung-up tty: its input thread spun (``select``
says readable, ``read`` returns nothing), its writer thread died on ``EIO``
and the app's thread then blocked for ever on the full writer queue; the
embedded server, the client's child, stayed up with it. Started directly,
the client was killed by the SIGHUP without resigning.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from client_cli.embedded import server_answers
from tests.conftest import REPO, ServerFactory, free_port, run_dir

GONE_WITHIN_S = 2.0
"""How long the session's processes may outlive their terminal."""

LUCIE = str(REPO / ".venv" / "bin" / "lucie")
RACE_ARGS = ["--bots", "1", "--bot-think", "5", "--countdown", "0", "--deal", "2",
             "--name", "ann"]
"""One slow bot (it does not end the race by itself), no countdown, ann races."""

_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|P[^\x1b]*"
                      r"\x1b\\|[@-Z\\-_])")

pytestmark = pytest.mark.skipif(not Path(LUCIE).exists(), reason="needs .venv/bin/lucie")


class Terminal:
    """A pseudo-terminal (120×40) whose session ``argv`` leads, run in the repository."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: session leader, the pty slave its controlling tty
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
                os.closerange(3, 4096)  # another terminal's master kept open would keep it up
                os.chdir(REPO)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        os.set_inheritable(fd, False)  # pty.fork leaves the master inheritable
        self.pid = self.sid = pid
        self.fd: int | None = fd
        self._raw = ""
        self.text = ""
        """Everything the terminal showed, escape sequences removed."""
        self.status: int | None = None

    def read_until(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """Read the screen until ``pattern`` shows (regex over all output so far)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text)
            if found:
                return found
            if not self._read(0.1):
                break
        raise AssertionError(f"the terminal never showed {pattern!r}; it showed:\n"
                             f"{self.text[-3000:]}")

    def _read(self, timeout: float) -> bool:
        """Read what the terminal shows within ``timeout`` (a full pty would block
        the writer); ``False`` once nothing more can come."""
        if self.fd is None:
            time.sleep(timeout)
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the session ended
                return False
            self._raw += chunk.decode("utf-8", "replace")
            self.text = _ESCAPES.sub("", self._raw)
        return True

    def type(self, text: str) -> None:
        assert self.fd is not None
        os.write(self.fd, text.encode())

    def close(self) -> None:
        """Close the terminal (its window, ``tmux kill-session``): the tty hangs up."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def processes(self) -> dict[int, str]:
        """The live processes of the terminal's session: pid → command line."""
        if self.status is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = status
        found = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()  # state ppid pgrp session …
            if int(fields[3]) == self.sid and fields[0] != "Z":
                found[int(entry)] = cmd.replace(b"\0", b" ").decode(errors="replace").strip()
        return found

    def wait_gone(self, timeout: float) -> dict[int, str]:
        """Wait until no process of the session is left; the ones still there."""
        deadline = time.monotonic() + timeout
        left = self.processes()
        while left and time.monotonic() < deadline:
            self._read(0.05)
            left = self.processes()
        return left

    def kill(self) -> None:
        """Stop whatever is left of the session (the test's clean-up)."""
        self.close()
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.status is None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    """The terminals a test opens; whatever is left in their sessions is killed."""
    opened: list[Terminal] = []
    yield opened
    for term in opened:
        term.kill()


@pytest.fixture(scope="module")
def race_server(server_factory: ServerFactory) -> str:
    """A server that stays up for the other racers (not the client's own)."""
    return server_factory()


def _env(tmp: Path, server: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "LUCIE_SERVER", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
           and not k.startswith("TEXTUAL")}
    env.update(TERM="xterm-256color", TMPDIR=str(tmp), COLUMNS="120", LINES="40")
    if server is not None:
        env["LUCIE_SERVER"] = server  # make run and lucie play read it
    return env


def _command(launcher: str, extra: list[str]) -> list[str]:
    if launcher == "make":
        return ["make", "-s", "-o", ".venv/.installed-test", "run",
                "ARGS=" + " ".join([*RACE_ARGS, *extra])]
    return [LUCIE, "play", *RACE_ARGS, *extra]


def _start_race(term: Terminal, *, open_quit_dialog: bool) -> str:
    """Wait for the board, start the race; optionally press q (the resign
    question stays open, as in the issue). The room code."""
    code = term.read_until(r"Room code (\w+)").group(1)
    term.type("s\r")
    term.read_until(r"Go!")
    if open_quit_dialog:
        term.type("q\r")
        term.read_until(r"Resign from the race")
    return code


def _racer(url: str, code: str, name: str) -> dict[str, object]:
    room = httpx.get(f"{url}/api/v1/rooms/{code}", timeout=5).json()
    return next(r for r in room["racers"] if r["name"] == name)


def _assert_gone(term: Terminal, before: dict[int, str]) -> None:
    left = term.wait_gone(GONE_WITHIN_S)
    assert not left, (f"{GONE_WITHIN_S} s after its terminal closed, the session still runs "
                      f"{left} (it ran {before})")


@pytest.mark.parametrize("launcher", ["lucie", "make"])
def test_closing_the_terminal_resigns_and_exits(launcher: str, race_server: str,
                                                terminals: list[Terminal]) -> None:
    """The race on a server that stays up for others: the client (and make)
    exit within 2 s of the terminal closing, and the racer's result is final.

    Public reports of the same failure: Textual's Linux driver spins its input
    thread at 100 % CPU once stdin is at end of file, the case of an SSH
    connection that dropped without a SIGHUP (Textualize/textual pull request
    #6690, "Fix input thread busy-looping at 100% CPU when stdin reaches EOF",
    open when read); a Textual app lingering at 100 % CPU after a tty hang-up,
    fixed by handling SIGHUP in the app (dmarzzz/VoxTerm pull request #143).
    """
    tmp = run_dir("tty-close-")
    term = Terminal(_command(launcher, ["--server", race_server]), _env(tmp, None))
    terminals.append(term)
    code = _start_race(term, open_quit_dialog=launcher == "make")
    before = term.processes()
    term.close()
    _assert_gone(term, before)
    ann = _racer(race_server, code, "ann")
    assert ann["final"] and ann["status"] == "resigned", ann


@pytest.mark.parametrize("launcher", ["lucie", "make"])
def test_closing_the_terminal_stops_the_embedded_server(launcher: str,
                                                        terminals: list[Terminal]) -> None:
    """``make run`` as the README says (the embedded server on a free port):
    the client, make and the embedded server all exit within 2 s of the
    terminal closing, and the racer resigned before the server stopped.

    Public report: under a session leader that does not pass SIGHUP on (make
    here), the client only sees its tty hang up; Textual's writer queue is
    bounded (30 writes) and once its consumer thread stops, the next
    repaint blocks the event loop's thread for ever (terok-ai/terok issue
    #1187, the same queue stopped by ``App.suspend``); the input thread spins
    on the dead tty as in Textualize/textual pull request #6690.
    """
    tmp = run_dir("tty-close-embedded-")
    url = f"http://127.0.0.1:{free_port()}"
    term = Terminal(_command(launcher, []), _env(tmp, url))
    terminals.append(term)
    code = _start_race(term, open_quit_dialog=True)
    assert server_answers(url), "the client did not start the embedded server"
    ann = _racer(url, code, "ann")
    before = term.processes()
    assert any("lucie-server" in cmd for cmd in before.values()), before
    term.close()
    _assert_gone(term, before)
    assert not server_answers(url, timeout=0.5), "the embedded server still answers"
    log = (tmp / f"lucie-server-{url.rsplit(':', 1)[1]}.log").read_text()
    # the server's request lines (JSON: its output is a file; docs/operations.md)
    requests = [json.loads(line) for line in log.splitlines() if '"http_request"' in line]
    assert any(r["method"] == "POST" and r["status"] == 200
               and re.fullmatch(rf'/api/v1/rooms/[^/]+/racers/{re.escape(str(ann["id"]))}/resign',
                                r["path"]) for r in requests), f"ann never resigned:\n{log[-2000:]}"


def _cpu_s(pid: int) -> float:
    """CPU time (user + system) a process used so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_closing_the_host_terminal_keeps_the_server_for_the_others(
        terminals: list[Terminal]) -> None:
    """The README: a host who leaves early keeps the embedded server up for the
    other racers. Closing the host's terminal resigns the host at once; its
    client stays, idle (not spinning on the dead tty), until bob's race is
    over, then stops the server and exits.

    Public report: a Textual app whose terminal went away lingers at 100 %
    CPU (dmarzzz/VoxTerm pull request #143; the input thread's busy loop is
    Textualize/textual pull request #6690).
    """
    tmp = run_dir("tty-close-host-")
    url = f"http://127.0.0.1:{free_port()}"
    host = Terminal([LUCIE, "play", *RACE_ARGS], _env(tmp, url))
    terminals.append(host)
    code = host.read_until(r"Room code (\w+)").group(1)
    guest = Terminal([LUCIE, "join", code, "--name", "bob", "--server", url], _env(tmp, None))
    terminals.append(guest)
    guest.read_until(r"waiting for the host")
    host.type("s\r")
    host.read_until(r"Go!")
    guest.read_until(r"Go!")
    client = next(pid for pid, cmd in host.processes().items() if "lucie play" in cmd)

    host.close()
    deadline = time.monotonic() + GONE_WITHIN_S
    while _racer(url, code, "ann")["status"] != "resigned" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _racer(url, code, "ann")["status"] == "resigned"
    used = _cpu_s(client)
    time.sleep(1.0)
    assert _cpu_s(client) - used < 0.3, "the host's client spins on its dead terminal"
    assert server_answers(url), "the embedded server stopped while bob still races"

    guest.type("q\r")
    guest.read_until(r"Resign from the race")
    guest.type("y")
    assert not guest.wait_gone(GONE_WITHIN_S + 2)  # bob, last out, waits for the standings
    # the host's client sees the race end (it polls once a second), stops the server, exits
    left = host.wait_gone(GONE_WITHIN_S)
    assert not left, f"the host's session still runs {left} after the race ended"
    assert not server_answers(url, timeout=0.5)
