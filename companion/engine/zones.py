"""The corner zones, a learned term of the evaluation (corner escapes only): attackers and
defenders near each corner, and the corner sealed by a diagonal of attackers, worth what
``Weights.zone`` says for the king's distance to that corner."""

from __future__ import annotations

from .position import Position

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


class CornerZones:
    """The corner zones of an ``n`` x ``n`` board (none without corner escapes or on a board
    too small) and their worth under the weights ``zone`` (empty: none)."""

    def __init__(self, n: int, corners: bool, zone: tuple[int, ...]) -> None:
        self.n = n
        self.weights = zone
        # per corner, its file and rank, a bitboard per zone class, and its seals as bitboards
        self.zones: list[tuple[int, int, list[int], list[int]]] = []
        if corners and n >= 2 * ZONE_DEPTH - 1:
            for corner, squares, seals in corner_zones(n):
                masks = [0] * len(ZONE_CLASSES)
                for s, c in squares:
                    masks[c] |= 1 << s
                self.zones.append((corner % n, corner // n, masks,
                                   [sum(1 << s for s in seal) for seal in seals]))

    def features(self, pos: Position) -> list[int]:
        """How many attackers and defenders stand on each class of each corner's zone, and
        how many corners are sealed, in the band of the king's distance to that corner
        (``ZONE_BANDS * ZONE_SIZE`` counts; all 0 without a king or zones)."""
        out = [0] * (ZONE_BANDS * ZONE_SIZE)
        if pos.king < 0:
            return out
        n = self.n
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

    def score(self, att: int, dfn: int, king: int) -> int:
        """The zones' worth (attackers' view): :meth:`features` times the weights."""
        zw = self.weights
        n = self.n
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
