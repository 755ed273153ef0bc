"""Room ids and codes, racer ids, secret tokens, deal salts and display names.

Tokens are ``secrets.token_urlsafe(24)`` (192 bits); the store keeps only
their SHA-256 (:func:`token_digest`) and :func:`token_matches` compares in
constant time. Room codes are six characters from an alphabet without the
look-alikes 0/O, 1/I/L.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import unicodedata
from typing import Final

from server.rules.commitment import SALT_BYTES
from server.runtime.ignorable import default_ignorable

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "NAME_MAX",
    "check_name",
    "is_code",
    "new_code",
    "new_deal_salt",
    "new_racer_id",
    "new_room_id",
    "new_token",
    "random_deal_number",
    "same_name",
    "token_digest",
    "token_matches",
]

CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 6
NAME_MAX: Final = 24
_REFUSED: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a display name may not hold (control, format, …)."""
_CODE_RE: Final = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")


def new_room_id() -> str:
    """A room id: 16 url-safe characters."""
    return secrets.token_urlsafe(12)


def new_racer_id() -> str:
    """A racer id, unique within its room: 8 url-safe characters."""
    return secrets.token_urlsafe(6)


def new_code() -> str:
    """A short human-friendly room code, e.g. ``"K7QX2M"``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def is_code(text: str) -> bool:
    """Whether ``text`` (any case) has the shape of a room code."""
    return bool(_CODE_RE.fullmatch(text.upper()))


def new_token() -> str:
    """A secret bearer token: 192 random bits, url-safe text."""
    return secrets.token_urlsafe(24)


def token_digest(token: str) -> str:
    """SHA-256 of a token, hex: what the store keeps instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@functools.lru_cache(maxsize=8192)
def _presented_digest(token: str) -> str:
    """:func:`token_digest` of a presented token, remembered: a racer's socket
    presents the same token with every move (issue 23: hashing it each time
    was ~1 % of a move's CPU)."""
    return token_digest(token)


def token_matches(token: str | None, digest: str) -> bool:
    """Constant-time check of a presented token against a stored digest."""
    if not token or not digest:
        return False
    return hmac.compare_digest(_presented_digest(token), digest)


def _invisible(ch: str, before: str) -> bool:
    """Whether ``ch`` is invisible here: default-ignorable
    (:mod:`server.runtime.ignorable`: ``ada`` plus one passed for ``ada``, a
    filler alone for no name), except the text / emoji presentation selectors
    (U+FE0E, U+FE0F) right after a symbol or a keycap's ``0-9 # *`` (``❤️``,
    ``1️⃣``), which they do change."""
    if not default_ignorable(ch):
        return False
    return not (ch in "\ufe0e\ufe0f" and before != ""
                and (unicodedata.category(before).startswith("S") or before in "0123456789#*"))


def check_name(name: str) -> str:
    """The display name, trimmed, or :class:`ValueError` with the reason.

    A name has 1–24 characters after trimming and no control, format
    (zero-width …), line-separator, private-use or unassigned characters —
    tab and newline included, which are refused, not turned into spaces;
    leading and trailing spaces go and inner runs of spaces become one space.
    """
    normal = unicodedata.normalize("NFC", name)
    bad = next((ch for i, ch in enumerate(normal) if unicodedata.category(ch) in _REFUSED
                or _invisible(ch, normal[i - 1] if i else "")), None)
    if bad is not None:
        raise ValueError(f"a name may not hold control or invisible characters "
                         f"(U+{ord(bad):04X} here); use letters, digits, punctuation "
                         f"and spaces")
    cleaned = " ".join(normal.split())
    if not cleaned:
        raise ValueError("a name needs at least one visible character")
    if len(cleaned) > NAME_MAX:
        raise ValueError(f"a name has at most {NAME_MAX} characters")
    return cleaned


def same_name(a: str, b: str) -> bool:
    """Whether two racer names are one name in a room: equal after NFKC and case
    folding (``Ann`` = ``ANN`` = ``Ａｎｎ``)."""
    return (unicodedata.normalize("NFKC", a).casefold()
            == unicodedata.normalize("NFKC", b).casefold())


def random_deal_number() -> int:
    """A random deal number in 1 … 999,999,999."""
    return secrets.randbelow(999_999_999) + 1


def new_deal_salt() -> bytes:
    """The salt of a new room's deal commitment: :data:`~server.rules.commitment.SALT_BYTES`
    (16) random bytes (docs/protocol.md, "Verifying a deal")."""
    return secrets.token_bytes(SALT_BYTES)
