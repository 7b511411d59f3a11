"""The physical side of the simulator: pieces on a board, a hand that lifts, places and slides
them, and the reed switches or Hall sensors that see it (contact bounce, crosstalk from a passing
magnet, knocked neighbours), sampled by a scanner. :mod:`companion.simulator` builds the players'
behaviours on top of it.
"""

from __future__ import annotations

import math
import random

from .rules import RuleSet
from .rules.geometry import geometry_for
from .scan import Scan
from .squares import coords_name, parse_coords, parse_square

# Timing the simulated player keeps relative to the tracker's defaults (settle 0.2 s, hold 0.5 s,
# knock window 0.2 s): a flagged state is kept well past HOLD; a state that must not be flagged
# is left well before it.
HOLD = 0.5
QUICK = (0.15, 0.35)   # a hand that must not trigger a warning
FLAGGED = (HOLD + 0.4, HOLD + 1.2)


class Hand:
    """The board, the hand and the sensor timeline. ``bounce``, ``crosstalk`` and ``knock_back``
    are the rates of sensor noise and of neighbours knocked during a slide."""

    def __init__(self, rules: RuleSet, rng: random.Random, *, bounce: float = 0.0,
                 crosstalk: float = 0.0, knock_back: float = 0.0) -> None:
        self.rules, self.rng = rules, rng
        self.bounce, self.crosstalk, self.knock_back = bounce, crosstalk, knock_back
        self.geo = geometry_for(rules)
        self.phys: dict[str, str] = {}  # square -> colour of the piece standing there
        self.initial: dict[str, str] = {}
        self.events: list[tuple[float, int, str, str | None]] = []
        self.t = 0.0
        self.busy: set[str] = set()  # squares a slide must not disturb

    # -- sensor primitives --------------------------------------------------------------
    def event(self, t: float, sq: str, colour: str | None) -> None:
        """The sensor of ``sq`` sees ``colour`` (None: nothing) from time ``t`` on."""
        self.events.append((t, len(self.events), sq, colour))

    def _switch(self, sq: str, final: str | None, other: str | None, bounce: bool) -> None:
        t = self.t
        if bounce and self.rng.random() < self.bounce:
            for _ in range(self.rng.randint(1, 2)):
                self.event(t, sq, final)
                t += self.rng.uniform(0.006, 0.025)
                self.event(t, sq, other)
                t += self.rng.uniform(0.006, 0.025)
        self.event(t, sq, final)
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
    def xy(self, sq: str) -> tuple[int, int]:
        """(file, rank) of a square name, from 0."""
        return parse_coords(sq, self.geo.n)

    def name_at(self, f: int, r: int) -> str | None:
        """The name of the square at (file, rank); None off the board."""
        n = self.geo.n
        return coords_name(f, r, n) if 0 <= f < n and 0 <= r < n else None

    def ring(self, sq: str, diagonal: bool = True) -> list[str]:
        """The squares next to ``sq`` (with the diagonal ones unless ``diagonal`` is False)."""
        f, r = self.xy(sq)
        steps = [(0, 1), (0, -1), (1, 0), (-1, 0)]
        if diagonal:
            steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        return [s for df, dr in steps if (s := self.name_at(f + df, r + dr))]

    def line(self, frm: str, to: str) -> list[str]:
        """The squares from ``frm`` to ``to``, both included."""
        (f0, r0), (f1, r1) = self.xy(frm), self.xy(to)
        df, dr = (f1 > f0) - (f1 < f0), (r1 > r0) - (r1 < r0)
        n = max(abs(f1 - f0), abs(r1 - r0))
        return [self.name_at(f0 + i * df, r0 + i * dr) for i in range(n + 1)]  # type: ignore[misc]

    def beyond(self, frm: str, to: str) -> str | None:
        """The square one step past ``to`` on the line from ``frm``; None off the board."""
        (f0, r0), (f1, r1) = self.xy(frm), self.xy(to)
        return self.name_at(f1 + (f1 > f0) - (f1 < f0), r1 + (r1 > r0) - (r1 < r0))

    def ix(self, sq: str) -> int:
        """The index of a square name (the rules core's squares)."""
        return parse_square(sq, self.geo.n)

    def special(self, sq: str) -> bool:
        """Whether ``sq`` is a corner or the throne."""
        i = self.ix(sq)
        return bool(self.geo.corner >> i & 1) or i == self.geo.throne

    def cheb(self, a: str, b: str) -> int:
        """The king-step (Chebyshev) distance between two squares."""
        (fa, ra), (fb, rb) = self.xy(a), self.xy(b)
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
                    self.event(tc, squares[i], None)
                for i in sorted(now - on):
                    self.event(tc, squares[i], colour)
                on = now
        assert on == {end}, (on, end)
        if knock:
            left = min(t for t, _, sq, c in self.events[mark:] if sq == squares[0] and c is None)
            self.knock(*knock, left + rng.uniform(0.01, 0.05))
        self.phys[squares[end]] = colour
        self._disturb(squares, first_pass, colour)
        self.t = waypoints[-1][1]

    def _disturb(self, squares: list[str], passes: dict[int, float], colour: str) -> None:
        """Crosstalk on empty neighbours and knocked pieces falling back, along a slide."""
        rng = self.rng
        path = set(squares)
        for i, t in sorted(passes.items()):
            if i == 0:
                continue
            near = [
                s for s in self.ring(squares[i], diagonal=False)
                if s not in path and s not in self.busy
            ]
            empty = [s for s in near if s not in self.phys]
            if empty and rng.random() < self.crosstalk:
                s = rng.choice(empty)
                self.event(t, s, colour)
                self.event(t + rng.uniform(0.015, 0.06), s, None)
            full = [s for s in near if s in self.phys]
            if full and rng.random() < self.knock_back:
                s = rng.choice(full)
                self.event(t, s, None)
                self.event(t + rng.uniform(0.03, 0.12), s, self.phys[s])

    def knock(self, k: str, k2: str, t: float) -> None:
        """The piece on ``k`` is knocked onto ``k2`` at time ``t``."""
        colour = self.phys.pop(k)
        self.event(t, k, None)
        self.phys[k2] = colour
        self.event(t + self.rng.uniform(0.02, 0.08), k2, colour)

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
