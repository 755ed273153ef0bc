"""docs/rules.md is the shipped copy of the design rule book: it must not drift."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DESIGN = REPO.parent / "shared" / "design" / "rules.md"


def test_docs_rules_is_the_design_rule_book() -> None:
    if not DESIGN.is_file():
        pytest.skip(f"no design folder beside the checkout ({DESIGN})")
    shipped = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    body = shipped.split("-->\n\n", 1)[1]
    assert body == DESIGN.read_text(encoding="utf-8"), (
        "docs/rules.md differs from ../shared/design/rules.md: copy it again"
    )
