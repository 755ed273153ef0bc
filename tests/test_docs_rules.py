"""docs/rules.md is the shipped copy of the design rule book: it must not drift."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DESIGN = REPO.parent / "shared" / "design" / "rules.md"
SEEDS_THERE = ("texts are in `../seeds/` (Norwegian, Danish, French, Ukrainian and Russian\n"
               "rule pages; see `../seeds/README.md`).")
SEEDS_HERE = ("texts are the original rule pages (Norwegian, Danish, French, Ukrainian and\n"
              "Russian), kept with the design brief, not in this repository.")
"""The one sentence the shipped copy words differently: its paths are the design
folder's, which a cloner does not have."""


def test_docs_do_not_link_outside_the_repository() -> None:
    """A cloner has no ``../shared`` or ``../seeds``: README.md and docs/ stand alone."""
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for outside in ("../shared", "../seeds", "shared/design"):
            assert outside not in text, f"{path.name} points at {outside}"


def test_docs_rules_is_the_design_rule_book() -> None:
    if not DESIGN.is_file():
        pytest.skip(f"no design folder beside the checkout ({DESIGN})")
    shipped = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    body = shipped.split("-->\n\n", 1)[1]
    design = DESIGN.read_text(encoding="utf-8").replace(SEEDS_THERE, SEEDS_HERE)
    assert body == design, (
        "docs/rules.md differs from ../shared/design/rules.md: copy it again"
    )
