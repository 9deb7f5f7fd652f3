"""What one browser session remembers: settings, the active workload, trained policies.

Settings live in one plain dict, ``st.session_state["settings"]``, mirrored in the URL's
query parameters so a copied link reopens the same demo. Widgets are bound to it by
:func:`bind` rather than owning the values, because Streamlit forgets a widget's state
when a page that does not draw it runs; the dict survives every page change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from engine.cluster import Cluster
from engine.job import MODES, Job
from engine.parallel import Executor
from engine.policies import ELASTIC_POLICIES, POLICIES
from engine.speedup import MODEL_NAMES
from engine.workload import (
    GeneratorConfig,
    Workload,
    WorkloadError,
    generate,
    to_jobs,
)
from engine.workload.generator import ARRIVALS, BATCH_RULES, REQUEST_RULES, SIZE_DISTRIBUTIONS
from engine.workload.load import load_task
from engine.workload.sniff import sniff
from engine.workload.validate import cluster_problems
from lab.uploads import KEY, UploadStore

SIZES = SIZE_DISTRIBUTIONS
RULES = REQUEST_RULES
GPUS_PER_NODE = (1, 2, 4, 8)
JOB_MODES = ("as-loaded", *MODES)
"""The Workload page's job-mode choice: each job's own ``mode`` column (``moldable`` for a
generated workload), or one mode for every job."""
SPEEDS = {"1 min/s": 60, "10 min/s": 600, "1 h/s": 3600, "6 h/s": 21600, "1 day/s": 86400}
"""The Live page's playback speeds: simulated seconds per wall second."""
MAX_UPLOAD_ROWS = 20_000
"""Jobs an upload may hold: more would not simulate in interactive time."""
KEPT_UPLOAD_MB = 256
"""Memory the server's uploaded or imported workloads may take, kept for links (the least
recently used go first)."""


@dataclass(frozen=True)
class Setting:
    """One shareable setting: its query-parameter name, default, and text parser."""

    name: str
    default: Any
    parse: Callable[[str], Any]


def _number_in(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """A parser of ``kind`` (int or float) that refuses values outside [low, high]."""
    what = "a whole number" if kind is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = math.nan  # Python's own message ("invalid literal ...") is not for people
        if not low <= value <= high:
            raise ValueError(f"expected {what} in [{low:g}, {high:g}]")
        return value

    return parse


def _one_of(choices: tuple[Any, ...]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        for choice in choices:
            if str(choice) == text:
                return choice
        raise ValueError(f"expected one of {', '.join(map(str, choices))}")

    return parse


def _flag(text: str) -> bool:
    """``1``/``0`` (or ``true``/``false``) -> a switch's state."""
    if text.lower() in ("1", "true"):
        return True
    if text.lower() in ("0", "false"):
        return False
    raise ValueError("expected 1 (on) or 0 (off)")


SETTINGS: tuple[Setting, ...] = (
    Setting("nodes", 16, _number_in(int, 1, 64)),
    Setting("gpn", 4, _one_of(GPUS_PER_NODE)),
    Setting("seed", 0, _number_in(int, 0, 10_000)),
    Setting("policy", "drl", _one_of((*POLICIES, *ELASTIC_POLICIES))),
    Setting("jobs", 200, _number_in(int, 10, 2000)),
    Setting("load", 0.85, _number_in(float, 0.1, 2.0)),
    Setting("sizes", "log-uniform", _one_of(SIZES)),
    Setting("rule", "pollux", _one_of(RULES)),
    Setting("arrivals", "poisson", _one_of(ARRIVALS)),
    Setting("batch", "pollux", _one_of(BATCH_RULES)),
    Setting("mode", "as-loaded", _one_of(JOB_MODES)),
    Setting("speed", "1 h/s", _one_of(tuple(SPEEDS))),
    Setting("policies", "drl,threshold-optimal,fifo-request,mesos-offer,sjf-knee",
            lambda text: ",".join(_one_of(tuple(POLICIES))(n) for n in text.split(","))),
    Setting("seeds", 3, _number_in(int, 1, 10)),
    Setting("present", False, _flag),
)
VIEW_ONLY = frozenset({"present"})
"""Settings of how pages look, not of what they compute: presenting the default demo is
still the default demo."""
DEFAULT_MIX: dict[str, float] = {name: 1.0 for name in MODEL_NAMES[:6]}
"""Every measured model equally often: the Pollux evaluation's mix."""


def mix_key(model: str) -> str:
    return f"mix_{model}"


def parse_mix(text: str) -> dict[str, float]:
    """``"bert:1,ncf:2.5"`` -> weights; raises ValueError naming the bad part."""
    mix: dict[str, float] = {}
    for part in filter(None, text.split(",")):
        model, _, weight = part.partition(":")
        if model not in MODEL_NAMES:
            raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODEL_NAMES)}")
        mix[model] = float(weight or 1)
        if not 0 <= mix[model] <= 10:
            raise ValueError(f"weight of {model} must be in [0, 10]")
    if not any(mix.values()):
        raise ValueError("expected at least one model with a positive weight")
    return mix


def encode_mix(mix: dict[str, float]) -> str:
    return ",".join(f"{m}:{w:g}" for m, w in mix.items() if w > 0)


# -- booting and mirroring the URL ------------------------------------------------------


def boot() -> list[str]:
    """On a session's first run, take settings from the URL; returns what was refused."""
    ss = st.session_state
    if ss.get("_booted"):
        return []
    ss["_booted"] = True
    params = st.query_params
    refused = []
    settings: dict[str, Any] = {}
    for setting in SETTINGS:
        value = setting.default
        if setting.name in params:
            try:
                value = setting.parse(params[setting.name])
            except ValueError as error:
                refused.append(f"{setting.name}={params[setting.name]}: {error}")
        settings[setting.name] = value
    mix = DEFAULT_MIX
    if "mix" in params:
        try:
            mix = parse_mix(params["mix"])
        except ValueError as error:
            refused.append(f"mix={params['mix']}: {error}")
    for model in MODEL_NAMES:
        settings[mix_key(model)] = float(mix.get(model, 0.0))
    ss["settings"] = settings
    ss["trained"] = {}
    if "upload" in params:
        key = params["upload"]
        kept = uploads().get(key) if KEY.fullmatch(key) else None
        if kept is None:
            refused.append(f"upload={key}: this server does not have that uploaded workload "
                           f"(it keeps the latest {KEPT_UPLOAD_MB} MB of them), so the "
                           "generated one is shown; upload the file again")
        else:
            use_loaded(kept[1], kept[0])
    return refused


def bind(name: str, then: Callable[[], None] | None = None) -> dict[str, Any]:
    """``key`` and ``on_change`` for a widget showing setting ``name``.

    The widget's own state is refreshed from the settings before it is drawn, and a
    change is written back (then ``then`` runs), so the value outlives the page.
    """
    key = f"w_{name}"
    st.session_state[key] = st.session_state["settings"][name]

    def changed() -> None:
        st.session_state["settings"][name] = st.session_state[key]
        if then is not None:
            then()

    return {"key": key, "on_change": changed}


def mirror_to_url() -> None:
    """Write the settings into the query parameters (only when they changed)."""
    wanted = {s.name: str(int(v) if isinstance(v := get(s.name), bool) else v)
              for s in SETTINGS}
    wanted["mix"] = encode_mix(model_mix())
    if origin() != "generated":
        wanted["upload"] = st.session_state["upload"]
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def get(name: str) -> Any:
    return st.session_state["settings"][name]


def put(name: str, value: Any) -> None:
    st.session_state["settings"][name] = value


def is_default() -> bool:
    """Whether the session shows the generated workload with every setting at its default:
    what every student sees first."""
    return (origin() == "generated" and model_mix() == DEFAULT_MIX
            and all(get(s.name) == s.default for s in SETTINGS if s.name not in VIEW_ONLY))


def presenting() -> bool:
    """Whether the pages are shown for a projector (presentation mode)."""
    return bool(get("present"))


def cluster() -> Cluster:
    return Cluster(nodes=int(get("nodes")), gpus_per_node=int(get("gpn")))


def seed() -> int:
    return int(get("seed"))


def model_mix() -> dict[str, float]:
    mix = {m: float(get(mix_key(m))) for m in MODEL_NAMES}
    return {m: w for m, w in mix.items() if w > 0} or dict(DEFAULT_MIX)


# -- the active workload ----------------------------------------------------------------


def generator_config() -> GeneratorConfig:
    """The generator settings of the sliders (and of the URL)."""
    return GeneratorConfig(
        jobs=int(get("jobs")),
        load=float(get("load")),
        seed=seed(),
        size_distribution=get("sizes"),
        model_mix=model_mix(),
        request_rule=get("rule"),
        arrivals=get("arrivals"),
        batch_rule=get("batch"),
    )


def workload() -> Workload:
    """The workload every page uses: generated from the settings, or the one loaded.

    A generated workload is rebuilt only when a setting it depends on changes.
    """
    ss = st.session_state
    if ss.get("origin", "generated") == "generated":
        key = ("generated", repr(generator_config()), cluster())
        if ss.get("workload_key") != key:
            ss["workload"] = generate(generator_config(), cluster())
            ss["workload_key"] = key
    return ss["workload"]


def origin() -> str:
    """Where the active workload came from, in words."""
    return st.session_state.get("origin", "generated")


def use_loaded(loaded: Workload, label: str) -> None:
    """Make an uploaded or imported workload the active one, kept on the server by its
    content so the link (``upload=<key>``) reopens it. ``label`` is this session's name
    for it; a link shows the label the content was first stored under."""
    ss = st.session_state
    ss["workload"] = loaded
    ss["origin"] = label
    ss["upload"] = uploads().keep(loaded, label)
    ss["workload_key"] = ("loaded", ss["upload"])


@st.cache_resource(show_spinner=False)
def uploads() -> UploadStore:
    """The server-wide store of uploaded workloads, shared by every session."""
    return UploadStore(KEPT_UPLOAD_MB * 2**20)


def recheck() -> WorkloadError | None:
    """Whether the active workload still suits the cluster: every job fits (a loaded
    workload was checked against the cluster of its upload).

    Checked once per workload and cluster in a session.
    """
    ss = st.session_state
    active = workload()
    mark = (ss["workload_key"], cluster())
    if ss.get("recheck_mark") != mark:
        problems = list(cluster_problems(active.frame, cluster()))
        ss["recheck_error"] = WorkloadError(problems) if problems else None
        ss["recheck_mark"] = mark
    return ss["recheck_error"]


def try_load(
    source: bytes | str, fmt: str, label: str, name: str | None = None,
    attempt: Hashable = None,
) -> WorkloadError | None:
    """Load an upload or a file; on success it becomes the active workload.

    On failure the error is returned for the page to show and the previous workload
    stays active, so a bad file never loses work. Either way ``attempt`` (default
    ``label``) and the error become :func:`last_load`.
    """
    attempt = label if attempt is None else attempt
    options = {"fmt": fmt, "cluster": cluster(), "max_rows": MAX_UPLOAD_ROWS, "name": name,
               "row_limit_hint": "the app's limit, to keep every page interactive; simulate "
               "bigger files with `python -m engine simulate --workload FILE`"}
    try:
        (loaded,) = reader().map(load_task, [source], shared=options)
    except WorkloadError as error:
        st.session_state["last_load"] = (attempt, error)
        return error
    use_loaded(loaded, label)
    st.session_state["last_load"] = (attempt, None)
    return None


@st.cache_resource(show_spinner=False)
def reader() -> Executor:
    """The server's one worker process for reading uploads and imports: a 45 MB upload
    takes about 2 s and 480 MB to parse, which in the server process would hold every
    session's pages (their one interpreter lock) and stay in its memory. Not the heavy
    runs' worker, so an upload never waits behind a comparison."""
    return Executor("local", workers=1, offload=True).start("engine.workload.load")


def last_load() -> tuple[Hashable, WorkloadError | None] | None:
    """The latest load attempt and its error, until the next load or the generator: a
    failed upload's message belongs to that attempt, not to every uploader still holding a
    file."""
    return st.session_state.get("last_load")


def sniffed(data: bytes) -> str:
    """The format an upload's first line says it is (``engine.workload.sniff``)."""
    return sniff(data[:65_536].decode("utf-8", errors="replace"))


def head(path: Path, jobs: int) -> str:
    """The first ``jobs`` job lines of a big trace (plus its header or comments).

    The bundled Philly and SWF traces hold 10,000-80,000 jobs, far more than a demo
    simulates in seconds; this is ``head -n`` on the file, nothing more.
    """
    kept: list[str] = []
    count = 0
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if line.startswith(";") or (number == 0 and not line[:1].isdigit()):
                kept.append(line)
                continue
            if count == jobs:
                break
            kept.append(line)
            count += 1
    return "".join(kept)


def use_generator() -> None:
    st.session_state["origin"] = "generated"
    st.session_state.pop("workload_key", None)
    st.session_state.pop("upload", None)
    st.session_state.pop("last_load", None)


def workload_key() -> tuple:
    """Identifies the active workload (by content), cluster, seed and job mode, for caching
    results."""
    workload()
    return (*st.session_state["workload_key"], cluster(), seed(), job_mode())


def job_mode() -> str | None:
    """The mode every job runs in, or ``None``: each job's own (``engine.job.MODES``)."""
    mode = get("mode")
    return None if mode == "as-loaded" else mode


def jobs() -> list[Job]:
    """The active workload's jobs on the current cluster, in the chosen job mode
    (WorkloadError if they don't fit)."""
    return to_jobs(workload(), cluster(), job_mode())

