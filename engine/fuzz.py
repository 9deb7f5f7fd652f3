"""A mutation fuzzer for the workload loaders and the CLI: hostile files, made on demand.

The lab reads whatever files a class brings, so its loaders are tested against files
built to break them: valid seeds of every format (native CSV, SWF, Philly, Pollux),
mutated by byte flips, truncation, huge and tiny numbers, odd encodings and line
endings, many columns and long cells. Case ``i`` of a seed is always the same bytes,
so a failure reproduces from its number. ``tests/fuzz`` runs a fast slice in-process;
``bench/bench_fuzz.py`` runs thousands through the CLI in subprocesses.

Every case must end in a result or in a user error (exit 2), never a traceback, a hang
or a job silently lost.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

SEEDS: dict[str, bytes] = {
    "csv": (
        b"submit_time,runtime_1gpu,model,requested_gpus,min_gpus,max_gpus,job_id,mode,"
        b"serial_fraction,downey_A,downey_sigma\n"
        b"0,3600,bert,4,1,16,bert-finetune,moldable,,,\n"
        b"120,7200,amdahl,8,2,32,amdahl-job,rigid,0.02,,\n"
        b"300,1800,downey,2,1,8,downey-job,malleable,,16,0.5\n"
        b"900,14400,linear,16,4,64,ideal-job,moldable,,,\n"
    ),
    "swf": (
        b"; Version: 2.2\n; MaxProcs: 256\n"
        b"1    5094 -1   12072  16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"
        b"2    5170 -1       2   1 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"
        b"3    6000 -1    3600   4 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"
    ),
    "philly": (
        b"timestamp,duration,num_gpus,gpu_time,cluster\n"
        b"2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
        b"2017-10-09 06:13:03,2951.0,1,2951.0,6214e9\n"
        b"2017-10-09 08:00:00,600.0,8,4800.0,6214e9\n"
    ),
    "pollux": (
        b"name,time,application,num_replicas,batch_size\n"
        b"cifar10-0,107,cifar10,6,2048\n"
        b"deepspeech2-1,110,deepspeech2,6,320\n"
        b"bert-2,400,bert,2,12\n"
    ),
}
"""One small valid file of each format the loader sniffs."""

EXTREMES: tuple[bytes, ...] = (
    b"1e308", b"-1e308", b"5e-324", b"1e17", b"1700000000000000000", b"0", b"-0", b"nan",
    b"inf", b"-inf", b"99999999999999999999999", b"0x10", b"1_000", b"\xc2\xa03", b"",
)
"""Numbers at and past the edges of what a float, a column or a clock can hold."""
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def _flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _extreme(data: bytes, rng: random.Random) -> bytes:
    numbers = list(_NUMBER.finditer(data))
    if not numbers:
        return data
    chosen = rng.sample(numbers, min(len(numbers), rng.randint(1, 3)))
    for match in sorted(chosen, key=lambda m: m.start(), reverse=True):
        data = data[: match.start()] + rng.choice(EXTREMES) + data[match.end() :]
    return data


def _line_endings(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\n", rng.choice((b"\r", b"\r\n", b"\n\n", b"\r\r\n")))


def _encoding(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", errors="replace")
    kind = rng.randrange(4)
    if kind == 0:
        return text.encode("utf-16")
    if kind == 1:
        return b"\xef\xbb\xbf" + data
    if kind == 2:
        return text.replace("a", "\u00e4").encode("latin-1", errors="replace")
    return data.replace(b",", b"\x00,", 1)


def _many_columns(data: bytes, rng: random.Random) -> bytes:
    head, _, rest = data.partition(b"\n")
    count = rng.choice((200, 2000, 6000))
    extra = b"".join(b",x%d" % i for i in range(count))
    cells = b"," * count
    return head + extra + b"\n" + rest.replace(b"\n", cells + b"\n")


def _long_cell(data: bytes, rng: random.Random) -> bytes:
    cell = rng.choice((b"x", b"9", b"\"")) * rng.choice((1000, 131_073, 400_000))
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    lines[i] = lines[i] + b"," + cell
    return b"\n".join(lines)


def _shuffle_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    kind = rng.randrange(3)
    if kind == 0:
        rng.shuffle(lines)
    elif kind == 1:
        lines = lines * rng.choice((2, 50))
    elif lines:
        del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def _markup(data: bytes, rng: random.Random) -> bytes:
    lure = rng.choice((b"[x](http://e)", b"<img src=x>", b"\"a,\nb\"", b"'; --", b"%s%n"))
    return data.replace(b",", b"," + lure, 1)


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip": _flip,
    "truncate": _truncate,
    "extreme": _extreme,
    "line-endings": _line_endings,
    "encoding": _encoding,
    "many-columns": _many_columns,
    "long-cell": _long_cell,
    "lines": _shuffle_lines,
    "markup": _markup,
}


def case(number: int, seed: int = 0) -> tuple[str, bytes]:
    """Case ``number``: a description (seed file and mutations) and its bytes."""
    rng = random.Random(seed * 1_000_003 + number)
    source = rng.choice(sorted(SEEDS))
    data = SEEDS[source]
    names = rng.sample(sorted(MUTATIONS), rng.choice((1, 1, 2, 3)))
    for name in names:
        data = MUTATIONS[name](data, rng)
    return f"#{number} {source}+{'+'.join(names)}", data
