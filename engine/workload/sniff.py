"""Telling the supported formats apart from their first line."""

from __future__ import annotations

from engine.workload.importers import PHILLY_COLUMNS, POLLUX_COLUMNS, SWF_FIELDS

FORMATS: tuple[str, ...] = ("csv", "swf", "philly", "pollux")


def sniff(text: str) -> str:
    """The format of ``text``, one of ``FORMATS``; anything unrecognised is native CSV.

    SWF starts with ``;`` comments or has 18 numeric whitespace-separated fields; the
    Philly and Pollux traces are recognised by their headers. Falling back to CSV means
    a stray file is judged by the native format's (detailed) validation.
    """
    start = text.lstrip()  # the same string when nothing leads: no copy of a big file
    end = start.find("\n")
    first = (start if end < 0 else start[:end]).strip()
    if first.startswith(";") or _is_swf_record(first.split()):
        return "swf"
    header = tuple(name.strip().lower() for name in first.split(","))
    if header[:3] == PHILLY_COLUMNS[:3]:
        return "philly"
    if header[: len(POLLUX_COLUMNS)] == POLLUX_COLUMNS:
        return "pollux"
    return "csv"


def _is_swf_record(fields: list[str]) -> bool:
    if len(fields) != SWF_FIELDS:
        return False
    try:
        [float(field) for field in fields]
    except ValueError:
        return False
    return True
