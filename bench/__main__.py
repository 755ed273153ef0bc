"""``python -m bench [--quick] [--moves-only] [--deals N] [NAME ...]``: run the
benchmark modules of ``bench/`` (``--moves-only``: ``archive``'s
moves-while-archiving phase alone; ``--deals N``: ``bots`` on N deals)."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import cast

__all__ = ["available", "main"]

Runner = Callable[[bool], list[str]]


def available() -> list[str]:
    """Names of the modules in ``bench/`` (every one but ``__main__`` and ``_private``)."""
    here = Path(__file__).resolve().parent
    return sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_")
    )


def _load(name: str) -> Runner | None:
    module = importlib.import_module(f"bench.{name}")
    run = getattr(module, "run", None)
    return cast(Runner, run) if callable(run) else None


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; the exit status is 1 when one of them failed."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmark modules to run (default all: {', '.join(available())})")
    parser.add_argument("--quick", action="store_true", help="short runs (smoke check)")
    parser.add_argument("--deals", type=int, default=None, metavar="N",
                        help="bots: this many deals (default 200; --quick: 20)")
    parser.add_argument("--moves-only", action="store_true",
                        help="archive: only the moves-while-archiving phase (no queries, "
                             "no write throughput)")
    args = parser.parse_args(argv)
    names = args.names or available()
    unknown = [n for n in names if n not in available()]
    if unknown:
        parser.error(f"no benchmark {', '.join(unknown)}; known: {', '.join(available())}")
    failed = 0
    for name in names:
        try:
            run = _load(name)
            if run is None:
                if args.names:
                    print(f"[{name}] no run(quick) function", file=sys.stderr)
                    failed += 1
                continue
            started = time.perf_counter()
            params = inspect.signature(run).parameters
            if args.moves_only and "moves_only" in params:
                lines = run(args.quick, moves_only=True)  # type: ignore[call-arg]
            elif args.deals is not None and "deals" in params:
                lines = run(args.quick, deals=args.deals)  # type: ignore[call-arg]
            else:
                lines = run(args.quick)
        except Exception:  # one broken benchmark must not hide the others
            print(f"[{name}] FAILED", file=sys.stderr)
            traceback.print_exc()
            failed += 1
            continue
        print(f"[{name}] ({time.perf_counter() - started:.1f} s)")
        for line in lines:
            print(f"  {line}")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
