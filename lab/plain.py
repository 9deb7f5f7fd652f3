"""User text inside Streamlit markdown, shown as the text it is.

File names, link values and CSV cells reach captions, warnings and headers, which render
markdown: ``[Session expired](http://...)`` in a file name was a live link on everyone's
page that opened the shared link. Every place that puts such text in markdown passes it
through :func:`plain`.
"""

from __future__ import annotations

import re

_MARKUP = re.compile(
    r"([\\`*\[\]<~$@])"  # code, emphasis, links and images, HTML, strike, math, e-mail
    r"|(?<![0-9A-Za-z])(_)|(_)(?![0-9A-Za-z])"  # emphasis (never inside a word)
    r"|(?<=[A-Za-z]):(?=//)|(?<=[wW]{3})\."  # bare https:// and www. links
)
_LEADING = re.compile(r"^(\d*)([#>+\-=.)])")
"""A block marker at the start: a heading, quote, list item or underline."""
_BREAKS = re.compile(r"[\r\n\t\v\f]+")


def plain(text: object) -> str:
    """``text`` on one line, escaped so markdown shows it as typed: no link, image, HTML,
    emphasis, heading or formula can come out of it.

    Only what could start markup is escaped, so ordinary messages stay readable in
    their source: a comma, a quote or ``requested_gpus`` are left as they are.
    """
    one_line = _BREAKS.sub(" ", str(text))
    escaped = _MARKUP.sub(lambda m: "\\" + m.group(0), one_line)
    return _LEADING.sub(r"\1\\\2", escaped)
