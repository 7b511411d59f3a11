"""The session's decisions: every change of the game, shared by the loop (the board's
proposals), the controls and the players at a distance.

Each decision is stored before it is shown: the loop's writes take the pending rows with the
game in one transaction (:meth:`Decisions.write`, retried while the store fails); a control
computes its result on a copy, writes it (:meth:`Decisions.commit`, ``ControlError(503,
"storage")`` when it cannot: nothing changed) and only then applies it. What this board did
goes to a player at a distance once it is stored.

A decision of a control or of the other end is a value (:class:`Decided`: its rows, the change
of the game record, what the player at a distance is told, its announcement) that
:meth:`Decisions.conclude` takes through the one sequence: store it, apply the change to the
record (:class:`~companion.session.record.GameRecord`, the only writer of its fields), let the
parts' own state follow, tell the player at a distance, announce, end the game if it ended, and
guide the board to the new position.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from companion.rules.board import Move
from companion.rules.game import Game
from companion.session import state
from companion.session.actors import ControlError
from companion.session.clock import ClockSnapshot
from companion.session.context import Context
from companion.session.game_moves import copy_game, move_of, move_text
from companion.session.match import GameResult
from companion.session.move_clocks import ChoiceClocks, ClockRecord
from companion.session.players import PlayerKind
from companion.session.record import KEEP, Change, Keep
from companion.session.remote_play import RemoteGames
from companion.session.state_document import MoveToMake
from companion.session.storage import STORE_ERRORS, Row, Written
from companion.session.tracking import PROPOSALS, Observed
from companion.store_types import RowData

log = logging.getLogger("companion.session")
T = TypeVar("T")


@dataclass(frozen=True)
class Note:
    """An announcement: ``kind`` by ``by`` with its fields (docs/http-api.md, ``events``)."""

    kind: str
    by: str
    fields: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Decided:
    """A decision as a value (see the module docstring): ``rows`` stored with the game
    (``change.game``, or the current one), the clocks' ``records`` and the other end's
    ``ending`` with them; ``tell`` what the player at a distance hears (then flushed); ``t``
    the board time an ending happened (now if None)."""

    rows: Sequence[tuple[str, RowData]]
    change: Change = Change()
    note: Note | None = None
    tell: Callable[[RemoteGames], object] | None = None
    records: list[ClockRecord | None] | None = None
    ending: tuple[str, str] | None = None
    t: float | None = None


class PendingRecord(MoveToMake):
    """The move to make as stored with the game (``games.pending``): for the position after
    ``ply`` moves, with the choice's clocks."""

    ply: int


class PendingChoice(PendingRecord):
    """A :class:`PendingRecord` with the clocks of the choice (what ran while it was made)."""

    choice: ChoiceClocks


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
              clock: ClockSnapshot | None, ending: tuple[str, str] | None,
              move_to_make: MoveToMake | None | Keep = KEEP) -> None:
        ctx = self.ctx
        ctx.store.sync_game(ctx.gid, game, rows,
                            move_clocks=ctx.clocks.records if records is None else records,
                            clock=clock, hints=ctx.advisor.counts,
                            pending=self.pending_record(game, move_to_make), ending=ending)

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

    def commit(self, game: Game, rows: Sequence[tuple[str, RowData]], *,
               records: list[ClockRecord | None] | None = None,
               ending: tuple[str, str] | None = None,
               move_to_make: MoveToMake | None | Keep = KEEP) -> None:
        """Write a control's result (with the pending rows); ControlError 503 if it cannot. The
        move to make (the record's, or ``move_to_make`` about to be) is kept when ``game`` is
        the current game, cleared when the control changes the game (a takeback, an
        ending)."""
        ctx = self.ctx
        wall = ctx.wall()
        done = ctx.outbox.write(
            lambda pending: self._sync(game, pending + [(k, d, wall) for k, d in rows], records,
                                       ctx.clocks.snapshot(),
                                       ctx.remote.ending if ending is None else ending,
                                       move_to_make),
            ctx.monotonic())
        self._after_write(done)
        if not done.stored:
            log.error("a control could not be written; nothing changed")
            raise storage_error()

    def conclude(self, decided: Decided, then: Callable[[], T] | None = None) -> T | None:
        """Take ``decided`` through the one sequence (the module docstring); ``then``: what
        the parts' own state does once the record changed (its answer is returned).
        ControlError 503 when it cannot be stored: nothing changed."""
        ctx = self.ctx
        self.commit(decided.change.game or ctx.game, decided.rows, records=decided.records,
                    ending=decided.ending)
        was_over = ctx.game.is_over()
        ctx.record.apply(decided.change)
        out = then() if then is not None else None
        if decided.tell is not None:
            decided.tell(ctx.remote)
            ctx.remote.flush()
        if decided.note is not None:
            ctx.announcer.note(decided.note.kind, decided.note.by, **decided.note.fields)
        if ctx.game.is_over() and not was_over:  # after its event: the match's end comes after
            self.game_ended(ctx.board_time() if decided.t is None else decided.t)
        self.after_control()
        return out

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

    def pending_record(self, game: Game | None = None,
                       move_to_make: MoveToMake | None | Keep = KEEP) -> PendingRecord | None:
        """The move to make (the record's, or ``move_to_make`` about to be) as stored with
        the game (with the ply it is for), so that a move chosen off the board survives a
        crash or a restart."""
        ctx = self.ctx
        game = ctx.game if game is None else game
        m = ctx.move_to_make if move_to_make is KEEP else move_to_make
        if m is None or game is not ctx.game or game.is_over():
            return None
        out: PendingRecord = {**m, "ply": len(game.played)}
        clocks = ctx.clocks.stored_choice()
        if clocks is not None:
            return PendingChoice(**out, choice=clocks)
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
               score: float | None = None) -> MoveToMake:
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
        saved = ctx.clocks.checkpoint()
        ctx.clocks.choose(turn, ctx.board_time(), ctx.game.is_over(),
                          ctx.players[other_side(turn)].kind is not PlayerKind.BOARD)
        try:  # stored before it is shown: it survives a crash or a restart
            self.commit(ctx.game, [("move_to_make", dict(chosen))], move_to_make=chosen)
        except ControlError:
            ctx.clocks.rollback(saved)
            raise
        ctx.record.apply(Change(move_to_make=chosen, refused=None))
        self.expect_current()
        ctx.announcer.note("move_to_make", label, move=text, side=turn)
        state.refresh(ctx)  # the clocks switched
        state.publish(ctx, force=True)
        return chosen.copy()

    def withdraw_move_to_make(self) -> None:
        """The move to make is withdrawn: the clocks as they were before its choice."""
        self.ctx.record.apply(Change(move_to_make=None))
        self.ctx.clocks.withdraw_choice()

    # -- takebacks and endings -------------------------------------------------------------------
    def apply_takeback(self, t: float, plies: int = 1) -> bool:
        """Undo the last ``plies`` moves by hand (the loop writes it): both clocks as before
        them. True when a computer was thinking (it is stopped)."""
        self.ctx.record.apply(taken_back(self.ctx.game, plies))
        return self.took_back(t, plies)

    def took_back(self, t: float, plies: int) -> bool:
        """The record has the game before the last ``plies`` moves now (:func:`taken_back`):
        the clocks, the machines, the tracker and the match follow. True when a computer was
        thinking (it is stopped)."""
        ctx = self.ctx
        game = ctx.game
        ctx.clocks.took_back(plies, game.turn, t, moved=bool(game.played))
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
        if ctx.clocks.clock is not None:  # the ending's commit stored them still running
            self.write(t)
        ctx.record.apply(Change(move_to_make=None))
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
            self.conclude(Decided(
                [("flag", {"side": side, "board_t": round(at, 3)})],
                Change(game=game, draw_offer=None), Note("flag", "clock", {"side": side}),
                t=at), then=lambda: log.info("game %d: the %s lost on time", ctx.gid, side))
        except ControlError:
            ctx.clocks.rollback(saved)  # the store fails: the storage state shows it; retried

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


def taken_back(game: Game, plies: int) -> Change:
    """The record's change when the last ``plies`` moves of ``game`` are taken back: the game
    before them, no draw offer, no move to make."""
    before = copy_game(game, manual=False)
    for _ in range(plies):
        before.undo()
    return Change(game=before, draw_offer=None, move_to_make=None)


def other_side(side: str) -> str:
    return "defenders" if side == "attackers" else "attackers"
