"""Importing the simulator stays light: no torch, no scipy, no DRL code, no weights.

Every command and page imports the simulator, so what it drags in is paid by all of
them; the registry names policy modules instead of importing them to keep it so.
"""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("torch", "scipy", "engine.drl", "engine.env", "engine.policies.drl", "streamlit")


def test_import_engine_simulator_loads_nothing_heavy():
    code = (
        "import sys, engine.simulator, engine.run, engine.policies; "
        f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_running_a_baseline_loads_no_drl_code():
    code = (
        "import sys; from engine.cluster import Cluster; from engine.run import run_policy; "
        "from engine.workload import GeneratorConfig, generate, to_jobs; c = Cluster(2, 4); "
        "run_policy('sjf-knee', to_jobs(generate(GeneratorConfig(jobs=20), c), c), c); "
        f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
