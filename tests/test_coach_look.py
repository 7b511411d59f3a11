"""The coach's look at a move (companion.coach.look) on positions of real games: the moves
that lost them (the king escaped or was captured one or two moves later, a position that was
not lost before the move) must be warned about with the threat the game showed; the quiet
moves from the middle of games must not. The positions and their origins (file and line of
each game in tests/data/) are in tests/data/coach_positions.json, built by
tools/build_coach_positions.py. The engine's looks are fixed-depth searches in this process
(companion.coach.local), the same search the advisor's engine runs for a time."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from companion.coach.config import CoachConfig, CoachConfigError, parse_coach
from companion.coach.local import LocalLooker
from companion.coach.look import CoachWarning, Kind, Look, Strictness, at_once, judge
from companion.rules import PRESETS, Board
from companion.rules.threats import escape_squares

DATA = json.loads((Path(__file__).parent / "data" / "coach_positions.json").read_text())
DEPTH = 4  # the tests' look (the oracle that chose the quiet moves looked deeper)


@functools.cache
def looker(variant: str) -> LocalLooker:
    return LocalLooker(PRESETS[variant], DEPTH)


def board_of(e: dict) -> Board:
    return Board(PRESETS[e["variant"]], e["position"], e["turn"])


def after(board: Board, move: str) -> Board:
    b = board.copy()
    b.push(b.parse_move(move)[0])
    return b


def coach(e: dict, strictness: Strictness = Strictness.GENTLE) -> CoachWarning | None:
    """What the coach says about the entry's move, as the session asks it: the rules at
    once, then the engine's looks."""
    board = board_of(e)
    warning = at_once(board, e["move"])
    if warning is not None:
        return warning
    lk = looker(e["variant"])
    return judge(board, e["move"], lk.look(after(board, e["move"])), lk.look(board), strictness)


def ids(entries: list[dict]) -> list[str]:
    return [e["origin"].replace("tests/data/", "") for e in entries]


def test_the_set_is_large_and_names_its_origins() -> None:
    assert len(DATA["at_once"]) >= 40 and len(DATA["in_two"]) >= 40
    assert len(DATA["quiet"]) >= 60
    for e in DATA["at_once"] + DATA["in_two"] + DATA["quiet"]:
        assert e["origin"].startswith(f"tests/data/{e['variant']}.csv line ")


@pytest.mark.parametrize("e", DATA["at_once"], ids=ids(DATA["at_once"]))
def test_a_move_that_loses_at_once_is_named_by_the_rules_alone(e: dict) -> None:
    w = at_once(board_of(e), e["move"])
    assert w is not None
    assert w.kind == Kind(e["kind"]) and w.moves == 1
    assert w.target == e["target"], w  # the king's square taken, or the escape square
    assert e["target"] in w.threat and w.move == e["move"]
    assert w.side == e["turn"]
    # the example line is the game's own ending (or another as good)
    end = after(after(board_of(e), e["move"]), w.line[0]).outcome()
    assert end is not None and end.winner != e["turn"]


@pytest.mark.parametrize("e", DATA["in_two"], ids=ids(DATA["in_two"]))
def test_a_move_that_loses_in_two_is_named_with_its_threat(e: dict) -> None:
    for strictness in Strictness:
        w = coach(e, strictness)
        assert w is not None, "silent"
        assert w.moves is not None and w.moves <= 2
        if e["kind"] == "escape":
            assert w.kind == Kind.ESCAPE, w
            board = after(board_of(e), e["move"])
            assert w.threat[0] == board.name(board.king)  # from the king's square...
            goal = escape_squares(board)
            assert goal >> board.geo.names.index(w.target) & 1  # ...to an escape square
            assert w.threat[-1] == w.target
            assert f"reach {w.target} in 2, e.g. {w.line[0]}" in w.text
        else:
            assert w.kind in (Kind.CAPTURE, Kind.LOSS), w
            assert "capture the king in 2" in w.text or w.kind == Kind.LOSS
        assert w.threat and w.line


@pytest.mark.parametrize("e", DATA["quiet"], ids=ids(DATA["quiet"]))
def test_a_quiet_move_gets_no_warning_when_gentle(e: dict) -> None:
    assert coach(e, Strictness.GENTLE) is None


def test_strict_warns_of_few_quiet_moves() -> None:
    """Strict speaks of smaller drops, where a short search's noise is near: at most one
    quiet move in twenty is called a loss (bench/coach.py measures the rate for a time)."""
    alarms = [e["origin"] for e in DATA["quiet"] if coach(e, Strictness.STRICT) is not None]
    assert len(alarms) <= len(DATA["quiet"]) // 20, alarms


def test_a_big_drop_is_a_warning_in_both_strictnesses_and_a_small_one_only_strict() -> None:
    board = Board("brandubh")
    move = "d2-e2"
    best = Look(0.2, ("d2-c2",))
    assert judge(board, move, Look(4.5, ("e4-e3",)), best, Strictness.GENTLE) is not None
    w = judge(board, move, Look(2.0, ("e4-e3",)), best, Strictness.STRICT)
    assert w is not None and w.kind == Kind.DROP and w.drop == 2.2
    assert w.threat[:2] == ("e4", "e3")
    assert "2.2 soldiers" in w.text
    assert judge(board, move, Look(2.0, ("e4-e3",)), best, Strictness.GENTLE) is None
    assert judge(board, move, Look(2.0, ("e4-e3",)), None, Strictness.STRICT) is None


def test_no_warning_when_lost_already_or_a_win_is_missed() -> None:
    board = Board("brandubh")
    lost_anyway = Look(-997.0, ("d2-c2",))
    assert judge(board, "d2-e2", Look(997.0, ("e4-e3",)), lost_anyway, Strictness.STRICT) is None
    won = Look(995.0, ("d2-c2",))
    assert judge(board, "d2-e2", Look(0.5, ("e4-e3",)), won, Strictness.STRICT) is None
    assert judge(board, "d2-e2", None, won, Strictness.STRICT) is None  # no look: no word
    assert judge(board, "d4-d5", Look(0.0, ("e4-e3",)), None, Strictness.STRICT) is None


def test_a_forced_loss_the_line_does_not_reach_is_named_by_its_first_move() -> None:
    board = Board("brandubh")
    w = judge(board, "d2-e2", Look(993.0, ("e4-e3",)), Look(0.1, ("d2-c2",)),
              Strictness.GENTLE)
    assert w is not None and w.kind == Kind.LOSS and w.moves == 4
    assert w.threat[:2] == ("e4", "e3") and "loses by force in 4, e.g. e4-e3" in w.text
    data = w.to_json(1)
    assert data["move"] == "d2-e2" and data["threat"][:2] == ["e4", "e3"]
    assert data["kind"] == "loss" and data["reply"] == "e4-e3" and data["ply"] == 1


def test_the_coach_config() -> None:
    assert parse_coach({}) == CoachConfig()
    cfg = parse_coach({"side": "defenders", "strictness": "strict", "seconds": 1})
    assert cfg == CoachConfig("defenders", Strictness.STRICT, 1.0)
    assert cfg.with_side(None).side is None and cfg.with_side("attackers").seconds == 1.0
    for bad in ({"side": "king"}, {"strictness": "harsh"}, {"seconds": 0}, {"level": 3},
                {"seconds": True}):
        with pytest.raises(CoachConfigError):
            parse_coach(bad)
