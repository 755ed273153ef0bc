"""Pure helpers behind the board: ranking, move targets, clock and bar text.

Nothing here does I/O; the board widgets render what these return.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from rich.cells import cell_len

from server.rules.ranking import race_points

from ..api import RacerView, StandingView

__all__ = [
    "FINAL_STATUSES",
    "GHOST_MARK",
    "apply_progress",
    "delay_note",
    "fit_parts",
    "fmt_clock",
    "hidden_note",
    "is_final",
    "merci_targets",
    "points",
    "progress_bar",
    "racer_label",
    "rank_racers",
    "standing_rows",
    "status_text",
    "targets_for",
]

FINAL_STATUSES = frozenset({"won", "resigned", "timed_out", "left"})
"""Racer statuses that end a racer's game (``stuck`` may still undo: see :func:`is_final`)."""


def is_final(racer: RacerView) -> bool:
    """Whether ``racer``'s result is final: a final status, or ``final`` (a racer
    stuck who conceded, or stuck where undo is off)."""
    return racer.final or racer.status in FINAL_STATUSES


def racer_label(name: str, bot_level: str | None = None, bot_rating: float | None = None) -> str:
    """A racer's name as every screen shows it: a computer racer's level and its
    rating beside it (``bot-Ada · club ≈ 17.8``; docs/protocol.md, "Computer racers")."""
    if bot_level is None:
        return name
    return f"{name} · {bot_level}" + ("" if bot_rating is None else f" ≈ {bot_rating:.1f}")

GHOST_MARK = "👻 "
"""How a ghost racer's name starts (docs/replay.md, "Ghost races"): its room has
no host at a board; the race starts when every racer is ready."""


def status_text(status: str, *, ready: bool = False) -> str:
    """A racer's status as every screen of the client shows it (the wire value
    stays): ``timed_out`` → ``timed out``; a waiting racer who is ready: ``ready``."""
    return "ready" if status == "waiting" and ready else status.replace("_", " ")

_PLAY = re.compile(r"([0-9]+)(?:-([0-9]+)|(f))$")


def targets_for(legal_moves: Iterable[str], fan: int) -> set[str]:
    """Where the top card of fan ``fan`` (1-based) may go: fan numbers as text and ``"f"``.

    ``legal_moves`` are the server's legal move texts (``"3f"``, ``"3-7"``…).
    """
    out: set[str] = set()
    for text in legal_moves:
        m = _PLAY.match(text)
        if m and int(m.group(1)) == fan:
            out.add(m.group(2) or "f")
    return out


def merci_targets(legal_moves: Iterable[str], card: str) -> set[str]:
    """Where the buried ``card`` (``"5H"``) may go by the merci: fan numbers and ``"f"``."""
    prefix = f"m {card.upper()} "
    return {t[len(prefix):] for t in legal_moves if t.upper().startswith(prefix.upper())}


def rank_racers(racers: Iterable[RacerView]) -> list[RacerView]:
    """Racers best first by rules.md "Race ranking": foundation cards, reach time,
    moves, join order (a missing reach time ranks as 0, as on the server)."""
    def key(r: RacerView) -> tuple[int, int, int, int]:
        reach = r.reach_time_ms or 0
        return (-r.foundation_cards, reach, r.moves, r.join_order)
    return sorted((r for r in racers if r.status != "left"), key=key)


def apply_progress(racers: dict[str, RacerView], data: dict[str, Any]) -> None:
    """Update ``racers`` (by id) with a ``progress`` / ``finished`` / ``ready`` event body.

    The racer is named by ``data["racer"]`` (an id, or a racer object);
    unknown racers are ignored.
    """
    rid = data.get("racer")
    if isinstance(rid, dict):
        rid = rid.get("id")
    old = racers.get(str(rid))
    if old is None:
        return
    fields = {k: v for k, v in data.items() if k in RacerView.model_fields and k != "racer"}
    racers[old.id] = old.model_copy(update=fields)


def points(racer: RacerView) -> int:
    """The seed-003 points shown beside the rank (rules.md, "Race ranking"): 5 per
    foundation card; a win adds 500 and max(0, 1200 − whole seconds of the reach time)."""
    return race_points(racer.foundation_cards, racer.status == "won", racer.reach_time_ms)


def fmt_clock(ms: int | None) -> str:
    """``ms`` as ``m:ss`` (``--:--`` for ``None``; negative counts as 0)."""
    if ms is None:
        return "--:--"
    s = max(0, ms) // 1000
    return f"{s // 60}:{s % 60:02d}"


def progress_bar(value: int, total: int, width: int = 12) -> str:
    """A text bar like ``██████░░░░░░`` for ``value`` of ``total`` (rounded up)."""
    total = max(total, 1)
    filled = -(-width * min(max(value, 0), total) // total)  # any progress shows
    return "█" * filled + "░" * (width - filled)


def standing_rows(standings: Iterable[StandingView],
                  ready: Collection[str] = ()) -> list[tuple[str, ...]]:
    """Rows for the results table: rank, name, cards, reach time, moves, status, points;
    ``ready``: ids of the racers who are ready (a waiting room's)."""
    return [(str(s.rank), racer_label(s.name, s.bot_level, s.bot_rating),
             str(s.foundation_cards), fmt_clock(s.reach_time_ms),
             str(s.moves), status_text(s.status, ready=s.racer in ready), str(s.points))
            for s in standings]


def fit_parts(parts: list[tuple[int, str]], width: int) -> str:
    """``parts`` (weight, text) joined by `` · `` in their order, within ``width``
    cells when it can be: the part of the lowest weight goes first, then the
    next; weight 9 parts always stay (a line of them only may be wider)."""
    keep = list(parts)
    while cell_len(" · ".join(t for _, t in keep)) > width:
        weakest = min(keep)
        if weakest[0] >= 9:
            break
        keep.remove(weakest)
    return " · ".join(t for _, t in keep)


def delay_note(delay_ms: int) -> str:
    """What a spectator is told of a delayed board (docs/protocol.md, "Fair play")."""
    if not delay_ms:
        return ""
    return (f"this board is {delay_ms // 1000} s behind the race: spectators see boards "
            "late while the race runs, live once it is over")


def hidden_note(code: str) -> str:
    """Why a board is not shown, in words, for a ``race/hidden_*`` refusal."""
    if code == "race/hidden_until_start":
        return "boards are dealt at the start of the race"
    return "this board stays hidden until the race is over (fair play)"
