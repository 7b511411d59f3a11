"""The page's scripts and style sheets as served (companion.web.compact): only comments,
indentation and blank lines go; code, strings and multi-line template literals stay as written."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.web.compact import compact, compact_css, compact_js

STATIC = Path(__file__).parent.parent / "companion" / "web" / "static"
SCRIPTS = sorted(STATIC.glob("*.js"))


def _uncommented(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))


def _code(text: str) -> str:
    """The text without comments and whitespace (what must survive compaction unchanged)."""
    return re.sub(r"\s+", "", _uncommented(text))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_script_keeps_all_its_code(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    served = compact_js(source)
    assert _code(served) == _code(source)
    assert len(served) < len(source)
    assert compact_js(served) == served  # nothing more to take away


def _templates(code: str) -> list[str]:
    """The template literals of ``code`` (comments removed) that span lines, found by a scan
    that knows strings, templates and their ``${…}`` parts (nested templates included)."""
    found: list[str] = []
    stack: list[tuple[str, int]] = []  # ("`", start) inside a template, ("{", 0) inside ${…}
    quote = ""
    i = 0
    while i < len(code):
        c = code[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif stack and stack[-1][0] == "`":
            if c == "\\":
                i += 1
            elif c == "`":
                start = stack.pop()[1]
                if "\n" in code[start:i]:
                    found.append(code[start:i + 1])
            elif code.startswith("${", i):
                stack.append(("{", 0))
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "`":
            stack.append(("`", i))
        elif c == "{" and stack:
            stack.append(("{", 0))
        elif c == "}" and stack and stack[-1][0] == "{":
            stack.pop()
        i += 1
    return found


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_template_literals_over_lines_keep_their_text(path: Path) -> None:
    """A template literal that spans lines may be HTML shown as it is: its lines are kept whole,
    indentation included."""
    source = path.read_text(encoding="utf-8")
    served = compact_js(source)
    for literal in _templates(_uncommented(source)):
        assert "\n" + literal.split("\n", 1)[1] in served, (path.name, literal)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_served_script_is_valid_javascript(path: Path, tmp_path: Path) -> None:
    out = tmp_path / path.name
    out.write_bytes(compact(path.name, path.read_bytes()))
    result = subprocess.run(["node", "--check", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_comments_and_blank_lines_go() -> None:
    js = ("/* a block\n   over lines */\nconst a = 1; // kept with its code\n\n"
          "    // alone\n  /* alone */\n  /* then code */ b();\nconst t = `x\n    y`;\n")
    assert compact_js(js) == ("const a = 1; // kept with its code\n/* then code */ b();\n"
                              "const t = `x\n    y`;\n")
    css = "/* the board */\n.a {\n  color: red; /* inline */\n}\n\n"
    assert compact_css(css) == ".a {\ncolor: red;\n}\n"


def test_other_files_are_served_as_they_are() -> None:
    assert compact("board.svg", b"  <svg/>  ") == b"  <svg/>  "
