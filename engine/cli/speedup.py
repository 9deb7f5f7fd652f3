"""``speedup``: the speedup and efficiency table the app plots, per model and GPU count.

``--placements`` prints instead the job model's error against the measurements, per model,
global batch the Pollux workloads use, and measured placement
(``engine.speedup.placement_error``; needs the traces in ``../shared/data``).
"""

from __future__ import annotations

import argparse

from engine.cli.common import positive_int, print_json
from engine.speedup import MODEL_NAMES, get_model
from engine.speedup.table import speedup_table


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--models", default="all", help=f"comma-separated, from {', '.join(MODEL_NAMES)}"
    )
    parser.add_argument("--max-gpus", type=positive_int, default=64, help="largest GPU count")
    parser.add_argument("--gpus-per-node", type=positive_int, default=4, help="GPUs per node")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--placements", action="store_true",
        help="the measured models' error per placement at the Pollux workloads' batch sizes, "
             "against Pollux's measurements",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.placements:
        return _placements(args)
    names = MODEL_NAMES if args.models == "all" else tuple(args.models.split(","))
    table = speedup_table(
        {name: get_model(name) for name in names}, args.max_gpus, args.gpus_per_node
    )
    if args.json:
        print_json(table.to_dict(orient="records"))
        return 0
    wide = table.pivot(index="gpus", columns="model", values="speedup")[list(names)]
    shown = wide.loc[[k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256) if k <= args.max_gpus]]
    print(f"speedup vs 1 GPU on packed {args.gpus_per_node}-GPU nodes")
    print(shown.round(2).to_string())
    return 0


def _placements(args: argparse.Namespace) -> int:
    from engine.speedup.measured import MEASURED_MODELS
    from engine.speedup.placement_error import placement_errors

    names = MEASURED_MODELS if args.models == "all" else tuple(args.models.split(","))
    unknown = sorted(set(names) - set(MEASURED_MODELS))
    if unknown:
        raise ValueError(f"no measurements for {unknown[0]!r}; measured: "
                         f"{', '.join(MEASURED_MODELS)}")
    table = placement_errors(names)
    if args.json:
        print_json(table.to_dict(orient="records"))
        return 0
    table = table.assign(abs_error=table["error"].abs())
    print("speedup vs 1 GPU at each global batch the Pollux workloads use: the job model on")
    print("each placement the Pollux traces measured, against the measurement;")
    print("error = ours / measured - 1")
    print(f"{'model':<12}{'batch':>7}{'placements':>12}{'median':>9}{'p90':>8}{'worst':>8}"
          "  worst at")
    for (model, batch), rows in table.groupby(["model", "batch_size"]):
        worst = rows.loc[rows["abs_error"].idxmax()]
        print(f"{model:<12}{batch:>7}{len(rows):>12}{rows['abs_error'].median():>9.1%}"
              f"{rows['abs_error'].quantile(0.9):>8.1%}{worst['error']:>+8.1%}  "
              f"{worst['placement']} ({worst['gpus']} GPUs on {worst['nodes']} nodes)")
    over = table[table["abs_error"] > 0.15]
    print(f"all: {len(table)} placements, median absolute error "
          f"{table['abs_error'].median():.1%}, {len(over)} beyond 15%" + (": " + ", ".join(
              f"{r.model} {r.batch_size} on {r.placement} {r.error:+.0%}"
              for r in over.itertuples()) if len(over) else ""))
    shape = table["shape_error"].abs()
    print(f"a policy's estimate from (GPUs, nodes) alone, before it knows the placement: "
          f"median {shape.median():.1%}, {int((shape > 0.15).sum())} beyond 15%")
    return 0
