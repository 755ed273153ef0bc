"""Moves and their text and JSON forms (rules.md, "Move notation").

A :class:`Move` is a small hashable value. Places are plain ints: a fan is
its 0-based index (fan 1 in text is ``0``), :data:`FOUNDATION` is "the
foundation of this card's suit", :data:`ANY_CELL` is "a free cell" and free
cell ``cN`` is ``cell_place(N - 1)``.

Text form (``str(move)`` gives it back, :meth:`Move.from_text` reads it):

=============  =====================================================
``3f``         top card of fan 3 to its foundation
``3-7``        top card of fan 3 onto fan 7 (``3 7`` is read too)
``3c``         top card of fan 3 to a free cell (``fan-with-reserve``)
``c2f``        card of free cell 2 to its foundation
``c2-7``       card of free cell 2 onto fan 7
``r``          redeal
``m 5H f``     merci: buried 5♥ to its foundation
``m 5H 7``     merci: buried 5♥ onto fan 7
``u``          undo
``a``          autoplay
=============  =====================================================

Text is read case-insensitively with free spacing. JSON form (for the wire):
``{"type": "play", "from": "3" | "c2", "to": "f" | "7" | "c"}``,
``{"type": "merci", "card": "5H", "to": "f" | "7"}``, ``{"type": "redeal"}``,
``{"type": "undo"}``, ``{"type": "autoplay"}``; ``from``/``to`` also take
integers for fans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from .cards import Card, card_str, parse_card
from .errors import InvalidCardError, InvalidMoveError

__all__ = [
    "ANY_CELL",
    "AUTOPLAY",
    "FOUNDATION",
    "REDEAL",
    "UNDO",
    "Move",
    "MoveKind",
    "cell_index",
    "cell_place",
    "is_cell",
    "parse_move",
]

MoveKind = Literal["play", "redeal", "merci", "undo", "autoplay"]

FOUNDATION: Final = -1
ANY_CELL: Final = -2
_CELL_BASE: Final = -10  # free cell j is place -10 - j
_MAX_TEXT: Final = 32
_CACHED: Final = 4096
"""At most this many move texts and parsed texts are kept (:data:`_TEXTS`, :data:`_PARSED`)."""


def cell_place(index: int) -> int:
    """Place of free cell ``index`` (0-based)."""
    return _CELL_BASE - index


def is_cell(place: int) -> bool:
    """Whether ``place`` is a specific free cell."""
    return place <= _CELL_BASE


def cell_index(place: int) -> int:
    """0-based index of a free-cell place."""
    return _CELL_BASE - place


def _place_text(place: int) -> str:
    if place == FOUNDATION:
        return "f"
    if place == ANY_CELL:
        return "c"
    if is_cell(place):
        return f"c{cell_index(place) + 1}"
    return str(place + 1)


@dataclass(frozen=True, slots=True)
class Move:
    """One move: ``kind`` plus ``source``/``target`` places and ``card``.

    ``play`` moves have ``source`` (a fan or a free cell) and ``target``
    (a fan, :data:`FOUNDATION` or :data:`ANY_CELL`); ``merci`` has ``card``
    and ``target``; ``redeal``, ``undo`` and ``autoplay`` have neither.
    """

    kind: MoveKind
    source: int | None = None
    target: int | None = None
    card: Card | None = None

    @classmethod
    def play(cls, source: int, target: int) -> Move:
        """Top card of ``source`` to ``target``."""
        return cls("play", source, target)

    @classmethod
    def merci(cls, card: Card, target: int) -> Move:
        """The merci: buried ``card`` to ``target`` (a fan or FOUNDATION)."""
        return cls("merci", None, target, card)

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Read the text notation.

        :raises InvalidMoveError: not a move in the notation.
        """
        return parse_move(text)

    @classmethod
    def from_json(cls, data: Any) -> Move:
        """Read the JSON form (see the module docstring).

        :raises InvalidMoveError: unknown type, missing or bad fields.
        """
        if isinstance(data, str):
            return parse_move(data)
        if not isinstance(data, dict):
            raise InvalidMoveError("a move is a text or an object with a 'type'")
        kind = data.get("type")
        allowed = {"play": {"type", "from", "to"}, "merci": {"type", "card", "to"}}
        fields = allowed.get(kind, {"type"}) if isinstance(kind, str) else {"type"}
        extra = set(data) - fields
        if extra:
            raise InvalidMoveError(f"unknown field(s) {sorted(extra)} for move type {kind!r}")
        if kind in ("redeal", "undo", "autoplay"):
            return cls(kind)
        if kind == "play":
            src = _parse_place(data.get("from"), source=True)
            dst = _parse_place(data.get("to"), source=False)
            if is_cell(src) and dst == ANY_CELL:
                raise InvalidMoveError("a free-cell card goes to a foundation or a fan")
            return cls.play(src, dst)
        if kind == "merci":
            card_text = data.get("card")
            if not isinstance(card_text, str):
                raise InvalidMoveError("merci needs 'card', e.g. \"5H\"")
            try:
                card = parse_card(card_text)
            except InvalidCardError as exc:
                raise InvalidMoveError(str(exc)) from None
            dst = _parse_place(data.get("to"), source=False)
            if dst == ANY_CELL or is_cell(dst):
                raise InvalidMoveError("the merci card goes to its foundation or onto a fan")
            return cls.merci(card, dst)
        raise InvalidMoveError(
            f"unknown move type {kind!r}; one of play, merci, redeal, undo, autoplay"
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form; :meth:`from_json` reads it back."""
        if self.kind == "play":
            assert self.source is not None and self.target is not None
            return {"type": "play", "from": _place_text(self.source),
                    "to": _place_text(self.target)}
        if self.kind == "merci":
            assert self.card is not None and self.target is not None
            return {"type": "merci", "card": card_str(self.card), "to": _place_text(self.target)}
        return {"type": self.kind}

    def __str__(self) -> str:
        key = (self.kind, self.source, self.target, self.card)
        text = _TEXTS.get(key)
        if text is None:
            text = self._text()
            if len(_TEXTS) < _CACHED:
                _TEXTS[key] = text
        return text

    def _text(self) -> str:
        if self.kind == "play":
            assert self.source is not None and self.target is not None
            src, dst = _place_text(self.source), _place_text(self.target)
            return f"{src}{dst}" if dst in ("f", "c") else f"{src}-{dst}"
        if self.kind == "merci":
            assert self.card is not None and self.target is not None
            return f"m {card_str(self.card)} {_place_text(self.target)}"
        return {"redeal": "r", "undo": "u", "autoplay": "a"}[self.kind]

    def __repr__(self) -> str:
        return f"Move.from_text({str(self)!r})"


_TEXTS: dict[tuple[str, int | None, int | None, Card | None], str] = {}
"""``str(move)`` by the move's fields: a move's text is made once (every ack lists
the legal moves as texts and the log keeps each move's text)."""
_PARSED: dict[str, Move] = {}
""":func:`parse_move`'s answer by the exact text read (moves are immutable values)."""

REDEAL: Final = Move("redeal")
UNDO: Final = Move("undo")
AUTOPLAY: Final = Move("autoplay")

_WORDS: Final = {
    "r": REDEAL, "redeal": REDEAL, "u": UNDO, "undo": UNDO, "a": AUTOPLAY, "autoplay": AUTOPLAY,
}
_PLAY_RE: Final = re.compile(r"(c?)([0-9]{1,3})\s*(?:(f|c)|(?:-|\s|>)\s*(c?)([0-9]{1,3}|f))")
_MERCI_RE: Final = re.compile(r"m\s*(\S{2,3}?)\s*(?:-|\s|>)?\s*(f|[0-9]{1,3})")


def _fan_place(number: str | int) -> int:
    n = int(number)
    if n < 1:
        raise InvalidMoveError(f"fans are numbered from 1, not {n}")
    return n - 1


def _parse_place(value: Any, *, source: bool) -> int:
    if isinstance(value, bool) or value is None:
        raise InvalidMoveError("'from' and 'to' name a fan (\"3\"), a cell (\"c2\") or \"f\"")
    if isinstance(value, int):
        if not 1 <= value <= 999:
            raise InvalidMoveError(f"no fan {value}")
        return value - 1
    if not isinstance(value, str) or len(value) > 5:
        raise InvalidMoveError("'from' and 'to' name a fan (\"3\"), a cell (\"c2\") or \"f\"")
    text = value.strip().lower()
    if text.isascii() and text.isdigit() and len(text) <= 3:  # not "²" nor "١"
        return _fan_place(text)
    if text == "f" and not source:
        return FOUNDATION
    if text == "c" and not source:
        return ANY_CELL
    if text.startswith("c") and text.isascii() and text[1:].isdigit() and len(text) <= 3 \
            and source:
        n = int(text[1:])
        if n < 1:
            raise InvalidMoveError("free cells are numbered from c1")
        return cell_place(n - 1)
    what = "source" if source else "target"
    raise InvalidMoveError(f"bad {what} {value!r}")


def parse_move(text: str) -> Move:
    """Read a move in the text notation (module docstring).

    :raises InvalidMoveError: not a move (with the text quoted).
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move is text, not {type(text).__name__}")
    move = _PARSED.get(text)
    if move is None:
        move = _parse(text)
        if len(_PARSED) < _CACHED:
            _PARSED[text] = move
    return move


def _parse(text: str) -> Move:
    if len(text) > _MAX_TEXT:
        raise InvalidMoveError(f"move text longer than {_MAX_TEXT} characters")
    raw = " ".join(text.strip().lower().split())
    if raw in _WORDS:
        return _WORDS[raw]
    m = _PLAY_RE.fullmatch(raw)
    if m:
        src_cell, src_num, short, dst_cell, dst_num = m.groups()
        if src_cell:
            if int(src_num) < 1:
                raise InvalidMoveError("free cells are numbered from c1")
            source = cell_place(int(src_num) - 1)
        else:
            source = _fan_place(src_num)
        if short == "f" or dst_num == "f":
            if dst_cell:
                raise InvalidMoveError(f"not a move: {text!r}")
            return Move.play(source, FOUNDATION)
        if short == "c":
            if src_cell:
                raise InvalidMoveError("a free-cell card goes to a foundation or a fan")
            return Move.play(source, ANY_CELL)
        if dst_cell:
            raise InvalidMoveError(
                f"a card goes to a free cell with '{src_num}c', not to c{dst_num}"
            )
        return Move.play(source, _fan_place(dst_num))
    m = _MERCI_RE.fullmatch(raw)
    if m:
        card_text, dst = m.groups()
        try:
            card = parse_card(card_text)
        except InvalidCardError as exc:
            raise InvalidMoveError(f"merci: {exc}") from None
        return Move.merci(card, FOUNDATION if dst == "f" else _fan_place(dst))
    raise InvalidMoveError(
        f"not a move: {text!r} (moves: 3f, 3-7, r, u, a; with free cells 3c, c2f, c2-7;"
        " merci m 5H f)"
    )
