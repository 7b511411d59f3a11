"""``tafl-companion replay`` / ``simulate`` and strict ``tafl-trace/1`` validation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.scan import Scan
from companion.trace import TraceError, format_trace, parse_trace, read_trace

TRACES = Path(__file__).parent / "traces"
DATA = Path(__file__).parent / "data" / "tracker"
HEAD = '{"trace": "tafl-trace/1", "variant": "brandubh", "size": 7, "scan_hz": 100}'
FIRST = ('{"t": 0.0, "occupied": ["d1", "d2", "d3", "a4", "b4", "c4", "d4", "e4", "f4", "g4", '
         '"d5", "d6", "d7"]}')


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_replay_prints_one_summary_document(capsys):
    code, out, err = run(capsys, "replay", str(TRACES / "capture_removed_late_wrong_piece.jsonl"))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert list(doc) == ["moves", "result", "illegal", "warnings"]
    assert doc == {"moves": ["d2-e2", "c4-c5", "f4-f5", "d4-c4", "e2-d2xd3"],
                   "result": "ongoing", "illegal": 0, "warnings": 1}


def test_replay_events_come_before_the_summary(capsys):
    code, out, _ = run(capsys, "replay", str(TRACES / "game_over.jsonl"), "--events")
    assert code == 0
    docs = [json.loads(line) for line in out.splitlines()]
    events, doc = docs[:-1], docs[-1]
    assert doc["result"] == "attackers"
    assert all("t" in e and "event" in e for e in events)
    times = [e["t"] for e in events]
    assert times == sorted(times)
    move = [e for e in events if e["event"] == "move"][-1]
    assert move["move"] == "a4-e4xe3" and move["captured"] == ["e3", "f4"]
    leds = [e for e in events if e["event"] == "leds"]
    assert leds[-1]["leds"]  # win pattern
    assert {"event": "game_over", "result": "attackers"}.items() <= \
        next(e for e in events if e["event"] == "game_over").items()
    assert [e["square"] for e in events if e["event"] == "removed"] == ["f4", "e3"]


def test_console_script_exit_codes(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(HEAD + "\n" + FIRST + '\n{"t": 1.0, "off": ["z9"]}\n')
    proc = subprocess.run([sys.executable, "-m", "companion", "replay", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "line 3" in proc.stderr and "z9" in proc.stderr


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        ([HEAD, FIRST, '{"t": 1.0, "off": ["d2"'], ["line 3", "bad JSON"]),
        ([FIRST], ["line 1", "missing header"]),
        ([], ["missing header"]),
        ([HEAD], ["missing the first scan"]),
        ([HEAD, FIRST, '{"t": 2.0, "off": ["d2"]}', '{"t": 1.5, "on": ["e2"]}'],
         ["line 4", "before"]),
        ([HEAD, FIRST, '{"t": 1.0, "off": ["h2"]}'], ["line 3", "unknown square", "h2"]),
        ([HEAD.replace('"size": 7', '"size": 9'), FIRST], ["line 1", "size 9", "brandubh"]),
        ([HEAD.replace("brandubh", "chess"), FIRST], ["line 1", "unknown variant"]),
        ([HEAD, FIRST, '{"t": 1.0, "on": ["d2"]}'], ["line 3", "already occupied"]),
        ([HEAD, FIRST, '{"t": 1.0, "off": ["e2"]}'], ["line 3", "already empty"]),
        ([HEAD, FIRST, '{"t": 1.0, "end": true}', '{"t": 2.0, "off": ["d2"]}'],
         ["line 4", "follow"]),
        ([HEAD, FIRST, '{"t": "soon", "off": ["d2"]}'], ["line 3", "'t'"]),
        ([HEAD, FIRST, '{"t": 1.0}'], ["line 3", "needs"]),
        ([HEAD, FIRST.replace("}", ', "colours": {"d1": "x"}}')], ["line 2", "colour"]),
    ],
)
def test_bad_traces_name_the_line(capsys, tmp_path, lines, words):
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError) as err:
        read_trace(p)
    for w in words:
        assert w in str(err.value)
    code, out, msg = run(capsys, "replay", str(p))
    assert code == 2 and out == "" and len(msg.strip().splitlines()) == 1


def test_missing_file_and_usage_errors(capsys, tmp_path):
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "simulate", "brandubh", str(DATA / "brandubh.csv"), "--noise",
                       "wild")
    assert code == 2 and "noise" in err
    code, _, err = run(capsys, "simulate", "brandubh", str(DATA / "brandubh.csv"), "--game",
                       "100000")
    assert code == 2 and "--game" in err


def test_missing_end_line_is_accepted():
    trace = parse_trace([HEAD, FIRST, '{"t": 1.0, "off": ["d2"]}'])
    assert trace.end == 1.0 and len(trace.scans) == 2


def test_simulate_then_replay(capsys, tmp_path):
    out = tmp_path / "g.jsonl"
    code, text, _ = run(capsys, "simulate", "brandubh", str(DATA / "brandubh.csv"), "--game",
                        "8", "--seed", "3", "--noise", "clumsy", "-o", str(out))
    assert code == 0
    info = json.loads(text)
    code, text, _ = run(capsys, "replay", str(out))
    assert code == 0 and json.loads(text) == info["expect"]
    assert info["expect"]["moves"][:3] == ["d2-c2", "d5-e5", "d6-c6"]  # record 8


def test_format_trace_round_trip():
    scans = [Scan(0.0, frozenset({"a1", "b2"}), {"a1": "a", "b2": "d"}),
             Scan(0.5, frozenset({"a1"}), {"a1": "a"}),
             Scan(0.5, frozenset({"a1"}), {"a1": "a"}),  # no change: not written
             Scan(1.25, frozenset({"a1", "c3"}), {"a1": "a", "c3": "d"})]
    lines = list(format_trace({"variant": "brandubh", "size": 7, "scan_hz": 100,
                               "sensors": "polarity"}, scans, end=2.0))
    assert len(lines) == 5
    assert json.loads(lines[2]) == {"t": 0.5, "off": ["b2"]}
    assert json.loads(lines[3]) == {"t": 1.25, "on": ["c3"], "colours": {"c3": "d"}}
    back = parse_trace(lines)
    assert [s.occupied for s in back.scans] == [scans[0].occupied, scans[1].occupied,
                                                scans[3].occupied]
    assert back.scans[-1].colours == {"a1": "a", "c3": "d"} and back.end == 2.0
