"""Players without sign-up: names, keys, and what the archive answers of them.

A player is a display name and a secret key made on first use (design brief,
"Players"; docs/players.md). This module is pure: it checks and folds names,
makes keys and player ids, and states the :class:`PlayerArchive` protocol the
archive database (``server.archive.ArchiveDb``) keeps — the transport reaches
players only through it.

- **Names** (:func:`check_player_name`): 2–24 characters after trimming;
  letters, digits, spaces and ``_ - . '``; letters of one script only (no
  ``pаypal`` with a Cyrillic ``а``); nothing invisible; not shaped like a
  player id. Two names are the same player name when
  their NFKC normal form, case-folded, with inner spaces collapsed, is the
  same (:func:`fold_name`): ``Ann``, ``ANN`` and ``Ａｎｎ`` are one name.
- **Keys** (:func:`new_player_key`): ``lpk_`` + 43 url-safe characters (256
  bits); only their SHA-256 digest is stored (:func:`key_digest`). A key is
  shown once, in the answer that created the player.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from typing import Any, Final, Protocol

from server.runtime.ignorable import default_ignorable

__all__ = ["KEY_PREFIX", "NAME_MAX", "NAME_MIN", "NAME_PATTERN", "PlayerArchive",
           "check_player_name", "fold_name", "key_digest", "new_player_id", "new_player_key"]

NAME_MIN = 2
NAME_MAX = 24
KEY_PREFIX = "lpk_"
"""Player keys start with this (a racer's token never does): easy to spot in a leak."""

_PUNCTUATION = frozenset(" _-.'")
_ID_SHAPE = re.compile(r"p[A-Za-z0-9_-]{12}")
"""The shape of a player id (:func:`new_player_id`): no name may take it."""


def fold_name(name: str) -> str:
    """The form two player names are compared in: NFKC, case-folded (NFKC
    again, as Unicode's caseless matching asks), inner whitespace runs made
    one space, trimmed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


_HAN = frozenset({"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "IDEOGRAPHIC"})
"""Unicode name prefixes of the Japanese and Chinese letters, one script here
(Japanese mixes them: ``佐々木``, ``ラーメン``)."""

_TYPED = {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-"}
"""What phones and word processors type for ``'`` and ``-``: the same name."""

_MAX_MARKS = 2
"""Combining marks in a row after one letter (an accent or two, not a stack)."""

_REFUSED: Final = frozenset({"Cc", "Cf", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories never in a name (control, format, private, unassigned,
line and paragraph separators), refused, never rewritten."""


def _script(ch: str) -> str | None:
    """The script of a letter or mark, from its Unicode name (``LATIN``,
    ``CYRILLIC``, ``HAN``…); ``None`` for script-neutral ones (combining
    accents, modifier letters such as the ʻokina)."""
    first = unicodedata.name(ch, "").split(" ", 1)[0]
    if first in _HAN:
        return "HAN"
    if first in ("COMBINING", "MODIFIER"):
        return None
    return first


def _never_in_a_name(ch: str) -> bool:
    """Whether :func:`check_player_name` refuses every name holding ``ch``:
    a control or invisible character, or one whose NFKC form holds a
    character other than a letter, a mark, a digit 0-9, a space or ``_ - . '``."""
    if unicodedata.category(ch) in _REFUSED or default_ignorable(ch):
        return True
    return not all(unicodedata.category(c).startswith(("L", "M")) or c.isspace()
                   or (c.isascii() and c.isdigit()) or c in _PUNCTUATION
                   for c in (_TYPED.get(c, c) for c in unicodedata.normalize("NFKC", ch)))


def _latin1_refused() -> str:
    """The character class of :func:`_never_in_a_name` over U+0000 … U+00FF, as
    ``\\uXXXX`` ranges (the same in every Unicode version)."""
    refused = [cp for cp in range(0x100) if _never_in_a_name(chr(cp))]
    runs: list[list[int]] = []
    for cp in refused:
        if runs and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return "".join(f"\\u{a:04x}" + (f"-\\u{b:04x}" if b > a else "") for a, b in runs)


NAME_PATTERN: Final = f"^[^{_latin1_refused()}]*$"
"""What JSON Schema can say of a name (docs/openapi.json): no character of
U+0000 … U+00FF that :func:`check_player_name` refuses wherever it stands
(controls, symbols, punctuation other than ``_ - . '``). Above U+00FF, one
script, the length after NFKC and the rest are the server's to check."""


def check_player_name(name: str) -> tuple[str, str]:
    """``(display name, folded name)`` of a new player's ``name``.

    The display name is NFKC-normalised (typographic apostrophes and hyphens
    made ``'`` and ``-``) and trimmed with inner spaces collapsed; the folded
    name (:func:`fold_name`) is what must be unique.

    :raises ValueError: with the reason — length, control or invisible
        characters (refused, never rewritten), a character other than a
        letter, digit, space or ``_ - . '``, letters of two scripts, more than
        two combining marks on a letter, a name shaped like a player id, or
        no letter or digit at all.
    """
    if any(unicodedata.category(ch) in _REFUSED or default_ignorable(ch) for ch in name):
        raise ValueError("a player name may not hold control or invisible characters")
    display = " ".join("".join(_TYPED.get(ch, ch)
                               for ch in unicodedata.normalize("NFKC", name)).split())
    if not NAME_MIN <= len(display) <= NAME_MAX:
        raise ValueError(f"a player name has {NAME_MIN} to {NAME_MAX} characters")
    if _ID_SHAPE.fullmatch(display):
        raise ValueError("a player name may not look like a player id (p + 12 characters)")
    marks = 0
    for ch in unicodedata.normalize("NFD", display):  # accents apart from their letters
        marks = marks + 1 if unicodedata.category(ch).startswith("M") else 0
        if marks > _MAX_MARKS:
            raise ValueError("a player name has at most two accents on a letter")
    scripts: set[str | None] = set()
    for ch in display:
        kind = unicodedata.category(ch)
        if kind.startswith(("L", "M")):
            scripts.add(_script(ch))
        elif kind == "Nd" and ch.isascii():
            continue
        elif ch not in _PUNCTUATION:
            raise ValueError(f"a player name holds letters, digits (0-9), spaces and _ - . ' "
                             f"only (not {ch!r})")
    scripts.discard(None)
    if len(scripts) > 1:
        raise ValueError("a player name uses letters of one script only (no look-alikes "
                         f"mixed in: {', '.join(sorted(str(s).title() for s in scripts))})")
    if not any(ch.isalnum() for ch in display):
        raise ValueError("a player name needs a letter or a digit")
    return display, fold_name(display)


def new_player_key() -> str:
    """A fresh secret player key: ``lpk_`` + 256 random bits, url-safe."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_digest(key: str) -> str:
    """The stored form of a player key: SHA-256, hex (64 characters)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def new_player_id() -> str:
    """A fresh player id: ``p`` + 12 url-safe characters (72 bits)."""
    return "p" + secrets.token_urlsafe(9)


class PlayerArchive(Protocol):
    """Players, ratings and history as the archive keeps them
    (``server.archive.ArchiveDb``). Every method may raise
    :class:`~server.errors.ArchiveUnavailable` (the database does not answer).
    Answers are JSON-ready dicts shaped as the wire models of
    ``server.api.player_models`` (docs/players.md)."""

    async def create_player(self, player_id: str, name: str, folded: str,
                            digest: str) -> dict[str, Any]:
        """Store a new player → ``PlayerView`` fields.

        :raises PlayerNameTaken, ArchiveUnavailable:
        """
        ...

    async def player_by_key(self, digest: str) -> dict[str, Any] | None:
        """The player whose key has this digest (``PlayerView`` fields), or ``None``."""
        ...

    async def find_player(self, ref: str, folded: str | None = None) -> dict[str, Any] | None:
        """The player with id ``ref``, else with the folded name ``folded``, or ``None``."""
        ...

    async def delete_player(self, player_id: str, digest: str) -> list[tuple[str, str, str]]:
        """Forget the player: the name is free again, archived rows anonymised;
        ``(race id, racer id, new name)`` of each racer renamed.

        :raises PlayerNotFound, PlayerInvalidKey, ArchiveUnavailable:
        """
        ...

    async def profile(self, player_id: str) -> dict[str, Any]:
        """``PlayerProfile`` fields. :raises PlayerNotFound, ArchiveUnavailable:"""
        ...

    async def player_races(self, player_id: str, limit: int,
                           cursor: str | None) -> dict[str, Any]:
        """``PlayerRacesPage`` fields, newest first.

        :raises PlayerNotFound, RequestInvalid (a bad cursor), ArchiveUnavailable:
        """
        ...

    async def versus(self, a: str, b: str, limit: int, cursor: str | None) -> dict[str, Any]:
        """``VersusView`` fields. :raises PlayerNotFound, RequestInvalid, ArchiveUnavailable:"""
        ...

    async def rating_history(self, player_id: str, variant: str) -> dict[str, Any]:
        """``RatingHistory`` fields. :raises PlayerNotFound, ArchiveUnavailable:"""
        ...

    async def rating_board(self, variant: str, limit: int) -> dict[str, Any]:
        """``RatingBoard`` fields, best rating first."""
        ...

    async def fair_play_of(self, player_id: str) -> dict[str, Any] | None:
        """``{"fair_play", "fair_play_at_ms"}``: a moderator's last verdict on
        the player (docs/fair-play.md), ``None``: no such player."""
        ...

    async def player_rating(self, player_id: str, variant: str) -> float | None:
        """The player's rating (mu − 3 sigma) in ``variant``; ``None`` before
        their first rated race there (quick races' rating bands)."""
        ...
