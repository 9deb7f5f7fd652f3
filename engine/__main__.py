"""``python -m engine``: the command-line face of everything the app can do."""

from engine.cli import main

raise SystemExit(main())
