"""Verdicts from signals: the one threshold table, a race's verdict and a
player's (docs/fair-play.md, "Thresholds").

The solver signals are weighed as evidence, the way a sequential test does:
each *critical* position (the plain strategy would give cards up there)
where the racer found a move that gives nothing up adds
:data:`THRESHOLDS` ``found``; each one where they did not subtracts
``missed``; each *hard* layout solved adds ``hard_solved``, each one not
solved subtracts ``hard_missed``; every card of solver loss subtracts
``loss_card``. The weights are about the log-odds of each event for a
player who takes the solver's move half the time against the honest players
of ``python -m bench fairplay`` (there, an honest player finds 8–28 % of
critical moves and solves 0–12 % of hard layouts; the solver finds them
all). Timing and focus add to the score only as supporting evidence, each
race at most once per kind and only in a race whose solver signals already
score above zero: a race played faster than a person reads the board, to a
metronome, or with the page losing focus again and again. Nobody is listed
for timing or focus alone.

A race's score gives the race's verdict and reasons (shown to moderators);
a player's verdict sums the scores of their last ``window`` assessed rated
races, and needs at least ``min_races`` of them (below that: ``clean``, not
``ready``): one race decides nothing.

Verdicts: ``clean`` (below ``review``), ``review`` (the moderation queue
lists the player), ``likely_assisted`` (listed first). Nothing is decided
automatically: a moderator reads the evidence (docs/fair-play.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from .signals import RaceSignals

__all__ = [
    "THRESHOLDS",
    "VERDICTS",
    "Judgement",
    "Threshold",
    "judge_player",
    "judge_race",
    "race_score",
]

Verdict = Literal["clean", "review", "likely_assisted"]
VERDICTS: Final[tuple[Verdict, ...]] = ("clean", "review", "likely_assisted")


@dataclass(frozen=True, slots=True)
class Threshold:
    """One row of the table: its ``name``, ``value`` (and unit) and meaning."""

    name: str
    value: float
    unit: str
    meaning: str


_TABLE: Final = (
    Threshold("found", 1.5, "points", "a critical position where the move gave up nothing"),
    Threshold("missed", 0.3, "points", "a critical position where the move gave cards up "
              "(subtracted)"),
    Threshold("hard_solved", 3.0, "points", "a hard layout played to its best count"),
    Threshold("hard_missed", 0.5, "points", "a hard layout left below its best count "
              "(subtracted)"),
    Threshold("loss_card", 0.05, "points", "each card of solver loss (subtracted)"),
    Threshold("fast_share", 0.5, "share", "a race whose share of actions under 250 ms is at "
              "least this adds `fast_points`"),
    Threshold("fast_points", 1.0, "points", "added by a race played faster than a person reads"),
    Threshold("metronome_cv", 0.2, "ratio", "a race of 20 or more gaps whose coefficient of "
              "variation is at most this adds `metronome_points`"),
    Threshold("metronome_points", 2.0, "points", "added by a race timed like a script"),
    Threshold("focus_losses", 5, "count", "a race with at least this many focus losses (and "
              "one per 10 moves or more) adds `focus_points`"),
    Threshold("focus_points", 1.0, "points", "added by a race with the page often left"),
    Threshold("review", 5.0, "points", "a score at least this is `review`"),
    Threshold("likely_assisted", 20.0, "points", "a score at least this is `likely_assisted`"),
    Threshold("min_races", 5, "races", "a player's verdict needs this many assessed rated "
              "races (`LUCIE_FAIR_PLAY_MIN_RACES`)"),
    Threshold("window", 20, "races", "a player's verdict reads their last this many assessed "
              "rated races"),
)

THRESHOLDS: Final[Mapping[str, Threshold]] = MappingProxyType({t.name: t for t in _TABLE})
"""Every threshold and weight by name (docs/fair-play.md keeps a copy; a test
keeps the two equal)."""


def _v(name: str) -> float:
    return THRESHOLDS[name].value


@dataclass(frozen=True, slots=True)
class Judgement:
    """A verdict with its ``score`` (points) and ``reasons`` (sentences a
    moderator reads), and the number of ``races`` it read."""

    verdict: Verdict
    score: float
    reasons: tuple[str, ...]
    races: int = 1
    ready: bool = True
    """Enough races were read for a player's verdict (``min_races``)."""

    def to_json(self) -> dict[str, object]:
        """``{"verdict", "score", "reasons", "races_read", "ready"}``."""
        return {"verdict": self.verdict, "score": round(self.score, 2),
                "reasons": list(self.reasons), "races_read": self.races, "ready": self.ready}


def _verdict(score: float) -> Verdict:
    if score >= _v("likely_assisted"):
        return "likely_assisted"
    return "review" if score >= _v("review") else "clean"


def race_score(s: RaceSignals) -> tuple[float, list[str]]:
    """The evidence points of one race and the reasons behind them."""
    missed = s.critical - s.found
    hard_missed = s.hard_layouts - s.hard_solved
    score = (s.found * _v("found") - missed * _v("missed")
             + s.hard_solved * _v("hard_solved") - hard_missed * _v("hard_missed")
             - s.loss_cards * _v("loss_card"))
    reasons: list[str] = []
    if s.critical:
        reasons.append(f"found the move that gives nothing up at {s.found} of {s.critical} "
                       "critical positions")
    if s.hard_layouts:
        reasons.append(f"solved {s.hard_solved} of {s.hard_layouts} hard layouts")
    # supporting evidence counts only in a race the solver signals already
    # point at: nobody is listed for timing or focus alone
    support = 0.0
    if s.fast_share is not None and s.fast_share >= _v("fast_share"):
        support += _v("fast_points")
        reasons.append(f"{s.fast_share:.0%} of actions under 250 ms")
    gaps = max(0, s.moves - 1)
    if s.gap_cv is not None and gaps >= 20 and s.gap_cv <= _v("metronome_cv"):
        support += _v("metronome_points")
        reasons.append(f"metronome timing (gap variation {s.gap_cv:.2f})")
    if s.focus_losses >= _v("focus_losses") and s.focus_losses * 10 >= s.moves:
        support += _v("focus_points")
        reasons.append(f"the page lost focus {s.focus_losses} times")
    return (score + support if score > 0 else score), reasons


def judge_race(s: RaceSignals) -> Judgement:
    """One race's verdict (informative: a single race decides nothing)."""
    score, reasons = race_score(s)
    return Judgement(_verdict(score), score, tuple(reasons))


def judge_player(races: Sequence[RaceSignals], *, min_races: int | None = None) -> Judgement:
    """A player's verdict from their assessed rated races, newest last: the
    summed score of the last ``window`` of them; ``clean`` below
    ``min_races`` (default: the table's)."""
    need = int(_v("min_races")) if min_races is None else min_races
    recent = list(races)[-int(_v("window")):]
    scores = [race_score(s) for s in recent]
    score = sum(points for points, _ in scores)
    critical = sum(s.critical for s in recent)
    found = sum(s.found for s in recent)
    hard = sum(s.hard_layouts for s in recent)
    solved = sum(s.hard_solved for s in recent)
    reasons = [f"{len(recent)} assessed rated races"]
    if critical:
        reasons.append(f"found the move that gives nothing up at {found} of {critical} "
                       "critical positions")
    if hard:
        reasons.append(f"solved {solved} of {hard} hard layouts")
    for flag in ("under 250 ms", "metronome timing", "lost focus"):
        count = sum(1 for _, why in scores if any(flag in r for r in why))
        if count:
            reasons.append(f"{count} races with {flag}")
    verdict = _verdict(score) if len(recent) >= need else "clean"
    if len(recent) < need:
        reasons.append(f"fewer than {need} races: no verdict yet")
    return Judgement(verdict, score, tuple(reasons), len(recent), len(recent) >= need)
