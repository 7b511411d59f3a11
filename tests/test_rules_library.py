"""companion.rules as a library (INTERFACES.md §6, docs/rules.md "The rules library"): the
standard library alone, its doctests, the python-chess-like API, and a command line that imports
only what a command uses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion import cli
from companion.rules import (
    ATTACKERS,
    DEFENDERS,
    PRESETS,
    Board,
    Game,
    Move,
    MoveError,
    Side,
    SquareSet,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_rules_import_and_pass_their_doctests_in_a_venv_without_the_projects_dependencies(
        tmp_path: Path) -> None:
    """What .ci/run does: a bare venv, only the rules package and the two modules it needs."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")],
                   check=True)
    src = tmp_path / "src" / "companion"
    src.mkdir(parents=True)
    for name in ("__init__.py", "squares.py"):
        shutil.copy(ROOT / "companion" / name, src / name)
    shutil.copytree(ROOT / "companion" / "rules", src / "rules",
                    ignore=shutil.ignore_patterns("__pycache__"))
    python = tmp_path / "venv" / "bin" / "python"
    proc = subprocess.run([str(python), str(ROOT / ".ci" / "rules_alone.py"),
                           "--text", str(ROOT / "docs" / "rules.md")], cwd=tmp_path,
                          env={"PYTHONPATH": str(tmp_path / "src"), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "standard library only" in proc.stdout
    attempted = int(proc.stdout.split("doctests: ")[1].split()[0])
    assert attempted >= 30 and ", 0 failed" in proc.stdout


def test_the_check_reports_a_third_party_import(tmp_path: Path) -> None:
    """The bare-venv check can fail: a rules module that imports a package outside the
    standard library is named."""
    src = tmp_path / "src" / "companion"
    shutil.copytree(ROOT / "companion" / "rules", src / "rules",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("__init__.py", "squares.py"):
        shutil.copy(ROOT / "companion" / name, src / name)
    (tmp_path / "src" / "fancylib.py").write_text("")
    otn = src / "rules" / "otn.py"
    otn.write_text(otn.read_text() + "\nimport fancylib  # noqa\n")
    proc = subprocess.run([sys.executable, str(ROOT / ".ci" / "rules_alone.py")],
                          cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "src")},
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "imported ['fancylib'] outside the standard library" in proc.stderr


def _modules_after(argv: list[str], stdin: str = "") -> list[str]:
    """The modules a fresh interpreter has loaded after ``tafl-companion ARGV`` ran."""
    code = ("import contextlib, io, json, sys\n"
            "from companion.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main({argv!r})\n"
            "sys.stderr.write(json.dumps([code, sorted(sys.modules)]))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin"})
    status, modules = json.loads(proc.stderr.strip().splitlines()[-1])
    assert status == 0, proc.stderr
    return list(modules)


HEAVY = ("companion.daemon", "companion.web", "companion.session", "companion.drivers",
         "flask", "paho", "luma", "gpiozero", "PIL", "serial", "h11")


def test_rules_moves_imports_neither_the_daemon_nor_flask() -> None:
    modules = _modules_after(["rules", "moves", "copenhagen"])
    loaded = [m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert loaded == []
    assert "companion.engine" not in modules and "companion.rules.otg" not in modules


def test_the_engine_command_imports_the_engine_only() -> None:
    modules = _modules_after(["engine"], stdin="goodbye\n")
    assert "companion.engine.otep" in modules
    assert [m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []


def _subcommands(parser: object) -> dict[str, object]:
    action = next(a for a in parser._actions  # type: ignore[attr-defined]
                  if a.__class__.__name__ == "_SubParsersAction")
    return dict(action.choices)


def test_every_command_has_its_module_and_parses_as_in_the_full_parser() -> None:
    full = _subcommands(cli.build_parser())
    assert set(full) == {"rules", *cli.COMMAND_MODULES}
    for command in full:
        alone = _subcommands(cli.build_parser(command))
        assert command in alone
        assert alone[command].format_help() == full[command].format_help()  # type: ignore


def test_side_is_an_enum_that_is_its_string() -> None:
    assert ATTACKERS is Side.ATTACKERS and DEFENDERS is Side.DEFENDERS
    assert Side.ATTACKERS == "attackers" and {"defenders": 1}[Side.DEFENDERS] == 1
    assert json.dumps({Side.ATTACKERS: Side.DEFENDERS}) == '{"attackers": "defenders"}'
    board = Board("brandubh")
    assert board.turn is Side.ATTACKERS and Board("brandubh", turn="defenders").turn is DEFENDERS
    assert Side.ATTACKERS.opponent is DEFENDERS


def test_repr_names_the_variant_and_the_position_never_an_address() -> None:
    board = Board(PRESETS["brandubh"])
    assert repr(board) == "Board('brandubh', '/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/', 'attackers')"
    assert eval(repr(board), {"Board": Board}) == board
    mine = PRESETS["brandubh"].with_options(id="mine", chain_capture=True)
    assert repr(Board(mine)) == ("<Board of the rule set 'mine' (not a preset): "
                                 "'/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/', 'attackers'>")
    assert " at 0x" not in repr(Board(mine))


def test_equality_is_position_side_to_move_and_history() -> None:
    board = Board("brandubh")
    assert board == board.copy() and board == Board("brandubh")
    assert board != Board("brandubh", turn="defenders")
    assert board != Board("ard-ri") and board != "brandubh"
    a, b = Board("brandubh"), Board("brandubh")
    for text in ("d2-c2", "c4-c3", "c2-d2", "c3-c4"):  # back to the start, with a history
        a.push(Move.parse(text, a))
    assert a.otn() == b.otn() and a.turn == b.turn
    assert a != b  # same placement, but a has a history and a move stack
    assert a.root() == b
    with pytest.raises(TypeError):
        hash(board)  # mutable: key positions by board.position()
    assert hash(board.position()) == hash(b.position())


def test_move_parse_and_str() -> None:
    board = Board("brandubh")
    move = Move.parse("d2-c2", board)
    assert str(move) == "d2-c2" and move == Move(10, 9) and hash(move) == hash(Move(10, 9))
    assert repr(move) == "Move.parse('d2-c2', 7)"
    assert [str(m) for m in board.legal_moves()][:2] == ["d1-e1", "d1-f1"]
    assert str(Move(10, 9)) == "Move(10, 9)"  # a move made by hand does not know its board
    assert Move.parse("k11-k1", 11).frm == 120
    for text, why in (("d2-d3", "illegal move d2-d3: d3 is occupied"),
                      ("d3-e3", "illegal move d3-e3: it is the attackers' turn, not the "
                                "defenders'"),
                      ("d2-c2xc3", "malformed move 'd2-c2xc3': expected FROM-TO like g3-e3 "
                                   "(a record's captures are read by Board.parse_move)"),
                      ("D2-c2", "malformed move 'D2-c2': square name 'D2': the file letter "
                                "must be lower-case (d2)")):
        with pytest.raises(MoveError) as err:
            Move.parse(text, board)
        assert str(err.value) == why
    with pytest.raises(MoveError, match="not int"):
        Move.parse(3, 7)  # type: ignore[arg-type]


def test_push_returns_the_captured_squares() -> None:
    board = Board("brandubh", "/3t3/1tT4/7/3K3/7/7/7/")
    captured = board.push(Move.parse("d1-d2", board))
    assert isinstance(captured, SquareSet)
    assert list(captured) == [9] and captured.names() == ["c2"] and 9 in captured
    assert captured == 1 << 9 and int(captured) == 1 << 9  # the bitboard, for older code
    assert board.capture_stack == [captured]
    assert board.push(Move.parse("d4-d3", board)) == SquareSet() and not board.capture_stack[1]


def test_the_king_is_among_the_captured_squares() -> None:
    board = Board("brandubh", "/2t4/tK5/7/7/7/7/7/")  # away from the throne the king is weak
    captured = board.push(Move.parse("c1-c2", board))
    assert list(captured) == [8] and board.king == -1 and board.outcome().result == "attackers"
    played = Game("brandubh", "/2t4/tK5/7/7/7/7/7/").play_text("c1-c2")
    assert played.captures == (8,) and played.captured_king == 8 and played.text == "c1-c2"


def test_presets_are_read_only_and_built_once() -> None:
    with pytest.raises(TypeError):
        PRESETS["mine"] = PRESETS["brandubh"]  # type: ignore[index]
    assert list(PRESETS)[-3:] == ["hnefatafl-org-7", "hnefatafl-org", "hnefatafl-org-13"]
    import companion.rules.ruleset as ruleset

    assert ruleset.PRESETS is PRESETS  # one mapping, complete without importing the package


def test_move_outcome_and_root_are_the_public_ways_in() -> None:
    board = Board("brandubh", "/7/7/7/K6/7/7/7/", "defenders")
    assert board.move_outcome() is None and board.outcome() is None
    board.push(Move.parse("a4-a7", board))
    assert board.move_outcome() == board.outcome() and board.outcome().result == "defenders"
    root = board.root()
    assert root.otn() == "/7/7/7/K6/7/7/7/" and root.move_stack == [] and root.turn is DEFENDERS
    assert board.move_stack == [Move(21, 42)]  # root() leaves the board alone


def test_the_rules_package_does_no_io() -> None:
    """Records are read and written as text or streams; files are opened at the edges (the
    command line, the web page, the store)."""
    import ast

    io_modules = {"os", "pathlib", "shutil", "socket", "subprocess", "sqlite3", "tempfile"}
    found = []
    for path in sorted((ROOT / "companion" / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                found.append(f"{path.name}:{node.lineno} open()")
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}:{node.lineno} import {n}" for n in names
                      if n.split(".")[0] in io_modules]
    assert found == []
