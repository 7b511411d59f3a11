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

from dataclasses import dataclass, fields, replace

from companion.rules.ruleset import RuleSet

from .position import ATT, Position, Tables


@dataclass(frozen=True)
class Weights:
    """Evaluation weights (hundredths of an attacker soldier)."""

    attacker: int = 100
    defender: int = 180
    king_mobility: int = 6
    king_threats: int = 60
    king_distance: int = 12
    king_adjacent: int = 30
    corner_guard: int = 25
    corner_trap: int = 10
    sealed: int = 300
    tempo: int = 10

    def scaled(self, **changes: int) -> Weights:
        """A copy with some weights changed."""
        return replace(self, **changes)

    def to_json(self) -> dict[str, int]:
        """The weights as a dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def default_weights(rules: RuleSet) -> Weights:
    """The tuned weights for a rule set: a defender's worth follows the armies' ratio, edge
    escape makes threats commoner (and each one worth less), a weak king is worth hunting."""
    att0 = rules.start.count("t")
    dfn0 = rules.start.count("T")
    ratio = att0 / max(dfn0, 1)
    w = Weights(defender=int(100 * min(max(ratio, 1.0), 2.5) * 0.9))
    if rules.escape == "edge":
        w = w.scaled(king_threats=45, king_distance=20, corner_guard=0, corner_trap=0)
    if rules.king_strength == "weak":
        w = w.scaled(king_adjacent=60)
    if rules.size <= 7:
        w = w.scaled(king_mobility=8, king_threats=80)
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

    def king_threat_squares(self, pos: Position) -> tuple[int, int]:
        """``(escape squares the king reaches now, squares from which he would)``: bitboards."""
        king = pos.king
        lines = pos.king_lines()
        occ = pos.occupied
        occT = pos.occT()
        kd = pos.destinations_bb(king, lines, occ, occT)
        esc = kd & self.escape
        occ ^= 1 << king
        occT ^= self.t.tbit[king]
        threats = 0
        rest = kd & ~esc
        while rest:
            low = rest & -rest
            rest ^= low
            d = low.bit_length() - 1
            if pos.destinations_bb(d, lines, occ, occT) & self.escape:
                threats |= low
        return esc, threats

    def evaluate(self, pos: Position) -> int:
        """Score of ``pos`` from the side to move's point of view."""
        w = self.w
        att, dfn, king = pos.att, pos.dfn, pos.king
        score = w.attacker * att.bit_count() - w.defender * dfn.bit_count()
        if king >= 0:
            t = self.t
            lines = pos.king_lines()
            occ = att | dfn | 1 << king
            occT = pos.attT | pos.dfnT | t.tbit[king]
            kd = pos.destinations_bb(king, lines, occ, occT)
            escape = self.escape
            esc = kd & escape
            occ ^= 1 << king
            occT ^= t.tbit[king]
            threats = 0
            rest = kd & ~esc
            dest = pos.destinations_bb
            while rest:
                low = rest & -rest
                rest ^= low
                if dest(low.bit_length() - 1, lines, occ, occT) & escape:
                    threats += 1
            score -= w.king_mobility * kd.bit_count()
            score -= w.king_threats * (threats + 3 * esc.bit_count())
            score += w.king_distance * self.distance[king]
            score += w.king_adjacent * (att & self.adjacent[king]).bit_count()
            if w.sealed:
                key = att | king << 400
                sealed = self.sealed_cache.get(key)
                if sealed is None:
                    if len(self.sealed_cache) > 200_000:
                        self.sealed_cache.clear()
                    sealed = self.sealed_cache[key] = not self.reaches_escape(att, king)
                if sealed:
                    score += w.sealed
        score += w.corner_guard * (att & self.guard).bit_count()
        score -= w.corner_trap * (att & self.trap).bit_count()
        score += w.tempo if pos.side == ATT else -w.tempo
        return score if pos.side == ATT else -score

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
