"""Wiring in one place (issue 31): the app factory builds the authority and its
collaborators with everything passed in; nothing is attached afterwards; the
transport opens no Redis client and patches nothing; the leaderboards share
the room store's Redis client."""

from __future__ import annotations

import ast
import secrets
from pathlib import Path

import pytest

from server.app import leaderboards_of
from server.records.leaderboard_memory import MemoryLeaderboardStore
from server.records.leaderboard_redis import RedisLeaderboardStore
from server.store.memory import MemoryStore
from server.store.redis import RedisStore

ROOT = Path(__file__).resolve().parents[2]


def _init_of(path: Path, cls: str) -> ast.FunctionDef:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return item
    raise AssertionError(f"no {cls}.__init__ in {path}")


def _attribute_writes(tree: ast.AST) -> list[str]:
    """``a.b… = …`` targets of assignments other than ``self.x = …``."""
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            elts = target.elts if isinstance(target, ast.Tuple) else [target]
            found += [ast.unparse(t) for t in elts if isinstance(t, ast.Attribute) and not (
                isinstance(t.value, ast.Name) and t.value.id == "self")]
    return found


def test_the_authority_patches_no_collaborator() -> None:
    init = _init_of(ROOT / "server/race/authority.py", "RaceAuthority")
    assert _attribute_writes(init) == []


def test_the_app_attaches_nothing_to_the_authority() -> None:
    """The app sets ``app.state``; it assigns no attribute of the authority or
    of any other part it built."""
    writes = _attribute_writes(ast.parse((ROOT / "server/app.py").read_text()))
    assert writes and all(w.startswith("app.state.") or w.startswith("pool.observer")
                          for w in writes), writes


@pytest.mark.parametrize("path", sorted((ROOT / "server/api").glob("*.py")),
                         ids=lambda p: p.name)
def test_the_transport_attaches_nothing_and_opens_no_redis(path: Path) -> None:
    tree = ast.parse(path.read_text())
    assert not [w for w in _attribute_writes(tree)
                if any(part in w for part in ("authority", "solver", "archive", "hooks"))], \
        path.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""]
            assert not any(n == "redis" or n.startswith("redis.") for n in names), path.name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            assert node.func.attr not in ("append", "extend") or "hooks" not in ast.unparse(
                node.func.value), f"{path.name}: {ast.unparse(node)}"


async def test_leaderboards_in_memory_beside_the_memory_store() -> None:
    store = MemoryStore()
    try:
        assert isinstance(leaderboards_of(store), MemoryLeaderboardStore)
    finally:
        await store.close()


@pytest.mark.redis
async def test_leaderboards_share_the_room_stores_redis_client() -> None:
    prefix = f"test:{secrets.token_hex(6)}:"
    store = RedisStore.from_url(f"redis://127.0.0.1:6379/0?prefix={prefix}")
    try:
        boards = leaderboards_of(store)
        assert isinstance(boards, RedisLeaderboardStore)
        assert boards._redis is store.client and boards.prefix == prefix
        await boards.close()  # not its client: the store still answers
        await store.ping()
    finally:
        client = store.client
        keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await store.close()


def test_the_embedded_app_loads_no_redis_store() -> None:
    """The app factory imported the Redis store to build the leaderboards: an
    embedded server's /metrics then listed an empty ``lucie_redis_seconds``
    (a new user's trial)."""
    import subprocess
    import sys
    code = ("import sys, server.app; "
            "sys.exit('server.store.redis' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0
