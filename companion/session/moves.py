"""Small helpers on games as the session uses them: independent copies (a control computes its
result on a copy, stores it, and only then applies it), and moves as :class:`Move` objects
(square ints; names only at the edges)."""

from __future__ import annotations

from companion.rules import other
from companion.rules.board import Move
from companion.rules.game import Game


def copy_game(game: Game, *, manual: bool = True) -> Game:
    """An independent copy of ``game`` (same rules, start, moves; the manual ending too unless
    ``manual=False``, which reopens a draw agreement, resignation or loss on time)."""
    copy = Game(game.rules, game.start_position, game.start_turn)
    for p in game.played:
        copy.play(f"{p.frm}-{p.to}")
    outcome = game.outcome()
    if manual and outcome is not None and not copy.is_over():
        if outcome.reason == "agreement":
            copy.agree_draw()
        elif outcome.reason == "resignation" and outcome.winner:
            copy.resign(other(outcome.winner))
        elif outcome.reason == "time" and outcome.winner:
            copy.lose_on_time(other(outcome.winner))
    return copy


def move_of(game: Game, frm: str, to: str) -> Move:
    """The :class:`Move` between two square names of ``game``'s board (ValueError if one is
    not a square of it)."""
    geo = game.board.geo
    return Move(geo.square(frm), geo.square(to))


def played_moves(game: Game) -> tuple[Move, ...]:
    """The moves of ``game`` as :class:`Move` objects."""
    return tuple(move_of(game, p.frm, p.to) for p in game.played)


def last_move(game: Game) -> Move:
    """The last move of ``game`` (it has one)."""
    p = game.played[-1]
    return move_of(game, p.frm, p.to)


def move_text(game: Game, move: Move) -> str:
    """``"g3-e3"`` on ``game``'s board."""
    names = game.board.geo.names
    return f"{names[move.frm]}-{names[move.to]}"
