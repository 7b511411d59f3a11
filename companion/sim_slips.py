"""The simulated players' slips that a correct tracker flags, and the tally of them.

:class:`Slips` makes the mistakes that stand on their own (a wrong start setup fixed by hand, an
illegal move put back, a one-square step of the wrong piece or onto the throne or a corner, the
piece just moved touched by the opponent); :class:`Tally` counts every flagged behaviour, these
and the ones made as part of a move (:mod:`companion.simulator`). Its counts are the trace's
``expect``: what a correct tracker reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules.game import Game
from .sim_hand import FLAGGED, QUICK, Hand

SLOW_LIFT = (0.28, 0.4)  # lift to place of a deliberate move: longer than the knock window


@dataclass
class Tally:
    """What the players did that must be flagged: illegal moves and warnings (the counts a
    correct tracker reports), when and what each was, and how often each special behaviour
    happened (the trace's ``behaviours``)."""

    illegal: int = 0
    warnings: int = 0
    done: dict[str, int] = field(default_factory=dict)
    log: list[tuple[float, str]] = field(default_factory=list)

    def illegal_at(self, t: float, what: str) -> None:
        """An illegal move, flagged at ``t``."""
        self.illegal += 1
        self.log.append((t, what))

    def warning_at(self, t: float, what: str) -> None:
        """A warning, flagged at ``t``."""
        self.warnings += 1
        self.log.append((t, what))

    def did(self, what: str) -> None:
        """A special behaviour happened once more."""
        self.done[what] = self.done.get(what, 0) + 1


def last_destination(game: Game) -> str | None:
    """Where the last move's piece went, None before the first move."""
    played = game.played
    return game.board.name(played[-1].move.to) if played else None


class Slips:
    """The mistakes the players make between moves with ``hand`` on the board of ``game``,
    counted in ``tally``; ``think``: the players' thinking time before one (seconds)."""

    def __init__(self, hand: Hand, game: Game, tally: Tally, think: tuple[float, float]) -> None:
        self.hand = hand
        self.game = game
        self.tally = tally
        self.think = think

    def setup(self) -> None:
        """A start setup with a missing and/or an extra piece, fixed by hand."""
        hand = self.hand
        rng, phys = hand.rng, hand.phys
        missing = rng.sample(sorted(phys), rng.randint(1, 2))
        empty = [s for s in hand.geo.names if s not in phys and not hand.special(s)]
        extra = rng.sample(empty, rng.randint(0, 1))
        for s in missing:
            del hand.initial[s]
        for s in extra:
            hand.initial[s] = rng.choice("ad")
        hand.wait(1.0, 2.5)
        for s in missing:
            hand.event(hand.t, s, phys[s])
            hand.wait(0.4, 0.9)
        for s in extra:
            hand.event(hand.t, s, None)
            hand.wait(0.4, 0.9)
        hand.wait(0.5)

    def illegal_move(self) -> bool:
        """An illegal move, left until it is flagged, then put back; False when there is none
        to make."""
        hand, game = self.hand, self.game
        board = game.board
        last = last_destination(game)
        options: list[tuple[str, str]] = []
        for s in board.occupied_names():
            if s == last:
                continue
            side = board.side_of(hand.ix(s))
            if side != game.turn:
                options += [(s, board.name(d)) for d in board.destinations(hand.ix(s))][:3]
                continue
            f, r = hand.xy(s)
            for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                d = hand.name_at(f + df, r + dr)
                if d and d not in hand.phys and not hand.special(d):
                    options.append((s, d))
            for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                seen_piece = False
                k = 1
                while (d := hand.name_at(f + k * df, r + k * dr)) is not None:
                    if d in hand.phys:
                        seen_piece = True
                    elif seen_piece or (hand.special(d) and board.piece_at(hand.ix(s)) != "K"):
                        options.append((s, d))
                        break
                    k += 1
        options = [
            (f, t) for f, t in options
            if t not in hand.phys and board.illegal_reason(
                board.parse_move(f"{f}-{t}")[0]) is not None
        ]
        if not options:
            return False
        frm, to = hand.rng.choice(sorted(options))
        hand.wait(*self.think)
        hand.shift(frm, to, SLOW_LIFT)
        hand.wait(*FLAGGED)
        hand.shift(to, frm, QUICK)
        hand.wait(0.4, 1.0)
        self.tally.illegal_at(hand.t, f"illegal {frm}-{to}")
        return True

    def step(self, restricted: bool) -> bool:
        """One square, flagged as illegal: an opponent's piece moved by the player to move, or
        (``restricted``) one of his soldiers moved onto the throne or a corner. Fast (lifted and
        put down within 0.2 s, or slid) or slow; left until flagged, then put back. False when
        there is no such step."""
        hand, game = self.hand, self.game
        board = game.board
        last = last_destination(game)
        options = []
        for s in sorted(board.occupied_names()):
            own = board.side_of(hand.ix(s)) == game.turn
            if s == last or own != restricted or (
                    restricted and board.piece_at(hand.ix(s)) == "K"):
                continue
            for n in hand.ring(s, diagonal=False):
                if n in hand.phys or hand.special(n) != restricted:
                    continue
                if board.illegal_reason(board.parse_move(f"{s}-{n}")[0]) is not None:
                    options.append((s, n))
        if not options:
            return False
        frm, to = hand.rng.choice(options)
        hand.wait(*self.think)
        self.step_piece(frm, to)
        hand.wait(*FLAGGED)
        self.step_piece(to, frm)
        hand.wait(0.4, 1.0)
        what = "restricted_step" if restricted else "opponent_step"
        self.tally.did(what)
        self.tally.illegal_at(hand.t, f"{what} {frm}-{to}")
        return True

    def step_piece(self, frm: str, to: str) -> None:
        """Move a piece one square: lifted fast or slowly, or slid."""
        hand = self.hand
        how = hand.rng.choice(("fast", "slow", "slide"))
        if how == "slide":
            hand.slide([frm, to], [], 1)
        else:
            # slow: longer than the knock window, shorter than the tracker's lift hold
            hand.shift(frm, to, (0.05, 0.18) if how == "fast" else (0.3, 0.65))

    def nudge(self, frm: str, to: str) -> None:
        """3-15 s after the move ``frm``-``to`` settled, the opponent touches its piece: lifts
        it and puts it back at once (nothing to flag) or after a while (a warning), or moves it
        one square, along the move's line if he can, and leaves it (illegal), then puts it
        back."""
        hand = self.hand
        rng = hand.rng
        hand.wait(3.0, 15.0)
        how = rng.choice(("quick", "held", "moved"))
        if how == "moved":
            line = [s for s in (hand.beyond(frm, to), hand.line(to, frm)[1]) if s]
            near = [s for s in hand.ring(to, diagonal=False)  # not frm: that is a takeback
                    if s not in hand.phys and not hand.special(s) and s != frm]
            free = [s for s in line if s in near] or near
            if not free:
                how = "held"
            else:
                n = rng.choice(free)
                self.step_piece(to, n)
                hand.wait(*FLAGGED)
                self.step_piece(n, to)
                self.tally.illegal_at(hand.t, f"nudged {to}-{n}")
        if how != "moved":
            hand.shift(to, to, QUICK if how == "quick" else FLAGGED)
            if how == "held":
                self.tally.warning_at(hand.t, f"lifted {to} out of turn")
        self.tally.did(f"nudge_{how}")
        hand.wait(0.4, 1.0)
