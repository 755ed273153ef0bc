"""``lucie rooms / results / replay / bot`` as processes against a real server."""

from __future__ import annotations

import asyncio
import json
import sys

from client_cli.api import LucieClient

from .helpers import play_moves


async def _lucie(url: str, *argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli.cli", *argv, "--server", url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_rooms_results_replay_and_bots(lucie_server: str) -> None:
    async with LucieClient(lucie_server) as client:
        created = await client.create_room(deal=4, countdown_s=0, visibility="public")
        code = created.room.code
        ann = await client.join(code, "ann")
        rc, out, _ = await _lucie(lucie_server, "rooms")
        assert rc == 0 and code in out

        bots = asyncio.create_task(_lucie(lucie_server, "bot", code, "--count", "2",
                                          "--think", "0"))
        for _ in range(200):
            if len((await client.get_room(code)).racers) == 3:
                break
            await asyncio.sleep(0.05)
        await client.start(code, created.host_token)
        for _ in range(200):
            game = await client.game(code, ann.racer.id, ann.token)
            if game.status == "playing":
                break
            await asyncio.sleep(0.05)
        await client.move(code, ann.racer.id, ann.token, play_moves(game)[0], game.version)
        await client.resign(code, ann.racer.id, ann.token)
        rc, out, err = await bots
        assert rc == 0, err
        assert "Bots" in out and out.count("bot-") >= 2

        rc, out, _ = await _lucie(lucie_server, "results", code)
        assert rc == 0 and "final results" in out and "ann" in out
        rc, out, _ = await _lucie(lucie_server, "replay", code, "ann")
        assert rc == 0 and play_moves(game)[0] in out and "redeal key" in out
        rc, out, _ = await _lucie(lucie_server, "replay", code, "ann", "--json")
        doc = json.loads(out)
        assert rc == 0 and doc["moves"][0]["move"] == play_moves(game)[0]
        assert doc["redeal_key"]  # revealed once the race is over
        rc, _, err = await _lucie(lucie_server, "replay", code, "nobody")
        assert rc == 1 and "no racer 'nobody'" in err and "Traceback" not in err
        rc, _, err = await _lucie(lucie_server, "results", "NOSUCHROOM")
        assert rc == 1 and "Traceback" not in err
