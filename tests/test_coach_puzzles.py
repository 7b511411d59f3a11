"""Puzzles on the real board (docs/coach.md): the shipped library checked by the rules core, the
maker on known positions, the ratings, and a daemon on the simulated board that starts a
puzzle, is set up by following the guidance, and is solved, or answered with the refutation."""

from __future__ import annotations

import doctest
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_daemon_support import control, http, running_daemon, state, wait_for

import companion.coach.puzzle_attempt
import companion.coach.puzzle_rating
import companion.coach.puzzles
from companion.coach import puzzle_rating
from companion.coach.puzzle_attempt import Attempt
from companion.coach.puzzle_maker import Maker, check_line
from companion.coach.puzzles import SHIPPED, Puzzle, shipped
from companion.rules import get_variant
from companion.rules.game import Game
from companion.store import Store
from companion.store_rows import PuzzleAttemptRow, StoredPuzzle


def test_the_doctests_pass() -> None:
    for module in (companion.coach.puzzles, companion.coach.puzzle_attempt,
                   companion.coach.puzzle_rating):
        assert doctest.testmod(module).failed == 0


# -- the shipped library ---------------------------------------------------------------------

def test_every_shipped_puzzle_is_solved_by_its_line_under_the_rules_core() -> None:
    total = 0
    for variant in SHIPPED:
        for p in shipped(variant):
            total += 1
            assert p.variant == variant and p.id.startswith(variant + "-")
            assert check_line(p) is None, (p.id, check_line(p))
            assert 1 <= p.moves <= 5 and p.goal in ("escape", "capture", "win")
            game = p.game()
            assert game.turn == p.side
            # each refutation answers a legal wrong move with a legal move
            for i, answers in enumerate(p.refutations):
                at = p.game()
                for text in p.line[:2 * i]:
                    at.play_text(text)
                right = p.line[2 * i].split("x")[0]
                for reply, wrong in answers.items():
                    for move in wrong[:3]:
                        assert move != right
                        twin = at.copy()
                        twin.play_text(move)
                        if not twin.is_over():
                            twin.play_text(reply)
    assert total > 0
    folder = Path(companion.coach.puzzles.__file__).parent / "puzzles"
    assert sum(f.stat().st_size for f in folder.glob("*.json.gz")) < 1_000_000


# -- the maker on known positions --------------------------------------------------------------

def test_the_maker_finds_a_unique_escape_and_refuses_two() -> None:
    rules = get_variant("brandubh")
    maker = Maker(rules, "brandubh")
    # the king on a5, a6 free, a3 blocked: a5-a7 reaches the corner; nothing else wins at once
    one = maker.examine(Game(rules, "/7/7/t6/7/K6/7/3t3/", "defenders"))
    assert one is not None and one.line == ("a5-a7",) and one.goal == "escape"
    assert one.moves == 1 and check_line(one) is None and 600 <= one.rating <= 2800
    assert one.answer_to(0, "a5-a6") == "a3-a5"  # the king beside the corner is taken
    # the king on a3 with both a1 and a7 open: two escapes, no puzzle
    assert maker.examine(Game(rules, "/7/7/7/7/K6/7/3t3/", "defenders")) is None
    # the start position: nobody wins by force
    assert maker.examine(Game(rules)) is None
    f = maker.figures
    assert f.scanned == 3 and f.kept == 1 and f.not_unique == 1


def test_an_attempt_is_judged_move_by_move() -> None:
    p = Puzzle("brandubh-test", "brandubh", "/7/7/t6/7/K6/7/3t3/", "defenders", "escape", 1,
               900, ("a5-a7",), ({"a3-a5": ["a5-a6"]},))
    wrong = Attempt(p)
    game = p.game()
    game.play_text("a5-a6")
    (v,) = wrong.follow(game)
    assert (v.kind, v.answer, v.why, v.solution) == ("wrong", "a3-a5", "capture", "a5-a7")
    assert wrong.status == "failed" and wrong.expected == "a3-a5"
    right = Attempt(p)
    game = p.game()
    game.play_text("a5-a7")
    assert [x.kind for x in right.follow(game)] == ["solved"]


# -- ratings -----------------------------------------------------------------------------------

def test_elo_moves_the_player_and_the_puzzle_the_other_way() -> None:
    player, puzzle = puzzle_rating.update(1500, 1700, solved=True)
    assert player > 1500 and puzzle < 1700
    assert player - 1500 == pytest.approx(32 * (1 - puzzle_rating.expected(1500, 1700)), abs=0.1)
    player, puzzle = puzzle_rating.update(1500, 1300, solved=False)
    assert player < 1500 and puzzle > 1300


def test_the_store_keeps_attempts_and_ratings(tmp_path: Path) -> None:
    store = Store(tmp_path / "games.sqlite3")
    assert store.pragma("user_version") == 7
    assert store.puzzle_progress().rating is None
    store.puzzle_attempt(PuzzleAttemptRow("x-1", None, 1.0, 2.0, True, ("a1-a2",), 1500.0,
                                          1516.0, 1500.0, 1492.0))
    store.puzzle_attempt(PuzzleAttemptRow("x-1", None, 3.0, 4.0, False, ("a1-a3",), 1516.0,
                                          1500.0, 1492.0, 1508.0))
    p = store.puzzle_progress()
    assert (p.rating, p.attempts, p.solved) == (1500.0, 2, 1)
    assert p.puzzles["x-1"].attempts == 2 and p.puzzles["x-1"].rating == 1508.0
    assert store.save_puzzles([StoredPuzzle("y-1", "brandubh", {"id": "y-1"})]) == 1
    assert store.save_puzzles([StoredPuzzle("y-1", "brandubh", {"id": "y-1"})]) == 0
    assert store.stored_puzzles("brandubh") == [StoredPuzzle("y-1", "brandubh", {"id": "y-1"})]
    store.close()


# -- at the board --------------------------------------------------------------------------------

def click(base: str, square: str) -> None:
    assert control(base, "api/click", {"square": square})[0] == 200


def set_up(base: str) -> int:
    """Follow the set-up guidance until the board matches the puzzle; the squares clicked."""
    clicks = 0
    for _ in range(5):
        s = state(base)
        if s["tracking"] == "ready":
            return clicks
        g = s["guidance"]
        if g["kind"] == "setup_complete":  # matched: play starts once the board is still
            wait_for(lambda: state(base)["tracking"] == "ready", what="ready")
            continue
        assert g["kind"] == "setup", g
        for sq in sorted(g.get("clear", [])) + sorted(g.get("fill", {})):
            click(base, sq)
            clicks += 1
        when(base, lambda x, g=g: x["tracking"] != "setup" or x["guidance"] != g,
             "the guidance to follow the clicks")
    raise AssertionError(f"not set up: {state(base)['guidance']}")


def when(base: str, ok: Callable[[dict], bool], what: str) -> dict:
    """The state, once ``ok`` holds for it."""
    def check() -> dict | None:
        s = state(base)
        return s if ok(s) else None
    return wait_for(check, what=what)  # type: ignore[no-any-return]


def make(base: str, text: str) -> dict:
    """Make ``text`` at the board (lifting what it captures); the state after it."""
    n = len(state(base)["moves"])
    frm, to = text.split("x")[0].split("-")
    click(base, frm)
    click(base, to)
    s = when(base, lambda x: len(x["moves"]) > n, f"the move {text}")
    for sq in s["last"]["captured"]:
        if sq in state(base)["occupied"]:
            click(base, sq)
    return s


def a_puzzle(base: str, variant: str, moves: int | None = None) -> dict:
    status, _, body = http(base + f"api/puzzles?variant={variant}")
    j = json.loads(body)
    assert status == 200 and j["variant"] == variant and j["puzzles"]
    for p in j["puzzles"]:
        assert set(p) == {"id", "variant", "side", "goal", "moves", "rating"}
    found = [p for p in j["puzzles"] if moves is None or p["moves"] == moves]
    return found[0] if found else j["puzzles"][0]


def test_a_puzzle_is_set_up_by_the_guidance_and_solved_at_the_board(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        listed = a_puzzle(base, "brandubh", moves=2)
        puzzle = companion.coach.puzzles.find_shipped(listed["id"])
        assert puzzle is not None
        # a spectator cannot start it; the owner can
        assert control(base, "api/puzzle", {"id": listed["id"]}, pin=None)[0] in (401, 403)
        assert control(base, "api/puzzle", {"id": "brandubh-nosuch"})[0] == 404
        status, j = control(base, "api/puzzle", {"id": listed["id"]})
        assert status == 200 and j["puzzle"] == listed["id"]
        s = state(base)
        assert s["variant"] == "brandubh" and s["position"] == puzzle.position
        assert s["puzzle"]["status"] == "playing" and s["puzzle"]["setup"] is True
        assert s["tracking"] == "setup"  # the simulated board still has the start position
        assert set_up(base) > 0
        wait_for(lambda: state(base)["puzzle"]["setup"] is False, what="set up")
        for i, text in enumerate(puzzle.line):
            if i % 2:  # the computer's answer: shown as the move to make, made by hand
                m = wait_for(lambda: state(base)["move_to_make"], what="the puzzle's answer")
                assert m["move"] == text.split("x")[0] and m["by"] == "puzzle"
                assert state(base)["leds"][m["from"]] == "make_from"
            make(base, text)
        s = when(base, lambda x: x["puzzle"]["status"] == "solved", "solved")
        assert s["result"] == puzzle.side and s["puzzle"]["last"]["kind"] == "solved"
        assert s["puzzle"]["player_rating"] > puzzle_rating.PLAYER_START
        j = json.loads(http(base + "api/puzzles?variant=brandubh")[2])
        assert j["player"] == {"rating": s["puzzle"]["player_rating"], "attempts": 1,
                               "solved": 1}
        mine = next(p for p in j["puzzles"] if p["id"] == listed["id"])
        assert mine["rating"] < listed["rating"]


def test_a_wrong_move_is_answered_with_the_refutation(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        listed = a_puzzle(base, "brandubh")
        puzzle = companion.coach.puzzles.find_shipped(listed["id"])
        assert puzzle is not None and puzzle.refutations[0]
        reply, wrong = next(iter(puzzle.refutations[0].items()))
        assert control(base, "api/puzzle", {"id": listed["id"]})[0] == 200
        set_up(base)
        make(base, wrong[0])
        s = when(base, lambda x: x["puzzle"]["status"] == "failed", "the wrong move judged")
        last = s["puzzle"]["last"]
        assert last["kind"] == "wrong" and last["move"].split("x")[0] == wrong[0]
        assert last["answer"].split("x")[0] == reply
        assert last["solution"] == puzzle.line[0]
        assert last["why"] in ("escape", "capture", "win", "holds")
        m = wait_for(lambda: state(base)["move_to_make"], what="the refutation to make")
        assert m["move"] == reply and m["by"] == "puzzle"
        assert s["puzzle"]["player_rating"] < puzzle_rating.PLAYER_START
        assert any(e["kind"] == "puzzle" and e.get("status") == "wrong"
                   for e in state(base)["events"])


def test_an_opentafl_puzzle_imported_joins_the_library(tmp_path: Path) -> None:
    from test_imports_web import PUZZLE

    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        text = PUZZLE.replace("[puzzle-start:2b]\n", "[puzzle-start:2b]\n[start-comment:The "
                              "king escapes in three.]\n")
        status, j = control(base, "api/import", {"name": "puzzle.otg", "text": text})
        assert status == 200, j
        listed = json.loads(http(base + "api/puzzles?variant=fetlar")[2])["puzzles"]
        (p,) = listed
        assert (p["side"], p["goal"], p["moves"]) == ("defenders", "escape", 3)
        # the same file again: the same puzzle, kept once
        assert control(base, "api/import", {"name": "again.otg", "text": text})[0] == 200
        assert len(json.loads(http(base + "api/puzzles?variant=fetlar")[2])["puzzles"]) == 1
        assert control(base, "api/puzzle", {"id": p["id"]})[0] == 200
        s = state(base)
        assert s["variant"] == "fetlar" and s["turn"] == "defenders"
        assert s["puzzle"]["comment"] == "The king escapes in three."
        (stored,) = d.store.stored_puzzles("fetlar")
        puzzle = Puzzle.from_json(stored.data)
        assert check_line(puzzle) is None and puzzle.line[0].startswith("f6-i6")


def test_a_puzzle_goes_on_after_a_restart(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        listed = a_puzzle(base, "brandubh", moves=2)
        puzzle = companion.coach.puzzles.find_shipped(listed["id"])
        assert puzzle is not None
        assert control(base, "api/puzzle", {"id": listed["id"]})[0] == 200
        set_up(base)
        make(base, puzzle.line[0])
        m = wait_for(lambda: state(base)["move_to_make"], what="the puzzle's answer")
    with running_daemon(tmp_path) as d:  # the same store: the game, its move to make, the puzzle
        base = f"http://127.0.0.1:{d.port}/"
        s = when(base, lambda x: bool(x["puzzle"]), "the puzzle resumed")
        assert s["puzzle"]["id"] == listed["id"] and s["puzzle"]["played"] == 1
        assert s["puzzle"]["status"] == "playing" and s["move_to_make"]["move"] == m["move"]
        if state(base)["tracking"] == "setup":
            set_up(base)
        make(base, puzzle.line[1])
        make(base, puzzle.line[2])
        s = when(base, lambda x: x["puzzle"]["status"] == "solved", "solved")
        j = json.loads(http(base + "api/puzzles?variant=brandubh")[2])
        assert j["player"]["attempts"] == 1 and j["player"]["solved"] == 1
