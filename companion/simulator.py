"""A human-and-sensor simulator: a game record in, a raw ``tafl-trace/1`` sensor trace out.

A simulated player makes each recorded move the way people do on the physical board: lifting and
placing, or sliding the piece across transit squares (the reed switches close and open as the
magnet passes), with contact bounce, a passing magnet briefly closing an empty neighbour's switch
(crosstalk), hesitation (lift and put back), slow slides that pause on the way, overshooting and
sliding back, placing on one square and then moving on, captured pieces lifted off one at a time
in any order and sometimes late, a wrong piece lifted first and put back, the opponent starting
before the captured pieces are off, illegal moves that are then put back, knocked pieces that fall
back or land on a neighbouring square (put back later), a wrong start setup fixed by hand, and
takebacks by restoring the board. The sensors are scanned at ``scan_hz``.

Each behaviour has a rate in a noise profile (``clean``, ``typical``, ``clumsy``). Behaviours that
the tracker must flag are timed to be flagged exactly once, so the header's ``expect`` (moves,
result and the illegal/warning counts) is what a correct tracker reports for the trace.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .rules import ATTACKERS, RuleSet
from .rules.game import Game
from .rules.geometry import geometry_for
from .rules.records import Record
from .scan import Scan
from .squares import coords_name, parse_coords
from .trace import format_trace


@dataclass(frozen=True)
class Profile:
    """Rates (per move, 0..1) of each behaviour, and the players' thinking time."""

    slide: float = 0.0          # slide the piece instead of lifting it
    bounce: float = 0.0         # contact bounce when a switch opens or closes
    crosstalk: float = 0.0      # per transit square: an empty neighbour flickers
    hesitate: float = 0.0       # lift the piece and put it back first
    pause: float = 0.0          # pause on the way (slide) or place short then move on (lift)
    overshoot: float = 0.0      # slide one square too far and back
    wrong_piece: float = 0.0    # per capture: lift a wrong piece first, then put it back
    late: float = 0.0           # per capture: remove it late
    early: float = 0.0          # the opponent lifts a piece before the captures are off
    pending_move: float = 0.0   # the opponent completes a move before the captures are off
    illegal: float = 0.0        # an illegal move, put back, before the real one
    knock_back: float = 0.0     # a neighbouring piece knocked, falling straight back
    knock_move: float = 0.0     # a neighbouring piece knocked onto another square
    takeback: float = 0.0       # restore the position (captures too), then play the move again
    setup_error: float = 0.0    # the start setup has a missing and/or extra piece
    think: tuple[float, float] = (0.6, 2.0)


PROFILES: dict[str, Profile] = {
    "clean": Profile(),
    "typical": Profile(
        slide=0.5, bounce=0.3, crosstalk=0.15, hesitate=0.05, pause=0.1, overshoot=0.05,
        wrong_piece=0.05, late=0.1, early=0.03, pending_move=0.02, illegal=0.02,
        knock_back=0.03, knock_move=0.01, takeback=0.01, setup_error=0.3,
    ),
    "clumsy": Profile(
        slide=0.6, bounce=0.6, crosstalk=0.3, hesitate=0.15, pause=0.25, overshoot=0.15,
        wrong_piece=0.2, late=0.3, early=0.08, pending_move=0.06, illegal=0.08,
        knock_back=0.1, knock_move=0.05, takeback=0.05, setup_error=1.0, think=(0.4, 1.5),
    ),
}

# Timing the simulated player keeps relative to the tracker's defaults (settle 0.2 s, hold 0.5 s,
# knock window 0.2 s): a flagged state is kept well past HOLD; a state that must not be flagged
# is left well before it.
HOLD = 0.5
QUICK = (0.15, 0.35)   # a hand that must not trigger a warning
FLAGGED = (HOLD + 0.4, HOLD + 1.2)
SLOW_LIFT = (0.28, 0.4)  # lift to place of a deliberate move: longer than the knock window


def _colour(letter: str) -> str:
    return "a" if letter == "t" else "d"


class _Player:
    """The simulated players and board: physical state, the sensor timeline, expected counts."""

    def __init__(self, rules: RuleSet, profile: Profile, rng: random.Random) -> None:
        self.rules, self.p, self.rng = rules, profile, rng
        self.game = Game(rules)
        self.geo = geometry_for(rules)
        board = self.game.board
        self.phys: dict[str, str] = {s: _colour(board.piece_at(s)) for s in board.occupied_names()}
        self.initial = dict(self.phys)
        self.events: list[tuple[float, int, str, str | None]] = []
        self.t = 0.0
        self.illegal = 0
        self.warnings = 0
        self.deferred: tuple[str, ...] = ()
        self.defer_mode = ""
        self.busy: set[str] = set()  # squares a slide must not disturb
        self.log: list[tuple[float, str]] = []  # what the players did that must be flagged

    # -- sensor primitives --------------------------------------------------------------
    def _ev(self, t: float, sq: str, colour: str | None) -> None:
        self.events.append((t, len(self.events), sq, colour))

    def _switch(self, sq: str, final: str | None, other: str | None, bounce: bool) -> None:
        t = self.t
        if bounce and self.rng.random() < self.p.bounce:
            for _ in range(self.rng.randint(1, 2)):
                self._ev(t, sq, final)
                t += self.rng.uniform(0.006, 0.025)
                self._ev(t, sq, other)
                t += self.rng.uniform(0.006, 0.025)
        self._ev(t, sq, final)
        self.t = t

    def wait(self, lo: float, hi: float | None = None) -> None:
        """Let ``lo`` seconds (or a random time in ``lo..hi``) pass."""
        self.t += lo if hi is None else self.rng.uniform(lo, hi)

    def lift(self, sq: str, bounce: bool = True) -> str:
        """Lift the piece on ``sq``; returns its colour."""
        colour = self.phys.pop(sq)
        self._switch(sq, None, colour, bounce)
        return colour

    def place(self, sq: str, colour: str, bounce: bool = True) -> None:
        """Put a piece of ``colour`` down on the empty ``sq``."""
        assert sq not in self.phys, sq
        self.phys[sq] = colour
        self._switch(sq, colour, None, bounce)

    def shift(self, frm: str, to: str, hold: tuple[float, float], bounce: bool = True) -> None:
        """Lift a piece and put it down on ``to`` after ``hold`` seconds."""
        colour = self.lift(frm, bounce)
        self.wait(*hold)
        self.place(to, colour, bounce)

    # -- geometry -----------------------------------------------------------------------
    def _xy(self, sq: str) -> tuple[int, int]:
        return parse_coords(sq, self.geo.n)

    def _name(self, f: int, r: int) -> str | None:
        n = self.geo.n
        return coords_name(f, r, n) if 0 <= f < n and 0 <= r < n else None

    def _ring(self, sq: str, diagonal: bool = True) -> list[str]:
        f, r = self._xy(sq)
        steps = [(0, 1), (0, -1), (1, 0), (-1, 0)]
        if diagonal:
            steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        return [s for df, dr in steps if (s := self._name(f + df, r + dr))]

    def _line(self, frm: str, to: str) -> list[str]:
        (f0, r0), (f1, r1) = self._xy(frm), self._xy(to)
        df, dr = (f1 > f0) - (f1 < f0), (r1 > r0) - (r1 < r0)
        n = max(abs(f1 - f0), abs(r1 - r0))
        return [self._name(f0 + i * df, r0 + i * dr) for i in range(n + 1)]  # type: ignore[misc]

    def _beyond(self, frm: str, to: str) -> str | None:
        (f0, r0), (f1, r1) = self._xy(frm), self._xy(to)
        return self._name(f1 + (f1 > f0) - (f1 < f0), r1 + (r1 > r0) - (r1 < r0))

    def _special(self, sq: str) -> bool:
        i = self.geo.index[sq]
        return bool(self.geo.corner >> i & 1) or i == self.geo.throne

    def _cheb(self, a: str, b: str) -> int:
        (fa, ra), (fb, rb) = self._xy(a), self._xy(b)
        return max(abs(fa - fb), abs(ra - rb))

    # -- a slide ------------------------------------------------------------------------
    def slide(self, squares: list[str], stops: list[tuple[int, float]], end: int,
              knock: tuple[str, str] | None = None) -> None:
        """Slide the piece on ``squares[0]`` along ``squares``: visit each ``(index, dwell)`` of
        ``stops`` in turn, then come to rest on ``squares[end]``. A switch is closed while the
        magnet is within ``r`` squares of its centre. ``knock``: a piece the hand knocks onto
        a neighbouring square just after the slide starts."""
        rng = self.rng
        colour = self.phys.pop(squares[0])
        speed = rng.uniform(4.0, 10.0)
        r = rng.uniform(0.35, 0.6)
        waypoints = [(0.0, self.t)]
        for index, dwell in [*stops, (end, 0.0)]:
            x, t = waypoints[-1]
            t += abs(index - x) / speed
            waypoints.append((float(index), t))
            if dwell:
                waypoints.append((float(index), t + dwell))
        on = {0}
        mark = len(self.events)
        first_pass: dict[int, float] = {}
        for (xa, ta), (xb, tb) in zip(waypoints, waypoints[1:]):
            if xa == xb:
                continue
            lo, hi = min(xa, xb), max(xa, xb)
            cross = sorted(
                ta + (b - xa) / (xb - xa) * (tb - ta)
                for i in range(len(squares)) for b in (i - r, i + r) if lo < b < hi
            )
            for i in range(len(squares)):
                if lo <= i <= hi and i not in first_pass:
                    first_pass[i] = ta + (i - xa) / (xb - xa) * (tb - ta)
            for k, tc in enumerate(cross):
                tn = cross[k + 1] if k + 1 < len(cross) else tb
                x = xa + (xb - xa) * ((tc + tn) / 2 - ta) / (tb - ta)
                now = {i for i in range(len(squares)) if abs(x - i) < r}
                for i in sorted(on - now):
                    self._ev(tc, squares[i], None)
                for i in sorted(now - on):
                    self._ev(tc, squares[i], colour)
                on = now
        assert on == {end}, (on, end)
        if knock:
            left = min(t for t, _, sq, c in self.events[mark:] if sq == squares[0] and c is None)
            self._knock(*knock, left + rng.uniform(0.01, 0.05))
        self.phys[squares[end]] = colour
        self._disturb(squares, first_pass, colour)
        self.t = waypoints[-1][1]

    def _disturb(self, squares: list[str], passes: dict[int, float], colour: str) -> None:
        """Crosstalk on empty neighbours and knocked pieces falling back, along a slide."""
        rng, p = self.rng, self.p
        path = set(squares)
        for i, t in sorted(passes.items()):
            if i == 0:
                continue
            near = [
                s for s in self._ring(squares[i], diagonal=False)
                if s not in path and s not in self.busy
            ]
            empty = [s for s in near if s not in self.phys]
            if empty and rng.random() < p.crosstalk:
                s = rng.choice(empty)
                self._ev(t, s, colour)
                self._ev(t + rng.uniform(0.015, 0.06), s, None)
            full = [s for s in near if s in self.phys]
            if full and rng.random() < p.knock_back:
                s = rng.choice(full)
                self._ev(t, s, None)
                self._ev(t + rng.uniform(0.03, 0.12), s, self.phys[s])

    # -- behaviours ---------------------------------------------------------------------
    def setup(self) -> None:
        """A start setup with a missing and/or an extra piece, fixed by hand."""
        rng = self.rng
        missing = rng.sample(sorted(self.phys), rng.randint(1, 2))
        empty = [s for s in self._all() if s not in self.phys and not self._special(s)]
        extra = rng.sample(empty, rng.randint(0, 1))
        for s in missing:
            del self.initial[s]
        for s in extra:
            self.initial[s] = rng.choice("ad")
        self.wait(1.0, 2.5)
        for s in missing:
            self._ev(self.t, s, self.phys[s])
            self.wait(0.4, 0.9)
        for s in extra:
            self._ev(self.t, s, None)
            self.wait(0.4, 0.9)
        self.wait(0.5)

    def _all(self) -> list[str]:
        return list(self.geo.names)

    def illegal_attempt(self) -> bool:
        """An illegal move, left until it is flagged, then put back."""
        game, rng = self.game, self.rng
        board = game.board
        last = game.played[-1].to if game.played else None
        options: list[tuple[str, str]] = []
        for s in board.occupied_names():
            if s == last:
                continue
            side = board.side_of(s)
            if side != game.turn:
                options += [(s, board.name(d)) for d in board.destinations(s)][:3]
                continue
            f, r = self._xy(s)
            for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                d = self._name(f + df, r + dr)
                if d and d not in self.phys and not self._special(d):
                    options.append((s, d))
            for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                seen_piece = False
                k = 1
                while (d := self._name(f + k * df, r + k * dr)) is not None:
                    if d in self.phys:
                        seen_piece = True
                    elif seen_piece or (self._special(d) and board.piece_at(s) != "K"):
                        options.append((s, d))
                        break
                    k += 1
        options = [
            (f, t) for f, t in options
            if t not in self.phys and board.illegal_reason(
                board.parse_move(f"{f}-{t}")[0]) is not None
        ]
        if not options:
            return False
        frm, to = rng.choice(sorted(options))
        self.wait(*self.p.think)
        self.shift(frm, to, SLOW_LIFT)
        self.wait(*FLAGGED)
        self.shift(to, frm, QUICK)
        self.wait(0.4, 1.0)
        self.illegal += 1
        self.log.append((self.t, f"illegal {frm}-{to}"))
        return True

    def _knock_plan(self, frm: str, to: str, path: list[str], caps: set[str]
                    ) -> tuple[str, str] | None:
        """A neighbouring piece the hand can knock onto a free square without making the move
        ambiguous (see the tracker's knock rule)."""
        if self._cheb(frm, to) <= 1:
            return None
        options = []
        for k in sorted({s for sq in path for s in self._ring(sq)}):
            if k not in self.phys or k == frm or k in caps or self._cheb(k, to) <= 1:
                continue
            for k2 in self._ring(k):
                if (k2 in self.phys or k2 in path or self._special(k2) or self._cheb(k2, frm) <= 1
                        or self._cheb(k2, to) <= 1):
                    continue
                options.append((k, k2))
        return self.rng.choice(options) if options else None

    def move(self, text: str, last: bool) -> None:
        """Make one recorded move, with the profile's noise, and lift off what it captures."""
        game, rng, p = self.game, self.rng, self.p
        board = game.board
        move, _ = board.parse_move(text)
        frm, to = board.name(move.frm), board.name(move.to)
        captured_bits, result = board.preview(move)
        caps = [board.geo.names[s] for s in board.geo.iter_bits(captured_bits)]
        deferred, self.deferred = self.deferred, ()
        if deferred and (to in deferred or not set(deferred).isdisjoint(self._line(frm, to))):
            self.remove(list(deferred), quiet=True)
            deferred = ()
        if deferred:
            self._with_pending(frm, to, deferred)
        else:
            if rng.random() < p.illegal:
                self.illegal_attempt()
            if rng.random() < p.hesitate:
                self.wait(*p.think)
                self.shift(frm, frm, (0.3, 1.2))
            self.wait(*p.think)
            self._plain_move(frm, to, set(caps), knock_ok=result is None)
        game.play(text)
        if caps and not last and rng.random() < p.early + p.pending_move:
            self.deferred = tuple(caps)
            self.defer_mode = "early" if rng.random() < p.early / (p.early + p.pending_move) \
                else "pending"
            return
        if caps:
            self.remove(caps)
        if not last and rng.random() < p.takeback:
            self.take_back(frm, to, caps, text)

    def _plain_move(self, frm: str, to: str, caps: set[str], knock_ok: bool = True) -> None:
        rng, p, board = self.rng, self.p, self.game.board
        line = self._line(frm, to)
        knock = None  # after the game has ended the tracker no longer flags knocked pieces
        if knock_ok and rng.random() < p.knock_move:
            knock = self._knock_plan(frm, to, line, caps)
        if knock:
            k, k2 = knock
            self.busy = {k, k2}
        stops_ok = [
            i for i in range(1, len(line) - 1)
            if not self._special(line[i]) and board.is_legal(board.parse_move(
                f"{frm}-{line[i]}")[0])
        ]
        if rng.random() < p.slide:
            squares, stops, end = list(line), [], len(line) - 1
            if stops_ok and not knock and rng.random() < p.pause:
                stops.append((rng.choice(stops_ok), rng.uniform(0.1, 0.45)))
            beyond = self._beyond(frm, to)
            if (beyond and beyond not in self.phys and not self._special(beyond)
                    and rng.random() < p.overshoot):
                squares.append(beyond)
                stops.append((len(squares) - 1, rng.uniform(0.0, 0.3)))
            self.slide(squares, stops, end, knock)
        else:
            colour = self.lift(frm)
            if knock:
                self._knock(k, k2, self.t + rng.uniform(0.02, 0.1))
            self.wait(0.25, 0.8)
            others = [
                board.name(d) for d in board.destinations(frm)
                if board.name(d) != to and self._same_line(frm, to, board.name(d))
                and not self._special(board.name(d))
            ]
            if others and not knock and rng.random() < p.pause:
                first = rng.choice(others)
                self.place(first, colour)
                self.wait(0.3, 0.8)
                self.lift(first)
                self.wait(*QUICK)
            self.place(to, colour)
        if knock:
            self.wait(HOLD + 0.6, HOLD + 1.4)
            self.warnings += 1
            self.log.append((self.t, f"knocked {k}-{k2}"))
            colour = self.phys.pop(k2)
            self._ev(self.t, k2, None)
            self.phys[k] = colour
            self._ev(self.t + rng.uniform(0.04, 0.12), k, colour)
            self.wait(0.2, 0.4)
        self.busy = set()

    def _same_line(self, frm: str, to: str, other: str) -> bool:
        (f0, r0), (f1, r1), (f2, r2) = self._xy(frm), self._xy(to), self._xy(other)
        if f0 == f1 == f2:
            return (r1 - r0) * (r2 - r0) > 0
        return r0 == r1 == r2 and (f1 - f0) * (f2 - f0) > 0

    def _knock(self, k: str, k2: str, t: float) -> None:
        colour = self.phys.pop(k)
        self._ev(t, k, None)
        self.phys[k2] = colour
        self._ev(t + self.rng.uniform(0.02, 0.08), k2, colour)

    def _with_pending(self, frm: str, to: str, pending: tuple[str, ...]) -> None:
        """The opponent moves before the captured pieces are off the board."""
        self.wait(0.3, 0.8)
        if self.defer_mode == "early":
            colour = self.lift(frm)
            self.wait(*FLAGGED)
            self.warnings += 1
            self.log.append((self.t, f"lifted {frm} before the captures were removed"))
            self.remove(list(pending), quiet=True)
            self.wait(0.2, 0.6)
            self.place(to, colour)
        else:
            self.shift(frm, to, QUICK)
            self.wait(*FLAGGED)
            self.illegal += 1
            self.log.append((self.t, f"moved {frm}-{to} before the captures were removed"))
            self.remove(list(pending), quiet=True)
        self.wait(0.5)

    def remove(self, caps: list[str], quiet: bool = False) -> None:
        """Lift captured pieces off one at a time, in random order, maybe late or after lifting
        a wrong piece first."""
        rng, p = self.rng, self.p
        order = list(caps)
        rng.shuffle(order)
        last_to = self.game.played[-1].to if self.game.played else None
        for sq in order:
            if rng.random() < p.late and not quiet:
                self.wait(1.5, 4.0)
            else:
                self.wait(0.3, 1.0)
            wrong = [
                s for s in self._ring(sq) if s in self.phys and s not in caps and s != last_to
            ]
            if wrong and not quiet and not self.game.is_over() and rng.random() < p.wrong_piece:
                s = rng.choice(wrong)
                self.shift(s, s, FLAGGED)
                self.warnings += 1
                self.log.append((self.t, f"wrong piece {s} lifted"))
                self.wait(0.3, 0.8)
            self.lift(sq)
        self.wait(0.3, 0.6)

    def take_back(self, frm: str, to: str, caps: list[str], text: str) -> None:
        """Restore the position before the move (captured pieces too), then play it again."""
        rng = self.rng
        game = self.game
        colour = "d" if game.played[-1].side == ATTACKERS else "a"  # the king is "d" too
        self.wait(0.8, 1.5)
        piece_first = rng.random() < 0.5
        if piece_first:
            self.shift(to, frm, QUICK)
        for s in rng.sample(caps, len(caps)):
            self.wait(0.3, 0.7)
            self.place(s, colour)
        if not piece_first:
            self.wait(0.3, 0.7)
            self.shift(to, frm, QUICK)
        game.undo()
        self.wait(1.0, 2.0)
        self.shift(frm, to, (0.3, 0.8))
        game.play(text)
        if caps:
            self.remove(caps, quiet=True)

    # -- output -------------------------------------------------------------------------
    def scans(self, hz: float, polarity: bool) -> list[Scan]:
        """The timeline sampled by a scanner at ``hz``: one Scan per reading that differs."""
        state = dict(self.initial)
        out = [Scan(0.0, frozenset(state), dict(state) if polarity else None)]
        current = None
        for t, _, sq, colour in sorted(self.events):
            k = max(1, math.ceil(t * hz - 1e-9))
            if current is not None and k != current:
                self._flush(out, state, current / hz, polarity)
            current = k
            if colour is None:
                state.pop(sq, None)
            else:
                state[sq] = colour
        if current is not None:
            self._flush(out, state, current / hz, polarity)
        return out

    @staticmethod
    def _flush(out: list[Scan], state: dict[str, str], t: float, polarity: bool) -> None:
        prev = out[-1]
        colours = dict(state) if polarity else None
        if frozenset(state) != prev.occupied or (polarity and colours != prev.colours):
            out.append(Scan(round(t, 4), frozenset(state), colours))


def simulate_moves(
    rules: RuleSet, moves: list[str] | tuple[str, ...], *, seed: int = 0,
    noise: str | Profile = "typical", scan_hz: float = 100.0, polarity: bool = False,
) -> list[str]:
    """A ``tafl-trace/1`` trace (lines without newlines) of a game played with ``moves``."""
    profile = PROFILES[noise] if isinstance(noise, str) else noise
    rng = random.Random(f"tafl-sim/{rules.id}/{seed}/{' '.join(moves)}")
    player = _Player(rules, profile, rng)
    if rng.random() < profile.setup_error:
        player.setup()
    for i, text in enumerate(moves):
        player.move(text, last=i == len(moves) - 1)
        if player.game.is_over():
            break
    if player.deferred:
        player.remove(list(player.deferred), quiet=True)
    player.wait(2.0)
    game = player.game
    header = {
        "variant": rules.id, "size": rules.size, "scan_hz": scan_hz,
        **({"sensors": "polarity"} if polarity else {}),
        "generator": "tafl-companion simulate",
        "seed": seed, "noise": noise if isinstance(noise, str) else "custom",
        "expect": {
            "moves": list(game.moves), "result": game.result,
            "illegal": player.illegal, "warnings": player.warnings,
        },
    }
    return list(format_trace(header, player.scans(scan_hz, polarity), end=round(player.t, 2)))


def tidy_trace(
    rules: RuleSet, moves: list[str] | tuple[str, ...], *, step: float = 1.0,
    scan_hz: float = 100.0,
) -> tuple[list[str], float]:
    """A noiseless trace (lines, and its end time) of a tidy player: lift the piece, place it
    ``step / 2`` later, then lift every captured piece, ``step / 2`` apart. For tests and
    benchmarks that need exact, predictable timing."""
    game = Game(rules)
    occupied = set(game.board.occupied_names())
    scans = [Scan(0.0, frozenset(occupied))]
    t = 1.0
    for text in moves:
        played = game.play(text)
        for sq, place, wait in (
            (played.frm, False, step * 0.5), (played.to, True, step),
            *((sq, False, step * 0.5) for sq in played.captured),
        ):
            if place:
                occupied.add(sq)
            else:
                occupied.discard(sq)
            scans.append(Scan(round(t, 3), frozenset(occupied)))
            t += wait
        t += step * 0.5
    end = round(t + 1.0, 3)
    header = {"variant": rules.id, "size": rules.size, "scan_hz": scan_hz}
    return list(format_trace(header, scans, end=end)), end


def simulate_record(rules: RuleSet, record: Record, **kw: object) -> list[str]:
    """:func:`simulate_moves` for a game record (see ``companion.rules.records``)."""
    return simulate_moves(rules, record.moves, **kw)  # type: ignore[arg-type]
