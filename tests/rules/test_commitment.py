"""The deal commitment's canonical text and hash (server/rules/commitment.py, issue 32),
and the worked example of docs/protocol.md ("Verifying a deal") is what it computes."""

from __future__ import annotations

import hashlib
import re

import pytest

from server.rules.commitment import (
    FORMAT,
    SALT_BYTES,
    canonical_text,
    deal_commitment,
    verify_commitment,
)
from tests.conftest import REPO

KEY = bytes(range(32))
SALT = bytes.fromhex("00112233445566778899aabbccddeeff")
EXAMPLE_TEXT = (
    "lucie-deal-commitment/1\n"
    "variant=belle-lucie\n"
    "deal=123456\n"
    "redeal_key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"
    "salt=00112233445566778899aabbccddeeff\n"
)
EXAMPLE_HEX = "e3e7cf73c8e1970d48491d8f8cac069674d12ecc077bea77c752997cfb7a0a08"


def test_the_canonical_text_is_five_lines_each_ending_in_a_newline() -> None:
    text = canonical_text("belle-lucie", 123456, KEY, SALT)
    assert text == EXAMPLE_TEXT
    assert text.split("\n") == [*EXAMPLE_TEXT.split("\n")[:5], ""]
    assert text.startswith(FORMAT + "\n") and SALT_BYTES == 16 == len(SALT)


def test_the_worked_example_hashes_to_its_hex() -> None:
    assert deal_commitment("belle-lucie", 123456, KEY, SALT) == EXAMPLE_HEX
    # the formula as written, by hand: SHA-256 of the UTF-8 text, lower-case hex
    assert hashlib.sha256(EXAMPLE_TEXT.encode("utf-8")).hexdigest() == EXAMPLE_HEX


def test_hex_text_of_either_case_is_the_same_key_and_salt() -> None:
    upper = deal_commitment("belle-lucie", 123456, KEY.hex().upper(), SALT.hex().upper())
    assert upper == deal_commitment("belle-lucie", 123456, KEY.hex(), SALT) == EXAMPLE_HEX


def test_verify_holds_for_the_revealed_values_only() -> None:
    assert verify_commitment(EXAMPLE_HEX, "belle-lucie", 123456, KEY, SALT)
    assert verify_commitment(EXAMPLE_HEX.upper(), "belle-lucie", 123456, KEY.hex(), SALT.hex())
    other_salt = bytes([SALT[0] ^ 1]) + SALT[1:]
    for args in (("belle-lucie", 123457, KEY, SALT),  # another deal
                 ("trefoil", 123456, KEY, SALT),  # another variant
                 ("belle-lucie", 123456, KEY[::-1], SALT),  # another redeal key
                 ("belle-lucie", 123456, KEY, other_salt),  # another salt
                 ("belle-lucie", 123456, KEY, "not hex")):  # not even a salt
        assert not verify_commitment(EXAMPLE_HEX, *args), args  # type: ignore[arg-type]


@pytest.mark.parametrize(("variant", "deal", "key", "salt"), [
    ("", 1, KEY, SALT),
    ("belle lucie", 1, KEY, SALT),
    ("belle-lucie\nsalt=00", 1, KEY, SALT),
    ("belle-lucie", 0, KEY, SALT),
    ("belle-lucie", True, KEY, SALT),
    ("belle-lucie", 1, "xyz", SALT),
    ("belle-lucie", 1, KEY, "0"),
])
def test_what_cannot_be_written_canonically_is_refused(variant: str, deal: int,
                                                       key: bytes | str,
                                                       salt: bytes | str) -> None:
    with pytest.raises(ValueError):
        canonical_text(variant, deal, key, salt)


def test_the_protocol_documents_this_formula_and_example() -> None:
    doc = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = doc.split("## Verifying a deal", 1)[1].split("\n## ", 1)[0]
    assert ("```\nlucie-deal-commitment/1\nvariant=<the rule set's variant name>\n"
            "deal=<the deal number in decimal>\nredeal_key=<the redeal key, lower-case hex>\n"
            "salt=<the salt, lower-case hex>\n```") in section
    printf = re.search(r"printf '([^']+)' \| sha256sum\n([0-9a-f]{64})  -", section)
    assert printf is not None, "the worked example's printf and its hex"
    assert printf.group(1).replace("\\n", "\n") == EXAMPLE_TEXT
    assert printf.group(2) == EXAMPLE_HEX
