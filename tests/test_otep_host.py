"""The OTEP host: drives our own engine through a whole game, and reports every way an engine
can fail — crash, silence, garbage, an illegal move — clearly, without ever hanging."""

from __future__ import annotations

import sys
import time
from concurrent.futures import CancelledError
from pathlib import Path

import pytest

from companion.engine import builtin_engine_command
from companion.engine.analysis import analyse_game
from companion.engine.otep_host import EngineError, OtepHost, parse_status
from companion.rules import PRESETS, Board
from companion.rules.game import Game

BRANDUBH = PRESETS["brandubh"]
OURS = [sys.executable, "-m", "companion", "engine"]

# a scripted OTEP engine (tests/scripted_engine.py): its behaviour is chosen by its argument
FAKE = Path(__file__).with_name("scripted_engine.py")


@pytest.fixture
def fake():
    def make(mode: str, **kw) -> OtepHost:
        kw.setdefault("grace", 1.0)
        kw.setdefault("hello_timeout", 2.0)
        return OtepHost([sys.executable, str(FAKE), mode], name=f"fake-{mode}", **kw)

    return make


def _fails(host: OtepHost, kind: str, match: str, seconds: float | None = 0.5) -> EngineError:
    start = time.monotonic()
    pending = host.request_move(Board(BRANDUBH), seconds=seconds)
    assert time.monotonic() - start < 0.5, "requests never block"
    with pytest.raises(EngineError, match=match) as info:
        pending.result(timeout=10)
    assert info.value.kind == kind
    host.close()
    return info.value


def test_garbage_move_is_reported(fake):
    _fails(fake("garbage"), "garbage", "unreadable move: 'banana'")


def test_illegal_move_is_reported(fake):
    _fails(fake("illegal"), "illegal", r"illegal move a1-a2: .*")


def test_crash_is_reported_with_the_engines_last_words(fake):
    err = _fails(fake("crash"), "crash", "exited with status 3")
    assert "the engine broke" in str(err)


def test_silence_is_reported_at_the_deadline_and_the_engine_killed(fake):
    host = fake("silent")
    start = time.monotonic()
    err = _fails(host, "silence", r"did not answer within 1\.6 s")
    assert time.monotonic() - start < 4
    assert not host.alive and "thinking very hard" in str(err)


def test_an_engine_that_never_says_hello(fake):
    host = fake("mute", hello_timeout=0.5)
    _fails(host, "silence", "did not say hello within 0.5 s")


def test_a_command_that_does_not_exist():
    host = OtepHost(["/nonexistent/engine-binary"], name="nothing")
    pending = host.request_move(Board(BRANDUBH), seconds=1)
    with pytest.raises(EngineError, match="could not be started") as info:
        pending.result(timeout=5)
    assert info.value.kind == "crash"


def test_banners_are_ignored_but_resignation_is_understood(fake):
    host = fake("resign")
    answer = host.request_move(Board(BRANDUBH), seconds=1).result(timeout=10)
    assert answer.resigned and answer.move is None and answer.message == "I resign"
    host.close()


def test_status_and_score_reach_the_caller(fake):
    seen: list[str] = []
    host = fake("slow", on_status=seen.append)
    answer = host.request_move(Board(BRANDUBH), seconds=2).result(timeout=10)
    assert answer.move == "d2-e2" and answer.score == -40 and answer.depth == 3
    assert seen and seen[0].startswith("depth 3")
    host.close()


def test_cancel_stops_at_once_and_the_next_request_restarts(fake):
    host = fake("silent")
    pending = host.request_move(Board(BRANDUBH), seconds=30)
    time.sleep(0.3)
    start = time.monotonic()
    assert pending.cancel()  # a concurrent.futures.Future: cancelled by its caller
    with pytest.raises(CancelledError):
        pending.result(timeout=2)
    assert not host.alive and time.monotonic() - start < 1  # the engine was stopped
    # a request replaced by the host (a takeback, a new request) ends as 'stopped'
    first = host.request_move(Board(BRANDUBH), seconds=30)
    host.cancel()
    with pytest.raises(EngineError) as info:
        first.result(timeout=2)
    assert info.value.kind == "stopped"
    host.close()


def test_garbage_analysis_is_reported(fake):
    host = fake("garbage")
    with pytest.raises(EngineError, match="unreadable analysis"):
        host.analyze(Board(BRANDUBH), 2, 1).result(timeout=10)
    host.close()


def test_parse_status():
    assert parse_status("depth 7 score mate -3 nodes 10 time 0.5 pv a1-a2 b2-b3") == {
        "depth": 7, "mate": -3, "nodes": 10, "seconds": 0.5, "pv": ["a1-a2", "b2-b3"]}
    assert parse_status("thinking") is None


def test_our_engine_plays_a_whole_game_against_itself_through_the_host():
    """Two copies of ``tafl-companion engine`` play Brandubh through OTEP to the end; a
    takeback in the middle is resynchronised."""
    game = Game(BRANDUBH)
    hosts = {side: OtepHost(builtin_engine_command(level=4, seed=i), name=side)
             for i, side in enumerate(("attackers", "defenders"))}
    took_back = False
    while not game.is_over() and len(game.moves) < 150:
        answer = hosts[game.turn].request_move(game.board, seconds=2).result(timeout=30)
        assert answer.move is not None
        played = game.play_text(answer.move)
        assert sorted(game.board.name(c) for c in played.captures) == sorted(answer.captures)
        if len(game.moves) == 6 and not took_back:
            game.undo()
            game.undo()
            took_back = True
    assert game.is_over(), "a decided game"
    for host in hosts.values():
        host.close()


def test_post_game_analysis_through_the_host():
    game = Game(BRANDUBH)
    for text in ("d2-e2", "d3-a3", "f4-f2", "d4-d3", "e2-d2"):
        game.play_text(text)
    host = OtepHost([*OURS], name="analyser")
    report = analyse_game(host, game, seconds=0.3)
    host.close()
    assert len(report.plies) == len(game.moves)
    assert len(report.evaluations) == len(game.moves) + 1
    assert report.swings and report.swings == sorted(report.swings, key=lambda s: -s.loss)
    for swing in report.swings:
        assert swing.best_move is None or "-" in swing.best_move


def test_analysis_finds_the_blunder_and_the_better_move():
    """The attackers could take the king (e3-a3 closes a3/a5 around him) but let him escape:
    the review marks that move, with the capture as the better move, and the evaluation
    swinging from a won to a lost game."""
    game = Game(BRANDUBH, "/7/7/4t2/K6/t6/7/3t3/", "attackers")
    game.play_text("d7-c7")
    game.play_text("a4-a1")
    host = OtepHost(builtin_engine_command(), name="analyser")
    report = analyse_game(host, game, seconds=0.3)
    host.close()
    blunder = report.plies[0]
    assert report.swings[0] is blunder and blunder.best_move == "e3-a3"
    assert blunder.before >= 900 and blunder.after <= -900 and blunder.loss >= 1800
    assert report.evaluations[-1] == -1000.0
    assert report.to_json()["swings"] == [1]
