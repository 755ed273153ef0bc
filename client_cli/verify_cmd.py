"""``lucie verify ROOM``: check a finished race on this computer — the deal commitment
its room published when it was made, then every racer's moves replayed on the open
engine against the published standings (docs/protocol.md, "Verifying a deal").

ROOM is a room code or id, or a race id. ``--save PATH`` also writes what was
fetched, the verification document (docs/client.md, "Verifying a race");
``--file PATH`` checks such a document instead of asking a server (offline).
Prints one line per check; exits 0 when every check holds, 1 when one does not
(or the race cannot be checked: not over yet, unknown, no server).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .api import ApiError, LucieClient
from .common import Subparsers, add_server_arg, doc_help, resolved_server, run_command, say
from .verify import fetch_document, verify_document

__all__ = ["add_parser", "load_document"]


def load_document(path: str) -> Any:
    """The JSON of the verification document at ``path``.

    :raises ApiError: ``client/bad_file`` when it cannot be read or is not JSON.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise ApiError("client/bad_file", f"cannot read {path}: {exc}") from None


def _save(path: str, doc: dict[str, Any]) -> None:
    try:
        Path(path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                              encoding="utf-8")
    except OSError as exc:
        raise ApiError("client/bad_file", f"cannot write {path}: {exc}") from None


def _run(args: argparse.Namespace) -> int:
    async def body() -> int:
        if args.file and (args.room or args.save):
            raise ApiError("client/usage", "--file checks a saved document: give it alone "
                           "(ROOM and --save fetch one from a server)")
        if args.file:
            doc, source = load_document(args.file), args.file
        elif args.room:
            async with LucieClient(resolved_server(args)) as client:
                doc = await fetch_document(client, args.room)
            source = str(doc["server"])
            if args.save:
                _save(args.save, doc)
        else:
            raise ApiError("client/usage", "give ROOM (a room code or id, or a race id), "
                           "or --file PATH")
        checks = verify_document(doc)
        room = doc["room"]
        rules = room.get("rules", {})
        say(f"Race of room {room.get('code')} · {rules.get('name') or rules.get('variant')} · "
            f"deal {room.get('deal_number')} ({source})")
        for check in checks:
            say(("ok    " if check.ok else "FAIL  ") + check.line)
        failed = sum(not c.ok for c in checks)
        if failed:
            say(f"not verified: {failed} of {len(checks)} checks failed")
            return 1
        say(f"verified: all {len(checks)} checks hold")
        if args.save:
            say(f"saved to {args.save} (check it again offline: lucie verify --file "
                f"{args.save})")
        return 0

    return run_command("verify", body)


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie verify``."""
    p = sub.add_parser("verify", help="check a finished race's deal and results",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie verify ABCD\n"
                       "  lucie verify ABCD --save abcd.json\n"
                       "  lucie verify --file abcd.json",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("room", nargs="?", metavar="ROOM",
                   help="room code or id, or race id, of a finished race")
    p.add_argument("--save", metavar="PATH",
                   help="also write the fetched document (JSON) there")
    p.add_argument("--file", metavar="PATH",
                   help="check a saved document instead of asking a server")
    add_server_arg(p)
    p.set_defaults(func=_run)
