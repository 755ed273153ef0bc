"""The board's terminal driver: Textual's Linux driver that notices a closed terminal.

When the terminal goes away (its window closed, ``tmux kill-session``, an SSH
connection dropped), only the session leader gets SIGHUP: under ``make run``
that is ``make``, which waits for its children, so the board never hears of
it. Textual's :class:`~textual.drivers.linux_driver.LinuxDriver` then goes
wrong two ways on the hung-up tty: its input thread spins (``select`` says
"readable" and ``read`` returns nothing, again and again), and its writer
thread dies on the first ``EIO``, after which the app's thread blocks for
ever on the full writer queue.

:class:`TerminalDriver` fixes both: a watcher thread waits for the tty's
hang-up (``poll`` reports ``POLLHUP``) and then stops the input thread and
posts :class:`TerminalLost` to the app; writes that fail are dropped (and
also post :class:`TerminalLost`), so the writer thread never dies and the
app's thread never blocks. The app decides what leaving means.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from typing import IO, Any, cast

from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

__all__ = ["TerminalDriver", "TerminalLost"]


class TerminalLost(Message):
    """The app's terminal is gone (hung up, or writes to it fail)."""


class _GuardedOutput:
    """The driver's output file: a failed write (``EIO`` on a hung-up tty) is
    dropped and reported once, instead of killing Textual's writer thread."""

    def __init__(self, file: IO[str], on_error: Any) -> None:
        self._file = file
        self._on_error = on_error
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._file.write(text)
            except (OSError, ValueError):
                self._broke()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self._broke()

    def _broke(self) -> None:
        self.broken = True
        self._on_error()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return not self.broken and self._file.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class TerminalDriver(LinuxDriver):
    """:class:`LinuxDriver` that stops cleanly, and tells the app, when its
    terminal goes away (see the module docstring)."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._output = _GuardedOutput(cast("IO[str]", self._file), self._terminal_lost)
        self._file = self._output  # type: ignore[assignment]
        self._lost = threading.Event()
        self._watcher: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None

    @property
    def terminal_lost(self) -> bool:
        """Whether the terminal went away."""
        return self._lost.is_set()

    def start_application_mode(self) -> None:
        super().start_application_mode()  # type: ignore[no-untyped-call]
        if os.isatty(self.fileno) and self._watcher is None:
            self._wake = os.pipe()
            self._watcher = threading.Thread(target=self._watch, args=(self._wake[0],),
                                             name="lucie-tty-watch", daemon=True)
            self._watcher.start()

    def stop_application_mode(self) -> None:
        self._stop_watching()
        super().stop_application_mode()

    def _stop_watching(self) -> None:
        watcher, wake = self._watcher, self._wake
        self._watcher, self._wake = None, None
        if wake is not None:
            os.write(wake[1], b"x")
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(timeout=1)
        if wake is not None:
            for fd in wake:
                os.close(fd)

    def _watch(self, wake: int) -> None:
        """Wait for the tty's hang-up (or a byte on ``wake``: stop watching).

        ``poll`` with no events asked for the tty still reports ``POLLHUP``,
        ``POLLERR`` and ``POLLNVAL``, and reads nothing: the input thread
        keeps every keystroke.
        """
        poller = select.poll()
        poller.register(self.fileno, 0)
        poller.register(wake, select.POLLIN)
        dead = select.POLLHUP | select.POLLERR | select.POLLNVAL
        while True:
            try:
                events = poller.poll()
            except InterruptedError:
                continue
            except OSError:
                events = [(self.fileno, select.POLLNVAL)]
            if any(fd == wake for fd, _ in events):
                return
            if any(fd == self.fileno and mask & dead for fd, mask in events):
                self._terminal_lost()
                return

    def _terminal_lost(self) -> None:
        """Stop reading and writing the dead terminal; tell the app (once)."""
        if self._lost.is_set():
            return
        self._lost.set()
        self._output.broken = True
        self.exit_event.set()  # the input thread stops instead of spinning
        with contextlib.suppress(RuntimeError):  # the app's loop is closed: it has ended
            self._loop.call_soon_threadsafe(self._app.post_message, TerminalLost())
