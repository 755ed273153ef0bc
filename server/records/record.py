"""A recorded game: rule set, deal, redeal key and the move log with race-clock times.

A :class:`GameRecord` is what comparison (:mod:`server.records.compare`), ghost
races (:mod:`server.records.ghost`) and replay files (:mod:`server.records.replay_file`)
work on. :func:`timeline` replays it through the rules engine and gives one
:class:`Step` per logged move: the foundation count, layout and reach time
after that move, on the race clock.

Reach time (rules.md, "Race ranking"): the race-clock time of the move that
last changed the foundation count to its current value; ``None`` while no
move has changed it (ranks like 0 ms). :func:`server.rules.ranking.ranking_key` orders results by
the four ranking rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.rules import Game, IllegalMoveError, Move, RuleSet, new_game

__all__ = [
    "GameRecord",
    "IllegalLogMove",
    "Step",
    "TimedMove",
    "timeline",
]


class IllegalLogMove(IllegalMoveError):
    """A logged move that is not legal where it stands; ``index`` is its 1-based place."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index


@dataclass(frozen=True, slots=True)
class TimedMove:
    """One log entry: the move (autoplay already expanded) and its race-clock time (ms)."""

    move: Move
    race_clock_ms: int


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game on the race clock.

    ``moves`` is the racer's move log in order, undo included, autoplay
    expanded; times never decrease. ``name`` is the racer's display name,
    ``join_order`` their join order in the room (``None`` across rooms or
    for an imported file), ``status`` the racer status when known
    (``won``, ``stuck``, ``resigned``, ``timed_out``, ``playing``, ``left``)
    and ``finished_ms`` the race-clock time the result became final, when known.
    """

    rules: RuleSet
    deal_number: int
    redeal_key: bytes
    moves: tuple[TimedMove, ...]
    name: str = ""
    join_order: int | None = None
    status: str | None = None
    finished_ms: int | None = None

    @property
    def last_ms(self) -> int:
        """Race-clock time of the last move, or 0 with no move."""
        return self.moves[-1].race_clock_ms if self.moves else 0

    def game(self) -> Game:
        """The game after every logged move.

        :raises IllegalLogMove: a logged move is not legal (``index`` names it).
        """
        return timeline(self)[0]


@dataclass(frozen=True, slots=True)
class Step:
    """The game right after logged move ``index`` (1-based).

    ``layout`` is 1 for the deal, 2 after the first redeal, …; ``delta`` is
    the change of the foundation count made by this move.
    """

    index: int
    move: str
    race_clock_ms: int
    foundation_cards: int
    delta: int
    layout: int
    redeals_used: int
    merci_used: bool
    reach_time_ms: int | None


def timeline(record: GameRecord) -> tuple[Game, list[Step]]:
    """Replay ``record`` move by move: the final game and one :class:`Step` per move.

    :raises IllegalLogMove: a logged move is not legal where it stands, or
        is an unexpanded autoplay (message names its 1-based index).
    :raises InvalidDealNumberError: the deal number is out of range.
    """
    game = new_game(record.rules, record.deal_number, record.redeal_key)
    steps: list[Step] = []
    reach: int | None = None
    for i, timed in enumerate(record.moves, 1):
        if timed.move.kind == "autoplay":
            raise IllegalLogMove(i, f"move {i} (a): a log holds autoplay as its foundation moves")
        before = game.foundation_cards
        try:
            game = game.play(timed.move).with_log(())  # the log is set once (Game.with_log)
        except IllegalMoveError as exc:
            raise IllegalLogMove(i, f"move {i} ({timed.move}): {exc.reason}") from None
        pos = game.position
        delta = pos.foundation_cards - before
        if delta:
            reach = timed.race_clock_ms
        steps.append(Step(i, str(timed.move), timed.race_clock_ms, pos.foundation_cards, delta,
                          pos.redeals_used + 1, pos.redeals_used, pos.merci_used, reach))
    return game.with_log(tuple(timed.move for timed in record.moves)), steps
