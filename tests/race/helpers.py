"""Test helpers for the race authority: a store with a movable clock, a scripted racer."""

from __future__ import annotations

from server.rules import Move, RuleSet, legal_moves, position_from_json
from server.store.memory import MemoryStore

__all__ = ["ClockStore", "pick_move"]


class ClockStore(MemoryStore):
    """The real memory store whose clock can be moved forward (``advance``)."""

    def __init__(self) -> None:
        super().__init__()
        self.skew_ms = 0

    def _now(self) -> int:
        return super()._now() + getattr(self, "skew_ms", 0)

    def advance(self, ms: int) -> None:
        """Move the clock ``ms`` milliseconds forward."""
        self.skew_ms += ms


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
