"""The engine reads every OTEP move text of every board size, and keeps the game's history
across a whole game: repetitions stay visible to its search, and the side to move never
changes without a move.

The defect this guards against: a leading ``c``, ``g``, ``m`` or ``n`` was stripped as an OTN
piece letter even when it was the file (``opponent-move g3-g2`` failed as "malformed move
'3-g2'"); the engine then took the position record and lost the game's history.
"""

from __future__ import annotations

import io
import random

import pytest

from companion.engine.notation import simple_move
from companion.engine.otep import OtepEngine
from companion.engine.otr import otr_for
from companion.engine.position import ATT, Position
from companion.rules import PRESETS, Board, Move
from companion.rules.geometry import geometry_for
from companion.squares import parse_square

SIZES = sorted({rules.size for rules in PRESETS.values()})
FILES = "abcdefghijklmnopqrs"


def test_every_board_size_is_covered():
    assert SIZES == [7, 9, 11, 13, 19]


@pytest.mark.parametrize("size", SIZES)
def test_every_file_letter_reads_as_a_file_with_and_without_a_piece_letter(size):
    rules = next(r for r in PRESETS.values() if r.size == size)
    board = Board(rules)
    geo = geometry_for(rules)
    for f, letter in enumerate(FILES[:size]):
        other = FILES[(f + 1) % size]
        for rank in (1, 3, size):
            to_rank = 2 if rank != 2 else 1
            text = f"{letter}{rank}-{letter}{to_rank}"
            frm, to = rank_square(size, f, rank), rank_square(size, f, to_rank)
            across = f"{letter}{rank}-{other}{rank}"
            for written, expected in (
                (text, text), (across, across),
                (f"K{text}", text), (f"t{text}", text), (f"T{text}", text),
                (f"c{text}", text), (f"g{text}", text), (f"m{text}", text), (f"n{text}", text),
                (f"{text}x{other}{rank}", text), (f"{text}x{other}{rank}/{letter}{size}", text),
                (f"{text}+", text), (f"{text}--", text), (f"K{text}x{other}{rank}++", text),
            ):
                assert simple_move(written) == expected, written
            move, _ = board.parse_move(simple_move(text))
            assert (move.frm, move.to) == (frm, to)
            assert geo.names[frm] == f"{letter}{rank}"


def rank_square(size: int, file: int, rank: int) -> int:
    return (rank - 1) * size + file


class Quiet:
    """An in-process OTEP engine fed line by line (no threads: ``handle`` per command)."""

    def __init__(self, rules, level: int = 1) -> None:
        self.out = io.StringIO()
        self.log = io.StringIO()
        self.engine = OtepEngine(io.StringIO(), self.out, level=level, log=self.log)
        self.engine.handle(f"rules {otr_for(rules)}")

    def send(self, line: str) -> None:
        self.engine.run_line(line)

    @property
    def board(self) -> Board:
        assert self.engine.board is not None
        return self.engine.board


def otn_text(board: Board, move: Move, captured: int, style: int) -> str:
    """The move as hosts write it: simple, or full OTN with a piece letter and captures."""
    simple = f"{board.name(move.frm)}-{board.name(move.to)}"
    if style == 0:
        return simple
    caps = [board.name(s) for s in board.geo.iter_bits(captured)]
    piece = "K" if board.king == move.to else ""
    return piece + simple + ("x" + "/".join(caps) if caps else "")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_whole_game_keeps_its_history_through_opponent_moves(preset):
    """Every move of a seeded random game sent as ``opponent-move <move> <position>`` (as this
    project's host sends a game, and in full OTN as OpenTafl may): the engine's game is the
    referee's after every move, its move stack included, and it never resynchronises."""
    rules = PRESETS[preset]
    rng = random.Random(preset)
    engine = Quiet(rules)
    board = Board(rules)
    files_seen = set()
    while board.outcome() is None and len(board.move_stack) < 160:
        move = rng.choice(board.legal_moves())
        before = board.turn
        captured = board.push(move)
        files_seen.add(board.name(move.frm)[0])
        text = otn_text(board, move, captured, style=len(board.move_stack) % 2)
        engine.send(f"opponent-move {text} {board.otn()}")
        assert engine.board.turn != before
        assert engine.board.move_stack == board.move_stack
        assert engine.board.history == board.history
    assert "resynchronised" not in engine.log.getvalue()
    assert "status error" not in engine.out.getvalue()
    assert len(files_seen) >= rules.size - 2  # moves from (nearly) every file were read


def test_opponent_move_from_the_g_file_keeps_the_history():
    rules = PRESETS["copenhagen"]
    engine = Quiet(rules)
    board = Board(rules)
    # g and c are piece letters too
    for text in ("g1-g2", "g5-g3", "d1-c1", "e5-c5", "c1-c3", "c5-c7", "g2-g1", "g3-g5"):
        move, _ = board.parse_move(text)
        board.push(move)
        engine.send(f"opponent-move {text} {board.otn()}")
    assert engine.board.move_stack == board.move_stack
    assert "resynchronised" not in engine.log.getvalue()


def test_repetitions_are_visible_to_the_engine():
    """Copenhagen: the defenders lose by making the third repetition. After a round trip and
    three more moves sent as opponent-moves, the engine's search knows that the defenders' return
    move repeats the start a third time and loses."""
    rules = PRESETS["copenhagen"]
    engine = Quiet(rules)
    board = Board(rules)
    cycle = ["a4-b4", "f4-e4", "b4-a4", "e4-f4"]
    for text in cycle + cycle[:3]:
        move, _ = board.parse_move(text)
        board.push(move)
        engine.send(f"opponent-move {text} {board.otn()}")
    pos = Position.from_board(engine.board)
    back = parse_square("e4", 11) << 9 | parse_square("f4", 11)
    assert back in pos.moves()
    pos.make(back)
    assert pos.result == (ATT, "repetition")


def test_the_side_to_move_never_changes_without_a_move():
    rules = PRESETS["copenhagen"]
    engine = Quiet(rules)
    engine.send("opponent-move banana")  # no move, no record: nothing changes
    assert engine.board.turn == "attackers" and not engine.board.move_stack
    assert "status error: opponent-move" in engine.out.getvalue()
    engine.send("opponent-move z9-z8")
    assert engine.board.turn == "attackers"
    # an unreadable move with the host's record: the record, and the turn passes on
    board = Board(rules)
    board.push(board.parse_move("d1-d2")[0])
    engine.send(f"opponent-move d1-q2 {board.otn()}")
    assert engine.board.otn() == board.otn() and engine.board.turn == "defenders"
