"""Test helpers for the race authority: a store with a movable clock, a scripted racer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from server.rules import Move, RuleSet, legal_moves, position_from_json
from server.store.memory import MemoryClock, MemoryStore

__all__ = ["ClockStore", "MovableClock", "count_calls", "pick_move"]


class MovableClock(MemoryClock):
    """The memory store's clock, ``skew_ms`` ahead of the wall clock."""

    def __init__(self) -> None:
        super().__init__()
        self.skew_ms = 0

    def now(self) -> int:
        return super().now() + self.skew_ms

    def advance(self, ms: int) -> None:
        """Move the clock ``ms`` milliseconds forward."""
        self.skew_ms += ms


class ClockStore(MemoryStore):
    """The real memory store whose clock can be moved forward (``advance``)."""

    def __init__(self, clock: MovableClock | None = None) -> None:
        self.movable = clock or MovableClock()
        super().__init__(clock=self.movable)

    def advance(self, ms: int) -> None:
        """Move the clock ``ms`` milliseconds forward."""
        self.movable.advance(ms)


def count_calls(part: object, names: Iterable[str], counter: Counter[str]) -> None:
    """Count in ``counter`` the calls of each async method ``name`` of the store
    part ``part`` (wrapped on the instance)."""
    for name in names:
        method = getattr(part, name)

        async def counted(*args: Any, _method: Any = method, _name: str = name,
                          **kwargs: Any) -> Any:
            counter[_name] += 1
            return await _method(*args, **kwargs)

        setattr(part, name, counted)


def pick_move(rules: dict[str, object], game: dict[str, object]) -> str | None:
    """A scripted racer's choice from a Game view: a foundation move, else a
    tableau move, else a redeal, else ``None`` (stuck). Terminates with undo off:
    a card built on its successor only ever moves on to the foundation."""
    legal = [str(m) for m in legal_moves(
        RuleSet.from_json(rules), position_from_json(game["position"]))]  # type: ignore[arg-type]
    assert set(legal) == set(game["legal_moves"])  # type: ignore[arg-type]
    for kinds in (("f",), ("-",), ("r",)):
        for text in legal:
            move = Move.from_text(text)
            if kinds == ("f",) and move.kind == "play" and text.endswith("f"):
                return text
            if kinds == ("-",) and "-" in text and move.kind == "play":
                return text
            if kinds == ("r",) and move.kind == "redeal":
                return text
    return None
