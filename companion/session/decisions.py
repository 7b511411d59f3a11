"""The session's decisions: every change of the game, shared by the loop (the board's
proposals), the controls and the players at a distance.

Each decision is stored before it is shown: the loop's writes take the pending rows with the
game in one transaction (:meth:`Decisions.write`, retried while the store fails); a control
computes its result on a copy, writes it (:meth:`Decisions.commit`, ``ControlError(503,
"storage")`` when it cannot: nothing changed) and only then applies it. What this board did
goes to a player at a distance once it is stored.
"""

from __future__ import annotations

import logging
from typing import Any

from companion.rules.board import Move
from companion.rules.game import Game
from companion.session import state
from companion.session.actors import ControlError
from companion.session.context import Context
from companion.session.document import MoveToMake
from companion.session.match import GameResult
from companion.session.moves import copy_game, move_of, move_text
from companion.session.outbox import STORE_ERRORS, Row, Written
from companion.session.players import PlayerKind
from companion.session.timing import ClockRecord
from companion.session.tracking import PROPOSALS, Observed

log = logging.getLogger("companion.session")


def storage_error() -> ControlError:
    return ControlError(503, "storage", "moves are not being saved (the store cannot write): "
                                        "try again once it writes")


class Decisions:
    """Writing the game and changing it (see the module docstring)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.resumed: list[Observed] = []  # judged afresh once the store writes again

    # -- storing ---------------------------------------------------------------------------
    def _sync(self, game: Game, rows: list[Row], records: list[ClockRecord | None] | None,
              clock: dict[str, Any] | None, ending: tuple[str, str] | None) -> None:
        ctx = self.ctx
        ctx.store.sync_game(ctx.gid, game, rows,
                            move_clocks=ctx.clocks.records if records is None else records,
                            clock=clock, hints=ctx.advisor.counts,
                            pending=self.pending_record(game), ending=ending)

    def write(self, now: float | None = None) -> bool:
        """Write the game, its clocks and the pending rows in one transaction. On failure keep
        everything pending, suspend the tracker and show the storage state."""
        ctx = self.ctx
        now = ctx.monotonic() if now is None else now
        done = ctx.outbox.write(lambda rows: self._sync(ctx.game, rows, None,
                                                        ctx.clocks.snapshot(),
                                                        ctx.remote.ending), now)
        self._after_write(done)
        if done.stored:
            state.refresh(ctx)
        return done.stored

    def commit(self, game: Game, rows: list[tuple[str, dict[str, Any]]], *,
               records: list[ClockRecord | None] | None = None,
               ending: tuple[str, str] | None = None) -> None:
        """Write a control's result (with the pending rows); ControlError 503 if it cannot. The
        move to make is kept when ``game`` is the current game, cleared when the control
        changes the game (a takeback, an ending)."""
        ctx = self.ctx
        wall = ctx.wall()
        done = ctx.outbox.write(
            lambda pending: self._sync(game, pending + [(k, d, wall) for k, d in rows], records,
                                       ctx.clocks.snapshot(),
                                       ctx.remote.ending if ending is None else ending),
            ctx.monotonic())
        self._after_write(done)
        if not done.stored:
            log.error("a control could not be written; nothing changed")
            raise storage_error()

    def _after_write(self, done: Written) -> None:
        ctx = self.ctx
        if done is Written.DOWN:
            self.store_plain(ctx.tracker.suspend("storage"))
        if done.stored:
            ctx.remote.flush()  # what this board did goes to the player at a distance now
        if done is Written.RECOVERED:
            self.resumed.extend(ctx.tracker.suspend(None))  # judged afresh, next step
            ctx.announcer.note("storage", "system", ok=True)

    def store_plain(self, observed: list[Observed]) -> None:
        """What the tracker reported on a reset (set-up guidance): stored, nothing to decide
        (a new game on a board already set up is ``ready`` at once)."""
        wall = self.ctx.wall()
        for o in observed:
            if o.kind != "leds" and o.kind not in PROPOSALS:
                self.ctx.outbox.add(o.kind, o.data, wall)
            if o.kind == "ready":
                self.start_clock(o.t)

    def start_clock(self, t: float) -> None:
        """The board is set up (``ready``): the game's clock runs again, but none before the
        game's first move is on the board (docs/session.md; a server's clocks are its own)."""
        ctx = self.ctx
        m = ctx.move_to_make
        held = m is not None and ctx.players[other_side(m["side"])].moves_off_board
        ctx.clocks.start_when_ready(ctx.game.turn, ctx.game.is_over(), t,
                                    m["side"] if m else None, held,
                                    moved=bool(ctx.game.played) or ctx.remote.authoritative_clock)

    def ends_by_press(self, mover: str) -> bool:
        """Whether ``mover``'s move at the board waits for the clock button."""
        return self.ctx.press_to_end and self.ctx.players[mover].kind is PlayerKind.BOARD

    def pending_record(self, game: Game | None = None) -> dict[str, Any] | None:
        """The move to make as stored with the game (with the ply it is for), so that a move
        chosen off the board survives a crash or a restart."""
        ctx = self.ctx
        game = ctx.game if game is None else game
        if ctx.move_to_make is None or game is not ctx.game or game.is_over():
            return None
        out: dict[str, Any] = {**ctx.move_to_make, "ply": len(game.played)}
        clocks = ctx.clocks.stored_choice()
        if clocks is not None:
            out["choice"] = clocks
        return out

    def ready(self, *, playing: bool = True) -> None:
        """ControlError unless the store writes (and, ``playing``, the game goes on)."""
        if not self.ctx.outbox.ok:
            raise storage_error()
        if playing and self.ctx.game.is_over():
            raise ControlError(409, "game_over", "the game is over")

    # -- the tracker -------------------------------------------------------------------------
    def expect_current(self) -> None:
        """Tell the tracker the move to make again (a reset clears it)."""
        ctx = self.ctx
        m = ctx.move_to_make
        move = move_of(ctx.game, m["from"], m["to"]) if m is not None else None
        try:
            observed = ctx.tracker.expect(move)
        except ValueError as exc:  # it no longer fits the game
            log.warning("the move to make %s no longer fits: %s", m, exc)
            self.withdraw_move_to_make()
            observed = ctx.tracker.expect(None)
        self.store_plain(observed)

    def after_control(self) -> None:
        """Re-synchronise the tracker with the game and announce."""
        ctx = self.ctx
        self.store_plain(ctx.tracker.reset(ctx.game, ctx.board_time()))
        self.expect_current()
        state.refresh(ctx)
        ctx.fed = None  # the next scan is fed to the tracker whatever it reads
        state.publish(ctx, force=True)

    # -- the move to make ----------------------------------------------------------------------
    def choose(self, move: Move, by: str, label: str,
               score: float | None = None) -> dict[str, Any]:
        """Make ``move`` (legal for the side to move) the move to make, chosen off the board
        by a player of kind ``by``: stored before it is shown, the chooser's clock stopped."""
        ctx = self.ctx
        board = ctx.game.board
        names = board.geo.names
        turn = ctx.game.turn
        text = move_text(ctx.game, move)
        caps, _ = board.preview(move)
        chosen: MoveToMake = {"move": text, "from": names[move.frm], "to": names[move.to],
                              "by": by, "side": turn,
                              "captures": sorted(names[s] for s in caps)}
        if score is not None:
            chosen["score"] = score
        saved, before = ctx.clocks.checkpoint(), ctx.move_to_make
        ctx.clocks.choose(turn, ctx.board_time(), ctx.game.is_over(),
                          ctx.players[other_side(turn)].kind is not PlayerKind.BOARD)
        ctx.move_to_make = chosen
        try:  # stored before it is shown: it survives a crash or a restart
            self.commit(ctx.game, [("move_to_make", dict(chosen))])
        except ControlError:
            ctx.clocks.rollback(saved)
            ctx.move_to_make = before
            raise
        ctx.refused = None
        self.expect_current()
        ctx.announcer.note("move_to_make", label, move=text, side=turn)
        state.refresh(ctx)  # the clocks switched
        state.publish(ctx, force=True)
        return dict(chosen)

    def withdraw_move_to_make(self) -> None:
        """The move to make is withdrawn: the clocks as they were before its choice."""
        self.ctx.move_to_make = None
        self.ctx.clocks.withdraw_choice()

    # -- takebacks and endings -------------------------------------------------------------------
    def apply_takeback(self, t: float, plies: int = 1) -> bool:
        """Undo the last ``plies`` moves (by hand or from a control): both clocks as before
        them. True when a computer was thinking (it is stopped)."""
        ctx = self.ctx
        game = copy_game(ctx.game, manual=False)
        for _ in range(plies):
            game.undo()
        ctx.game = game
        ctx.clocks.took_back(plies, game.turn, t, moved=bool(game.played))
        ctx.draw_offer = None
        ctx.move_to_make = None
        ctx.seats.forget_hopeless()
        stopped = ctx.seats.cancel()
        self.store_plain(ctx.tracker.expect(None))
        self.reopen_match_game()
        return stopped

    def game_ended(self, t: float) -> None:
        """The game ended: the clocks stop, the machines too; its match goes on or ends; it is
        analysed in the background (``[computer] analyse_finished``)."""
        ctx = self.ctx
        ctx.clocks.ended(t)
        ctx.move_to_make = None
        ctx.advisor.game_ended()
        ctx.seats.cancel()
        self.store_plain(ctx.tracker.expect(None))
        self.finish_match_game()
        if ctx.game.played:
            self.analyse_later([ctx.gid])

    def analyse_later(self, gids: list[int]) -> None:
        """Queue finished or imported games for the background analysis (off with
        ``[computer] analyse_finished = false``)."""
        cfg = self.ctx.defaults.computer
        if cfg.analyse_finished:
            for gid in gids:
                self.ctx.analyses.later(gid, cfg.analysis_seconds)

    def end_on_time(self, side: str, at: float) -> None:
        """``side``'s time ran out at ``at``: a loss on time (stored, then shown)."""
        ctx = self.ctx
        saved = ctx.clocks.checkpoint()
        ctx.clocks.flag(side, at)
        game = copy_game(ctx.game)
        game.lose_on_time(side)
        try:
            self.commit(game, [("flag", {"side": side, "board_t": round(at, 3)})])
        except ControlError:
            ctx.clocks.rollback(saved)
            return  # the store fails: the storage state shows it; retried next scan
        ctx.game = game
        ctx.draw_offer = None
        log.info("game %d: the %s lost on time", ctx.gid, side)
        ctx.announcer.note("flag", "clock", side=side)  # then the match's end, if any
        self.game_ended(at)
        self.after_control()

    # -- matches ---------------------------------------------------------------------------------
    def finish_match_game(self) -> None:
        """Record the current game's result in its match; end the match after its last game."""
        ctx = self.ctx
        m = ctx.match
        if m is None or not ctx.game.is_over():
            return
        left = ctx.clocks.left(ctx.board_time())
        result = m.game_over(ctx.gid, GameResult(ctx.game.result, len(ctx.game.played), left))
        if result is None:
            return
        try:
            ctx.store.end_match(m.id, result)
        except STORE_ERRORS as exc:
            log.error("could not store the match result (%s)", exc)
        ctx.announcer.note("match_over", "system", match=m.id, **result)

    def reopen_match_game(self) -> None:
        """The current game was reopened (a takeback): its match result is open again."""
        ctx = self.ctx
        m = ctx.match
        if m is None or not m.reopen(ctx.gid):
            return
        try:
            ctx.store.reopen_match(m.id)
        except STORE_ERRORS as exc:
            log.error("could not store that the match goes on (%s)", exc)
        ctx.announcer.note("match_reopened", "system", match=m.id)


def other_side(side: str) -> str:
    return "defenders" if side == "attackers" else "attackers"
