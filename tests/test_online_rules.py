"""The hnefatafl.org server's rule sets and house rules (companion/rules/hnefatafl_org.py),
position by position as the server program's board.rs decides them."""

from __future__ import annotations

from companion.rules import PRESETS, Board, Move
from companion.rules.game import Game
from companion.rules.hnefatafl_org import (
    BY_SIZE,
    MOVE_LIMIT,
    REPEATED,
    ServerHistory,
    limit_reached,
)


def mv(board: Board, text: str) -> Move:
    return board.parse_move(text)[0]


def test_one_rule_set_per_board_size_and_they_are_presets():
    assert {r.id: r.size for r in BY_SIZE.values()} == {
        "hnefatafl-org-7": 7, "hnefatafl-org": 11, "hnefatafl-org-13": 13}
    for rules in BY_SIZE.values():
        assert PRESETS[rules.id] is rules and rules.repetition == "off"
    assert BY_SIZE[7].first == "defenders" and BY_SIZE[11].first == "attackers"
    assert BY_SIZE[7].start == PRESETS["brandubh"].start
    assert BY_SIZE[13].start == PRESETS["copenhagen-13"].start
    assert not BY_SIZE[7].exit_fort and BY_SIZE[11].exit_fort and BY_SIZE[7].encirclement


def test_brandubh_king_beside_the_throne_is_taken_by_two():
    # king on d5 (beside the throne d4), attackers on c5 and one arriving on e5
    rules = BY_SIZE[7]
    b = Board(rules, "/7/7/4t2/7/2tK3/7/7/", "attackers")
    b.push(mv(b, "e3-e5"))
    assert b.outcome() is not None and b.outcome().result == "attackers"
    # the project's brandubh keeps him strong beside the throne
    p = Board(PRESETS["brandubh"], "/7/7/4t2/7/2tK3/7/7/", "attackers")
    p.push(mv(p, "e3-e5"))
    assert p.outcome() is None


def test_brandubh_king_on_the_throne_needs_four_and_corners_never_help():
    rules = BY_SIZE[7]
    b = Board(rules, "/7/7/3t3/2tK1t1/3t3/7/7/", "attackers")
    b.push(mv(b, "f4-e4"))
    assert b.outcome() is not None and b.outcome().result == "attackers"
    # king on b1 beside the corner a1: an attacker on c1 alone does not take him
    c = Board(rules, "/1K5/7/2t4/7/7/7/7/", "attackers")
    c.push(mv(c, "c3-c1"))
    assert c.outcome() is None


def play(g: Game, history: ServerHistory, *texts: str) -> None:
    for text in texts:
        g.play_text(text)
        history.add(g.board)


def test_defenders_may_not_recreate_an_earlier_board():
    g = Game(BY_SIZE[11])
    history = ServerHistory(g.board)
    play(g, history, "e1-e3", "f4-c4", "e3-e2")
    back = mv(g.board, "c4-f4")
    assert history.refusal(g.board, back) is None  # a new board: the attacker stands on e2
    play(g, history, "c4-f4", "e2-e3")  # the attackers recreate the board after ply 1: allowed
    again = mv(g.board, "f4-c4")  # would recreate the board after ply 2
    assert history.refusal(g.board, again) == REPEATED
    assert history.refusal(g.board, mv(g.board, "f4-f3")) is None
    # a history rebuilt from the board's own move stack (after a restart) knows the same boards
    assert ServerHistory(g.board).refusal(g.board, again) == REPEATED
    # the attackers are never refused
    g.play_text("f4-f3")
    assert ServerHistory(g.board).refusal(g.board, mv(g.board, "e3-e1")) is None


def test_the_start_position_counts():
    g = Game(BY_SIZE[11])
    history = ServerHistory(g.board)
    play(g, history, "e1-e3", "f4-c4", "e3-e1")
    assert history.refusal(g.board, mv(g.board, "c4-f4")) == REPEATED


def test_move_limit():
    assert MOVE_LIMIT == 133
    assert not limit_reached(132) and limit_reached(133)   # seen on the real server
