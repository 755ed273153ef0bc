"""``lucie deal N``: print a deal's initial layout."""

from __future__ import annotations

import argparse
import json

from server.rules import (
    DEFAULT_VARIANT,
    VARIANTS,
    RulesError,
    deal,
    get_variant,
    position_to_json,
)
from server.rules.cards import card_str

from .common import positive_int

__all__ = ["add_parser", "format_deal"]


def format_deal(variant: str, deal_number: int, fmt: str) -> str:
    """The layout of ``deal_number`` as ``text``, ``json`` or ``lblsolve`` text.

    ``text``: one fan per line, bottom → top, cards in our notation;
    ``lblsolve``: the same with tens written ``10`` (the input format of the
    ``lblsolve`` solver); ``json``: the position JSON of ``docs/protocol.md``.

    :raises RulesError: unknown variant or bad deal number.
    """
    rules = get_variant(variant)
    pos = deal(rules, deal_number)
    if fmt == "json":
        doc = {"variant": variant, "deal_number": deal_number, **position_to_json(pos)}
        return json.dumps(doc, indent=2)
    lines = []
    for fan in pos.fans:
        cards = [card_str(c) for c in fan]
        if fmt == "lblsolve":
            cards = [c.replace("T", "10") for c in cards]
        lines.append(" ".join(cards))
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    try:
        print(format_deal(args.variant, args.number, args.format))
    except RulesError as exc:
        print(f"lucie deal: {exc}")
        return 2
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``deal`` on the ``lucie`` command line."""
    p = sub.add_parser(
        "deal",
        help="print a deal's initial layout",
        description="Print the initial layout of deal number N (PySolFC-compatible).",
        epilog="examples:\n  lucie deal 1\n  lucie deal 123456 --variant trefoil\n"
        "  lucie deal 7 --format lblsolve > deal7.txt   (input for the lblsolve solver)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("number", type=positive_int, help="deal number, 1 … 10^20 - 1")
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=list(VARIANTS),
                   help=f"variant (default {DEFAULT_VARIANT})")
    p.add_argument("--format", default="text", choices=["text", "json", "lblsolve"],
                   help="output format (default text: one fan per line, bottom to top)")
    p.set_defaults(func=_run)
