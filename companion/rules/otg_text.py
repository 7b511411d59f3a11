"""The text of an OpenTafl game file, cut into its parts before anything is played: the tags, and
the body's turn lines and comments, each with its line number. See :mod:`companion.rules.otg`
for the format and its sources.

OpenTafl reads tags wherever they stand before the first turn (``GameSerializer.parseTags``), in
any order, and a tag's value may run over several lines (its ``start-comment`` does); a comment
``[first|second]`` may span lines too, and belongs to the turn line (or variation line) before
it. This module does the same, with errors that name the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .otg_rules import OtgError

_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
#: A move address like OpenTafl's ``puzzle-start`` value: ``6a`` (turn 6, its first move).
_ADDRESS = re.compile(r"([0-9]{1,6})([ab])")


@dataclass
class FileText:
    """A game file cut up: ``tags`` in file order, and the body as ``(line number, kind,
    text)`` items in file order, ``kind`` being ``"line"`` (text outside comments, stripped)
    or ``"comment"`` (a ``[...]`` comment's inside)."""

    tags: dict[str, str] = field(default_factory=dict)
    body: list[tuple[int, str, str]] = field(default_factory=list)


def _clip(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."


def split_file(text: str) -> FileText:
    """Tags and body of a game file's text; OtgError naming the line for a tag or comment that
    is not closed, and for a file that does not start with a tag."""
    out = FileText()
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != "[":
            break
        close = text.find("]", i)
        line = text.count("\n", 0, i) + 1
        if close < 0:
            raise OtgError(f"line {line}: the tag opened here with '[' is never closed")
        key, colon, value = text[i + 1:close].partition(":")
        if not colon or not _KEY.fullmatch(key):
            if out.tags:
                break  # a comment before the first turn: the body starts here
            raise OtgError(f"line {line}: expected a tag like [rules:dim:11 ... start:...], "
                           f"not {_clip(text[i:close + 1])!r}")
        out.tags[key] = value
        i = close + 1
    if not out.tags:
        line = text.count("\n", 0, i) + 1
        raise OtgError(f"line {line}: expected a tag like [rules:dim:11 ... start:...]")
    out.body = _body(text, i)
    return out


def _body(text: str, start: int) -> list[tuple[int, str, str]]:
    """The body's items (see :class:`FileText`): per physical line its text outside comments
    first, then the comments that open on it."""
    items: list[tuple[int, str, str]] = []
    number = text.count("\n", 0, start) + 1
    kept: list[str] = []
    opened: list[tuple[int, str]] = []  # comments that opened on this line
    i, n = start, len(text)
    while i < n:
        ch = text[i]
        if ch == "[":
            close = text.find("]", i)
            if close < 0:
                raise OtgError(f"line {number}: the comment opened here with '[' is never "
                               "closed")
            opened.append((number, text[i + 1:close]))
            newlines = text.count("\n", i, close)
            if newlines:
                _flush(items, number, kept, opened)
                number += newlines
            i = close + 1
            continue
        if ch == "\n":
            _flush(items, number, kept, opened)
            number += 1
        else:
            kept.append(ch)
        i += 1
    _flush(items, number, kept, opened)
    return items


def _flush(items: list[tuple[int, str, str]], number: int, kept: list[str],
           opened: list[tuple[int, str]]) -> None:
    line = "".join(kept).strip()
    if line:
        items.append((number, "line", line))
    items.extend((k, "comment", c) for k, c in opened)
    kept.clear()
    opened.clear()


def address_ply(address: str) -> int | None:
    """The ply after which OpenTafl's move address leaves the game (``0a``: the start, ``6a``:
    after turn 6's first move, ``6b``: after its second), or None if it is not one."""
    match = _ADDRESS.fullmatch(address.strip())
    if match is None:
        return None
    turn = int(match.group(1))
    if turn == 0:
        return 0
    return 2 * (turn - 1) + (1 if match.group(2) == "a" else 2)
