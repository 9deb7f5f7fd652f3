"""Getting text out of whatever the user handed over: a path, an upload, or a string."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from engine.workload.errors import Problem, WorkloadError


class Readable(Protocol):
    """A file-like object, e.g. a Streamlit ``UploadedFile``."""

    def read(self) -> bytes | str: ...


Source = str | os.PathLike | bytes | bytearray | memoryview | Readable
"""A path, raw bytes (an upload), text, or an open file.

A ``str`` holding a line break is taken as the file's text, any other ``str`` as a
path: a workload always has a header line and a job line, so text never lacks one.
"""

_UTF8_HINT = "UTF-8 text (in Excel: Save As > 'CSV UTF-8')"


def read_source(source: Source) -> tuple[str, str]:
    """The source's text and a name for it (the file's stem, or ``"workload"``)."""
    name = "workload"
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source):
        path = Path(source)
        return decode(path.read_bytes()), path.stem
    if hasattr(source, "read"):
        name = Path(getattr(source, "name", name)).stem or name
        source = source.read()
    if isinstance(source, str):
        return _text(source), name
    return decode(bytes(source)), name


def decode(data: bytes) -> str:
    """UTF-8 text without a byte-order mark, or a WorkloadError saying where it broke."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        if b"\x00" in data:
            raise _binary() from None
        raise WorkloadError(
            [Problem(line, None, f"byte 0x{data[err.start]:02x} is not UTF-8", _UTF8_HINT)]
        ) from None
    return _text(text)


def _text(text: str) -> str:
    """``text`` with every line ending a ``\n``, or a WorkloadError if it is binary.

    Spreadsheets' "CSV (Macintosh)" ends lines with a lone ``\r``; the readers split
    on ``\n`` only.
    """
    if "\x00" in text:
        raise _binary()
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _binary() -> WorkloadError:
    return WorkloadError(
        [Problem(None, None, "the file looks binary (it contains NUL bytes)", _UTF8_HINT)]
    )
