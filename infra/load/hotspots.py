"""Where a server process spends its time: py-spy samples summed by function.

``py-spy record --format raw`` writes collapsed stacks (``frame;frame;… count``);
:func:`hotspots` sums them by the innermost frame (self time) and by every
frame on the stack (inclusive time), and :func:`hotspots_markdown` prints
the top of both lists.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

__all__ = ["hotspots", "hotspots_markdown"]


def hotspots(folded: Path) -> tuple[int, Counter[str], Counter[str]]:
    """``(samples, self counts, inclusive counts)`` of a collapsed-stack file."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = 0
    for line in folded.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        total += n
        own[frames[-1]] += n
        for frame in set(frames):
            incl[frame] += n
    return total, own, incl


def hotspots_markdown(folded: Path, top: int = 20) -> str:
    """The ``top`` functions by self and by inclusive time, as Markdown lists."""
    total, own, incl = hotspots(folded)
    if not total:
        return f"{folded.name}: no samples\n"
    lines = [f"### {folded.name}: {total} samples of a busy thread", "", "Self time:", ""]
    lines += [f"- {100 * n / total:.1f}% `{f}`" for f, n in own.most_common(top)]
    lines += ["", "Inclusive time:", ""]
    lines += [f"- {100 * n / total:.1f}% `{f}`" for f, n in incl.most_common(top + 10)]
    return "\n".join(lines) + "\n"
