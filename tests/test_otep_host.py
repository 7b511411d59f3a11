"""The OTEP host: drives our own engine through a whole game, and reports every way an engine
can fail — crash, silence, garbage, an illegal move — clearly, without ever hanging.

The host's timers (a hello, a request's deadline) run on a fake clock here: a test moves it
past a deadline to see the request fail, and short of it to see that nothing happened, so a
slow machine never fires a deadline early. How fast the host answers is bench/'s
(bench/bounds.py)."""

from __future__ import annotations

import sys
from concurrent.futures import CancelledError
from pathlib import Path

import pytest
from fake_clock import FakeClock
from test_daemon_support import PATIENCE, wait_for

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
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def fake(clock):
    def make(mode: str, **kw) -> OtepHost:
        kw.setdefault("grace", 1.0)
        kw.setdefault("hello_timeout", 2.0)
        return OtepHost([sys.executable, str(FAKE), mode], name=f"fake-{mode}",
                        schedule=clock.schedule, clock=clock, **kw)

    return make


def real_engine(argv: list[str], name: str) -> OtepHost:
    """A host of a real engine, started (its hello seen, however long a busy machine takes),
    whose deadlines never fire: its timers are on a clock that stands still (the tests with the
    scripted engine check them)."""
    still = FakeClock()
    host = OtepHost(argv, name=name, schedule=still.schedule, clock=still)
    host.start()
    wait_for(lambda: host.ready, what=f"{name}'s hello")
    return host


def _fails(host: OtepHost, kind: str, match: str, seconds: float | None = 0.5) -> EngineError:
    pending = host.request_move(Board(BRANDUBH), seconds=seconds)
    with pytest.raises(EngineError, match=match) as info:
        pending.result(timeout=PATIENCE)
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


def test_silence_is_reported_at_the_deadline_and_the_engine_killed(fake, clock):
    host = fake("silent")
    pending = host.request_move(Board(BRANDUBH), seconds=0.5)  # deadline: 0.55 + 1.0 s
    # the engine said hello and what it prints instead of a move ("thinking very hard")
    wait_for(lambda: host.ready and host._proc is not None and host._proc.junk_tail,
             what="the engine's hello and its junk line")
    clock.advance(1.5)
    assert not pending.done() and host.alive  # short of the deadline: nothing happened
    clock.advance(0.1)
    with pytest.raises(EngineError, match=r"did not answer within 1\.6 s") as info:
        pending.result(timeout=PATIENCE)
    assert info.value.kind == "silence" and "thinking very hard" in str(info.value)
    assert not host.alive
    host.close()


def test_the_deadline_counts_from_the_engines_hello(clock, tmp_path):
    """An engine slow to start (Python on a busy machine or a Pi Zero) has the whole deadline
    after its hello: counted from the request, the start's seconds were taken from the search
    (the likely cause of a 1 s evaluation that never came in the CI's browser test)."""
    go = tmp_path / "hello-now"
    host = OtepHost([sys.executable, str(FAKE), "late", str(go)], name="fake-late",
                    schedule=clock.schedule, clock=clock, grace=1.0, hello_timeout=10.0)
    pending = host.request_move(Board(BRANDUBH), seconds=0.5)  # deadline: 0.55 + 1.0 s
    clock.advance(1.5)  # the engine is starting
    go.touch()
    wait_for(lambda: host.ready, what="the late engine's hello")
    clock.advance(1.5)  # 3 s after the request, 1.5 s after the hello
    assert not pending.done() and host.alive
    clock.advance(0.1)
    with pytest.raises(EngineError, match=r"did not answer within 1\.6 s") as info:
        pending.result(timeout=PATIENCE)
    assert info.value.kind == "silence" and not host.alive
    host.close()


def test_an_engine_that_never_says_hello(fake, clock):
    host = fake("mute", hello_timeout=0.5)
    pending = host.request_move(Board(BRANDUBH), seconds=0.5)
    assert clock.advance(0.4) == 0 and not pending.done() and host.alive
    clock.advance(0.2)
    with pytest.raises(EngineError, match="did not say hello within 0.5 s") as info:
        pending.result(timeout=PATIENCE)
    assert info.value.kind == "silence" and not host.alive
    host.close()


def test_a_request_never_blocks_its_caller(fake, clock):
    """The request returns before the engine has even started (it never says hello): the
    caller's thread is never held by the engine."""
    host = fake("mute")
    pending = host.request_move(Board(BRANDUBH), seconds=0.5)
    assert not pending.done() and not host.ready
    host.close()
    with pytest.raises(EngineError, match="was closed"):
        pending.result(timeout=PATIENCE)


def test_a_command_that_does_not_exist():
    host = OtepHost(["/nonexistent/engine-binary"], name="nothing")
    pending = host.request_move(Board(BRANDUBH), seconds=1)
    with pytest.raises(EngineError, match="could not be started") as info:
        pending.result(timeout=PATIENCE)
    assert info.value.kind == "crash"


def test_banners_are_ignored_but_resignation_is_understood(fake):
    host = fake("resign")
    answer = host.request_move(Board(BRANDUBH), seconds=1).result(timeout=PATIENCE)
    assert answer.resigned and answer.move is None and answer.message == "I resign"
    host.close()


def test_status_and_score_reach_the_caller(fake):
    seen: list[str] = []
    host = fake("slow", on_status=seen.append)
    answer = host.request_move(Board(BRANDUBH), seconds=2).result(timeout=PATIENCE)
    assert answer.move == "d2-e2" and answer.score == -40 and answer.depth == 3
    assert seen and seen[0].startswith("depth 3")
    host.close()


def test_cancel_stops_at_once_and_the_next_request_restarts(fake):
    host = fake("silent")
    pending = host.request_move(Board(BRANDUBH), seconds=30)
    wait_for(lambda: host.ready, what="the engine's hello")
    assert pending.cancel()  # a concurrent.futures.Future: cancelled by its caller
    with pytest.raises(CancelledError):
        pending.result(timeout=PATIENCE)
    assert not host.alive  # the engine was stopped, by the cancel itself
    # a request replaced by the host (a takeback, a new request) ends as 'stopped'
    first = host.request_move(Board(BRANDUBH), seconds=30)
    host.cancel()
    with pytest.raises(EngineError) as info:
        first.result(timeout=PATIENCE)
    assert info.value.kind == "stopped"
    host.close()


def test_garbage_analysis_is_reported(fake):
    host = fake("garbage")
    with pytest.raises(EngineError, match="unreadable analysis"):
        host.analyze(Board(BRANDUBH), 2, 1).result(timeout=PATIENCE)
    host.close()


def test_parse_status():
    assert parse_status("depth 7 score mate -3 nodes 10 time 0.5 pv a1-a2 b2-b3") == {
        "depth": 7, "mate": -3, "nodes": 10, "seconds": 0.5, "pv": ["a1-a2", "b2-b3"]}
    assert parse_status("thinking") is None


def test_our_engine_plays_a_whole_game_against_itself_through_the_host():
    """Two copies of ``tafl-companion engine`` play Brandubh through OTEP to the end; a
    takeback in the middle is resynchronised."""
    game = Game(BRANDUBH)
    hosts = {side: real_engine(builtin_engine_command(level=4, seed=i), side)
             for i, side in enumerate(("attackers", "defenders"))}
    took_back = False
    while not game.is_over() and len(game.moves) < 150:
        answer = hosts[game.turn].request_move(game.board, seconds=2).result(timeout=PATIENCE)
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
    host = real_engine([*OURS], "analyser")
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
    host = real_engine(builtin_engine_command(), "analyser")
    report = analyse_game(host, game, seconds=0.3)
    host.close()
    blunder = report.plies[0]
    assert report.swings[0] is blunder and blunder.best_move == "e3-a3"
    assert blunder.before >= 900 and blunder.after <= -900 and blunder.loss >= 1800
    assert report.evaluations[-1] == -1000.0
    assert report.to_json()["swings"] == [1]
