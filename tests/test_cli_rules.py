"""`tafl-companion rules ...` (shared/spec/INTERFACES.md §1): output shapes and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.rules import PRESETS, Board

SCHEMA = {
    "id", "name", "size", "start", "first", "escape", "king_strength", "king_armed",
    "throne_stop", "throne_pass", "corners", "hostile_corners", "hostile_throne_empty",
    "linnaean_capture", "shieldwall", "exit_fort", "encirclement", "repetition", "no_moves",
    "sheltered_king", "chain_capture",
}
BRANDUBH_START = PRESETS["brandubh"].start


def run(capsys, *argv: str) -> tuple[int, object, str]:
    """Run the CLI in-process: (exit status, parsed stdout JSON or None, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_variants_lists_all_presets_with_every_schema_field(capsys):
    code, doc, err = run(capsys, "rules", "variants")
    assert code == 0 and err == ""
    variants = doc["variants"]
    assert [v["id"] for v in variants] == list(PRESETS)
    assert len(variants) == 15  # the twelve of VARIANTS.md and hnefatafl.org's three
    for v in variants:
        assert set(v) >= SCHEMA, SCHEMA - set(v)
        assert v == PRESETS[v["id"]].to_json()
        assert isinstance(v["hostile_corners"], list)
        assert v["hostile_corners"] == sorted(v["hostile_corners"])


def test_perft_command(capsys):
    assert run(capsys, "rules", "perft", "brandubh", "3") == (0, {"nodes": 39512}, "")
    assert run(capsys, "rules", "perft", "copenhagen", "0") == (0, {"nodes": 1}, "")
    # defenders to move from the brandubh start: 4 soldiers with 2 moves... counted by Board
    want = len(Board(PRESETS["brandubh"], BRANDUBH_START, "defenders").legal_moves())
    assert run(capsys, "rules", "perft", "brandubh", "1", "--position", BRANDUBH_START,
               "--turn", "defenders") == (0, {"nodes": want}, "")


def test_moves_output_shape(capsys):
    # brandubh, attackers to move: a2-b2 takes the (weak) king on b3 and the soldier on c2
    position = "/7/t1Tt3/1K5/1t5/7/7/5t1/"
    code, doc, err = run(capsys, "rules", "moves", "brandubh", "--position", position)
    assert code == 0 and err == ""
    moves = doc["moves"]
    board = Board(PRESETS["brandubh"], position)
    assert set(moves) == {f"{board.name(m.frm)}-{board.name(m.to)}" for m in board.legal_moves()}
    assert moves["a2-b2"] == {"captures": ["b3", "c2"], "result": "attackers"}
    for entry in moves.values():
        assert set(entry) == {"captures", "result"}
        assert entry["captures"] == sorted(entry["captures"])
        assert entry["result"] in ("ongoing", "attackers", "defenders", "draw")
    assert moves["f7-e7"] == {"captures": [], "result": "ongoing"}


def test_moves_reports_escapes_and_soldier_captures(capsys):
    # copenhagen, defenders to move: the king on a4 escapes to a1; d8-d6 takes c6 (against
    # b6) and e6 (against the empty throne f6)
    position = "/11/11/11/K10/11/1Tt1t6/11/3T7/11/7t3/11/"  # h10: an attacker left to move
    code, doc, _ = run(capsys, "rules", "moves", "copenhagen", "--position", position,
                       "--turn", "defenders")
    assert code == 0
    assert doc["moves"]["a4-a1"] == {"captures": [], "result": "defenders"}
    assert doc["moves"]["d8-d6"] == {"captures": ["c6", "e6"], "result": "ongoing"}


def test_replay_command(capsys, tmp_path):
    good = "d2-e2 c4-c5 f4-f5 d4-c4 e2-d2xd3,1,0,Ongoing\n\nb4-b3 c4-c5,0,0,Ongoing\n"
    bad = "d2-e2 c4-c5 f4-f5 d4-c4 e2-d2,0,0,Ongoing\n"  # d3 is captured but not written
    path = tmp_path / "games.csv"
    path.write_text(good + bad)
    code, doc, err = run(capsys, "rules", "replay", "brandubh", str(path))
    assert code == 1 and err == ""  # read, but a game disagrees (docs/interfaces.md)
    assert doc["games"] == 3 and doc["agree"] == 2
    [problem] = doc["disagree"]
    assert problem["game"] == 3 and problem["ply"] == 5 and "d3" in problem["reason"]
    path.write_text(good)
    code, doc, err = run(capsys, "rules", "replay", "brandubh", str(path))
    assert code == 0 and doc == {"games": 2, "agree": 2, "disagree": []}


BAD_INPUT = [
    ("unknown variant", ["rules", "perft", "chess", "2"], "unknown variant"),
    ("unknown variant (moves)", ["rules", "moves", "chess"], "unknown variant"),
    ("bad OTN", ["rules", "perft", "brandubh", "2", "--position", "/3t3/3t3/"], "rows"),
    ("bad OTN character", ["rules", "moves", "brandubh", "--position",
                           "/3t3/3t3/3T3/ttTKTtx/3T3/3t3/3t3/"], "row 4"),
    ("bad --turn", ["rules", "perft", "brandubh", "2", "--turn", "white"], "turn"),
    ("negative depth", ["rules", "perft", "brandubh", "-1"], "depth"),
    ("non-integer depth", ["rules", "perft", "brandubh", "two"], "depth"),
    ("missing CSV", ["rules", "replay", "brandubh", "/nonexistent/games.csv"], "cannot read"),
    ("no subcommand", ["rules"], "required"),
]


@pytest.mark.parametrize("label,argv,needle", BAD_INPUT, ids=[b[0] for b in BAD_INPUT])
def test_bad_input_exits_2_with_one_line(capsys, label, argv, needle):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, label
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.endswith("\n")
    assert needle in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content,needle", [
    ("d2-e2 c4-c5,0\n", "line 1"),
    ("d2-e2,0,0,Ongoing\nd2-e2,zero,0,Ongoing\n", "line 2"),
    ("d2-e2,0,0,Won\n", "status"),
    (b"\xff\xfe garbage\n", "utf-8"),
])
def test_malformed_csv_exits_2(capsys, tmp_path, content, needle):
    path = tmp_path / "bad.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    code = main(["rules", "replay", "brandubh", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert needle in err


@pytest.mark.parametrize(("content", "needle"), [
    # issue 17 defect 5: dim:52 printed a traceback (exit 1)
    ("[rules:dim:52 start:/]\n", "dim:52"),
    ("[rules:dim:0 start:/]\n", "dim:0"),
    ("[date:0001.01.01]\n[rules:dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n", "date tag"),
    (f"[defenders:{'B' * 3000}]\n[rules:dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n",
     "defenders tag"),
    ("[rules:dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n1. d2-e2 c4-c5\n3. e2-e1\n",
     "turn 3"),
])
def test_malformed_otg_exits_2_with_one_line(capsys, tmp_path, content, needle):
    path = tmp_path / "bad.otg"
    path.write_text(content)
    code = main(["rules", "replay", "brandubh", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert needle in err and "Traceback" not in err


def test_console_script_errors_have_no_traceback(tmp_path):
    """The same through a real process: exit status 2, one stderr line, nothing on stdout."""
    (tmp_path / "dim52.otg").write_text("[rules:dim:52 start:/]\n")
    for argv in (["rules", "perft", "chess", "2"], ["rules", "perft", "brandubh", "x"],
                 ["rules", "replay", "brandubh", str(tmp_path / "missing.csv")],
                 ["rules", "replay", "brandubh", str(tmp_path / "dim52.otg")]):
        proc = subprocess.run([sys.executable, "-m", "companion.cli", *argv],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, argv
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_closed_pipe_ends_the_command_quietly():
    """``tafl-companion ... | head``: no traceback when the reader goes away."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "rules", "moves", "copenhagen"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # before the command (still importing) writes anything
    err = proc.stderr.read().decode()
    proc.wait(timeout=30)
    assert "Traceback" not in err
