"""Small helpers on games as the session uses them: independent copies (a control computes its
result on a copy, stores it, and only then applies it), and moves as :class:`Move` objects
(square ints; names only at the edges)."""

from __future__ import annotations

from companion.rules.board import Move
from companion.rules.game import Game
from companion.squares import parse_square


def copy_game(game: Game, *, manual: bool = True) -> Game:
    """An independent copy of ``game`` (same rules, start, moves; the manual ending too unless
    ``manual=False``, which reopens a draw agreement, resignation or loss on time)."""
    return game.copy(manual=manual)


def move_of(game: Game, frm: str, to: str) -> Move:
    """The :class:`Move` between two square names of ``game``'s board (ValueError if one is
    not a square of it)."""
    size = game.rules.size
    return Move(parse_square(frm, size), parse_square(to, size))


def played_moves(game: Game) -> tuple[Move, ...]:
    """The moves of ``game`` as :class:`Move` objects."""
    return tuple(p.move for p in game.played)


def last_move(game: Game) -> Move:
    """The last move of ``game`` (it has one)."""
    return game.played[-1].move


def move_text(game: Game, move: Move) -> str:
    """``"g3-e3"`` on ``game``'s board."""
    names = game.board.geo.names
    return f"{names[move.frm]}-{names[move.to]}"
