"""Command-line interface: one module per sub-command, each with ``register(parser)``.

Only the module of the command being run is imported: the others appear in ``--help``
from the table below. So ``simulate`` starts without torch or scipy, and a command's
heavy imports are paid only by that command.

Bad input never shows a traceback: the errors in :data:`engine.errors.USER_ERRORS`
become one readable line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path

from engine.errors import USER_ERRORS, describe

COMMANDS: dict[str, str] = {
    "simulate": "run one policy on one workload",
    "compare": "compare policies on the same workloads",
    "workload": "write a generated or imported workload as native CSV",
    "speedup": "speedup and efficiency of each model for 1..N GPUs (packed)",
    "train": "train the DRL scheduler",
    "improve": "expert iteration: clone trained weights onto searched improvements",
    "reproduce": "evaluate drl against every baseline on unseen workloads",
    "evaluate": "the evaluation matrix: drl against every baseline per cluster, trace and load",
    "headroom": "clairvoyant local search: how far a policy's schedule is from better",
    "fidelity": "tiresias and optimus-elastic against the Pollux simulator's published JCTs",
}
"""Sub-command -> its one-line help; the module ``engine.cli.<name>`` implements it."""


CONSOLE_SCRIPT = "moldable-lab"
"""The installed command (``[project.scripts]``); ``python -m engine`` works everywhere."""


def program_name(argv0: str | None = None) -> str:
    """How the user started the CLI, so usage lines and hints show a command that works."""
    started_as = Path(sys.argv[0] if argv0 is None else argv0).stem
    return CONSOLE_SCRIPT if started_as == CONSOLE_SCRIPT else "python -m engine"


def build_parser(command: str) -> argparse.ArgumentParser:
    """The parser with ``command``'s options; the other commands are listed by name only."""
    parser = argparse.ArgumentParser(
        prog=program_name(),
        description="Simulate, compare and train schedulers for moldable GPU jobs.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        sub = subparsers.add_parser(name, help=summary, description=summary)
        if name == command:
            import_module(f"engine.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen if chosen in COMMANDS else "")
    args = parser.parse_args(argv)
    try:
        if getattr(args, "json", False):
            from engine.cli.common import json_stdout

            with json_stdout():
                return int(args.handler(args) or 0)
        return int(args.handler(args) or 0)
    except USER_ERRORS as error:
        print(f"error: {describe(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
