"""The page's scripts and style sheets as served: without comments, indentation and blank lines.

A phone parses every byte of the first load (the budget: 100 KB decoded, docs/page.md), and a
third of the sources is comments and indentation written for the people who read them. This is
not a minifier: it works line by line and keeps every line that holds code exactly as written
(but for its leading blanks), so a script's statements, strings and line numbers stay readable
in the browser's console. It removes

* leading blanks of every line outside a template literal that spans lines (its text is kept as
  it is: it may be HTML shown with ``white-space: pre``);
* lines that hold only a ``//`` comment, and ``/* … */`` comments that begin a line and end at
  the end of a line (the only kinds the project's sources use);
* blank lines.

A line that holds code and a comment is kept whole. The sources must not put a backtick inside
a string, a comment or a regular expression (``tests/test_web_compact.py`` checks the files).
"""

from __future__ import annotations


def compact_js(text: str) -> str:
    """The script ``text`` without comment lines, indentation and blank lines."""
    out: list[str] = []
    in_template = False  # inside a template literal that began on an earlier line
    in_comment = False
    for line in text.splitlines():
        if in_template:
            out.append(line)
            in_template = line.count("`") % 2 == 0
            continue
        stripped = line.strip()
        if in_comment:  # a block comment over lines: it ends at its "*/"
            if "*/" not in stripped:
                continue
            in_comment = False
            stripped = stripped[stripped.index("*/") + 2:].strip()
        elif stripped.startswith("/*"):
            close = stripped.find("*/", 2)
            if close < 0:
                in_comment = True
                continue
            if close == len(stripped) - 2:
                continue  # a comment alone on its line
            # a comment, then code: the line is kept as it is
        if not stripped or stripped.startswith("//"):
            continue
        out.append(stripped)
        in_template = stripped.count("`") % 2 == 1
    return "\n".join(out) + "\n"


def compact_css(text: str) -> str:
    """The style sheet ``text`` without comments, indentation and blank lines."""
    out: list[str] = []
    rest = text
    while "/*" in rest:
        start = rest.index("/*")
        end = rest.find("*/", start + 2)
        if end < 0:
            break
        out.append(rest[:start])
        rest = rest[end + 2:]
    out.append(rest)
    lines = (line.strip() for line in "".join(out).splitlines())
    return "\n".join(line for line in lines if line) + "\n"


def compact(name: str, data: bytes) -> bytes:
    """``data`` of the static file ``name`` as served (scripts and style sheets compacted)."""
    if name.endswith(".js"):
        return compact_js(data.decode("utf-8")).encode("utf-8")
    if name.endswith(".css"):
        return compact_css(data.decode("utf-8")).encode("utf-8")
    return data
