"""The static evaluation: what a tafl position is worth, in hundredths of an attacker soldier.

Scores are from the attackers' point of view (positive: good for the attackers); the search
negates them for the defenders. The terms, each with a per-variant weight in :class:`Weights`:

- material: attackers and defenders on the board (per-variant weights: a defender is worth more
  where the attackers are many);
- the king's freedom: his moves (``king_mobility``) and the squares from which he would have an
  open line to an escape square — corners or the edge — which is a *raichi* (one open line,
  "check") or *tuichi* (two, usually won) one move away (``king_threats``); and his distance to the
  nearest escape square (``king_distance``);
- pressure on the king: attackers beside him and empty squares beside him the attackers could
  use (``king_adjacent``);
- corner blockades: attackers on the squares that seal a corner's approaches (``corner_guard``) —
  the diagonal pairs two squares out from each corner — and the squares right beside a corner where
  an attacker is easily taken (``corner_trap``);
- encirclement progress: the squares the king could walk to (rook paths through empty squares and
  his own pieces) that touch an escape square; when there are none the king is sealed in
  (``sealed``), the attackers' long-term win.

Forced wins are not scored here: the search finds escapes and captures exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from companion.rules import core
from companion.rules.ruleset import RuleSet

from .position import ATT, Position, Tables


@dataclass(frozen=True)
class Weights:
    """Evaluation weights (hundredths of an attacker soldier), one per feature of
    :meth:`Evaluator.features`; the score is their dot product (attackers' point of view)."""

    attacker: int = 100  # attackers on the board
    defender: int = 180  # minus the defenders on the board
    king_mobility: int = 6  # minus the king's moves
    king_threats: int = 60  # minus the king's moves that would open a line to escape
    king_lines: int = 180  # minus the escape squares he reaches now (attackers to move)
    king_reach2: int = 0  # minus the squares two king moves away with an open line to escape
    king_distance: int = 12  # his distance to the nearest escape square
    king_adjacent: int = 30  # attackers beside him
    king_guards: int = 0  # minus defenders beside him
    corner_guard: int = 25  # attackers sealing a corner's approach
    corner_trap: int = 10  # minus attackers right beside a corner
    edge: int = 0  # attackers on the edge
    sealed: int = 300  # the king cannot reach any escape square any more
    tempo: int = 10  # the attackers are to move (minus: the defenders)
    open_lines: int = 0  # minus the empty squares with an open line to an escape square
    open_lines2: int = 0  # minus the empty squares two open lines away from escape
    king_threats2: int = 0  # minus the king's moves to squares two open lines from escape
    king_corners: int = 0  # minus the escape squares the king could still walk to
    def_edge: int = 0  # minus the edge squares the defenders could still walk to
    # learned piece-square values (attackers' view): one per symmetry class of the board's
    # squares for attackers, then defenders, then the king (empty: none)
    pst: tuple[int, ...] = ()
    # learned corner zones (attackers' view; corner escapes only): for each of the king's
    # distances to a corner (ZONE_NEAR, ZONE_MID, farther), the worth of an attacker and of a
    # defender on each class of that corner's zone squares, then of the corner sealed by a
    # full diagonal of attackers (ZONE_SIZE values per distance; empty: none)
    zone: tuple[int, ...] = ()

    def scaled(self, **changes: Any) -> Weights:
        """A copy with some weights changed."""
        return replace(self, **changes)

    def to_json(self) -> dict[str, object]:
        """The weights as a dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


FEATURES = tuple(f.name for f in fields(Weights) if f.name not in ("pst", "zone"))
WEIGHTS_DIR = Path(__file__).with_name("weights")

# the corner zones: the squares up to ZONE_DEPTH - 1 files and ranks from a corner, in classes
# by their offsets (i, j) up to the diagonal's symmetry, and the king's distance (files plus
# ranks) to the corner in three bands
ZONE_DEPTH = 4
ZONE_CLASSES = tuple((i, j) for j in range(ZONE_DEPTH) for i in range(j + 1) if j)
ZONE_NEAR, ZONE_MID = 4, 7
ZONE_SIZE = 2 * len(ZONE_CLASSES) + 1  # attackers, defenders, sealed
ZONE_BANDS = 3
# a corner is sealed for good by a full diagonal of attackers across it (none of them can be
# captured: the squares behind them are out of the defenders' reach)
SEALS = (((0, 2), (1, 1), (2, 0)), ((0, 3), (1, 2), (2, 1), (3, 0)))


def zone_band(distance: int) -> int:
    """The band (0 near, 1, 2 far) of the king's distance to a corner."""
    return 0 if distance <= ZONE_NEAR else (1 if distance <= ZONE_MID else 2)


def corner_zones(n: int) -> list[tuple[int, list[tuple[int, int]], list[list[int]]]]:
    """For each corner of an ``n`` x ``n`` board: its square, its zone's ``(square, class)``
    pairs, and its seals' squares."""
    out = []
    for cf in (0, n - 1):
        for cr in (0, n - 1):
            sf = 1 if cf == 0 else -1
            sr = 1 if cr == 0 else -1

            def sq(i: int, j: int, cf: int = cf, cr: int = cr, sf: int = sf,
                   sr: int = sr) -> int:
                return (cr + sr * j) * n + cf + sf * i

            squares = [(sq(i, j), ZONE_CLASSES.index((min(i, j), max(i, j))))
                       for j in range(ZONE_DEPTH) for i in range(ZONE_DEPTH) if i or j]
            seals = [[sq(i, j) for i, j in seal] for seal in SEALS]
            out.append((cr * n + cf, squares, seals))
    return out


def square_class(n: int, s: int) -> int:
    """The square's class under the board's eight symmetries (0 = a corner)."""
    f, r = s % n, s // n
    a, b = sorted((min(f, n - 1 - f), min(r, n - 1 - r)))
    return b * (b + 1) // 2 + a


def class_count(n: int) -> int:
    """How many symmetry classes an ``n`` x ``n`` board has."""
    half = (n + 1) // 2
    return half * (half + 1) // 2


def learned_weights(variant: str) -> Weights | None:
    """The weights fitted by ``bench/train_eval.py`` for ``variant``, if there are any."""
    path = WEIGHTS_DIR / f"{variant}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    values = {k: int(v) for k, v in data["weights"].items() if k in FEATURES}
    return Weights(**values, pst=tuple(int(v) for v in data.get("pst", ())),
                   zone=tuple(int(v) for v in data.get("zone", ())))


# Fitted to real games' results by bench/tune.py (logistic regression on every position of the
# decided games of the corpus: 1,714 Copenhagen games, 516 Brandubh games), then checked by
# self-play (bench/selfplay.py): Brandubh +89 Elo (+19..+166) over the hand-set weights at
# 8,000 nodes a move. Attackers beside the king and on the edge come out negative: they are
# the ones the king and his men capture.
LARGE_CORNERS = Weights(
    defender=154, king_mobility=25, king_threats=197, king_lines=1388, king_distance=7,
    king_adjacent=-103, king_guards=34, corner_guard=58, corner_trap=91, edge=-43, sealed=444,
    tempo=10,
)
SMALL_CORNERS = Weights(
    defender=137, king_mobility=39, king_threats=-7, king_lines=282, king_distance=-24,
    king_adjacent=-38, king_guards=46, corner_guard=3, corner_trap=104, edge=4, sealed=56,
    tempo=17,
)
# king_reach2 (squares two king moves away with an open line) fits the games a little better
# (log-loss 0.540 -> 0.529 on Brandubh) but costs a third of the speed and did not win in
# self-play at equal nodes (+19 Elo over 36 games), so it is left at 0.
# open_lines / open_lines2 / king_threats2 (the empty squares with an open line to escape, or two
# lines away, counted by line fills) were tried in self-play at 8,000 nodes a move on Brandubh
# (60 games each): open_lines 15 +12 Elo (-40..+64), 40 -134 (-211..-67); king_threats2 40 with
# open_lines2 5 -95 (-159..-37). Raising king_threats to 60 (-58), corner_guard to 40 (-89) or
# king_distance to 10 (-89) lost too: the fitted weights stay, these at 0.
# edge escape (no corpus): the large-board fit without the corner terms, threats commoner
EDGE_ESCAPE = LARGE_CORNERS.scaled(
    king_threats=120, king_lines=400, corner_guard=0, corner_trap=0, edge=-20,
)


def default_weights(rules: RuleSet) -> Weights:
    """The weights for a rule set: learned ones where ``weights/<id>.json`` has them (fitted to
    real and self-play games by ``bench/train_eval.py``), else fitted ones by board size and
    escape kind, a defender's worth following the armies' ratio, a weak king worth hunting."""
    learned = learned_weights(rules.id)
    if learned is not None:
        return learned
    att0 = rules.start.count("t")
    dfn0 = rules.start.count("T")
    ratio = min(max(att0 / max(dfn0, 1), 1.0), 2.5)
    if rules.escape == "edge":
        w = EDGE_ESCAPE
    elif rules.size <= 9:
        w = SMALL_CORNERS
    else:
        w = LARGE_CORNERS
    w = w.scaled(defender=int(w.defender * ratio / 2))
    if rules.king_strength == "weak":
        w = w.scaled(king_adjacent=40)
    return w


class Evaluator:
    """Evaluates positions of one rule set."""

    def __init__(self, rules: RuleSet, weights: Weights | None = None) -> None:
        from .position import tables_for

        self.t: Tables = tables_for(rules)
        self.w = weights or default_weights(rules)
        t = self.t
        geo = t.geo
        n = geo.n
        # squares that seal a corner's approaches, and the squares right beside a corner
        guard = trap = 0
        if rules.escape == "corners":
            for cf in (0, n - 1):
                for cr in (0, n - 1):
                    sf = 1 if cf == 0 else -1
                    sr = 1 if cr == 0 else -1
                    block = 2 if rules.corners == "block" else 1
                    for df, dr in ((block, block + 1), (block + 1, block), (block, block)):
                        f, r = cf + sf * df, cr + sr * dr
                        guard |= 1 << (r * n + f)
                    for df, dr in ((block, 0), (0, block)):
                        f, r = cf + sf * df, cr + sr * dr
                        trap |= 1 << (r * n + f)
        self.guard, self.trap = guard, trap
        # distance of each square to the nearest escape square (king steps, ignoring pieces)
        self.distance = []
        for s in range(geo.count):
            f, r = s % n, s // n
            if rules.escape == "edge":
                d = min(f, r, n - 1 - f, n - 1 - r)
            else:
                d = min(max(abs(f - cf), abs(r - cr)) + min(abs(f - cf), abs(r - cr))
                        for cf in (0, n - 1) for cr in (0, n - 1))
            self.distance.append(d)
        self.escape = t.escape_mask
        self.edge = geo.edge
        self.full = geo.full
        self.not_a = geo.not_file_a
        self.not_last = geo.not_file_last
        self.adjacent = [sum(1 << a for a in geo.adjacent[s]) for s in range(geo.count)]
        self.sealed_cache: dict[int, bool] = {}
        # line fills: squares the king may pass, and may stop on, when empty
        king_mover = core.Mover(geo, rules, True, True)
        self.king_pass = self.full & ~king_mover.blocked & ~self.escape
        self.king_stop = self.full & ~king_mover.no_stop & ~self.escape
        # once he has left it, the king may not stop on the throne again in some rule sets
        closed = core.Mover(geo, rules, True, False)
        self.king_stop_closed = self.full & ~closed.no_stop & ~closed.blocked & ~self.escape
        steps = []
        k = 1
        while k < n:
            steps.append(k)
            k *= 2
        self.fill_plan = ((tuple(k * n for k in steps), self.full),
                          (tuple(steps), self.not_a))
        self.fill_plan_down = ((tuple(k * n for k in steps), self.full),
                               (tuple(steps), self.not_last))
        self.lines_cache: dict[int, tuple[int, int]] = {}
        self.need_e2 = bool(self.w.open_lines2 or self.w.king_threats2)
        # the learned piece-square values, per square
        classes = class_count(n)
        pst = self.w.pst
        if pst and len(pst) != 3 * classes:
            raise ValueError(f"pst: {3 * classes} values expected for {n}x{n}, not {len(pst)}")
        cls = [square_class(n, s) for s in range(geo.count)]
        self.pst_att = [pst[c] if pst else 0 for c in cls]
        self.pst_dfn = [pst[classes + c] if pst else 0 for c in cls]
        self.pst_king = [pst[2 * classes + c] if pst else 0 for c in cls]
        self.square_classes = cls
        # the corner zones (corner escapes only): per corner, its file and rank, a bitboard
        # per zone class, and its seals as bitboards
        self.zones: list[tuple[int, int, list[int], list[int]]] = []
        if rules.escape == "corners" and n >= 2 * ZONE_DEPTH - 1:
            for corner, squares, seals in corner_zones(n):
                masks = [0] * len(ZONE_CLASSES)
                for s, c in squares:
                    masks[c] |= 1 << s
                self.zones.append((corner % n, corner // n, masks,
                                   [sum(1 << s for s in seal) for seal in seals]))
        if self.w.zone and len(self.w.zone) != ZONE_BANDS * ZONE_SIZE:
            raise ValueError(f"zone: {ZONE_BANDS * ZONE_SIZE} values expected, "
                             f"not {len(self.w.zone)}")
        if self.w.zone and not self.zones:
            raise ValueError(f"zone: {rules.id} has no corner zones")

    def line_fill(self, seeds: int, empty: int) -> int:
        """Squares reached from ``seeds`` by rook lines through ``empty`` squares (the seeds
        themselves not included unless reached): a Kogge-Stone fill in the four directions."""
        out = 0
        for shifts, mask in self.fill_plan:
            # towards higher squares (north, east)
            g, e = seeds, empty & mask
            for k in shifts:
                g |= e & (g << k)
                e &= e << k
            out |= g
        for shifts, mask in self.fill_plan_down:
            g, e = seeds, empty & mask
            for k in shifts:
                g |= e & (g >> k)
                e &= e >> k
            out |= g
        return out & empty

    def escape_lines(self, pos: Position, need_e2: bool | None = None) -> tuple[int, int]:
        """``(E1, E2)``: the empty squares (the king's counted as empty) where the king may
        stop and would have an open line to an escape square, and those with an open line to
        an E1 square (two moves from escape; 0 unless the weights use it or ``need_e2``).
        Cached by occupancy."""
        occ = pos.att | pos.dfn
        closed = not self.t.may_throne and pos.king_left
        key = occ << 1 | closed
        cached = self.lines_cache.get(key)
        if cached is None or (need_e2 and cached[1] < 0):
            stop = self.king_stop_closed if closed else self.king_stop
            empty = self.king_pass & ~occ
            e1 = self.line_fill(self.escape & ~occ, empty) & stop
            e2 = -1
            if self.need_e2 or need_e2:
                e2 = self.line_fill(e1, empty) & ~e1 & stop
            if len(self.lines_cache) > 200_000:
                self.lines_cache.clear()
            cached = self.lines_cache[key] = (e1, e2)
        return cached

    def second_threats(self, pos: Position, kd: int) -> int:
        """Squares two king moves away (not one) from which he would have an open line."""
        king = pos.king
        lines = pos.king_lines()
        occ = pos.occupied ^ 1 << king
        occT = pos.occT() ^ self.t.tbit[king]
        reach2 = 0
        for d in self.t.geo.iter_bits(kd & ~self.escape):
            reach2 |= pos.destinations_bb(d, lines, occ, occT)
        count = 0
        for s in self.t.geo.iter_bits(reach2 & ~kd & ~self.escape & ~(1 << king)):
            if pos.destinations_bb(s, lines, occ, occT) & self.escape:
                count += 1
        return count

    def king_threat_squares(self, pos: Position) -> tuple[int, int]:
        """``(escape squares the king reaches now, squares from which he would)``: bitboards."""
        kd = pos.destinations_bb(pos.king, pos.king_lines(), pos.occupied, pos.occT())
        return kd & self.escape, kd & self.escape_lines(pos)[0]

    def features(self, pos: Position) -> list[int]:
        """The feature values of :class:`Weights`' fields, attackers' point of view (slow; for
        tuning and tests: :meth:`evaluate` is the same dot product, inlined)."""
        att, dfn, king = pos.att, pos.dfn, pos.king
        f = dict.fromkeys(FEATURES, 0)
        f["attacker"] = att.bit_count()
        f["defender"] = -dfn.bit_count()
        if king >= 0:
            esc, threats = self.king_threat_squares(pos)
            kd = pos.destinations_bb(king, pos.king_lines(), pos.occupied, pos.occT())
            f["king_mobility"] = -kd.bit_count()
            f["king_threats"] = -threats.bit_count()
            f["king_reach2"] = -self.second_threats(pos, kd)
            f["king_lines"] = -esc.bit_count()
            f["king_distance"] = self.distance[king]
            f["king_adjacent"] = (att & self.adjacent[king]).bit_count()
            f["king_guards"] = -(dfn & self.adjacent[king]).bit_count()
            f["sealed"] = 0 if self.reaches_escape(att, king) else 1
        if king >= 0:
            e1, e2 = self.escape_lines(pos, need_e2=True)
            f["open_lines"] = -e1.bit_count()
            f["open_lines2"] = -e2.bit_count()
            kd = pos.destinations_bb(king, pos.king_lines(), pos.occupied, pos.occT())
            f["king_threats2"] = -(kd & e2).bit_count()
        if king >= 0:
            f["king_corners"] = -self.escapes_reached(att, king)
        f["def_edge"] = -self.edge_reached(att, dfn, king)
        f["corner_guard"] = (att & self.guard).bit_count()
        f["corner_trap"] = -(att & self.trap).bit_count()
        f["edge"] = (att & self.edge).bit_count()
        f["tempo"] = 1 if pos.side == ATT else -1
        return [f[name] for name in FEATURES]

    def pst_features(self, pos: Position) -> list[int]:
        """How many attackers, defenders and kings stand on each symmetry class of squares
        (attackers' view: defenders and the king count negative), for fitting ``pst``."""
        classes = class_count(self.t.n)
        out = [0] * (3 * classes)
        cls = self.square_classes
        for s in self.t.geo.iter_bits(pos.att):
            out[cls[s]] += 1
        for s in self.t.geo.iter_bits(pos.dfn):
            out[classes + cls[s]] -= 1
        if pos.king >= 0:
            out[2 * classes + cls[pos.king]] -= 1
        return out

    def zone_features(self, pos: Position) -> list[int]:
        """How many attackers and defenders stand on each class of each corner's zone, and
        how many corners are sealed, in the band of the king's distance to that corner
        (``ZONE_BANDS * ZONE_SIZE`` counts; all 0 without a king or zones)."""
        out = [0] * (ZONE_BANDS * ZONE_SIZE)
        if pos.king < 0:
            return out
        n = self.t.n
        kf, kr = pos.king % n, pos.king // n
        k = len(ZONE_CLASSES)
        for cf, cr, masks, seals in self.zones:
            base = zone_band(abs(kf - cf) + abs(kr - cr)) * ZONE_SIZE
            for c, m in enumerate(masks):
                out[base + c] += (pos.att & m).bit_count()
                out[base + k + c] += (pos.dfn & m).bit_count()
            if any(pos.att & seal == seal for seal in seals):
                out[base + 2 * k] += 1
        return out

    def zone_score(self, att: int, dfn: int, king: int) -> int:
        """The corner zones' worth (attackers' view): :meth:`zone_features` times the
        weights."""
        zw = self.w.zone
        n = self.t.n
        kf, kr = king % n, king // n
        k = len(ZONE_CLASSES)
        score = 0
        for cf, cr, masks, seals in self.zones:
            base = zone_band(abs(kf - cf) + abs(kr - cr)) * ZONE_SIZE
            for c, m in enumerate(masks):
                score += zw[base + c] * (att & m).bit_count()
                score += zw[base + k + c] * (dfn & m).bit_count()
            for seal in seals:
                if att & seal == seal:
                    score += zw[base + 2 * k]
                    break
        return score

    def evaluate(self, pos: Position) -> int:
        """Score of ``pos`` from the side to move's point of view."""
        w = self.w
        att, dfn, king = pos.att, pos.dfn, pos.king
        score = w.attacker * att.bit_count() - w.defender * dfn.bit_count()
        if w.pst:
            pa, pd = self.pst_att, self.pst_dfn
            for s in self.t.geo.iter_bits(att):
                score += pa[s]
            for s in self.t.geo.iter_bits(dfn):
                score -= pd[s]
            if king >= 0:
                score -= self.pst_king[king]
        if w.def_edge:
            score -= w.def_edge * self.edge_reached(att, dfn, king)
        if w.zone and king >= 0:
            score += self.zone_score(att, dfn, king)
        if king >= 0:
            t = self.t
            lines = pos.king_lines()
            occ = att | dfn | 1 << king
            occT = pos.attT | pos.dfnT | t.tbit[king]
            kd = pos.destinations_bb(king, lines, occ, occT)
            escape = self.escape
            esc = kd & escape
            e1, e2 = self.escape_lines(pos)
            threats = (kd & e1).bit_count()
            if w.king_reach2:
                score -= w.king_reach2 * self.second_threats(pos, kd)
            if w.king_threats2:
                score -= w.king_threats2 * (kd & e2).bit_count()
            score -= w.king_mobility * kd.bit_count()
            score -= w.king_threats * threats + w.king_lines * esc.bit_count()
            score += w.king_distance * self.distance[king]
            near = self.adjacent[king]
            score += w.king_adjacent * (att & near).bit_count()
            if w.king_guards:
                score -= w.king_guards * (dfn & near).bit_count()
            if w.king_corners:
                corners = self.escapes_reached(att, king)
                score -= w.king_corners * corners
                if w.sealed and not corners:
                    score += w.sealed
            elif w.sealed:
                key = att | king << 400
                sealed = self.sealed_cache.get(key)
                if sealed is None:
                    if len(self.sealed_cache) > 200_000:
                        self.sealed_cache.clear()
                    sealed = self.sealed_cache[key] = not self.reaches_escape(att, king)
                if sealed:
                    score += w.sealed
            if w.open_lines or w.open_lines2:
                score -= w.open_lines * e1.bit_count() + w.open_lines2 * e2.bit_count()
        score += w.corner_guard * (att & self.guard).bit_count()
        score -= w.corner_trap * (att & self.trap).bit_count()
        if w.edge:
            score += w.edge * (att & self.edge).bit_count()
        score += w.tempo if pos.side == ATT else -w.tempo
        return score if pos.side == ATT else -score

    def flood(self, seeds: int, att: int) -> int:
        """The squares reached from ``seeds`` by steps through squares without attackers."""
        free = self.full & ~att
        n, not_a, not_last = self.t.n, self.not_a, self.not_last
        reach = seeds & free
        while True:
            grown = (
                reach | ((reach << 1) & not_a) | ((reach >> 1) & not_last) | (reach << n)
                | (reach >> n)
            ) & free
            if grown == reach:
                return reach
            reach = grown

    def escapes_reached(self, att: int, king: int) -> int:
        """How many escape squares the king could walk to (through squares without
        attackers; 0: he is sealed in)."""
        return (self.flood(1 << king, att) & self.escape).bit_count()

    def edge_reached(self, att: int, dfn: int, king: int) -> int:
        """How many edge squares the defenders could walk to (0: they are encircled)."""
        seeds = dfn | (1 << king if king >= 0 else 0)
        return (self.flood(seeds, att) & self.edge).bit_count()

    def reaches_escape(self, att: int, king: int) -> bool:
        """Whether the king could walk to an escape square through non-attacker squares."""
        free = self.full & ~att
        reach = 1 << king
        target = self.escape
        n, not_a, not_last = self.t.n, self.not_a, self.not_last
        while True:
            if reach & target:
                return True
            grown = (
                reach | ((reach << 1) & not_a) | ((reach >> 1) & not_last) | (reach << n)
                | (reach >> n)
            ) & free
            if grown == reach:
                return False
            reach = grown
