"""``lucie compare CODE A B``: two games on one deal, head to head.

Shows a chart of both timelines (foundation cards over race-clock seconds,
drawn with plotext) and a table: result, per-layout figures, time in the
lead, the first divergence and the verdict by the ranking rules. ``A`` and
``B`` are racer names or ids of room ``CODE``; ``--other-room CODE2`` takes
``B`` from another room on the same deal; ``--replay FILE`` (once or twice)
compares replay files (JSON, as exported by ``lucie replay``/the replay
endpoint) instead, checked by the server.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import plotext as plt

from .api import ApiError, LucieClient
from .board.model import status_text
from .common import (
    Subparsers,
    add_server_arg,
    chart_width,
    console,
    doc_help,
    print_chart,
    print_table,
    resolved_server,
    run_command,
)

__all__ = ["add_parser", "comparison_rows", "fmt_time", "lead_changes", "load_replay",
           "timeline_chart"]

_RULE_WORDS = {"foundation_cards": "more foundation cards", "reach_time": "earlier reach time",
               "moves": "fewer moves", "join_order": "earlier join", "tie": "a tie"}


def _steps(side: dict[str, Any]) -> tuple[list[float], list[int]]:
    """Step-line points of one timeline: (seconds, foundation cards)."""
    xs, ys = [0.0], [int(side["start_foundation_cards"])]
    for point in side["timeline"]:
        t = point["race_clock_ms"] / 1000
        xs += [t, t]
        ys += [ys[-1], int(point["foundation_cards"])]
    xs.append(max(side["end_ms"] / 1000, xs[-1]))
    ys.append(ys[-1])
    return xs, ys


def timeline_chart(c: dict[str, Any], width: int = 78, height: int = 16,
                   color: bool = False) -> str:
    """Both timelines as a terminal chart (text; ANSI colours only if ``color``)."""
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("pro" if color else "clear")
    top = 0
    for key, marker in (("a", "braille"), ("b", "dot")):
        xs, ys = _steps(c[key])
        top = max(top, *ys)
        plt.plot(xs, ys, label=c[key]["name"] or key.upper(), marker=marker)
    ticks = _card_ticks(top)
    plt.yticks(ticks, [str(t) for t in ticks])
    plt.ylim(0, ticks[-1])
    plt.title(f"deal {c['deal_number']} · {c['rules'].get('name') or c['rules']['variant']}")
    plt.xlabel("race clock (s)")
    plt.ylabel("cards")
    chart: str = plt.build()
    plt.clear_figure()
    return chart if color else str(plt.uncolorize(chart))


def fmt_time(ms: int | None) -> str:
    """``ms`` as ``m:ss.t`` (tenths; ``-`` for ``None``)."""
    if ms is None:
        return "-"
    tenths = max(0, ms) // 100
    return f"{tenths // 600}:{tenths // 10 % 60:02d}.{tenths % 10}"


def _layouts(side: dict[str, Any]) -> str:
    parts = [f"{f['cards_to_foundation']:+d} in {fmt_time(f['time_ms'])}"
             for f in side["layouts"] if f["reached"]]
    return " · ".join(parts) or "-"


def comparison_rows(c: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The comparison table: (figure, A, B) rows."""
    a, b, lead = c["a"], c["b"], c["lead"]

    def row(label: str, key: str, fmt: Any = str) -> tuple[str, str, str]:
        return (label, fmt(a[key]), fmt(b[key]))

    return [
        ("racer", a["name"] or "A", b["name"] or "B"),
        row("status", "status", status_text),
        row("foundation cards", "foundation_cards"),
        row("reach time", "reach_time_ms", fmt_time),
        row("moves", "moves"),
        row("redeals used", "redeals_used"),
        row("merci used", "merci_used", lambda v: "yes" if v else "no"),
        ("per layout (cards, time)", _layouts(a), _layouts(b)),
        ("time in the lead", fmt_time(lead["a_ms"]), fmt_time(lead["b_ms"])),
    ]


def lead_changes(n: int) -> str:
    """How often the lead changed hands, in words."""
    if n == 0:
        return "the lead never changed hands"
    return "the lead changed hands " + ("once" if n == 1 else "twice" if n == 2 else f"{n} times")


def _card_ticks(top: int) -> list[int]:
    """Whole-card ticks from 0 to at least ``top`` (at most about 8 of them)."""
    step = next(s for s in (1, 2, 4, 5, 10, 13, 20, 26) if top // s <= 7) if top > 0 else 1
    return list(range(0, top + step, step)) if top > 0 else [0, 1]


def _summary(c: dict[str, Any]) -> list[str]:
    d, v, lead = c["divergence"], c["verdict"], c["lead"]
    a, b = c["a"]["name"] or "A", c["b"]["name"] or "B"
    lines = []
    if d["move_index"] is None:
        lines.append("The two games are the same move for move.")
    elif d["reason"] == "moves":
        lines.append(f"They part at move {d['move_index']}: {a} played {d['a_move']}, "
                     f"{b} played {d['b_move']}.")
    elif d["reason"] == "layouts":
        lines.append(f"Same moves, but different layouts after move {d['move_index']} "
                     "(other redeal keys).")
    else:
        lines.append(f"Same moves until one stopped, at move {d['move_index']}.")
    lines.append(f"Level for {fmt_time(lead['level_ms'])}; {lead_changes(lead['changes'])}.")
    if v["winner"] is None:
        lines.append("Verdict: a tie.")
    else:
        winner = a if v["winner"] == "a" else b
        lines.append(f"Verdict: {winner} ahead by {_RULE_WORDS[v['decided_by']]}.")
    return lines


def load_replay(path: str) -> dict[str, Any]:
    """A replay file's JSON object.

    :raises ApiError: ``client/bad_file`` when it cannot be read or is not an object.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ApiError("client/bad_file", f"cannot read replay {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError("client/bad_file", f"{path} is not a replay document")
    return data


def _run(args: argparse.Namespace) -> int:
    async def body() -> int:
        async with LucieClient(resolved_server(args)) as client:
            replays = args.replay or []
            if len(replays) == 2:
                c = await client.compare_games({"replay": load_replay(replays[0])},
                                               {"replay": load_replay(replays[1])})
            elif not args.code or not args.a or (not args.b and not replays):
                raise ApiError("client/usage", "give CODE A B, CODE A --replay FILE, "
                                               "or --replay FILE --replay FILE")
            elif replays:
                c = await client.compare_games({"room": args.code, "racer": args.a},
                                               {"replay": load_replay(replays[0])})
            elif args.other_room:
                c = await client.compare_games({"room": args.code, "racer": args.a},
                                               {"room": args.other_room, "racer": args.b})
            else:
                c = await client.compare(args.code, args.a, args.b)
        if args.json:
            console.print_json(data=c)
            return 0
        print_chart(timeline_chart(c, width=chart_width(), color=console.is_terminal))
        print_table(f"Head to head · deal {c['deal_number']}", ["", "A", "B"],
                    comparison_rows(c))
        for line in _summary(c):
            console.print(line, markup=False)
        return 0

    return run_command("compare", body)


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie compare``."""
    p = sub.add_parser("compare", help="compare two games on one deal, head to head",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie compare ABCD alice bob\n"
                       "  lucie compare ABCD alice bob --other-room EFGH\n"
                       "  lucie compare --replay alice.json --replay bob.json",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("code", nargs="?", help="room code or id")
    p.add_argument("a", nargs="?", help="first racer (name or id)")
    p.add_argument("b", nargs="?", help="second racer (name or id)")
    p.add_argument("--other-room", metavar="CODE2", help="take B from this room (same deal)")
    p.add_argument("--replay", metavar="FILE", action="append",
                   help="a replay file as one side (give twice to compare two files)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    add_server_arg(p)
    p.set_defaults(func=_run)
