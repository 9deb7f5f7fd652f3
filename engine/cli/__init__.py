"""Command-line interface: one module per sub-command, each with ``register(subparsers)``.

Bad input never shows a traceback: known errors become one readable line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine.cli import (
    compare,
    headroom,
    improve,
    reproduce,
    simulate,
    speedup,
    train,
    workload,
)
from engine.cli.common import USER_ERRORS

COMMANDS = (simulate, compare, workload, speedup, train, improve, reproduce, headroom)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Simulate, compare and train schedulers for moldable GPU jobs.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except USER_ERRORS as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
