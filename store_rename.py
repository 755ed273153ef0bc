"""Rewrite callers of the old one-class store for the split live store (to be removed).

Usage: ``python store_rename.py FILE...`` (rewrites in place; prints the files
it changed). Idempotent: a file already rewritten is left as it is.

Rewrites:

- ``<expr>.store.METHOD`` / ``store.METHOD`` (any receiver whose last name is
  ``store``, e.g. ``self.store``, ``authority.store``, ``self.authority.store``,
  ``f(x).store``) → ``….store.<part>.METHOD``, where ``<part>`` is ``rooms``,
  ``racers``, ``events``, ``indexes`` or ``clock`` as :mod:`server.store.base`
  groups the methods (calls and bound-method references alike); continuation
  lines aligned with the call's bracket move with it;
- ``monkeypatch.setattr(store, "METHOD", …)`` → ``setattr(store.<part>, …)``;
- doc references ``Store.METHOD`` → ``<Protocol>.METHOD`` (``RoomRecords`` …);
- the type ``Store`` (where it is code: imports from ``server.store``,
  annotations, ``:class:`` references; not ``StoreError``, ``MemoryStore``, nor
  the English word) → ``LiveStore``.

Other receivers (``race.get_room``, ``leaderboard_store.top``) are untouched.
Imports may need re-sorting afterwards (``ruff check --fix``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["PARTS", "main", "rewrite"]

PARTS: dict[str, tuple[str, tuple[str, ...]]] = {
    # attribute of the bundle: (Protocol, methods)
    "rooms": ("RoomRecords", ("claim_code", "find_room_by_code", "get_room", "save_room",
                              "room_ids", "expire_room")),
    "racers": ("RacerGames", ("get_racer", "get_racers", "save_racer", "get_answer",
                              "get_move_state")),
    "events": ("RoomEventLog", ("append_events", "last_seq", "events_since", "subscribe",
                                "event_retention")),
    "indexes": ("RoomIndexes", ("add_to_lobby", "lobby_room_ids", "remove_from_lobby",
                                "set_timer", "clear_timer", "due_timers")),
    "clock": ("ServiceClock", ("now_ms",)),
}
"""Each part of the bundle: its Protocol and the names it holds (``event_retention``
is an attribute)."""

_PART_OF = {m: part for part, (_, methods) in PARTS.items() for m in methods}
_PROTOCOL_OF = {m: PARTS[part][0] for m, part in _PART_OF.items()}
_METHODS = "|".join(sorted(_PART_OF, key=len, reverse=True))

_CALL = re.compile(rf"(?<![\w])(store)\.({_METHODS})\b")
"""``store.METHOD`` where ``store`` is a whole name (after ``.``, or standing alone)."""

_SETATTR = re.compile(rf"""(setattr\(\s*(?:[\w.]+\.)?store)(\s*,\s*["'])({_METHODS})(["'])""")

_DOC = re.compile(rf"(?<![\w.])Store\.({_METHODS})\b|(?<=\.base\.)Store\.({_METHODS})\b")

_TYPE = re.compile(
    r"(?<=: )Store\b(?![.\w])"           # an annotation: ``store: Store``
    r"|(?<=-> )Store\b(?![.\w])"         # a return type
    r"|(?<=[\[(|] )Store\b(?![.\w])|(?<=[\[(])Store\b(?![.\w])"  # Store | None, [Store]
    r"|(?<=`)Store(?=`)"                 # :class:`Store`
    r"|(?<=server\.store\.)Store\b(?![.\w])|(?<=store\.base\.)Store\b(?![.\w])")
"""The type ``Store`` where it is code (not the English word): annotations,
``:class:`` references, ``server.store[.base].Store``."""

_IMPORT = re.compile(r"^from server\.store(?:\.base)? import (\([^)]*\)|[^\n]*)", re.MULTILINE)
"""An import from the store package (one line, or a parenthesized list)."""


def _open_brackets(line: str) -> list[int]:
    """Columns of the brackets still open at the end of ``line`` (strings and
    comments skipped, roughly: enough for call arguments)."""
    stack: list[int] = []
    quote = ""
    for col, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "([{":
            stack.append(col)
        elif ch in ")]}" and stack:
            stack.pop()
    return stack


def _realign(lines: list[str], start: int, old_col: int, delta: int) -> None:
    """Shift by ``delta`` the continuation lines after ``lines[start]`` that sit
    right of ``old_col`` (the old column of the bracket still open there), up to
    the line that closes it."""
    depth = len(_open_brackets(lines[start]))
    for j in range(start + 1, len(lines)):
        line = lines[j]
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and indent <= old_col:
            return
        if line.strip():
            lines[j] = " " * (indent + delta) + line.lstrip(" ")
        depth += _depth_change(line)
        if depth < len(_open_brackets(lines[start])) or depth <= 0:
            return


def _depth_change(line: str) -> int:
    """Brackets opened minus closed on ``line`` (strings and comments skipped)."""
    change = 0
    quote = ""
    for ch in line:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "([{":
            change += 1
        elif ch in ")]}":
            change -= 1
    return change


def _calls(text: str) -> str:
    """:data:`_CALL` applied line by line; continuation lines aligned with a
    bracket the rewrite moved move with it (``save_room(a,\n          b)``)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        new = _CALL.sub(lambda m: f"{m[1]}.{_PART_OF[m[2]]}.{m[2]}", line)
        if new == line:
            continue
        lines[i] = new
        before, after = _open_brackets(line), _open_brackets(new)
        if before and len(before) == len(after) and before[-1] != after[-1]:
            _realign(lines, i, before[-1], after[-1] - before[-1])
    return "\n".join(lines)


def rewrite(text: str) -> str:
    """``text`` with every rewrite of the module docstring applied."""
    text = _calls(text)
    text = _SETATTR.sub(lambda m: f"{m[1]}.{_PART_OF[m[3]]}{m[2]}{m[3]}{m[4]}", text)
    text = _DOC.sub(lambda m: f"{_PROTOCOL_OF[m[1] or m[2]]}.{m[1] or m[2]}", text)
    text = _TYPE.sub("LiveStore", text)
    return _IMPORT.sub(lambda m: m[0].replace(m[1], re.sub(r"\bStore\b", "LiveStore", m[1])),
                       text)


def main(argv: list[str]) -> int:
    """Rewrite each file of ``argv`` in place; 0, or 2 without arguments."""
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for name in argv:
        path = Path(name)
        old = path.read_text(encoding="utf-8")
        new = rewrite(old)
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
