"""The game as an OTEP engine knows it: the rules and start it was sent and the moves since,
and the lines that bring it up to a board — the moves played since (``opponent-move``), or,
when the game went another way (a takeback, a new game), ``rules`` and the moves replayed;
and :func:`copy_board`, the host's own copy of a board it asks about.
"""

from __future__ import annotations

from companion.rules import Board, Move

from .otr import otr_for


class GameMirror:
    """What the engine was told (see the module docstring); :meth:`forget` when it is a new
    process. Not thread-safe: the host calls it under its lock."""

    def __init__(self) -> None:
        self._board: Board | None = None
        self._known: list[tuple[int, int]] = []

    def forget(self) -> None:
        """The engine knows nothing (a new process, or none)."""
        self._board = None
        self._known = []

    def sync(self, board: Board) -> list[str]:
        """Lines that bring the engine from what it knows to ``board``."""
        history = list(zip(board.move_stack, board.capture_stack, strict=True))
        moves = [(m.frm, m.to) for m, _ in history]
        out: list[str] = []
        mirror = self._board
        if mirror is not None and mirror.rules == board.rules and self._known == moves[
                : len(self._known)] and start_of(mirror) == start_of(board):
            todo = moves[len(self._known):]
        else:
            start_pos, start_turn = start_of(board)
            mirror = Board(board.rules, start_pos, start_turn)
            out.append("rules " + otr_for(board.rules, start_pos, start_turn))
            self._known = []
            todo = moves
        for frm, to in todo:
            mirror.push_unchecked(Move(frm, to))
            out.append(f"opponent-move {board.name(frm)}-{board.name(to)} {mirror.otn()}")
            self._known.append((frm, to))
        self._board = mirror
        return out

    def engine_played(self, move: Move) -> None:
        """The engine played ``move`` (it knows the game after it)."""
        if self._board is not None:
            self._board.push_unchecked(move)
            self._known.append((move.frm, move.to))


def start_of(board: Board) -> tuple[str, str]:
    """The position and side to move the board's move stack starts from."""
    root = board.root()  # the state before the first move
    return root.otn(), root.turn


def copy_board(board: Board) -> Board:
    """An independent copy of ``board`` with its whole history (``board`` is not touched)."""
    root = board.root()
    copy = Board(board.rules, root.otn(), root.turn, root.king_left)
    for m in board.move_stack:
        copy.push_unchecked(m)
    return copy
