"""The controls of the game in play: what the owner, a player, the hands at the board or a player
at a distance ask for (the simulated board, a move chosen off the board, takeback, draw,
resignation, the clock).

Each control checks the actor's permission (:func:`companion.session.actors.check`), computes
the new state on copies, writes it (:meth:`~companion.session.decisions.Decisions.commit`) and
only then applies it; a control that cannot be written raises ``ControlError(503, "storage")``
and changes nothing. Rules of play (docs/session.md):

* takeback reopens exactly the last decision: a draw agreement, a resignation, or a move (a
  loss on time is final);
* a draw offer stands until the opponent accepts, declines or makes a move;
* in a game at a distance, only the other end decides for its side; takebacks cross over only
  when its player allows them (club), never online.
"""

from __future__ import annotations

import re

from companion.rules import other
from companion.rules.board import MoveError
from companion.session import state
from companion.session.actors import Action, Actor, ControlError, Role, check
from companion.session.computer import computer_sides, takeback_plies
from companion.session.context import SIDES, Context
from companion.session.decisions import Decided, Decisions, Note, taken_back
from companion.session.game_moves import copy_game
from companion.session.move_clocks import PRESS
from companion.session.players import PlayerKind
from companion.session.record import Change
from companion.session.results import (
    ClockResult,
    ConfirmResult,
    DrawResult,
    EndMoveResult,
    ResignResult,
    TakebackResult,
)
from companion.session.state_document import MoveToMake
from companion.store_types import RowData

_MOVE = re.compile(r"^([a-s])([1-9][0-9]?)-([a-s])([1-9][0-9]?)$")


class Controls:
    """The controls of the game in play (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions) -> None:
        self.ctx = ctx
        self.decisions = decisions

    # -- helpers -----------------------------------------------------------------------------
    def side_arg(self, actor: Actor, side: object) -> str:
        if side is None and actor.role is Role.PLAYER and actor.side:
            return actor.side
        if side not in SIDES:
            raise ControlError(400, "bad_side", '"side" must be attackers or defenders')
        return str(side)

    def is_remote(self, actor: Actor) -> bool:
        """Whether ``actor`` is the player at a distance of the current game."""
        b = self.ctx.remote.binding
        return b is not None and actor.name == b.kind.value

    def _check_remote_side(self, actor: Actor, side: str) -> None:
        if self.ctx.remote.is_remote_side(side) and not self.is_remote(actor):
            raise ControlError(409, "remote_side", f"the {side} play at a distance: only they "
                                                   "decide for their side")

    # -- the simulated board -------------------------------------------------------------------
    def click(self, actor: Actor, square: str) -> bool:
        check(actor, Action.CLICK)
        ctx = self.ctx
        board = ctx.caps.clickable
        if board is None:
            raise ControlError(409, "real_board", f"the board is a real board "
                                                  f"({ctx.board.kind}): move the pieces by hand")
        if not isinstance(square, str) or square not in ctx.game.board.geo.names:
            raise ControlError(400, "bad_square", f"not a square of this board: {square!r}")
        return board.toggle(square)  # the tracker sees it at the next scan

    # -- a move chosen off the board -----------------------------------------------------------
    def choose_move(self, actor: Actor, move: str) -> MoveToMake:
        """A move chosen off the board (a page player): the person at the board makes it."""
        ctx = self.ctx
        turn = ctx.game.turn
        check(actor, Action.MOVE, turn)
        self.decisions.ready()
        if ctx.players[turn].kind is PlayerKind.BOARD:
            raise ControlError(409, "at_the_board", f"the {turn} play at the board: make "
                                                    "the move there")
        if ctx.players[turn].is_remote:
            raise ControlError(409, "remote_side", f"the {turn} play at a distance: their "
                                                   "moves come from there")
        m = _MOVE.match(move) if isinstance(move, str) else None
        board = ctx.game.board
        names = board.geo.names
        if m is None or f"{m[1]}{m[2]}" not in names or f"{m[3]}{m[4]}" not in names:
            raise ControlError(400, "bad_move", f'"move" must be FROM-TO on this board, such '
                                                f'as g3-e3, not {move!r}')
        frm, to = f"{m[1]}{m[2]}", f"{m[3]}{m[4]}"
        try:
            parsed, _ = board.parse_move(f"{frm}-{to}")
        except (MoveError, ValueError) as exc:
            raise ControlError(409, "illegal_move", f"{frm}-{to} is not legal: {exc}") from None
        if not board.is_legal(parsed):
            raise ControlError(409, "illegal_move", f"{frm}-{to} is not a legal move of the "
                                                    f"{turn} here")
        return self.decisions.choose(parsed, ctx.players[turn].kind.value, actor.label)

    # -- decisions ------------------------------------------------------------------------------
    def takeback(self, actor: Actor) -> TakebackResult:
        """Reopen the last decision: a draw agreement, a resignation, or a move (against the
        computer: the person's last move and the computer's reply)."""
        check(actor, Action.TAKEBACK)
        ctx, decisions = self.ctx, self.decisions
        decisions.ready(playing=False)
        if ctx.remote.binding is not None and not ctx.remote.takebacks:
            raise ControlError(409, "no_takebacks", "takebacks are not allowed in this game "
                                                    "at a distance")
        outcome = ctx.game.outcome()
        reason = str(outcome.reason) if outcome else None
        if reason == "time":
            # final, as with any game clock: reopened, the loser's clock would read 0:00 and
            # the flag fall again at once (docs/session.md); breaks are what the pause is for
            raise ControlError(409, "time_loss", "a loss on time is final: the flag fell "
                               "with nothing left on the clock; start a new game (pause the "
                               "clock for a break next time)")
        if reason in ("agreement", "resignation"):
            return self._reopen(actor, reason)
        plies = takeback_plies(ctx.game, ctx.players)
        if not plies:
            what = "move" if not ctx.game.played else "move of a person"
            raise ControlError(409, "nothing_to_take_back", f"there is no {what} to take back")
        undone = [p.text for p in reversed(ctx.game.played[-plies:])]  # latest first
        data: dict[str, object] = {"move": undone[-1], "by": actor.label}
        if plies > 1:
            data["moves"] = undone
        stopped = decisions.conclude(Decided(
            [("takeback", data)], taken_back(ctx.game, plies),
            Note("takeback", actor.label, {k: v for k, v in data.items() if k != "by"}),
            tell=lambda remote: remote.took_back(len(ctx.game.played)),
            records=ctx.clocks.records[:-plies]),
            then=lambda: decisions.took_back(ctx.board_time(), plies))
        out: TakebackResult = {"undone": undone[-1], "moves": undone}
        if stopped:
            out["stopped"] = True
        return out

    def _reopen(self, actor: Actor, reason: str) -> TakebackResult:
        ctx = self.ctx
        if ctx.remote.binding is not None:
            raise ControlError(409, "remote_game", "the game at a distance ended by the other "
                                                   "end's word too: it cannot be reopened here")
        game = copy_game(ctx.game, manual=False)

        def reopened() -> None:
            ctx.clocks.reopened(game.turn, ctx.board_time(), moved=bool(game.played))
            self.decisions.reopen_match_game()

        self.decisions.conclude(Decided(
            [("takeback", {"reopened": reason, "by": actor.label})], Change(game=game),
            Note("takeback", actor.label, {"reopened": reason})), then=reopened)
        return {"undone": reason, "reopened": reason}

    def draw(self, actor: Actor, action: str, side: str | None, *,
             score: float | None = None) -> DrawResult:
        """Offer, accept or decline a draw (``score``: the computer's evaluation it answered
        by, kept with the event)."""
        if action not in ("offer", "accept", "decline"):
            raise ControlError(400, "bad_action", '"action" must be offer, accept or decline')
        side = self.side_arg(actor, side)
        check(actor, Action.DRAW, side)
        ctx, decisions = self.ctx, self.decisions
        decisions.ready()
        self._check_remote_side(actor, side)
        extra = {} if score is None else {"score": score}
        rows: list[tuple[str, RowData]] = [
            ("draw", {"action": action, "side": side, "by": actor.label, **extra})]
        if action == "offer":
            if ctx.draw_offer == side:
                raise ControlError(409, "already_offered", f"the {side} already offer a draw")
            change = Change(draw_offer=side)
        elif ctx.draw_offer is None or ctx.draw_offer == side:
            raise ControlError(409, "no_offer",
                               f"there is no draw offer for the {side} to {action}")
        elif action == "accept":
            game = copy_game(ctx.game)
            game.agree_draw()
            change = Change(game=game, draw_offer=None)
        else:
            change = Change(draw_offer=None)

        def asked() -> None:  # a computer offered a draw weighs it
            opponent = other(side)
            if action == "offer" and opponent in computer_sides(ctx.players):
                ctx.advisor.ask_draw(state.position_key(ctx), opponent,
                                     ctx.defaults.computer.draw_seconds,
                                     copy_game(ctx.game, manual=False).board)

        decisions.conclude(Decided(
            rows, change, Note("draw", actor.label, {"action": action, "side": side, **extra}),
            tell=None if self.is_remote(actor) else lambda remote: remote.drew(side, action)),
            then=asked)
        return {"ok": True, "draw_offer": ctx.draw_offer}

    def resign(self, actor: Actor, side: str | None) -> ResignResult:
        side = self.side_arg(actor, side)
        check(actor, Action.RESIGN, side)
        ctx, decisions = self.ctx, self.decisions
        decisions.ready()
        self._check_remote_side(actor, side)
        game = copy_game(ctx.game)
        game.resign(side)
        extra = {"computer": True} if actor.name == "computer" else {}
        decisions.conclude(Decided(
            [("resign", {"side": side, "by": actor.label, **extra})],
            Change(game=game, draw_offer=None),
            Note("resign", actor.label, {"side": side, **extra}),  # then the match's end
            tell=None if self.is_remote(actor) else lambda remote: remote.resigned(side)))
        return {"ok": True, "result": game.result}

    def clock_control(self, actor: Actor, action: str) -> ClockResult:
        """Pause or resume the clock; ``start`` it before the first move (the board's clock
        button: a simulated board is never set up, so its clock otherwise starts with the
        first move)."""
        check(actor, Action.CLOCK)
        if action not in ("pause", "resume", "start"):
            raise ControlError(400, "bad_action", '"action" must be pause, resume or start')
        ctx, decisions = self.ctx, self.decisions
        decisions.ready()
        if ctx.remote.authoritative_clock or ctx.remote.binding is not None:
            raise ControlError(409, "remote_clock", "the clocks are the other end's in this "
                                                    "game: they cannot be paused here")
        clocks = ctx.clocks
        clock = clocks.clock
        if clock is None:
            raise ControlError(409, "no_clock", "this game has no clock")
        t = ctx.board_time()
        if action == "start":
            side = clocks.side_to_start(ctx.game.turn)
            if clock.running is not None or clock.paused or side is None:
                raise ControlError(409, "clock_running", "the clock is running already (or "
                                                         "paused: resume it)")
        saved = clocks.checkpoint()
        if action == "start" and side is not None:
            clocks.start(side, t)
        else:
            clocks.pause(action, t)
        if action in ("resume", "start"):  # a move chosen meanwhile: its clock stops
            m = ctx.move_to_make
            clocks.catch_up(m["side"] if m else None, t, ctx.game.is_over(),
                            m is not None and ctx.players[other(m["side"])].moves_off_board)
        try:
            decisions.commit(ctx.game, [("clock", {"action": action, "by": actor.label})])
        except ControlError:
            clocks.rollback(saved)
            raise
        ctx.announcer.note("clock", actor.label, action=action)
        decisions.after_control()
        return {"ok": True, "paused": clocks.clock is not None and clocks.clock.paused}

    def confirm_pieces(self, actor: Actor) -> ConfirmResult:
        """The players checked the pieces' kinds against the position the game believes (the
        tracker's ``check_pieces`` guidance on a board that cannot tell colours): right."""
        if actor.role is Role.SPECTATOR:
            raise ControlError(403, "forbidden", "spectators cannot act: the controls need the "
                                                 "PIN or a player link")
        ctx = self.ctx
        asked = ctx.tracker.guidance.get("kind") == "check_pieces"
        self.decisions.store_plain(ctx.tracker.checked(ctx.board_time()))
        if asked:
            ctx.announcer.note("colours", actor.label)
        state.publish(ctx, force=True)
        return {"ok": True, "checked": asked}

    def end_move(self, actor: Actor) -> EndMoveResult:
        """The clock button after a move at the board (``press_to_end``): the mover's clock
        stops and the opponent's starts now (once the captured pieces are lifted too)."""
        check(actor, Action.CLOCK)
        ctx = self.ctx
        self.decisions.ready()
        waiting = ctx.clocks.pending
        if waiting is None or PRESS not in waiting[1]:
            raise ControlError(409, "no_move_to_end", "no move waits for the clock button")
        ctx.clocks.capture_lifted(PRESS, ctx.board_time())
        ctx.announcer.note("clock", actor.label, action="end_move")
        self.decisions.write()
        return {"ok": True, "switched": ctx.clocks.pending is None}
