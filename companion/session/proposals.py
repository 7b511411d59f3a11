"""The board's part of a loop step: read the scan, feed the tracker, decide on its proposals.

The tracker proposes a move, a revision of the last move or a takeback by hand; the session
refuses what it cannot take (the store fails, it is not the move to make, a game at a distance
forbids it, it does not fit the game) and resets the tracker, which guides the pieces back.
What it accepts is applied to the game, switches the clock, and is written in one transaction
with every other row of the step before anything shows it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from companion.rules.game import Game
from companion.scan import Scan
from companion.session.context import Context
from companion.session.decisions import Decisions
from companion.session.game_moves import last_move, move_of
from companion.session.move_clocks import PRESS
from companion.session.record import KEEP, Change
from companion.session.tracking import Observed, ProposalError
from companion.store_types import RowData

log = logging.getLogger("companion.session")

#: Kinds whose rows are logged once stored (a move in the log is never lost).
LOGGED = frozenset({"move", "revised", "game_over", "takeback", "illegal", "warning"})
BOARD_ERROR_LOG_EVERY = 10.0


class Proposals:
    """Reading the board and deciding on the tracker's proposals (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions,
                 next_game: Callable[[], object]) -> None:
        self.ctx = ctx
        self.decisions = decisions
        self._next_game = next_game  # game 2 of a match, once the board is set up again
        self._board_error_at = -1e9

    def read(self, now: float) -> tuple[Scan | None, float]:
        """Read the board and feed the tracker; decide on what it proposes. ``(the scan or
        None, its board time)``."""
        ctx = self.ctx
        try:
            scan = ctx.board.scan(now)
        except Exception as exc:  # noqa: BLE001 - a failing bus: the board shows disconnected
            scan = None
            if now - self._board_error_at > BOARD_ERROR_LOG_EVERY:
                log.warning("board read failed: %s", exc)
                self._board_error_at = now
        if scan is not None:
            observed, t = self._feed(scan), scan.t
        else:
            t = ctx.caps.board_time(now)
            observed = ctx.tracker.tick(t)
        if observed:
            self.handle(observed, t)
        return scan, t

    def _feed(self, scan: Scan) -> list[Observed]:
        ctx = self.ctx
        ctx.occupied = scan.occupied
        if ctx.resync:
            ctx.resync = False
            ctx.fed = None
            if scan.occupied != ctx.game.board.occupied_names():
                log.info("the board differs from the game position: guiding the set-up")
                self.decisions.store_plain(ctx.tracker.reset(ctx.game, scan.t))
                self.decisions.expect_current()  # the reset cleared the move to make
        # colours count as a change: on polarity boards two swapped pieces change colour
        # without changing occupancy, and the tracker must see that
        reading = (scan.occupied, tuple(sorted((scan.colours or {}).items())))
        if reading != ctx.fed:
            ctx.fed = reading
            return ctx.tracker.feed(scan)
        return ctx.tracker.tick(scan.t)

    # -- proposals ---------------------------------------------------------------------------
    def handle(self, observed: list[Observed], t: float) -> None:
        """Decide on the tracker's proposals, then store (one transaction) and announce."""
        ctx = self.ctx
        wall = ctx.wall()
        changed = False
        removed = {o.square for o in observed if o.kind == "removed"}
        for o in observed:
            if o.kind == "leds":
                continue
            if o.kind in ("move", "revised"):
                refusal = self._refusal(o)
                try:
                    if refusal is None:
                        self._apply_move(o, removed)
                except ProposalError as exc:
                    refusal = ("does_not_fit", str(exc))
                changed = True
                if refusal is not None:
                    self._refuse(o, refusal)
                    continue
                ctx.accepted_at = wall
            elif o.kind == "takeback":
                if not self._take_back(o):
                    continue
                changed = True
            elif o.kind == "removed" and o.square is not None:
                ctx.clocks.capture_lifted(o.square, o.t if o.lifted_at is None else o.lifted_at)
            elif o.kind == "ready":
                self.decisions.start_clock(o.t)
            ctx.outbox.add(o.kind, o.data, wall)
            if o.kind in LOGGED:
                ctx.outbox.log_when_stored(f"game {ctx.gid}: {o.kind} {_brief(o.data)}")
        if changed or ctx.outbox.rows:
            if ctx.game.is_over():
                self.decisions.game_ended(t)
            self.decisions.write()

    def _refusal(self, o: Observed) -> tuple[str, str] | None:
        """Why a proposed move cannot be accepted now: ``(code, message)``, or None."""
        ctx = self.ctx
        if not ctx.outbox.ok:
            return "storage", "moves are not being saved: the move is not accepted"
        if not ctx.remote.agreed:
            b = ctx.remote.binding
            who = (ctx.players[b.remote_side].name or b.terms.opponent) if b else ""
            return "waiting", f"waiting for {who or 'the other end'} to agree"
        last = ctx.game.played[-1] if ctx.game.played else None
        if o.kind == "revised" and last is not None and ctx.remote.binding is not None:
            if ctx.remote.is_remote_side(last.side):
                return "remote_move", f"{last.text} is the other end's move"
            if not ctx.remote.takebacks:
                return "sent", f"{last.text} was sent to the other end already"
        m = ctx.move_to_make
        if m is None and o.kind == "move" and ctx.remote.is_remote_side(ctx.game.turn):
            return ("remote_move", f"the {ctx.game.turn} play at a distance: wait for their "
                                   "move")
        if m is not None and o.move != move_of(ctx.game, m["from"], m["to"]):
            return ("not_the_move_to_make",
                    f"that is not the move to make: {m['from']} to {m['to']}")
        return None

    def _refuse(self, o: Observed, refusal: tuple[str, str]) -> None:
        ctx = self.ctx
        code, message = refusal
        ctx.record.apply(Change(refused={"code": code, "message": message, "move": o.text}))
        ctx.announcer.note("refused", "board", code=code, move=o.text, reason=message)
        ctx.outbox.add("illegal", {"code": code, "reason": message, "move": o.text,
                                   "board_t": o.board_t})
        log.info("game %d: refused %s (%s)", ctx.gid, o.text, code)
        self.decisions.store_plain(ctx.tracker.reset(ctx.game, o.t))
        self.decisions.expect_current()

    def _apply_move(self, o: Observed, removed: set[int | None]) -> None:
        ctx = self.ctx
        game: Game = ctx.game
        clocks = ctx.clocks
        if o.kind == "revised":
            placed = clocks.last_placed(o.placed_at or 0.0)
            ctx.record.play(o)  # ProposalError if it does not fit: refused
            played = game.played[-1]
            clocks.revised(played.side, self._waits_for(played.side, played.captures, removed),
                           placed, game.is_over())
            if played.side == ctx.remote.local_side:  # the other end takes it back too
                ply = len(game.played) - 1
                ctx.remote.took_back(ply)
                ctx.remote.moved(ply, last_move(game))
            return
        before = clocks.before_move()
        ctx.record.play(o)  # ProposalError if it does not fit: refused
        played = game.played[-1]
        placed = o.placed_at if o.placed_at is not None else o.board_t
        clocks.moved(played.side, self._waits_for(played.side, played.captures, removed),
                     placed, game.is_over(), before)
        lapsed = ctx.draw_offer is not None and ctx.draw_offer != played.side
        if lapsed:  # the opponent of the offerer moved: the offer lapses
            ctx.announcer.note("draw", "board", action="lapsed", side=ctx.draw_offer)
        # (the tracker clears its own move to make once the move is proposed)
        ctx.record.apply(Change(draw_offer=None if lapsed else KEEP, move_to_make=None,
                                refused=None))
        if played.side == ctx.remote.local_side:  # sent once stored
            ctx.remote.moved(len(game.played) - 1, last_move(game))

    def _waits_for(self, mover: str, captures: tuple[int, ...],
                   removed: set[int | None]) -> set[int]:
        """What the clock's switch waits for: the captured pieces still on the board, and the
        clock button (``press_to_end``) after a move at the board."""
        out = {q for q in captures if q not in removed}
        if self.decisions.ends_by_press(mover):
            out.add(PRESS)
        return out

    def _take_back(self, o: Observed) -> bool:
        """A takeback by hand: True when it was taken (else refused, guided back)."""
        ctx = self.ctx
        last = ctx.game.played[-1] if ctx.game.played else None
        if last is None or last.text != o.text:
            self._refuse(o, ("does_not_fit", f"cannot take back {o.text}"))
            return False
        if ctx.remote.binding is not None and not ctx.remote.takebacks:
            self._refuse(o, ("no_takebacks", "takebacks are not allowed in this game at a "
                                             "distance"))
            return False
        self.decisions.apply_takeback(o.t)
        ctx.remote.took_back(len(ctx.game.played))
        ctx.seats.hold_after_hand_takeback(last.side, ctx.monotonic())
        ctx.announcer.note("takeback", "board", move=o.text)
        return True

    # -- time and matches ----------------------------------------------------------------------
    def check_flag(self, t: float) -> None:
        ctx = self.ctx
        if ctx.game.is_over() or not ctx.outbox.ok or ctx.remote.authoritative_clock:
            return  # (the other end's clocks: its word ends the game on time)
        due = ctx.clocks.flag_due(t)
        if due is not None and not ctx.remote.is_remote_side(due[0]):
            # (a side played at a distance: its flag is the other end's word)
            self.decisions.end_on_time(*due)

    def check_next_game(self, scan: Scan | None) -> None:
        """In a match, game 2 starts once the board is set up again after game 1 (in the
        position the match started from)."""
        ctx = self.ctx
        match = ctx.match
        if match is None or not match.wants_next or scan is None:
            return
        target = Game(ctx.settings.rules(), ctx.game.start_position,
                      ctx.game.start_turn).board.occupied_names()
        if scan.occupied != target:
            ctx.left_start = True
        elif ctx.left_start and ctx.outbox.ok:
            log.info("match %d: the board is set up again: game 2 starts", match.id)
            self._next_game()


def _brief(data: RowData) -> str:
    return " ".join(f"{k}={v}" for k, v in data.items() if k not in ("leds", "board_t"))
