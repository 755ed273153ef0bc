"""The bot in docs/client.md runs as written against a real server."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from client_cli.api import LucieClient
from tests.conftest import REPO


def _example() -> str:
    text = (REPO / "docs" / "client.md").read_text()
    block = re.search(r"## A complete bot.*?```python\n(.*?)```", text, re.S)
    assert block, "docs/client.md lost its bot example"
    code = block.group(1)
    assert 'asyncio.run(main("ABCD"))' in code
    return code.replace('asyncio.run(main("ABCD"))', "import sys\nasyncio.run(main(sys.argv[1]))")


async def test_documented_bot_races_to_the_end(lucie_server: str, tmp_path: Path) -> None:
    script = tmp_path / "mybot.py"
    script.write_text(_example())
    async with LucieClient(lucie_server) as client:
        created = await client.create_room(deal=6, countdown_s=0, time_limit_s=60,
                                           visibility="private")
        code = created.room.code
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(script), code, cwd=REPO,
            env={**os.environ, "LUCIE_SERVER": lucie_server},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        for _ in range(500):
            if (await client.get_room(code)).racers:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the documented bot never joined")
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        # it says it is ready and is the only racer, so the race starts by itself
        assert proc.returncode == 0, err.decode()
        assert re.search(r"done: (won|stuck) \d+ cards", out.decode()), out.decode()
