"""The rules engine proper: pure functions on raw positions.

A raw position is ``(att, dfn, king)``: attacker and defender-soldier bitboards and the king's
square (``-1`` once captured). Everything here is side-effect free and shared by
:class:`~companion.rules.board.Board` and the perft counter.
"""

from __future__ import annotations

from .geometry import Geometry
from .outcome import Termination
from .ruleset import ATTACKERS, DEFENDERS, KING, RuleSet

# Wins a move can produce by itself (repetition and "no moves" need the game's history).
KING_CAPTURED = Termination.KING_CAPTURED
ESCAPE = Termination.ESCAPE
EXIT_FORT = Termination.EXIT_FORT
ENCIRCLEMENT = Termination.ENCIRCLEMENT


class Mover:
    """Where a piece may stop and what it may pass, for one rule set (soldier or king)."""

    __slots__ = ("blocked", "no_stop", "last")

    def __init__(self, geo: Geometry, rules: RuleSet, is_king: bool, throne_open: bool) -> None:
        # no_stop: squares the piece may pass (when empty) but not stop on
        # blocked: squares the piece may neither pass nor stop on (when empty)
        # last: squares the piece may stop on but not pass (the king on restricted corners:
        # "only the king may stop on them, nobody passes through them")
        self.no_stop = 0
        self.blocked = geo.corner
        self.last = 0
        if is_king:
            self.blocked = 0
            self.last = geo.corner
        if geo.throne >= 0:
            may_stop = is_king and throne_open
            may_pass = rules.throne_pass == "all" or (rules.throne_pass == "king" and is_king)
            if not may_pass:
                self.blocked |= geo.throne_bit
            elif not may_stop:
                self.no_stop |= geo.throne_bit


def king_may_stop_on_throne(rules: RuleSet, king_left: bool) -> bool:
    """Whether the king may (still) stop on the throne."""
    if rules.throne_stop == "king":
        return True
    if rules.throne_stop == "king_once":
        return not king_left
    return rules.throne_stop == "anyone"


def piece_destinations(geo: Geometry, occ: int, square: int, mover: Mover) -> list[int]:
    """Every square a piece on ``square`` may move to (rook moves, stop/pass rules)."""
    out = []
    bit = geo.bit
    blocked, no_stop, last = mover.blocked, mover.no_stop, mover.last
    for ray in geo.rays[square]:
        for s in ray:
            b = bit[s]
            if occ & b or blocked & b:
                break
            if not no_stop & b:
                out.append(s)
            if last & b:
                break
    return out


def hostile_squares(geo: Geometry, rules: RuleSet, victim: str, occ: int) -> int:
    """Empty squares that act as an enemy piece against ``victim`` (attackers/defenders/king)."""
    mask = geo.corner if victim in rules.hostile_corners else 0
    if geo.throne >= 0 and not occ & geo.throne_bit and victim in rules.hostile_throne_empty:
        mask |= geo.throne_bit
    return mask & ~occ


def compute_captures(
    geo: Geometry, rules: RuleSet, att: int, dfn: int, king: int, to: int, attackers_moved: bool
) -> int:
    """Bitboard of pieces captured by the piece that just arrived on ``to`` (position already
    updated with the move). The king's bit is included when the king is captured."""
    bit = geo.bit
    kbit = bit[king] if king >= 0 else 0
    occ = att | dfn | kbit
    if attackers_moved:
        victims, partners = dfn, att
        hostile = hostile_squares(geo, rules, DEFENDERS, occ)
        if rules.linnaean_capture and king == geo.throne and king >= 0:
            hostile |= _linnaean_throne(geo, att, king, to)
    else:
        victims = att
        partners = dfn | (kbit if rules.king_armed else 0)
        if to == king and not rules.king_armed:
            return 0
        hostile = hostile_squares(geo, rules, ATTACKERS, occ)
    closing = partners | hostile
    captured = 0
    for n1, n2 in geo.pairs[to]:
        if n2 >= 0 and victims & bit[n1] and closing & bit[n2]:
            captured |= bit[n1]
    if rules.chain_capture:
        captured |= _chain(geo, victims, partners, to)
    if rules.shieldwall != "off" and geo.edge & bit[to]:
        captured |= _shieldwall(geo, rules, att, dfn, king, to, attackers_moved)
    if attackers_moved and king >= 0:
        if king in geo.adjacent[to] and king_is_captured(geo, rules, att, occ, king, to):
            captured |= kbit
        elif rules.sheltered_king:
            captured |= _sheltered(geo, rules, att, dfn, king, to)
    return captured


def _linnaean_throne(geo: Geometry, att: int, king: int, to: int) -> int:
    """The occupied throne as a hostile square against a defender beside it, when the king on
    it is enclosed by attackers on his three other sides (OpenTafl's ``linc``)."""
    hostile = 0
    for n1, n2 in geo.pairs[to]:
        if n2 == king:
            others = [a for a in geo.adjacent[king] if a != n1]
            if len(others) == 3 and all(att & geo.bit[a] for a in others):
                hostile |= geo.bit[king]
    return hostile


def _chain(geo: Geometry, victims: int, partners: int, to: int) -> int:
    """Optional chain capture: enemy/own alternating in a row, closed by the moving piece."""
    bit = geo.bit
    captured = 0
    for ray in geo.rays[to]:
        run = 0
        for i in range(0, len(ray) - 1, 2):
            if victims & bit[ray[i]] and partners & bit[ray[i + 1]]:
                run |= bit[ray[i]]
            else:
                break
        if run & (run - 1):  # two or more: a real chain (one is plain custodial)
            captured |= run
    return captured


def king_is_captured(
    geo: Geometry, rules: RuleSet, att: int, occ: int, king: int, to: int
) -> bool:
    """Whether the attacker that arrived on ``to`` (adjacent to the king) captures the king."""
    bit = geo.bit
    hostile = att | hostile_squares(geo, rules, KING, occ)
    strength = rules.king_strength
    if strength == "strong_by_throne":
        near = king == geo.throne or (geo.throne >= 0 and geo.throne in geo.adjacent[king])
        strength = "strong" if near else "weak"
    elif strength == "strong_on_throne":
        strength = "strong" if king == geo.throne else "weak"
    if strength == "weak":
        n = geo.n
        # custodial, like a soldier: the square beyond the king, seen from `to`
        bf, br = 2 * (king % n) - to % n, 2 * (king // n) - to // n
        if not (0 <= bf < n and 0 <= br < n):
            return False
        return bool(hostile & bit[br * n + bf])
    if geo.edge & bit[king]:
        return False
    return all(hostile & bit[a] for a in geo.adjacent[king])


def _sheltered(geo: Geometry, rules: RuleSet, att: int, dfn: int, king: int, to: int) -> int:
    """Optional sheltered-king capture (seed 000 note [1]): the king and one defender beside
    him, both enclosed on every other side (off-board never encloses), are taken together."""
    bit = geo.bit
    occ = att | dfn | bit[king]
    king_hostile = att | hostile_squares(geo, rules, KING, occ)
    dfn_hostile = att | hostile_squares(geo, rules, DEFENDERS, occ)
    if geo.edge & bit[king]:
        return 0
    for d in geo.adjacent[king]:
        if not dfn & bit[d] or geo.edge & bit[d]:
            continue
        around_k = [a for a in geo.adjacent[king] if a != d]
        around_d = [a for a in geo.adjacent[d] if a != king]
        if to not in around_k and to not in around_d:
            continue
        if all(king_hostile & bit[a] for a in around_k) and all(
            dfn_hostile & bit[a] for a in around_d
        ):
            return bit[king] | bit[d]
    return 0


def _shieldwall(
    geo: Geometry, rules: RuleSet, att: int, dfn: int, king: int, to: int, attackers_moved: bool
) -> int:
    """Copenhagen shieldwall: rows of two or more enemy pieces along the edge, each with one of
    the mover's pieces in front, bracketed at both ends; the moving piece closes one end and a
    corner may close the other (``shieldwall == "corners"``). A king in the row survives."""
    bit = geo.bit
    kbit = bit[king] if king >= 0 else 0
    if attackers_moved:
        row_side, front, bracket = dfn | kbit, att, att
    else:
        row_side = att
        front = dfn | kbit
        bracket = dfn | (kbit if rules.king_armed else 0)
    if rules.shieldwall == "corners":
        bracket |= geo.corner
    captured = 0
    for ray in geo.rays[to]:
        if not ray or not geo.edge & bit[ray[0]]:
            continue  # only along the edge line
        row = []
        closed = False
        for s in ray:
            if row_side & bit[s]:
                row.append(s)
            else:
                closed = bool(bracket & bit[s])
                break
        if not closed or len(row) < 2:
            continue
        if all(geo.inward[s] >= 0 and front & bit[geo.inward[s]] for s in row):
            for s in row:
                if s != king:
                    captured |= bit[s]
    return captured


def encircled(geo: Geometry, att: int, dfn: int, king: int) -> bool:
    """True when no defender (king included) can reach the board edge through empty and
    defender-occupied squares (flood fill)."""
    reach = dfn | (geo.bit[king] if king >= 0 else 0)
    edge = geo.edge
    if reach & edge:
        return False
    free = geo.full & ~att
    n, not_a, not_last = geo.n, geo.not_file_a, geo.not_file_last
    while True:
        grown = (
            reach | ((reach << 1) & not_a) | ((reach >> 1) & not_last) | (reach << n) | (reach >> n)
        ) & free
        if grown & edge:
            return False
        if grown == reach:
            return True
        reach = grown


def exit_fort(
    geo: Geometry, rules: RuleSet, att: int, dfn: int, king: int, king_left: bool
) -> bool:
    """VARIANTS.md note 5: the king touches the edge, has a legal move, and sits in a region
    of empty squares bordered only by defenders (no corner inside) none of which can ever be
    captured, shieldwall included.

    A defender is uncapturable when along its rank and along its file at least one neighbour is
    off the board, in the king's region (not a throne hostile to defenders), or an uncapturable
    defender, on the border or behind it: the greatest such set of all the defenders is taken,
    so a border piece backed by a defender that can only be taken through it is safe, and one
    whose backer can be taken is not."""
    bit = geo.bit
    if king < 0 or not geo.edge & bit[king]:
        return False
    occ = att | dfn | bit[king]
    region = {king}
    stack = [king]
    while stack:
        s = stack.pop()
        for a in geo.adjacent[s]:
            if a not in region and not occ & bit[a]:
                region.add(a)
                stack.append(a)
    if any(geo.corner & bit[s] for s in region):
        return False
    border = {a for s in region for a in geo.adjacent[s] if a not in region}
    if any(not dfn & bit[s] for s in border):
        return False
    mover = Mover(geo, rules, True, king_may_stop_on_throne(rules, king_left))
    if not piece_destinations(geo, occ, king, mover):
        return False
    throne_hostile = (
        geo.throne if geo.throne >= 0 and DEFENDERS in rules.hostile_throne_empty else -2
    )
    safe_region = region - {throne_hostile}
    safe = set(geo.iter_bits(dfn))  # every defender soldier may back the wall
    changed = True
    while changed:
        changed = False
        for d in list(safe):
            ok = all(
                any(x == -1 or x in safe_region or x in safe for x in pair)
                for pair in geo.lines[d]
            )
            if ok and rules.shieldwall != "off" and geo.edge & bit[d]:
                ok = not _fort_wall_breakable(geo, rules, dfn, region, safe, d)
            if not ok:
                safe.discard(d)
                changed = True
    return border <= safe


def _fort_wall_breakable(
    geo: Geometry, rules: RuleSet, dfn: int, region: set[int], safe: set[int], d: int
) -> bool:
    """Whether the edge defender ``d`` could be taken by a shieldwall: its defender run along
    the edge can be bracketed at both ends and every member can get an enemy in front."""
    bit = geo.bit
    run = [d]
    for ray in geo.rays[d]:
        if not ray or not geo.edge & bit[ray[0]]:
            continue
        end = -1
        for s in ray:
            if dfn & bit[s]:
                run.append(s)
            else:
                end = s
                break
        if end == -1 or end in region:
            return False  # board end or the king's region: that end cannot be closed
        if geo.corner & bit[end] and rules.shieldwall != "corners":
            return False
    if len(run) < 2:
        return False
    return all(geo.inward[s] not in region and geo.inward[s] not in safe for s in run)


def move_result(
    geo: Geometry, rules: RuleSet, att: int, dfn: int, king: int, king_left: bool,
    to: int, king_moved: bool, attackers_moved: bool,
) -> Termination | None:
    """The win a move produced by itself (after captures were removed), or None."""
    if attackers_moved:
        if king < 0:
            return KING_CAPTURED
        if rules.encirclement and encircled(geo, att, dfn, king):
            return ENCIRCLEMENT
        return None
    if king_moved:
        target = geo.corner if rules.escape == "corners" else geo.edge
        if target & geo.bit[to]:
            return ESCAPE
    if (
        rules.exit_fort and king >= 0 and geo.edge & geo.bit[king]
        and exit_fort(geo, rules, att, dfn, king, king_left)
    ):
        return EXIT_FORT
    return None
