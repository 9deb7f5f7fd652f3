"""Start the app from an installed package: ``python -m lab`` (or ``moldable-lab-app``).

It runs ``streamlit run`` on the installed ``lab/app.py`` with the lab's Streamlit
settings (``lab/streamlit_config.toml``, which a checkout's ``.streamlit/config.toml``
links to) passed as flags, so the theme and options are the same from any folder.
Extra arguments go to ``streamlit run`` (e.g. ``--server.port 8600``).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent


def streamlit_flags(config: Path = HERE / "streamlit_config.toml") -> list[str]:
    """``--section.option=value`` for every setting of a Streamlit config file."""
    settings = tomllib.loads(config.read_text())
    return [
        f"--{section}.{option}={str(value).lower() if isinstance(value, bool) else value}"
        for section, options in settings.items()
        for option, value in options.items()
    ]


def main(argv: Sequence[str] | None = None) -> int:
    extra = list(sys.argv[1:] if argv is None else argv)
    command = [sys.executable, "-m", "streamlit", "run", str(HERE / "app.py"),
               *streamlit_flags(), *extra]
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
