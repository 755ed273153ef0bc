"""README.md and docs/architecture.md count the store's protocols as
``server/store/base.py`` defines them (a trial found "five" beside "six")."""

from __future__ import annotations

import ast
import re

from tests.conftest import REPO

WORDS = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def _store_protocols() -> list[str]:
    """The Protocols of ``server/store/base.py`` that ``LiveStore`` bundles."""
    tree = ast.parse((REPO / "server" / "store" / "base.py").read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, ast.ClassDef) and node.name != "LiveStore"
            and any(isinstance(b, ast.Name) and b.id == "Protocol" for b in node.bases)]


def test_the_docs_count_the_store_protocols() -> None:
    names = _store_protocols()
    word = WORDS[len(names)]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"`server/store` \((\w+) small Protocols — ([^—]+) —", readme)
    assert found is not None
    assert found[1] == word and len(found[2].split(",")) == len(names), found[0]
    architecture = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"behind {word} small protocols" in architecture
    assert all(f"`{name}`" in architecture for name in names)
