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

Forced wins are not scored here: the search finds escapes and captures exactly. The weights are
in :mod:`.eval_weights`, the open lines in :mod:`.escape_lines`, the walks in
:mod:`.encirclement`, the corner zones in :mod:`.zones`.
"""

from __future__ import annotations

from companion.rules.ruleset import RuleSet

from .encirclement import Encirclement
from .escape_lines import EscapeLines
from .eval_weights import (
    EDGE_ESCAPE,
    FEATURES,
    LARGE_CORNERS,
    SMALL_CORNERS,
    WEIGHTS_DIR,
    Weights,
    class_count,
    default_weights,
    learned_weights,
    square_class,
)
from .position import ATT, Position, Tables
from .zones import (
    SEALS,
    ZONE_BANDS,
    ZONE_CLASSES,
    ZONE_DEPTH,
    ZONE_MID,
    ZONE_NEAR,
    ZONE_SIZE,
    CornerZones,
    corner_zones,
    zone_band,
)


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
        self.adjacent = [sum(1 << a for a in geo.adjacent[s]) for s in range(geo.count)]
        self.sealed_cache: dict[int, bool] = {}
        self.lines = EscapeLines(rules, t, bool(self.w.open_lines2 or self.w.king_threats2))
        self.walks = Encirclement(t)
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
        self.zones = CornerZones(n, rules.escape == "corners", self.w.zone)
        if self.w.zone and len(self.w.zone) != ZONE_BANDS * ZONE_SIZE:
            raise ValueError(f"zone: {ZONE_BANDS * ZONE_SIZE} values expected, "
                             f"not {len(self.w.zone)}")
        if self.w.zone and not self.zones.zones:
            raise ValueError(f"zone: {rules.id} has no corner zones")
        # the parts' calls, bound once (the evaluation makes them at every node)
        self.escape_lines = self.lines.escape_lines
        self.zone_features = self.zones.features
        self.zone_score = self.zones.score
        self.escapes_reached = self.walks.escapes_reached
        self.defenders_room = self.walks.defenders_room
        self.reaches_escape = self.walks.reaches_escape

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
        room = self.defenders_room(att, dfn, king)
        f["def_edge"] = -(room & self.edge).bit_count()
        f["def_space"] = -room.bit_count()
        f["sealed_off"] = self.t.n ** 2 - room.bit_count() if king >= 0 and f["sealed"] else 0
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

    def shut_off(self, room: int, att: int, dfn: int, king: int) -> int:
        """How many squares lie outside the defenders' room (``room``, or walked now if it is
        -1): the attackers' own and those they have cut off."""
        room = room if room >= 0 else self.defenders_room(att, dfn, king)
        return self.t.n ** 2 - room.bit_count()

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
        room = -1
        if w.def_edge or w.def_space:
            room = self.defenders_room(att, dfn, king)
            score -= w.def_edge * (room & self.edge).bit_count() + w.def_space * room.bit_count()
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
                if not corners:
                    score += w.sealed
                    if w.sealed_off:
                        score += w.sealed_off * self.shut_off(room, att, dfn, king)
            elif w.sealed or w.sealed_off:
                key = att | king << 400
                sealed = self.sealed_cache.get(key)
                if sealed is None:
                    if len(self.sealed_cache) > 200_000:
                        self.sealed_cache.clear()
                    sealed = self.sealed_cache[key] = not self.reaches_escape(att, king)
                if sealed:
                    score += w.sealed
                    if w.sealed_off:
                        score += w.sealed_off * self.shut_off(room, att, dfn, king)
            if w.open_lines or w.open_lines2:
                score -= w.open_lines * e1.bit_count() + w.open_lines2 * e2.bit_count()
        score += w.corner_guard * (att & self.guard).bit_count()
        score -= w.corner_trap * (att & self.trap).bit_count()
        if w.edge:
            score += w.edge * (att & self.edge).bit_count()
        score += w.tempo if pos.side == ATT else -w.tempo
        return score if pos.side == ATT else -score


__all__ = [
    "EDGE_ESCAPE", "FEATURES", "LARGE_CORNERS", "SEALS", "SMALL_CORNERS", "WEIGHTS_DIR",
    "ZONE_BANDS", "ZONE_CLASSES", "ZONE_DEPTH", "ZONE_MID", "ZONE_NEAR", "ZONE_SIZE", "Evaluator",
    "Weights", "class_count", "corner_zones", "default_weights", "learned_weights",
    "square_class", "zone_band",
]
