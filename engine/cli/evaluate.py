"""``evaluate``: the evaluation matrix, ``drl`` against every baseline in every cell.

The cells (cluster shape x workload source x load) come from one committed file,
``engine/data/evaluation_cells.toml`` (``--cells`` for another); see
:mod:`engine.evaluation`. Prints one line per cell: ``drl``'s mean average JCT, the
best non-oracle baseline there and ``drl``'s margin over it, over ``fifo-request`` and
over ``threshold-optimal``, each +- the 95% CI of its per-workload values; then the
mean margin over ``threshold-optimal``, the cells where ``drl`` is more than 3% behind
the best baseline or behind ``fifo-request``, and those where it is behind the best
baseline beyond its CI.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from tqdm import tqdm

from engine.cli import program_name
from engine.cli.common import add_executor_options, executor_from, output_file, print_json
from engine.drl.pretrained import update_card
from engine.evaluation import (
    CEILING,
    CELLS_PATH,
    FLOOR,
    REFERENCE,
    TOLERANCE,
    Matrix,
    evaluate,
    read_cells,
)
from engine.heatmap import margin_heatmap
from engine.paths import code_version, pretrained_dir

COLUMNS = {"best": "vs best baseline", FLOOR: f"vs {FLOOR}", REFERENCE: f"vs {REFERENCE}"}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cells", type=Path, default=CELLS_PATH, metavar="FILE",
                        help="the cells to run (default: the committed matrix)")
    parser.add_argument("--quick", action="store_true",
                        help="first cluster and load of each group, 2 workloads of 100 jobs "
                             "(a smoke run, not a result)")
    parser.add_argument("--heatmap", type=Path, metavar="SVG",
                        help="also write the margins as a heatmap (e.g. docs/evaluation.svg)")
    parser.add_argument("--markdown", type=Path, metavar="MD",
                        help="also write the matrix as a markdown table")
    parser.add_argument("--card", nargs="?", const=str(pretrained_dir()), metavar="DIR",
                        help="also write the matrix into the pretrained model card")
    parser.add_argument("--ceiling", action="store_true",
                        help=f"also run {CEILING} (drl's teachers, the best picked in "
                             "hindsight) and print how far it gets against the best "
                             "baseline: the cells whose bar is beyond the student's rules")
    add_executor_options(parser)
    parser.add_argument("--json", action="store_true", help="print the matrix as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cells, skipped = read_cells(args.cells, args.quick)
    with executor_from(args) as executor, tqdm(
        total=0, desc="evaluate", unit="run", unit_scale=True, file=sys.stderr, leave=False,
        mininterval=0.5,
    ) as bar:
        executor.start("engine.compare", "engine.policies.drl")

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)  # drawn at most every mininterval, not once per run

        matrix = evaluate(cells, executor, progress, skipped, ceiling=args.ceiling)
    if args.heatmap:
        with output_file(args.heatmap) as file:
            file.write(heatmap(matrix))
    if args.markdown:
        with output_file(args.markdown) as file:
            file.write(markdown(matrix))
    if args.card:
        update_card({"evaluation_matrix": {
            **matrix.as_dict(), "code_version": code_version(),
            "command": " ".join([program_name(), *sys.argv[1:]])}}, args.card)
    if args.json:
        print_json(matrix.as_dict())
        return 0
    print(format_matrix(matrix))
    return 0


def heatmap(matrix: Matrix) -> str:
    """The matrix's margins as an SVG heatmap, cells that fail the bar marked."""
    return margin_heatmap(
        [f"{r.cell.name} ({r.offered_load:.2g}), best: {r.best_baseline}"
         for r in matrix.cells],
        list(COLUMNS.values()),
        [[r.margins[key][0] for key in COLUMNS] for r in matrix.cells],
        "drl's average JCT, lower (+) or higher (-); ! = over 3% behind the best baseline",
        [not r.holds for r in matrix.cells],
    )


def markdown(matrix: Matrix) -> str:
    """The matrix as a markdown table (drl's mean average JCT, the best baseline and its,
    the three margins +- CI), for documents."""
    ceiling = any(r.ceiling is not None for r in matrix.cells)
    titles = [*COLUMNS.values(), *([f"`{CEILING}` vs best"] if ceiling else [])]
    head = ("| cell | load | `drl` (s) | best baseline (s) | "
            + " | ".join(titles) + " |\n|" + "---|" * (4 + len(titles)) + "\n")
    rows = []
    for r in matrix.cells:
        best = r.policies[r.best_baseline][0]
        margins = " | ".join(_margin(*r.margins[key], plus_minus="±") for key in COLUMNS)
        if ceiling:
            margins += " | " + (_margin(r.ceiling, math.nan) if r.ceiling is not None else "")
        mark = "" if r.holds else " **(behind)**"
        rows.append(f"| {r.cell.name}{mark} | {r.offered_load:.2f} | "
                    f"{r.policies['drl'][0]:,.0f} | `{r.best_baseline}` {best:,.0f} | "
                    f"{margins} |")
    return head + "\n".join(rows) + "\n"


def format_matrix(matrix: Matrix) -> str:
    """One line per cell, then the headline and the cells that miss the bar."""
    lines = [f"{'cell':<58}{'load':>6}{'drl (s)':>10}  {'best baseline':<16}"
             + "".join(f"{title:>22}" for title in COLUMNS.values())]
    ceiling = any(r.ceiling is not None for r in matrix.cells)
    if ceiling:
        lines[0] += f"{'ceiling vs best':>18}"
    for r in matrix.cells:
        margins = "".join(f"{_margin(*r.margins[key]):>22}" for key in COLUMNS)
        if ceiling:
            margins += f"{_margin(r.ceiling, math.nan):>18}" if r.ceiling is not None else ""
        mark = "" if r.holds else "  <- behind"
        lines.append(f"{r.cell.name:<58}{r.offered_load:>6.2f}{r.policies['drl'][0]:>10,.0f}  "
                     f"{r.best_baseline:<16}{margins}{mark}")
    behind = [r.cell.name for r in matrix.cells if not r.holds]
    lines.append(f"mean margin vs {REFERENCE} over {len(matrix.cells)} cells: "
                 f"{matrix.mean_margin_vs_reference:+.1%} (target +20%)")
    lines.append(f"cells where drl is more than {TOLERANCE:.0%} behind the best baseline "
                 f"or behind {FLOOR}: {len(behind)}" + (": " + "; ".join(behind) if behind else ""))
    clearly = [r.cell.name for r in matrix.cells if r.clearly_behind]
    lines.append(f"cells where drl is behind the best baseline beyond its 95% CI: {len(clearly)}"
                 + (": " + "; ".join(clearly) if clearly else ""))
    if ceiling:
        capped = [f"{r.cell.name} ({r.ceiling:+.1%})" for r in matrix.cells
                  if r.ceiling is not None and r.ceiling < -TOLERANCE]
        lines.append(f"cells where even {CEILING} is more than {TOLERANCE:.0%} behind the "
                     f"best baseline (the bar is beyond drl's teachers): {len(capped)}"
                     + (": " + "; ".join(capped) if capped else ""))
    lines += [f"skipped {note}" for note in matrix.skipped]
    lines += [f"policy {name} did not run: {why}" for name, why in
              matrix.skipped_policies.items()]
    return "\n".join(lines)


def _margin(mean: float, half: float, plus_minus: str = "+-") -> str:
    return f"{mean:+.1%}" + (f" {plus_minus} {half:.1%}" if half == half else "")
