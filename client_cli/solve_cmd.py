"""``lucie solve N``: run the solver on a deal and print the verdict, moves and stats."""

from __future__ import annotations

import argparse

from server.rules import DEFAULT_VARIANT, VARIANTS, RulesError, deal, get_variant
from server.solver import MODES, default_redeal_key, difficulty, solve

from .common import positive_float, positive_int

__all__ = ["add_parser", "format_result"]


def format_result(variant: str, deal_number: int, mode: str, key_hex: str | None,
                  seconds: float, *, rate: bool = False) -> str:
    """Solve deal ``deal_number`` and describe the answer as text.

    ``key_hex``: the redeal key in hex (default: the solver's public key for
    the deal, :func:`server.solver.default_redeal_key`); ``rate``: add the
    deal's difficulty rating (:func:`server.solver.difficulty`).

    :raises RulesError: unknown variant, bad deal number, bad key, or a rule
        set the solver does not handle.
    """
    rules = get_variant(variant)
    try:
        key = bytes.fromhex(key_hex) if key_hex is not None else default_redeal_key(deal_number)
    except ValueError:
        raise RulesError(f"--key must be hexadecimal, not {key_hex!r}") from None
    res = solve(rules, deal(rules, deal_number), key, mode=mode,  # type: ignore[arg-type]
                max_seconds=seconds)
    lines = [
        f"deal {deal_number} ({variant}), mode {mode}, redeal key {key.hex()}",
        f"verdict: {res.verdict}" + ("" if res.exact else " (budget spent)"),
        f"best foundation count: {res.best_foundation}/{rules.cards}"
        + (" (exact)" if res.exact and mode == "one-layout" else ""),
        f"moves ({len(res.moves)}): " + " ".join(str(m) for m in res.moves),
        f"searched {res.nodes} positions in {res.seconds:.3f} s",
    ]
    if rate:
        d = difficulty(rules, deal_number, key, max_seconds=seconds)
        lines.append(f"difficulty: {d.label} (score {d.score}/100; planned play "
                     f"{d.planned}/{rules.cards}, first layout {d.first_layout}, par {d.par})")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    try:
        print(format_result(args.variant, args.number, args.mode, args.key, args.seconds,
                            rate=args.difficulty))
    except RulesError as exc:
        print(f"lucie solve: {exc}")
        return 2
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``solve`` on the ``lucie`` command line."""
    p = sub.add_parser(
        "solve",
        help="solve a deal (won / lost / unknown, with the moves)",
        description="Search deal number N: known-redeals mode sees through the redeals "
        "(given the redeal key); one-layout mode finds the most foundation cards "
        "without redealing.",
        epilog="examples:\n  lucie solve 1\n  lucie solve 7 --mode one-layout\n"
        "  lucie solve 12 --variant trefoil --key 00ff... --seconds 5\n"
        "  lucie solve 4 --difficulty",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("number", type=positive_int, help="deal number, 1 … 10^20 - 1")
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=list(VARIANTS),
                   help=f"variant (default {DEFAULT_VARIANT})")
    p.add_argument("--mode", default="known-redeals", choices=list(MODES),
                   help="search mode (default known-redeals)")
    p.add_argument("--key", default=None, metavar="HEX",
                   help="redeal key in hex (default: the solver's public key for the deal)")
    p.add_argument("--seconds", type=positive_float, default=10.0,
                   help="time budget in seconds, above 0 (default 10)")
    p.add_argument("--difficulty", action="store_true",
                   help="also rate the deal (planned play, first layout, par)")
    p.set_defaults(func=_run)
