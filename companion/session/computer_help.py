"""The computer's help people ask for: a hint for the side to move (shown by the advisor,
:mod:`companion.session.advice`) and the analysis of a stored game (on the analysis worker,
:mod:`companion.session.analysis_worker`). No hints in a game at a distance: the game is the other
end's too.
"""

from __future__ import annotations

from companion.session import state
from companion.session.actors import Action, Actor, ControlError, Role, check
from companion.session.coaching import EvalAnswer
from companion.session.context import Context
from companion.session.decisions import Decisions, storage_error
from companion.session.game_moves import copy_game
from companion.session.results import AnalysisStatus, HintAnswer
from companion.session.state import position_key
from companion.session.storage import STORE_ERRORS
from companion.store import StoreError

HINT_SECONDS = (0.1, 30.0)
ANALYSIS_SECONDS = (0.05, 30.0)


def _seconds(value: object, bounds: tuple[float, float]) -> float | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not bounds[0] <= value <= bounds[1]):
        raise ControlError(400, "bad_request", f'"seconds" must be a number from {bounds[0]:g} '
                                               f"to {bounds[1]:g}")
    return float(value)


class ComputerHelp:
    """Hints and analyses asked for (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions) -> None:
        self.ctx = ctx
        self.decisions = decisions

    def request_hint(self, actor: Actor, seconds: object = None) -> tuple[int, HintAnswer]:
        """A hint for the side to move: (202, thinking) or (200, the hint already shown)."""
        check(actor, Action.HINT)
        ctx = self.ctx
        secs = _seconds(seconds, HINT_SECONDS)
        if ctx.remote.binding is not None:
            raise ControlError(409, "no_hint", "no hints in a game against a player at a "
                                               "distance")
        side = ctx.game.turn
        if actor.role is Role.PLAYER and actor.side != side:
            raise ControlError(409, "not_your_turn", f"it is the {side}' turn: a hint is for "
                                                     "the side to move")
        self.decisions.ready()
        if ctx.players[side].is_computer:
            raise ControlError(409, "no_hint", f"the computer plays the {side}: a hint is for a "
                                               "person's move")
        if ctx.move_to_make is not None:
            raise ControlError(409, "no_hint", f"the {side}' move is chosen already: make "
                                               f"{ctx.move_to_make['move']} on the board")
        out = ctx.advisor.request(position_key(ctx), side, actor.label,
                                  secs if secs is not None else ctx.defaults.computer.hint_seconds,
                                  copy_game(ctx.game, manual=False).board, ctx.wall())
        state.publish(ctx, force=True)
        return out

    def request_eval(self, actor: Actor, analysis: object = None) -> tuple[int, EvalAnswer]:
        """The engine's score of the position now, shown until it changes, never a move to
        make: (202, thinking) or (200, the evaluation). Anyone who may ask for a hint may ask
        (a player: on either side's turn). ``analysis`` (the owner): analysis mode on or off,
        every position of a game of two people evaluated as it comes."""
        check(actor, Action.HINT)
        ctx = self.ctx
        if analysis is not None:
            check(actor, Action.NEW_GAME)  # the owner's
            if not isinstance(analysis, bool):
                raise ControlError(400, "bad_request", '"analysis" must be true or false')
            if analysis and any(p.is_computer or p.is_remote for p in ctx.players.values()):
                raise ControlError(409, "not_two_people", "analysis mode watches a game of two "
                                                          "people at this board")
            ctx.coach.analyse(analysis)
        if ctx.remote.binding is not None:
            raise ControlError(409, "no_eval", "no evaluation in a game against a player at a "
                                               "distance")
        if ctx.game.is_over():
            raise ControlError(409, "game_over", "the game is over: its analysis evaluates "
                                                 "every position")
        out = ctx.coach.evaluate(position_key(ctx), copy_game(ctx.game, manual=False),
                                 actor.label, ctx.defaults.computer.hint_seconds)
        state.publish(ctx, force=True)
        return out

    def start_analysis(self, actor: Actor, gid: int,
                       seconds: object = None) -> tuple[int, AnalysisStatus]:
        """Analyse stored game ``gid`` on the worker: (202, progress) or (200, stored)."""
        check(actor, Action.ANALYSE)
        ctx = self.ctx
        secs = _seconds(seconds, ANALYSIS_SECONDS)
        try:
            row = ctx.store.game(gid)
        except StoreError:
            raise ControlError(404, "not_found", f"no game {gid}") from None
        if gid == ctx.gid and not ctx.game.is_over():
            raise ControlError(409, "game_ongoing", "this game is being played: it can be "
                                                    "analysed once it is over")
        if row.plies == 0:
            raise ControlError(409, "no_moves", f"game {gid} has no moves to analyse")
        try:
            return ctx.analyses.start(gid, secs if secs is not None
                                      else ctx.defaults.computer.analysis_seconds)
        except STORE_ERRORS:
            raise storage_error() from None
