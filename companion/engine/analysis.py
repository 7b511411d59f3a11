"""Post-game analysis through an OTEP engine: the evaluation after every move, the moves where
it swung most, and the engine's better move at each.

The search runs in the engine's process (through :class:`~companion.engine.otep_host.OtepHost`),
never in the caller's; :func:`analyse_game` only waits for the answers, so the daemon runs it on a
worker thread (it takes about ``seconds`` per position). Evaluations are in soldiers from the
**attackers'** point of view (positive: the attackers stand better), forced results ±1000 minus
the plies to them, a finished game ±1000 (or 0 for a draw).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from companion.rules import Board
from companion.rules.game import Game
from companion.rules.ruleset import ATTACKERS

from .otep_host import OtepHost

FORCED = 1000.0


class PlyReviewJSON(TypedDict):
    """:class:`PlyReview` as JSON."""

    ply: int
    side: str
    move: str
    before: float
    after: float
    best_move: str | None
    best_line: list[str]
    loss: float


class ReviewJSON(TypedDict):
    """:meth:`GameReview.to_json`: the evaluations, every move's review, the swings' plies."""

    evaluations: list[float]
    plies: list[PlyReviewJSON]
    swings: list[int]


@dataclass
class PlyReview:
    """One move of the game: ``ply`` (1 = the first move), who played it, the evaluation before
    and after it, the engine's best move before it (with its line) and how much the mover lost
    against that best move (soldiers, never negative; 0 when the move was the engine's own)."""

    ply: int
    side: str
    move: str
    before: float
    after: float
    best_move: str | None
    best_line: list[str] = field(default_factory=list)
    loss: float = 0.0


@dataclass
class GameReview:
    """The analysis of a game: ``evaluations`` for every position (the start, then after each
    move), ``plies`` one review per move, ``swings`` the moves that lost most, worst first."""

    evaluations: list[float]
    plies: list[PlyReview]
    swings: list[PlyReview]

    def to_json(self) -> ReviewJSON:
        """JSON-ready form (for the page's graph and list)."""
        return {
            "evaluations": list(self.evaluations),
            "plies": [{"ply": p.ply, "side": p.side, "move": p.move, "before": p.before,
                       "after": p.after, "best_move": p.best_move,
                       "best_line": list(p.best_line), "loss": p.loss} for p in self.plies],
            "swings": [p.ply for p in self.swings],
        }


def _final_value(board: Board) -> float:
    outcome = board.outcome()
    if outcome is None or outcome.winner is None:
        return 0.0
    return FORCED if outcome.winner == ATTACKERS else -FORCED


def analyse_game(
    host: OtepHost, game: Game, seconds: float = 1.0, swings: int = 5, min_loss: float = 0.3,
    stop: threading.Event | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Analyse every position of ``game`` for ``seconds`` each (blocking: run it on a worker
    thread). ``stop`` ends it early (the positions analysed so far are returned); raises
    :class:`~companion.engine.otep_host.EngineError` when the engine fails."""
    board = Board(game.rules, game.start_position, game.start_turn)
    moves = list(game.board.move_stack)
    values: list[float] = []
    best: list[tuple[str | None, list[str]]] = []
    total = len(moves) + 1
    for i in range(total):
        if stop is not None and stop.is_set():
            break
        if board.outcome() is not None:
            values.append(_final_value(board))
            best.append((None, []))
        else:
            lines = host.analyze(board, 1, seconds).result(timeout=seconds * 1.5 + 30)
            if lines:
                value = lines[0].evaluation
                values.append(value if board.turn == ATTACKERS else -value)
                best.append((lines[0].moves[0], lines[0].moves))
            else:
                values.append(values[-1] if values else 0.0)
                best.append((None, []))
        if on_progress is not None:
            on_progress(i + 1, total)
        if i < len(moves):
            board.push(moves[i])
    plies: list[PlyReview] = []
    replay = Board(game.rules, game.start_position, game.start_turn)
    for i in range(min(len(moves), len(values) - 1)):
        move = moves[i]
        side = replay.turn
        text = game.moves[i] if i < len(game.moves) else f"{replay.name(move.frm)}-" \
            f"{replay.name(move.to)}"
        played = f"{replay.name(move.frm)}-{replay.name(move.to)}"
        sign = 1.0 if side == ATTACKERS else -1.0
        before, after = values[i], values[i + 1]
        best_move, line = best[i]
        loss = 0.0 if best_move in (None, played) else max(0.0, sign * (before - after))
        plies.append(PlyReview(i + 1, side, text, before, after,
                               None if best_move == played else best_move, line,
                               round(loss, 2)))
        replay.push(move)
    worst = sorted((p for p in plies if p.loss >= min_loss), key=lambda p: -p.loss)[:swings]
    return GameReview(values, plies, worst)
