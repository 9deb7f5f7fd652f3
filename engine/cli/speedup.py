"""``speedup``: the speedup and efficiency table the app plots, per model and GPU count.

``--placements`` prints instead the default fits' error against the measurements per
model and placement (``engine.speedup.placement_error``; needs ``../shared/data``).
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
        help="the measured models' fit error per placement, against Pollux's measurements",
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
    print("speedup at each profile's reference local batch: measured (Pollux traces) vs the")
    print("default fit; error = fitted / measured - 1. The fidelity command's table model")
    print("reads the measured value itself.")
    shown = table.assign(error=table["error"].map("{:+.0%}".format))
    print(shown.round(2).to_string(index=False))
    mean = table.assign(error=table["error"].abs()).groupby("model")["error"].agg(["mean", "max"])
    print("mean / worst absolute error per model: " + ", ".join(
        f"{m} {r['mean']:.0%} / {r['max']:.0%}" for m, r in mean.iterrows()))
    return 0
