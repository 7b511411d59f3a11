"""What a new user reads outside the page (issue 21): the README's two commands as written (no
sudo as root, no activated venv, the pass/fail counts shown), where the PIN is kept (README,
example configs, the log line), messages with an article built from a number ("an 11x11"),
and the variant of an imported CSV record found from the file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_daemon_systemd import installed_script

from companion.cli import main
from companion.rules.records import read_records
from companion.squares import a_board, with_article
from companion.web import auth
from companion.web.record_variant import board_needed, find_variant

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
COMMANDS = [line[4:] for line in README.splitlines() if re.match(r"^    \S", line)][:2]


def test_the_install_command_needs_no_sudo_where_there_is_none(tmp_path: Path) -> None:
    """As root in a container without sudo, `sudo apt …` fails; the README says
    `$(command -v sudo) apt-get …`, which is sudo where there is one and nothing elsewhere."""
    install = COMMANDS[0]
    assert "tafl-companion run" in install
    assert re.search(r"(^|[^(\w-])sudo ", install.replace("$(command -v sudo)", "")) is None
    assert install.count("$(command -v sudo) apt-get") == 2
    empty = tmp_path / "bin"  # a PATH without sudo (and without anything else)
    empty.mkdir()
    out = subprocess.run(["/bin/bash", "-c", "$(command -v sudo) echo ran"],
                         env={"PATH": str(empty)}, capture_output=True, text=True, timeout=10)
    assert out.returncode == 0 and out.stdout == "ran\n", out.stderr


def test_the_test_command_needs_no_activated_venv(monkeypatch) -> None:
    """The README runs `.venv/bin/python -m pytest` without activating the venv: a test that
    looks `tafl-companion` up on PATH alone failed (test_daemon_systemd)."""
    assert COMMANDS[1] == ".venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    beside = Path(sys.executable).parent / "tafl-companion"
    if not beside.exists():
        pytest.skip("not run from a virtual environment with the package installed")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert installed_script() == str(beside)


def test_the_test_run_ends_with_its_counts(tmp_path: Path) -> None:
    """`-q` in addopts plus `-q` on the command line silenced the pass/fail summary."""
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"].get("addopts", "")
    assert "-q" not in addopts.split()
    tiny = tmp_path / "test_tiny.py"
    tiny.write_text("def test_one():\n    pass\n")
    # the project's settings (pyproject.toml) and one -q more, as COMMON and docs run it
    out = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
                          "-p", "no:cacheprovider", "-q", str(tiny)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTEST_ADDOPTS": ""})
    assert out.returncode == 0, out.stdout[-2000:]
    assert re.search(r"\b1 passed\b", out.stdout.strip().splitlines()[-1]), out.stdout


def test_where_the_pin_is_kept_is_said_the_same_everywhere() -> None:
    """The PIN is made once and kept in DATA_DIR/owner-code; the examples said it was
    "generated at every start (the log shows it)", wrong on both counts, and the README did
    not say where it is when the link is not printed."""
    assert auth.CODE_FILE == "owner-code"
    assert "~/.local/share/tafl-companion/owner-code" in README
    assert "sudo cat /var/lib/tafl-companion/owner-code" in README
    for path in sorted((ROOT / "hardware" / "examples").glob("*.toml")):
        text = path.read_text()
        data_dir = tomllib.loads(text)["data_dir"]
        assert "every start" not in text and "log shows it" not in text, path.name
        assert f"{data_dir}/owner-code" in text, path.name
        assert "made at the first start" in text and "never logged" in text, path.name


@pytest.mark.parametrize(("n", "words"), [
    (7, "a 7x7 board"), (8, "an 8x8 board"), (9, "a 9x9 board"), (11, "an 11x11 board"),
    (13, "a 13x13 board"), (18, "an 18x18 board"), (19, "a 19x19 board"),
])
def test_the_article_follows_the_spoken_number(n: int, words: str) -> None:
    assert a_board(n) == words


def test_articles_of_larger_numbers() -> None:
    said = {n: with_article(n, "") for n in (1, 80, 110, 800, 1100, 1800, 11000, 18000, 110000)}
    assert said == {1: "a 1", 80: "an 80", 110: "a 110", 800: "an 800", 1100: "a 1100",
                    1800: "a 1800", 11000: "an 11000", 18000: "an 18000", 110000: "a 110000"}


def test_the_command_line_says_an_11x11_board(capsys) -> None:
    assert main(["rules", "perft", "copenhagen", "9"]) == 2
    assert "an 11x11 board" in capsys.readouterr().err
    assert main(["rules", "moves", "copenhagen", "--position", "/3t3/3t3/"]) == 2
    assert "an 11x11 board needs 11" in capsys.readouterr().err


# -- the variant of CSV records ------------------------------------------------------------------

DATA = Path(__file__).parent / "data"


def records(path: str, n: int = 3) -> tuple[str, list]:
    text = "\n".join((DATA / path).read_text().splitlines()[:n]) + "\n"
    return text, read_records(text)


def test_copenhagen_records_are_found_as_copenhagen() -> None:
    text, recs = records("copenhagen.csv", 20)
    got = find_variant(text, recs)
    assert got.variant == "copenhagen" and got.how == "moves"
    assert got.fits[0] == "copenhagen" and all(len(v) for v in got.fits)
    assert board_needed(recs) == 11


def test_brandubh_records_are_found_as_brandubh() -> None:
    text, recs = records("brandubh.csv", 20)
    got = find_variant(text, recs)
    assert got.variant == "brandubh", got
    assert board_needed(recs) <= 7


def test_a_header_names_the_variant() -> None:
    text, recs = records("copenhagen.csv", 2)
    got = find_variant("# tafl-companion game 4\n# variant: fetlar\n" + text, recs)
    assert got.variant == "fetlar" and got.how == "header"


def test_records_that_fit_no_variant_say_the_nearest() -> None:
    text = '"d1-e1 d3-e3 d2-e2 d4-d1 e1-f1 d1-a1 a1-a2",0,0,White\n'
    got = find_variant(text, read_records(text))
    assert got.variant is None and got.nearest == "brandubh"
    assert "game 1, move 7" in got.problem
    text = '"d1-d4 a1-z26",0,0,\n'
    got = find_variant(text, read_records(text))
    assert got.variant is None and "26x26" in got.problem
