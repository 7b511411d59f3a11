"""The machines' part of a loop step: the computer players' turns and the advisor's answers,
applied to the game.

The parts say what a machine decided (:mod:`companion.session.computer`'s :data:`Decision`,
:mod:`companion.session.advice`'s :data:`Advice`); this applies it like any other decision:
the computer's move becomes the move to make at the board (stored first), its resignation and
its draw answers go through the same controls as a person's, a hint is stored and shown.
"""

from __future__ import annotations

import logging
from typing import assert_never

from companion.coach.look import CoachWarning
from companion.session import state
from companion.session.actors import ControlError
from companion.session.advice import DrawAnswer, HintFailed, HintReady, LookDone
from companion.session.computer import Chose, Failed, Resigns, computer_actor
from companion.session.context import Context
from companion.session.controls import Controls
from companion.session.decisions import Decisions
from companion.session.game_moves import copy_game, move_of

log = logging.getLogger("companion.session")


class Machines:
    """Applying what the computer players and the advisor decided (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions, controls: Controls) -> None:
        self.ctx = ctx
        self.decisions = decisions
        self.controls = controls

    def computer_turn(self, now: float) -> None:
        """Ask the computer for its move when it is its turn; show its answer as the move to
        make at the board (or resign a hopeless position)."""
        ctx = self.ctx
        decision = ctx.seats.step(
            ctx.game, now, ctx.wall(), ctx.defaults.computer, may_ask=ctx.outbox.ok,
            waiting=ctx.move_to_make is not None,
            clock=lambda: ctx.clocks.left(ctx.board_time()))
        match decision:
            case None:
                pass
            case Failed():
                ctx.announcer.note("player_error", decision.side, message=decision.message,
                                   computer=True)
            case Resigns():
                log.info("game %d: the computer (%s) resigns: %s", ctx.gid, decision.side,
                         decision.why)
                try:
                    self.controls.resign(computer_actor(decision.side), decision.side)
                except ControlError as exc:
                    log.warning("game %d: the computer's resignation not taken: %s", ctx.gid,
                                exc.message)
            case Chose():
                frm, _, to = decision.move.partition("-")
                try:
                    # stored with the game: after a crash it is shown again, not chosen afresh
                    self.decisions.choose(move_of(ctx.game, frm, to), decision.by,
                                          decision.by, decision.score)
                except (ControlError, ValueError) as exc:
                    log.warning("game %d: the computer's move %s not taken: %s", ctx.gid,
                                decision.move, exc)
                    ctx.seats.ask_again(decision.side)
            case _:
                assert_never(decision)

    def advice(self) -> None:
        """Take the advisor's finished answers (at every loop step; never blocks)."""
        ctx = self.ctx
        key = state.position_key(ctx)
        coached = ctx.coach.config.side
        person = coached is not None and not (ctx.players[coached].is_computer
                                              or ctx.players[coached].is_remote)
        two_people = not any(p.is_computer or p.is_remote for p in ctx.players.values())
        self._warned(ctx.coach.watch(key, ctx.game, person, two_people,
                                     ctx.defaults.computer.hint_seconds))
        for answer in ctx.advisor.poll(key, len(ctx.game.played)):
            match answer:
                case HintReady(hint=hint, row=row):
                    ctx.outbox.add("hint", row)
                    ctx.announcer.note("hint", str(row["by"]), side=row["side"],
                                       move=row["move"], score=row["score"])
                    log.info("game %d: hint for the %s: %s (%+.2f)", ctx.gid, row["side"],
                             hint["move"], row["score"])
                    self.decisions.write()
                case HintFailed():
                    ctx.announcer.note("hint_failed", answer.by, side=answer.side,
                                       message=answer.message)
                    log.warning("game %d: no hint: %s", ctx.gid, answer.message)
                case DrawAnswer():
                    self._draw_answer(answer)
                case LookDone(job=job):
                    self._warned(ctx.coach.done(job, key))
                case _:
                    assert_never(answer)

    def _warned(self, warning: CoachWarning | None) -> None:
        """The coach warns of the move just made: an event, and the state at once."""
        if warning is None:
            return
        ctx = self.ctx
        ctx.announcer.note("coach_warning", "coach", side=warning.side, move=warning.move,
                           warning=warning.kind.value, threat=list(warning.threat),
                           reply=warning.line[0] if warning.line else None)
        log.info("game %d: the coach warns the %s: %s", ctx.gid, warning.side, warning.text)

    def _draw_answer(self, answer: DrawAnswer) -> None:
        ctx = self.ctx
        side = answer.side
        if ctx.draw_offer is None or ctx.draw_offer == side or ctx.game.is_over():
            return  # withdrawn, lapsed or answered meanwhile
        cfg = ctx.defaults.computer
        if answer.again:  # the position changed: judge it again
            ctx.advisor.ask_draw(state.position_key(ctx), side, cfg.draw_seconds,
                                 copy_game(ctx.game, manual=False).board)
            return
        accept = cfg.draw and answer.score is not None and answer.score <= cfg.draw_threshold
        try:
            self.controls.draw(computer_actor(side), "accept" if accept else "decline", side,
                               score=answer.score)
        except ControlError as exc:
            log.info("game %d: the computer's draw answer was not taken: %s", ctx.gid,
                     exc.message)
