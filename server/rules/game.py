"""A game: rule set, deal number, redeal key, the position history and the move log.

:class:`Game` is immutable: :meth:`Game.play` returns a new game. Undo
(rules.md, "Undo") is a move in the log like any other; it takes back the
last position-changing move, a redeal or the merci included, and redoing a
redeal gives the same layout because the redeal generator is keyed
(:mod:`server.rules.redeal`). Autoplay is expanded into ordinary foundation
moves in the log (rules.md, "Autoplay").

:func:`replay` rebuilds a game from its log exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from .deal import deal
from .engine import Status, apply, autoplay_moves, status
from .errors import IllegalMoveError
from .movegen import legal_move_list, legal_move_texts
from .moves import Move
from .position import Position
from .variants import RuleSet

__all__ = ["MAX_LOG", "Game", "new_game", "replay"]

MAX_LOG: Final = 20_000
"""The most log entries one game keeps (undo and autoplay's foundation moves
included): a replay file's limit, so every game can be exported, compared and
replayed (docs/replay.md); the race authority refuses a move past it."""


@dataclass(frozen=True, slots=True)
class _History:
    position: Position
    previous: _History | None
    depth: int


@dataclass(frozen=True, slots=True)
class Game:
    """An immutable game; see the module docstring.

    ``log`` holds every move taken, undo included, autoplay expanded.
    """

    rules: RuleSet
    deal_number: int
    redeal_key: bytes
    _history: _History
    log: tuple[Move, ...] = ()

    @property
    def position(self) -> Position:
        """The current position."""
        return self._history.position

    @property
    def can_undo(self) -> bool:
        """Whether an undo would be accepted now."""
        return self.rules.undo and self._history.previous is not None

    @property
    def status(self) -> Status:
        """``playing``, ``won`` or ``stuck`` (engine's :func:`status`)."""
        return status(self.rules, self.position)

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations now."""
        return self.position.foundation_cards

    def legal_moves(self) -> list[Move]:
        """Legal position moves now (undo and autoplay not listed)."""
        return legal_move_list(self.rules, self.position)

    def legal_move_texts(self) -> list[str]:
        """The texts of :meth:`legal_moves` (``str(move)``), in the same order."""
        return legal_move_texts(self.rules, self.position)

    def expand(self, move: Move) -> list[Move]:
        """The log entries ``move`` becomes: autoplay → its foundation moves.

        :raises IllegalMoveError: autoplay with nothing to move.
        """
        if move.kind != "autoplay":
            return [move]
        moves, _ = autoplay_moves(self.rules, self.position)
        if not moves:
            raise IllegalMoveError("autoplay: no top card can go to a foundation")
        return moves

    def play(self, move: Move) -> Game:
        """The game after ``move`` (undo and autoplay included).

        :raises IllegalMoveError: not legal now; the game is unchanged.
        """
        game = self
        for step in self.expand(move):
            game = game._play_one(step)
        return game

    def _play_one(self, move: Move) -> Game:
        if move.kind == "undo":
            if not self.rules.undo:
                raise IllegalMoveError("undo is not allowed in this game")
            previous = self._history.previous
            if previous is None:
                raise IllegalMoveError("there is nothing to undo")
            return _made(self.rules, self.deal_number, self.redeal_key, previous,
                         (*self.log, move))
        if move.kind == "autoplay":
            return self.play(move)
        pos = apply(self.rules, self.position, move, self.redeal_key)
        history = self._history
        return _made(self.rules, self.deal_number, self.redeal_key,
                     _step(pos, history, history.depth + 1), (*self.log, move))

    def with_log(self, log: tuple[Move, ...]) -> Game:
        """This game (position, undo history) with ``log`` as its move log. A
        replay plays on games with an empty log and sets the whole log once:
        :meth:`play` copies the log, so a replay move by move was quadratic
        (a log of 40,000 moves took seconds)."""
        return _made(self.rules, self.deal_number, self.redeal_key, self._history, log)

    def to_json(self) -> dict[str, Any]:
        """Replay document: rule set, deal number, redeal key (hex), moves (text)."""
        return {
            "rules": self.rules.to_json(),
            "deal_number": self.deal_number,
            "redeal_key": self.redeal_key.hex(),
            "moves": [str(m) for m in self.log],
        }


_new = object.__new__
_GAME_SETTERS: tuple[Callable[[Game, Any], None], ...] = tuple(
    getattr(Game, name).__set__
    for name in ("rules", "deal_number", "redeal_key", "_history", "log"))
_STEP_SETTERS: tuple[Callable[[_History, Any], None], ...] = tuple(
    getattr(_History, name).__set__ for name in ("position", "previous", "depth"))


def _made(rules: RuleSet, deal_number: int, redeal_key: bytes, history: _History,
          log: tuple[Move, ...]) -> Game:
    """``Game(rules, deal_number, redeal_key, history, log)``, made without the
    frozen dataclass's ``__init__`` (a third of a move's cost in the engine,
    as :func:`~server.rules.position.make_position` does); the same value."""
    game: Game = _new(Game)
    set_rules, set_deal, set_key, set_history, set_log = _GAME_SETTERS
    set_rules(game, rules)
    set_deal(game, deal_number)
    set_key(game, redeal_key)
    set_history(game, history)
    set_log(game, log)
    return game


def _step(position: Position, previous: _History | None, depth: int) -> _History:
    """``_History(position, previous, depth)``, made as :func:`_made` makes a game."""
    history: _History = _new(_History)
    set_position, set_previous, set_depth = _STEP_SETTERS
    set_position(history, position)
    set_previous(history, previous)
    set_depth(history, depth)
    return history


def new_game(rules: RuleSet, deal_number: int, redeal_key: bytes) -> Game:
    """A fresh game of deal ``deal_number``.

    :raises InvalidDealNumberError: deal number out of range.
    """
    return Game(rules, deal_number, redeal_key, _History(deal(rules, deal_number), None, 0))


def replay(rules: RuleSet, deal_number: int, redeal_key: bytes, moves: Iterable[Move]) -> Game:
    """Rebuild a game from its move log (rules.md, "Undo"; replays).

    :raises IllegalMoveError: a move of the log is not legal where it stands
        (the message names its 1-based index).
    """
    game = new_game(rules, deal_number, redeal_key)
    log: list[Move] = []
    for i, move in enumerate(moves, 1):
        try:
            game = game.play(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i} ({move}): {exc.reason}") from None
        log += game.log  # the move, or the foundation moves of an autoplay
        game = game.with_log(())  # linear, not quadratic (Game.with_log)
    return game.with_log(tuple(log))
