"""The tracker: timestamped occupancy scans in; proposed moves, events, guidance and LED frames
out.

Pure: no I/O and no wall clock. Time is whatever the caller's scans and ticks say. The tracker
keeps a private model of the game (it never changes the caller's ``Game``) and *proposes*:
``move``, ``revised`` and ``takeback`` events say what it concluded; the session applies them
(``events.apply_proposal``) or refuses them and calls :meth:`Tracker.reset`. The session can set
the move to make (:meth:`Tracker.expect`) and suspend judging (:meth:`Tracker.suspend`).
docs/events.md documents every event, guidance kind and fault code.

How it decides (times are the caller's clock; ``settle`` defaults to 0.2 s, ``hold`` to 0.5 s,
``knock_window`` to 0.2 s, ``revise_window`` to 1.2 s, ``lift_hold`` to 0.75 s):

* The *base* is what the board should show: the game's position plus captured pieces that are
  still standing on the board ("pending"). The *diff* is the current scan against the base:
  squares that should be occupied but are empty (``gone``) and the reverse (``new``).
* A square is *settled* when it has not changed for ``settle`` seconds. Nothing is concluded from
  unsettled squares, so contact bounce, a magnet passing an empty square, a piece sliding through
  transit squares, or a knocked piece that falls straight back never produce an event.
* A move is accepted once its squares have settled, nothing along its path (one square before the
  start to one past the destination) has changed for ``settle`` seconds, and the diff is
  explained by exactly one legal move of the side to move (pieces knocked meanwhile aside, see
  below; their squares need not have settled). Its captured pieces may already be gone. The
  piece must have left its square more than ``knock_window`` after the previous move's piece
  came to rest (earlier, it was the previous mover's hand). So a move is accepted ``settle``
  after its piece comes to rest.
* **Knocks.** A piece that leaves its square and lands on a touching one (diagonals included)
  within ``knock_window`` is *knocked* only if a hand was busy with another piece at that
  moment: a piece was in the air (lifted before it, or within the knock window after it, and
  not yet put down), a piece was being put down on a new square, the last move's piece was
  being carried (from leaving its square until ``knock_window`` after coming to rest), or a
  captured piece was being lifted off. Speed alone never makes a knock: an opponent's piece, or
  one's own soldier onto the throne or a corner, moved one square quickly while nothing else is
  touched is an illegal move like any other. A knocked piece is tolerated while the move is
  accepted and flagged afterwards (``warning`` ``knocked``); a candidate move whose destination
  a knocked piece could have reached is not accepted.
* A move accepted while the piece was only pausing (a slow slide, an overshoot, a piece put down
  and picked up again) is *revised* when the same piece moves on along the same line while the
  mover's hand is still on it: it left its resting square at most ``revise_window`` after
  coming to rest there, it was put down again without a pause longer than that, and the
  opponent has not touched a piece of his own meanwhile. Event ``revised`` (the move that
  replaces the last one, with ``replaces``); captures are recomputed, so a capture flagged on
  the transit square is withdrawn. The revision keeps the first placement time
  (``placed_at``). Later touches of that piece are the opponent's: lifted and put back is
  nothing (held for ``hold``: a ``lifted_out_of_turn`` warning), moved and left is illegal
  (``not_your_turn``). Re-seating the piece just placed (lifted and put back on its square) is
  nothing.
* Restoring the position before the last move (captured pieces put back too, in any order) takes
  it back (event ``takeback``); one move at a time. A captured piece put back
  while the capturing piece still stands becomes pending again (event ``restored``).
* Anything else that stays while nobody touches the board for ``hold`` seconds is a fault
  (``lift_hold``, 0.75 s, for a piece of the side not to move that is only lifted: a slow
  hand moving it somewhere is judged once it is put down):
  ``illegal`` (a move the rules forbid, a move while captured pieces still stand, several pieces
  moved) or ``warning`` (wrong piece lifted, a piece knocked to another square, a piece lifted out
  of turn, a piece of the wrong colour on polarity boards). Each fault is flagged once and clears
  when the board is back in a legal state; while the board is on its way back (part of the
  fault undone, say the piece lifted to be put back) nothing new is flagged; a legal move made
  from an illegal state counts.
* After the game has ended only captured pieces being lifted off, revisions and takebacks count.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import messages
from ..rules import Move
from ..rules.game import Game, PlayedMove
from ..rules.outcome import Outcome
from ..scan import Scan
from . import events as ev
from .base import COLOUR_OF, NEVER, Candidate, Expected, Fault, side_colour
from .display import DisplayMixin
from .events import Event, EventKind, Guidance, GuidanceKind, TrackerState
from .faults import FaultsMixin
from .revisions import RevisionsMixin
from .squares import captured_letters, path

__all__ = ["NEVER", "Candidate", "Expected", "Fault", "Tracker", "path"]


class Tracker(FaultsMixin, RevisionsMixin, DisplayMixin):
    """Turns a stream of scans into the moves that were played (see the module docstring)."""

    def __init__(
        self, game: Game, *, settle: float = 0.2, hold: float = 0.5, knock_window: float = 0.2,
        revise_window: float = 1.2, lift_hold: float = 0.75,
    ) -> None:
        if not 0 < settle <= hold:
            raise ValueError("need 0 < settle <= hold")
        self.settle = settle
        self.hold = hold
        self.knock_window = knock_window
        self.revise_window = revise_window
        self.lift_hold = lift_hold
        self._cur: frozenset[str] = frozenset()
        self._colours: dict[str, str] = {}
        self._lc: dict[str, float] = {}  # last change time per square
        self._away: frozenset[str] = frozenset()  # squares whose piece is off the board now
        self._arrived: frozenset[str] = frozenset()  # squares with a piece not in the game
        self._last_change = NEVER
        self._now = NEVER
        self._seen = False
        self._deadline: float | None = None
        self._frame: dict[str, str] = {}
        self._guidance = Guidance(GuidanceKind.WAITING)
        self._message = messages.guidance_text(self._guidance)
        self._state = TrackerState.SETUP
        self._out: list[Event] = []
        self._preview: dict[tuple, tuple[str, ...]] = {}
        self._expected: Expected | None = None
        self._suspended: str | None = None
        self._sync_game(game)

    # -- public API ---------------------------------------------------------------------
    @property
    def moves(self) -> tuple[str, ...]:
        """The record texts of the tracker's own model of the game (what it has proposed)."""
        return tuple(self._game.moves)

    @property
    def outcome(self) -> Outcome | None:
        """How the tracker's model of the game ended, None while it goes on."""
        return self._game.outcome()

    @property
    def leds(self) -> dict[str, str]:
        """The current LED frame: square -> role (a :class:`~companion.feedback.LedRole`)."""
        return dict(self._frame)

    @property
    def guidance(self) -> Guidance:
        """What the players should do now, as data (``guidance.to_json()`` for the page)."""
        return self._guidance

    @property
    def message(self) -> str:
        """The guidance as an English sentence (``companion.messages``)."""
        return self._message

    @property
    def state(self) -> TrackerState:
        """What the tracker is waiting for (see :class:`TrackerState`)."""
        return self._state

    @property
    def deadline(self) -> float | None:
        """The next time at which :meth:`tick` may change something (None: only a scan can)."""
        return self._deadline

    @property
    def expected(self) -> str | None:
        """The move to make (record text, e.g. ``g3-e3xe2``), None if any move is judged."""
        return self._expected.text if self._expected else None

    @property
    def suspended(self) -> str | None:
        """Why judging is suspended, None while it is not."""
        return self._suspended

    def feed(self, scan: Scan) -> list[Event]:
        """Take one full scan; returns the events it caused."""
        t = max(scan.t, self._now)
        occ = frozenset(scan.occupied)
        colours = {s: c for s, c in (scan.colours or {}).items() if s in occ}
        if not self._seen:
            self._seen = True
        else:
            changed = set(occ ^ self._cur)
            changed.update(s for s, c in colours.items() if self._colours.get(s, c) != c)
            if not changed:
                return self.tick(t)
            for s in changed:
                self._lc[s] = t
            self._last_change = t
        self._cur = occ
        self._colours = colours
        return self._run(t)

    def tick(self, t: float) -> list[Event]:
        """Time passes with no change; acceptance happens here once the board has settled."""
        if not self._seen or self._deadline is None or t < self._deadline:
            self._now = max(self._now, t)
            return []
        return self._run(max(t, self._now))

    def reset(self, game: Game, t: float) -> list[Event]:
        """Resynchronise with the session's ``game`` (a new game, a control, a refused
        proposal, a resume): the tracker takes a private copy and guides the set-up until the
        board matches it. Clears the move to make (the session sets it again); a suspension
        stays. The caller's game is never changed."""
        self._sync_game(game)
        if not self._seen:
            return []
        return self._run(max(t, self._now))

    def expect(self, move: str | None, t: float | None = None) -> list[Event]:
        """Set the move to make: a move chosen off the board (by a remote player or the
        computer) that the person at the board must now execute. While it is set, that move is
        the only one accepted; any other is flagged ``illegal`` with the code
        ``not_the_move_to_make`` and is not proposed. The LEDs show ``make_from``/``make_to``,
        then the destination while the piece is in the air, then the captured pieces to lift.
        It clears itself once the move is proposed (and on a takeback or reset); ``None``
        clears it. MoveError (a ValueError) if the move is not legal in the tracker's model.
        Returns the events of the new display (at ``t``, or the last time seen)."""
        if move is None:
            self._expected = None
        else:
            game = self._game
            if game.is_over():
                raise ValueError(f"cannot expect {move}: the game is over")
            board = game.board
            parsed, _ = board.parse_move(move)
            played = game.play(move)  # checks legality and any listed captures
            game.undo()
            self._expected = Expected(played.text, played.frm, played.to,
                                      board.piece_at(parsed.frm) or "", played.side,
                                      tuple(played.captured))
        return self._rerun(t)

    def suspend(self, reason: str | None, t: float | None = None) -> list[Event]:
        """Suspend judging (``reason``: a short id such as ``"storage"``, see docs/events.md):
        the board is still watched and guidance says why, but no move, revision or takeback is
        accepted or proposed and no new fault is flagged. ``None`` resumes: the board is judged
        afresh, so a move made meanwhile is then accepted normally. Returns the events (at
        ``t``, or the last time seen)."""
        self._suspended = reason
        return self._rerun(t)

    def _rerun(self, t: float | None) -> list[Event]:
        if not self._seen:
            return []
        return self._run(self._now if t is None else max(t, self._now))

    # -- bookkeeping --------------------------------------------------------------------
    def _sync_game(self, game: Game) -> None:
        self._game = model = Game(game.rules, game.start_position, game.start_turn)
        self._mode = "setup"
        self._announced = False
        self._pending: dict[str, str] = {}
        self._removed: dict[str, float] = {}  # captured pieces of the last move lifted off, when
        self._revisable = False
        self._prev_settle = NEVER
        self._carried = (NEVER, NEVER)  # when the last move's piece left its square, came to rest
        self._placed_at = NEVER
        self._fault: Fault | None = None
        self._new_fault: Fault | None = None
        self._lifted: str | None = None
        self._guide: dict[str, str] = {}
        self._setup: tuple[dict[str, str], list[str], dict[str, str]] = ({}, [], {})
        self._preview.clear()
        self._expected = None
        self._stack: list[frozenset[str]] = []
        board = model.board
        for p in game.played:
            self._stack.append(board.occupied_names())
            model.play(Move(board.square(p.frm), board.square(p.to)))
        manual = game.manual_outcome
        if manual is not None:
            model.end(manual)
        self._position_changed()

    def _position_changed(self) -> None:
        self._pos = self._game.board.occupied_names()
        self._ended: tuple[Outcome | None] | None = None

    @property
    def _outcome(self) -> Outcome | None:
        """The model's outcome, cached until its position changes (it is private: only the
        tracker changes it, always through :meth:`_position_changed`)."""
        if self._ended is None:
            self._ended = (self._game.outcome(),)
        return self._ended[0]

    def _emit(self, kind: EventKind, **data: Any) -> None:
        self._out.append(Event(self._now, kind, data))

    def _want(self, t: float) -> None:
        if t > self._now and (self._deadline is None or t < self._deadline):
            self._deadline = t

    def _run(self, t: float) -> list[Event]:
        self._now = t
        self._out = []
        self._deadline = None
        if self._mode == "setup":
            self._eval_setup(t)
        if self._mode == "play":
            for _ in range(8):
                if not self._step(t):
                    break
        self._refresh()
        out, self._out = self._out, []
        return out

    def _settled(self, sq: str) -> bool:
        return self._lc.get(sq, NEVER) + self.settle <= self._now

    def _letter(self, sq: str) -> str | None:
        return self._pending.get(sq) or self._game.board.piece_at(sq)

    # -- setup --------------------------------------------------------------------------
    def _eval_setup(self, now: float) -> None:
        piece = self._piece
        fill = {s: piece(s) for s in self._pos - self._cur}
        clear = sorted(self._cur - self._pos)
        recolour = {
            s: piece(s) for s in self._cur & self._pos
            if s in self._colours and self._colours[s] != COLOUR_OF[piece(s)]
        }
        self._setup = (fill, clear, recolour)
        if fill or clear or recolour:
            if not self._announced:
                self._announced = True
                pieces = {**fill, **recolour}
                self._emit(ev.SETUP, message=messages.setup_message(fill, clear, recolour),
                           fill=sorted(fill), clear=clear, recolour=sorted(recolour),
                           pieces=dict(sorted(pieces.items())))
            return
        if now < self._last_change + self.settle:
            self._want(self._last_change + self.settle)
            return
        self._mode = "play"
        self._emit(ev.READY, turn=self._game.turn)

    # -- play ---------------------------------------------------------------------------
    def _step(self, now: float) -> bool:
        """One round of inference; True when the position changed and it should run again."""
        game, board, pend, lc = self._game, self._game.board, self._pending, self._lc
        cur = self._cur
        base = self._pos | pend.keys()
        gone, new = base - cur, cur - base
        self._away, self._arrived = gone, new
        if not gone and not new:
            self._view()
            self._set_fault(self._colour_fault(now))
            return False
        done = sorted(s for s in gone if s in pend and self._settled(s))
        if done:
            for s in done:
                del pend[s]
                self._removed[s] = lc.get(s, NEVER)
                self._emit(ev.REMOVED, square=s, lifted_at=round(self._removed[s], 4))
            self._revisable = False
            self._view()
            return True
        for s in gone & pend.keys():
            self._want(lc.get(s, NEVER) + self.settle)
        gone_x = gone - pend.keys()
        if not gone_x and not new:
            return False
        if self._suspended is not None:
            self._view()  # watched, not judged: a standing fault stays (it is not flagged twice)
            return False
        ts_all = max(lc.get(s, NEVER) for s in gone_x | new)
        stable = now >= ts_all + self.settle
        over = self._outcome is not None
        if stable and self._revisable:
            if any(board.side_of(s) == game.turn and lc.get(s, NEVER) >= self._prev_settle
                   for s in gone_x):
                self._revisable = False  # the opponent has started
            elif self._revision_open() and self._try_revise(gone_x, new):
                return True
        if new and not over and not pend:
            own = [s for s in gone_x if board.side_of(s) == game.turn]
            # wait for the mover's squares to settle, not for pieces knocked meanwhile
            landed = [n for n in new if not any(self._is_knock(g, n) for g in gone_x)] or new
            ts_move = max(lc.get(s, NEVER) for s in (*own, *landed))
            if now >= ts_move + self.settle:
                cands = self._candidates(gone_x, new)
                exp = self._expected
                if len(cands) == 1 and (exp is None or (cands[0].frm, cands[0].to)
                                        == (exp.frm, exp.to)):
                    calm = self._calm_since(cands[0]) + self.settle
                    if now >= calm:
                        self._accept(cands[0])
                        return True
                    self._want(calm)
            else:
                self._want(ts_move + self.settle)
        if not stable:
            self._want(ts_all + self.settle)
            return False
        if self._try_takeback(ts_all):
            return True
        if over:
            self._view()
            self._set_fault(None)
            return False
        last = game.played[-1] if game.played else None
        if last is not None:
            caps = captured_letters(last)
            if not gone_x and new <= caps.keys() - pend.keys():
                for s in sorted(new):
                    pend[s] = caps[s]
                    self._emit(ev.RESTORED, square=s)
                self._revisable = False
                return True
            prev = self._stack[-1]
            missing = prev - cur
            if cur <= prev and missing <= caps.keys():
                self._view(guide={s: caps[s] for s in missing})
                self._set_fault(None)
                return False
        knocks = self._knock_pairs(gone_x, new)
        rest_gone = gone_x - {g for g, _ in knocks}
        rest_new = new - {n for _, n in knocks}
        lifted = None
        if not rest_new and len(rest_gone) == 1:
            (s,) = rest_gone
            if (not pend and board.side_of(s) == game.turn) or (
                last is not None and s == last.to and self._revision_open()
            ):
                lifted = s
        self._view(lifted=lifted)
        if lifted and not knocks:
            self._set_fault(None)
            return False
        fault = self._fault
        if fault is not None and gone_x <= fault.gone and new <= fault.new:
            return False  # being put right: the fault stands (flagged once), nothing new
        quiet = max(ts_all, self._last_change)  # faults wait until nobody touches the board
        hold = self.hold
        if not new and not pend and len(gone_x) == 1 and not lifted:
            hold = max(hold, self.lift_hold)  # a piece of the other side, only lifted
        if now < quiet + hold:
            self._want(quiet + hold)
            return False
        if knocks and (lifted or not (rest_gone or rest_new)):
            fault = self._knock_fault(knocks)
        else:
            fault = self._classify(rest_gone, rest_new)
        self._set_fault(replace(fault, gone=gone_x, new=new))
        return False

    def _view(self, lifted: str | None = None, guide: dict[str, str] | None = None) -> None:
        """Set what the non-fault display shows: a lifted piece's targets or takeback guidance.
        Left alone while squares are still changing, so LEDs do not flicker during a slide."""
        self._lifted = lifted
        self._guide = guide or {}

    def _captures_of(self, move: Move) -> tuple[str, ...]:
        board = self._game.board
        key = (board.att, board.dfn, board.king, board.turn, move.frm, move.to)
        caps = self._preview.get(key)
        if caps is None:
            if len(self._preview) > 512:
                self._preview.clear()
            bits, _ = board.preview(move)
            caps = tuple(sorted(board.geo.names[s] for s in board.geo.iter_bits(bits)))
            self._preview[key] = caps
        return caps

    def _colour_ok(self, sq: str, side: str) -> bool:
        c = self._colours.get(sq)
        return c is None or c == side_colour(side)

    def _candidates(self, gone: frozenset[str], new: frozenset[str]) -> list[Candidate]:
        """Every explanation of the diff as one legal move of the side to move."""
        board, turn, lc = self._game.board, self._game.turn, self._lc
        out = []
        for t in sorted(new):
            if not self._colour_ok(t, turn):
                continue
            for f in sorted(gone):
                if (board.side_of(f) != turn
                        or lc.get(f, NEVER) < self._prev_settle + self.knock_window):
                    continue  # not lifted clearly after the last move's piece came to rest
                move = Move(board.square(f), board.square(t))
                if not board.is_legal(move):
                    continue
                caps = self._captures_of(move)
                rest_gone = set(gone) - {f} - set(caps)
                if any(self._is_knock(g, t) for g in rest_gone):
                    continue  # a neighbour may have been knocked onto t
                rest_new = set(new) - {t}
                if not self._knocks_explain(rest_gone, rest_new, turn):
                    continue
                removed = tuple(s for s in caps if s in gone and self._settled(s))
                out.append(Candidate(f, t, caps, removed))
        return out

    def _calm_since(self, c: Candidate) -> float:
        """When the squares of the move's path (from one before ``frm`` to one past ``to``)
        last changed: a piece still sliding or bouncing along it means it is not down yet."""
        lc = self._lc
        return max((lc.get(s, NEVER) for s in path(c.frm, c.to, self._game.rules.size)),
                   default=NEVER)

    def _move_data(self, played: PlayedMove) -> dict[str, Any]:
        return {
            "move": played.text, "side": played.side, "captured": list(played.captured),
            "from": played.frm, "to": played.to, "ply": len(self._game.played),
            "placed_at": round(self._placed_at, 4),
        }

    def _after_move(self, played: PlayedMove, removed: tuple[str, ...]) -> None:
        self._position_changed()
        caps = captured_letters(played)
        self._pending = {s: caps[s] for s in played.captured if s not in removed}
        self._removed = {s: self._lc.get(s, NEVER) for s in removed}
        self._revisable = True
        self._prev_settle = self._lc.get(played.to, NEVER)
        self._carried = (self._lc.get(played.frm, NEVER), self._prev_settle)
        self._view()

    def _accept(self, c: Candidate) -> None:
        game = self._game
        pre = self._pos
        played = game.play(Move(game.board.square(c.frm), game.board.square(c.to)))
        self._stack.append(pre)
        self._after_move(played, c.removed)
        self._placed_at = self._lc.get(c.to, NEVER)
        if self._expected is not None:  # it was the move to make: done, and not revisable
            self._expected = None
            self._revisable = False
        self._emit(ev.MOVE, **self._move_data(played))
        for s in c.removed:
            self._emit(ev.REMOVED, square=s, lifted_at=round(self._removed[s], 4))
        outcome = self._outcome
        if outcome is not None:
            self._emit(ev.GAME_OVER, **outcome.to_json())
