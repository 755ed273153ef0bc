"""The redeal generator equals its published spec, docs/redeal.md (rules.md "Redeal generator")."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules import card_str, redeal_fans, shuffle_for_redeal

DOC = Path(__file__).resolve().parents[2] / "docs" / "redeal.md"

VECTOR_1 = [20, 47, 6, 4, 31, 17, 26, 22, 36, 37, 46, 23, 25, 51, 13, 8, 28, 40, 48, 21, 39, 2,
            12, 38, 16, 41, 45, 50, 27, 19, 3, 18, 14, 10, 5, 11, 43, 32, 49, 33, 0, 15, 29, 35,
            1, 42, 7, 24, 44, 30, 9, 34]


def _doc_reference() -> Callable[[bytes, int, list[int]], list[int]]:
    """The reference code printed in docs/redeal.md, executed as is."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"## Reference code \(Python\)\n\n```python\n(.*?)```", text, re.S)
    assert match, "docs/redeal.md lost its reference code"
    namespace: dict[str, object] = {}
    exec(match.group(1), namespace)
    fn = namespace["shuffle_for_redeal"]
    assert callable(fn)
    return fn  # type: ignore[return-value]


def test_vector_1() -> None:
    assert shuffle_for_redeal(bytes(range(32)), 1, list(range(52))) == VECTOR_1
    fans = redeal_fans(bytes(range(32)), 1, list(range(52)))
    assert " | ".join(" ".join(card_str(c) for c in f) for f in fans[:2]) == "8D 9S 7C | 5C 6H 5D"


def test_vector_2() -> None:
    msg = b"lucie-redeal-v1" + bytes([2]) + (10).to_bytes(2, "big") + bytes(range(10))
    block = hmac.new(b"lucie", msg + bytes(4), hashlib.sha256).hexdigest()
    assert block == "684aa814f20c5e85ec47c709d5150e5f8dc8430c7a77ed06c36468f407c87f18"
    assert shuffle_for_redeal(b"lucie", 2, list(range(10))) == [3, 2, 8, 5, 4, 9, 0, 1, 7, 6]
    fans = redeal_fans(b"lucie", 2, list(range(10)))
    assert [" ".join(card_str(c) for c in f) for f in fans] == [
        "4C 3C 9C", "6C 5C TC", "AC 2C 8C", "7C"]


def test_vectors_are_in_the_doc() -> None:
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert " ".join(map(str, VECTOR_1)) in text
    assert "3 2 8 5 4 9 0 1 7 6" in text


@settings(max_examples=60, deadline=None)
@given(
    key=st.binary(max_size=40),
    k=st.integers(1, 9),
    cards=st.lists(st.integers(0, 51), max_size=104),
)
def test_engine_equals_doc_reference_code(key: bytes, k: int, cards: list[int]) -> None:
    reference = _doc_reference()
    out = shuffle_for_redeal(key, k, cards)
    assert out == reference(key, k, list(cards))
    assert sorted(out) == sorted(cards)
    assert shuffle_for_redeal(key, k, cards) == out  # pure


def test_inputs_each_change_the_shuffle() -> None:
    cards = list(range(40))
    base = shuffle_for_redeal(b"key", 1, cards)
    assert shuffle_for_redeal(b"key2", 1, cards) != base
    assert shuffle_for_redeal(b"key", 2, cards) != base
    assert shuffle_for_redeal(b"key", 1, cards[::-1]) != base
