"""A labelled heatmap of margins as a standalone SVG: no plotting library, no browser.

Documents embed it as an image (``docs/evaluation.svg``), so it must render the same
everywhere and be written by the engine alone. Colours diverge around 0: green where
``drl`` is faster, red where it is slower, saturating at ``SATURATION``; every square
also prints its value, so colour is never the only cue.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

SATURATION = 0.3
"""A margin of +-30% or more gets the full colour."""
ROW_H, COL_W, HEAD_H, FONT = 26, 150, 56, 14
CHAR_W = 8.2
"""Width of one label character at ``FONT`` px (generous, so no label is cut off)."""


def _colour(value: float) -> str:
    """White at 0, green (faster) or red (slower) towards +-``SATURATION``; grey if NaN."""
    if not math.isfinite(value):
        return "#dddddd"
    t = min(abs(value) / SATURATION, 1.0)
    end = (26, 150, 65) if value > 0 else (215, 48, 39)
    r, g, b = (round(255 + (e - 255) * t) for e in end)
    return f"#{r:02x}{g:02x}{b:02x}"


def margin_heatmap(
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[Sequence[float]],
    title: str,
    marks: Sequence[bool] | None = None,
) -> str:
    """SVG text: ``values[i][j]`` (a fraction, shown as a percentage) for row ``i`` and
    column ``j``; a row whose ``marks`` entry is true is labelled in bold with a ``!``."""
    label_w = 16 + CHAR_W * max(len(row) + 2 for row in rows)
    width = label_w + COL_W * len(columns) + 10
    height = HEAD_H + ROW_H * len(rows) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="DejaVu Sans, Arial, sans-serif" font-size="{FONT}">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="8" y="20" font-size="{FONT + 2}" font-weight="bold">{escape(title)}</text>',
    ]
    for j, column in enumerate(columns):
        x = label_w + COL_W * j + COL_W / 2
        out.append(f'<text x="{x}" y="{HEAD_H - 10}" text-anchor="middle" '
                   f'font-weight="bold">{escape(column)}</text>')
    for i, row in enumerate(rows):
        y = HEAD_H + ROW_H * i
        marked = bool(marks and marks[i])
        weight = ' font-weight="bold"' if marked else ""
        label = ("! " if marked else "") + row
        out.append(f'<text x="{label_w - 8}" y="{y + ROW_H * 0.68}" text-anchor="end"'
                   f'{weight}>{escape(label)}</text>')
        for j, value in enumerate(values[i]):
            x = label_w + COL_W * j
            text = f"{value:+.1%}" if math.isfinite(value) else "n/a"
            out.append(f'<rect x="{x + 1}" y="{y + 1}" width="{COL_W - 2}" '
                       f'height="{ROW_H - 2}" fill="{_colour(value)}"/>')
            out.append(f'<text x="{x + COL_W / 2}" y="{y + ROW_H * 0.68}" '
                       f'text-anchor="middle">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
