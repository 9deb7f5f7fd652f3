"""A class on one server: N browser sessions at once, p50/p95 of what each one waits.

Run ``python bench/bench_classroom.py [STUDENTS] [COMPARING]`` (default 30 and 5). Each
student opens Home (timed until the named scenarios show), clicks Run the demo (timed
until its chart shows); the first COMPARING also click Run comparison (5 policies x 3
seeds), which goes through the server-wide line. Target: Home and the demo under 3 s.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser import harness  # noqa: E402


def main(students: int, comparing: int) -> None:
    with harness.serve() as url:
        times = harness.classroom(url, students, comparing)
    print(f"{students} sessions at once ({comparing} also running Compare):")
    print(f"  {len(times['failed'])} sessions timed out")
    for step, values in times.items():
        if values and step != "failed":
            p50, p95 = harness.p50_p95(values)
            print(f"  {step:>8}: p50 {p50:5.1f} s  p95 {p95:5.1f} s  (n={len(values)})")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*(args + [30, 5][len(args):]))
