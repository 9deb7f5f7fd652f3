"""Start the app from an installed package: ``python -m lab`` (or ``moldable-lab-app``).

It runs ``streamlit run`` on the installed ``lab/app.py`` with the lab's Streamlit
settings (``lab/streamlit_config.toml``, which a checkout's ``.streamlit/config.toml``
links to) passed as flags, so the theme and options are the same from any folder.
Extra arguments go to ``streamlit run`` (e.g. ``--server.port 8600``).

The launcher *becomes* the server (``exec``) rather than starting it as a child, so a
SIGTERM or Ctrl-C sent to ``moldable-lab-app`` reaches Streamlit, which shuts down; a
child would outlive its killed parent and keep serving.
"""

from __future__ import annotations

import os
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


def main(argv: Sequence[str] | None = None) -> None:
    extra = list(sys.argv[1:] if argv is None else argv)
    command = [sys.executable, "-m", "streamlit", "run", str(HERE / "app.py"),
               *streamlit_flags(), *extra]
    sys.stdout.flush()
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main()
