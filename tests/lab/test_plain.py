"""lab.plain: user text escaped so markdown shows it as typed, and stays readable."""

from __future__ import annotations

import pytest

from lab.plain import plain


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("[log in](http://evil.example)", r"\[log in\](http\://evil.example)"),
        ("![x](https://evil.example/p.png)", r"!\[x\](https\://evil.example/p.png)"),
        ("<img src=x onerror=alert(1)>", r"\<img src=x onerror=alert(1)>"),
        ("see www.evil.example or me@evil.example", r"see www\.evil.example or me\@evil.example"),
        ("*bold* _it_ ~~no~~ $x$ `code`", r"\*bold\* \_it\_ \~\~no\~\~ \$x\$ \`code\`"),
        ("# title", r"\# title"),
        ("1. item", r"1\. item"),
        ("two\nlines\r\n# here", "two lines # here"),  # one line: no heading
        ("row 3, column 'requested_gpus': got '-5'", "row 3, column 'requested_gpus': got '-5'"),
    ],
)
def test_markup_is_escaped_and_plain_text_left_alone(text: str, escaped: str) -> None:
    assert plain(text) == escaped
