"""Format sniffing from the first line."""

from __future__ import annotations

import pytest

from engine.workload import FORMATS, sniff, template_csv

SWF_LINE = "1    5094 -1   12072  16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("; Version: 2\n" + SWF_LINE, "swf"),
        ("\n" + SWF_LINE, "swf"),
        ("timestamp,duration,num_gpus,gpu_time,cluster\n", "philly"),
        ("Timestamp, Duration, num_gpus\n", "philly"),
        ("name,time,application,num_replicas,batch_size\n", "pollux"),
        (template_csv(), "csv"),
        ("submit_time,runtime_1gpu\n", "csv"),
        ("", "csv"),
        ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 x\n", "csv"),
    ],
)
def test_sniff(text: str, fmt: str) -> None:
    assert sniff(text) == fmt
    assert fmt in FORMATS
