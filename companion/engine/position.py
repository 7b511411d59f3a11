"""The search position: a lean make/unmake tafl position for the engine.

:class:`~companion.rules.Board` checks every move and copies its history on each push, which is
right for a referee and too slow for a search. :class:`Position` plays moves known to be legal
(it generates them itself), keeps a Zobrist key and the transposed bitboards incrementally,
and reaches exactly the same results as the rules core: the captures and the wins of
:mod:`companion.rules.core` (the ordinary custodial capture inlined, every rarer rule — the
shieldwall, Linnaean and chain captures, the sheltered king — delegated to the core), the third
repetition since the last capture and "no legal moves" exactly as :class:`Board` scores them.
``tests/test_engine_position.py`` plays thousands of random moves of every preset through both
and compares them move by move.

A move is an int ``frm << 9 | to`` (squares ``rank * size + file``, ``a1 == 0``).
"""

from __future__ import annotations

import random

from companion.rules import core
from companion.rules.board import Board
from companion.rules.geometry import Geometry, geometry_for
from companion.rules.ruleset import ATTACKERS, DEFENDERS, KING, RuleSet
from companion.squares import parse_square

from .notation import simple_move

ATT = 0  # side index: attackers
DEF = 1  # side index: defenders

# results: (winner side index or None for a draw, reason)
Result = tuple[int | None, str]


def move_text(geo: Geometry, move: int) -> str:
    """``"g3-e3"`` for a move int."""
    return f"{geo.names[move >> 9]}-{geo.names[move & 511]}"


def parse_move(geo: Geometry, text: str) -> int:
    """A move int from ``"g3-e3"`` (captures after ``x`` and OTN decorations are ignored);
    ValueError when it is not two squares of this board."""
    parts = simple_move(text).split("-")
    if len(parts) != 2:
        raise ValueError(f"not a move like g3-e3: {text!r}")
    return parse_square(parts[0], geo.n) << 9 | parse_square(parts[1], geo.n)


class _Lines:
    """Destination tables for one kind of mover, one square at a time.

    ``rmoves[s][occ]`` is the tuple of moves along its rank of the piece on ``s`` given that
    rank's occupancy bits (``(occupied >> rshift[s]) & mask``); ``cmoves`` is the same along
    its file, indexed by the transposed occupancy (``cshift``); ``rbits``/``cbits`` are the
    destinations as bitboards. Filled lazily; the masks say which squares may not be passed,
    may not be stopped on, or end a move (the king on a restricted corner)."""

    __slots__ = ("n", "rmoves", "cmoves", "rbits", "cbits", "row_masks", "col_masks")

    def __init__(self, geo: Geometry, mover: core.Mover) -> None:
        n = self.n = geo.n
        count = geo.count
        self.rmoves: list[dict[int, tuple[int, ...]]] = [{} for _ in range(count)]
        self.cmoves: list[dict[int, tuple[int, ...]]] = [{} for _ in range(count)]
        self.rbits: list[dict[int, int]] = [{} for _ in range(count)]
        self.cbits: list[dict[int, int]] = [{} for _ in range(count)]
        self.row_masks = []
        self.col_masks = []
        for line in range(n):
            rm = [0, 0, 0]
            cm = [0, 0, 0]
            for p in range(n):
                for masks, sq in ((rm, line * n + p), (cm, p * n + line)):
                    b = 1 << sq
                    if mover.blocked & b:
                        masks[0] |= 1 << p
                    if mover.no_stop & b:
                        masks[1] |= 1 << p
                    if mover.last & b:
                        masks[2] |= 1 << p
            self.row_masks.append(tuple(rm))
            self.col_masks.append(tuple(cm))

    def _targets(self, masks: tuple[int, ...], occ: int, p: int) -> list[int]:
        blocked, no_stop, last = masks
        out = []
        for step in (1, -1):
            q = p + step
            while 0 <= q < self.n:
                b = 1 << q
                if occ & b or blocked & b:
                    break
                if not no_stop & b:
                    out.append(q)
                if last & b:
                    break
                q += step
        return out

    def row(self, s: int, occ: int) -> tuple[int, ...]:
        """Fill (and return) the rank moves of the piece on ``s`` for rank occupancy ``occ``."""
        n = self.n
        r, p = divmod(s, n)
        moves = tuple(s << 9 | (r * n + q) for q in self._targets(self.row_masks[r], occ, p))
        self.rmoves[s][occ] = moves
        self.rbits[s][occ] = sum(1 << (m & 511) for m in moves)
        return moves

    def col(self, s: int, occ: int) -> tuple[int, ...]:
        """Fill (and return) the file moves of the piece on ``s`` for file occupancy ``occ``."""
        n = self.n
        p, f = divmod(s, n)
        moves = tuple(s << 9 | (q * n + f) for q in self._targets(self.col_masks[f], occ, p))
        self.cmoves[s][occ] = moves
        self.cbits[s][occ] = sum(1 << (m & 511) for m in moves)
        return moves


class Tables:
    """Everything derived once per rule set: geometry, line tables, Zobrist keys, masks."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        geo = self.geo = geometry_for(rules)
        n = self.n = geo.n
        self.count = geo.count
        self.mask = (1 << n) - 1
        self.tbit = [1 << ((i % n) * n + i // n) for i in range(geo.count)]
        self.rank = [i // n for i in range(geo.count)]
        self.file = [i % n for i in range(geo.count)]
        self.rshift = [(i // n) * n for i in range(geo.count)]  # occupied >> rshift: its rank
        self.cshift = [(i % n) * n for i in range(geo.count)]  # transposed >> cshift: its file
        self.soldier = _Lines(geo, core.Mover(geo, rules, False, False))
        self.king_open = _Lines(geo, core.Mover(geo, rules, True, True))
        self.king_closed = _Lines(geo, core.Mover(geo, rules, True, False))
        rng = random.Random(0x7AF1 + n)
        self.z_att = [rng.getrandbits(64) for _ in range(geo.count)]
        self.z_dfn = [rng.getrandbits(64) for _ in range(geo.count)]
        self.z_king = [rng.getrandbits(64) for _ in range(geo.count)] + [rng.getrandbits(64)]
        self.z_side = rng.getrandbits(64)
        # squares hostile to defenders / attackers while empty (corners always, the throne
        # only while empty: see core.hostile_squares)
        self.corner_vs_def = geo.corner if DEFENDERS in rules.hostile_corners else 0
        self.corner_vs_att = geo.corner if ATTACKERS in rules.hostile_corners else 0
        self.throne_vs_def = geo.throne_bit if DEFENDERS in rules.hostile_throne_empty else 0
        self.throne_vs_att = geo.throne_bit if ATTACKERS in rules.hostile_throne_empty else 0
        self.special_capture = bool(
            rules.chain_capture or rules.sheltered_king or rules.linnaean_capture
        )
        self.shieldwall = rules.shieldwall != "off"
        self.escape_mask = geo.corner if rules.escape == "corners" else geo.edge
        self.repetition = rules.repetition
        self.no_moves_loss = rules.no_moves == "loss"
        self.may_throne = rules.throne_stop in ("king", "anyone")  # king may always return


_TABLES: dict[RuleSet, Tables] = {}


def tables_for(rules: RuleSet) -> Tables:
    """The (cached) tables of a rule set."""
    t = _TABLES.get(rules)
    if t is None:
        t = _TABLES[rules] = Tables(rules)
    return t


class Position:
    """A position under search: bitboards, king square, side to move (``ATT``/``DEF``),
    Zobrist ``key``, ``result`` once decided by a move, and the repetition history."""

    __slots__ = (
        "t", "geo", "rules", "att", "dfn", "king", "attT", "dfnT", "side", "king_left",
        "key", "result", "hist", "_stack",
    )

    def __init__(
        self, rules: RuleSet, att: int, dfn: int, king: int, side: int, king_left: bool,
        history: list[int] | None = None,
    ) -> None:
        t = self.t = tables_for(rules)
        self.geo = t.geo
        self.rules = rules
        self.att, self.dfn, self.king = att, dfn, king
        self.attT: int = sum(t.tbit[i] for i in t.geo.iter_bits(att))
        self.dfnT: int = sum(t.tbit[i] for i in t.geo.iter_bits(dfn))
        self.side = side
        # Where nobody may stop on the throne the king may never go back to it: the Board keeps
        # ``king_left`` only where it matters to it ("king_once"), so a position built from a
        # Board mid-game had the throne open to the king (tablut-linnaeus: the engine chose the
        # king's step back onto the throne, an illegal move).
        self.king_left = king_left or rules.throne_stop == "nobody"
        self.key = self.compute_key()
        self.result: Result | None = (ATT, core.KING_CAPTURED) if king < 0 else None
        self.hist: list[int] = list(history) if history else [self.key]
        self._stack: list[tuple[int, int, int, int, int, int, bool, Result | None, list[int]]] = []

    @classmethod
    def from_board(cls, board: Board) -> Position:
        """The Board's position with its repetition history (since the last capture) and its
        decided result, if any."""
        pos = cls(
            board.rules, board.att, board.dfn, board.king,
            ATT if board.turn == ATTACKERS else DEF, board.king_left,
        )
        keys = []
        for att, dfn, king, turn in board.history:
            keys.append(pos._key_of(att, dfn, king, ATT if turn == ATTACKERS else DEF))
        pos.hist = keys or [pos.key]
        outcome = board.move_outcome()
        if outcome is not None:
            winner = None if outcome.winner is None else (
                ATT if outcome.winner == ATTACKERS else DEF
            )
            pos.result = (winner, outcome.reason)
        return pos

    def _key_of(self, att: int, dfn: int, king: int, side: int) -> int:
        t = self.t
        key = t.z_king[king] if king >= 0 else t.z_king[-1]
        for s in t.geo.iter_bits(att):
            key ^= t.z_att[s]
        for s in t.geo.iter_bits(dfn):
            key ^= t.z_dfn[s]
        return key ^ (t.z_side if side == DEF else 0)

    def compute_key(self) -> int:
        """The Zobrist key computed from scratch (the incremental one must equal it)."""
        return self._key_of(self.att, self.dfn, self.king, self.side)

    def board(self) -> Board:
        """A checked :class:`Board` of this position (no history)."""
        from companion.rules.otn import format_otn

        return Board(
            self.rules, format_otn(self.att, self.dfn, self.king, self.rules.size),
            ATTACKERS if self.side == ATT else DEFENDERS, self.king_left,
        )

    @property
    def occupied(self) -> int:
        """Bitboard of every occupied square."""
        return self.att | self.dfn | (1 << self.king if self.king >= 0 else 0)

    # -- move generation ----------------------------------------------------------------------
    def king_lines(self) -> _Lines:
        """The king's destination tables (the throne closed once he left it, where it is)."""
        t = self.t
        if t.may_throne or not self.king_left:
            return t.king_open
        return t.king_closed

    def piece_moves(self, s: int, lines: _Lines, occ: int, occT: int) -> tuple[int, ...]:
        """Moves of the piece on ``s`` (rank then file)."""
        t = self.t
        m = t.mask
        ro = (occ >> t.rshift[s]) & m
        out = lines.rmoves[s].get(ro)
        if out is None:
            out = lines.row(s, ro)
        co = (occT >> t.cshift[s]) & m
        more = lines.cmoves[s].get(co)
        if more is None:
            more = lines.col(s, co)
        return out + more

    def destinations_bb(self, s: int, lines: _Lines, occ: int, occT: int) -> int:
        """Bitboard of the destinations of the piece on ``s``."""
        t = self.t
        m = t.mask
        ro = (occ >> t.rshift[s]) & m
        bb = lines.rbits[s].get(ro)
        if bb is None:
            lines.row(s, ro)
            bb = lines.rbits[s][ro]
        co = (occT >> t.cshift[s]) & m
        cb = lines.cbits[s].get(co)
        if cb is None:
            lines.col(s, co)
            cb = lines.cbits[s][co]
        return bb | cb

    def occT(self) -> int:
        """Transposed occupancy."""
        k = self.king
        return self.attT | self.dfnT | (self.t.tbit[k] if k >= 0 else 0)

    def moves(self) -> list[int]:
        """Every legal move of the side to move (none once the game is decided)."""
        if self.result is not None:
            return []
        t = self.t
        m = t.mask
        king = self.king
        occ = self.att | self.dfn
        occT = self.attT | self.dfnT
        if king >= 0:
            occ |= 1 << king
            occT |= t.tbit[king]
        lines = t.soldier
        rmoves, cmoves = lines.rmoves, lines.cmoves
        rshift, cshift = t.rshift, t.cshift
        out: list[int] = []
        bb = self.att if self.side == ATT else self.dfn
        while bb:
            low = bb & -bb
            s = low.bit_length() - 1
            bb ^= low
            ro = (occ >> rshift[s]) & m
            mv = rmoves[s].get(ro)
            if mv is None:
                mv = lines.row(s, ro)
            out += mv
            co = (occT >> cshift[s]) & m
            mv = cmoves[s].get(co)
            if mv is None:
                mv = lines.col(s, co)
            out += mv
        if self.side == DEF and king >= 0:
            out += self.piece_moves(king, self.king_lines(), occ, occT)
        return out

    # -- make / unmake ------------------------------------------------------------------------
    def make(self, move: int) -> int:
        """Play a legal move; returns the captured bitboard (the king's bit included when he is
        taken). Sets :attr:`result` when the move decides the game."""
        t = self.t
        frm, to = move >> 9, move & 511
        att, dfn, king = self.att, self.dfn, self.king
        self._stack.append(
            (att, dfn, king, self.attT, self.dfnT, self.key, self.king_left, self.result,
             self.hist)
        )
        bf, bt = 1 << frm, 1 << to
        key = self.key ^ t.z_side
        attackers_moved = self.side == ATT
        king_moved = False
        if attackers_moved:
            att ^= bf | bt
            self.attT ^= t.tbit[frm] | t.tbit[to]
            key ^= t.z_att[frm] ^ t.z_att[to]
        elif frm == king:
            king = to
            king_moved = True
            key ^= t.z_king[frm] ^ t.z_king[to]
            if frm == t.geo.throne:
                self.king_left = True
        else:
            dfn ^= bf | bt
            self.dfnT ^= t.tbit[frm] | t.tbit[to]
            key ^= t.z_dfn[frm] ^ t.z_dfn[to]
        captured = self._captures(att, dfn, king, to, attackers_moved)
        if captured:
            geo = t.geo
            if attackers_moved:
                victims = captured & dfn
                dfn ^= victims
                for s in geo.iter_bits(victims):
                    self.dfnT ^= t.tbit[s]
                    key ^= t.z_dfn[s]
                if king >= 0 and captured >> king & 1:
                    key ^= t.z_king[king] ^ t.z_king[-1]
                    king = -1
            else:
                att ^= captured
                for s in geo.iter_bits(captured):
                    self.attT ^= t.tbit[s]
                    key ^= t.z_att[s]
        self.att, self.dfn, self.king, self.key = att, dfn, king, key
        # the wins a move produces by itself (core.move_result, inlined for the common cases)
        result: Result | None = None
        if attackers_moved:
            if king < 0:
                result = (ATT, core.KING_CAPTURED)
            elif self.rules.encirclement and core.encircled(t.geo, att, dfn, king):
                result = (ATT, core.ENCIRCLEMENT)
        else:
            if king_moved and t.escape_mask >> to & 1:
                result = (DEF, core.ESCAPE)
            elif (
                self.rules.exit_fort and king >= 0 and t.geo.edge >> king & 1
                and core.exit_fort(t.geo, self.rules, att, dfn, king, self.king_left)
            ):
                result = (DEF, core.EXIT_FORT)
        self.side ^= 1
        if captured:
            self.hist = [key]
        else:
            self.hist.append(key)  # the same list: unmake pops it
        if (
            result is None and t.repetition != "off" and not captured
            and self.hist.count(key) >= 3
        ):
            if t.repetition == "draw":
                result = (None, "repetition")
            elif not attackers_moved:
                result = (ATT, "repetition")
        self.result = result
        return captured

    def unmake(self) -> None:
        """Take back the last move."""
        (self.att, self.dfn, self.king, self.attT, self.dfnT, self.key, self.king_left,
         self.result, hist) = self._stack.pop()
        if hist is self.hist:
            hist.pop()
        self.hist = hist
        self.side ^= 1

    def make_null(self) -> None:
        """Pass (for null-move pruning only: not a legal tafl move)."""
        self._stack.append(
            (self.att, self.dfn, self.king, self.attT, self.dfnT, self.key, self.king_left,
             self.result, self.hist)
        )
        self.key ^= self.t.z_side
        self.side ^= 1
        self.hist = [self.key]

    def _captures(self, att: int, dfn: int, king: int, to: int, attackers_moved: bool) -> int:
        t = self.t
        geo = t.geo
        if t.special_capture or (t.shieldwall and geo.edge >> to & 1):
            return core.compute_captures(geo, self.rules, att, dfn, king, to, attackers_moved)
        kbit = 1 << king if king >= 0 else 0
        occ = att | dfn | kbit
        captured = 0
        if attackers_moved:
            closing = att | ((t.corner_vs_def | (t.throne_vs_def if not occ & geo.throne_bit
                                                  else 0)) & ~occ)
            for n1, n2 in geo.pairs[to]:
                if n2 >= 0 and dfn >> n1 & 1 and closing >> n2 & 1:
                    captured |= 1 << n1
            if king >= 0 and king in geo.adjacent[to] and core.king_is_captured(
                geo, self.rules, att, occ, king, to
            ):
                captured |= kbit
        else:
            if to == king and not self.rules.king_armed:
                return 0
            partners = dfn | (kbit if self.rules.king_armed else 0)
            closing = partners | ((t.corner_vs_att | (t.throne_vs_att if not occ & geo.throne_bit
                                                      else 0)) & ~occ)
            for n1, n2 in geo.pairs[to]:
                if n2 >= 0 and att >> n1 & 1 and closing >> n2 & 1:
                    captured |= 1 << n1
        return captured

    # -- results ------------------------------------------------------------------------------
    def no_moves_result(self) -> Result:
        """The result when the side to move has no legal move."""
        if self.t.no_moves_loss:
            return (self.side ^ 1, "no_moves")
        return (None, "no_moves")

    def outcome(self) -> Result | None:
        """The result by the rules (a deciding move, or no legal move), None while it goes on."""
        if self.result is not None:
            return self.result
        if not self.moves():
            return self.no_moves_result()
        return None


def side_name(side: int) -> str:
    """``"attackers"``/``"defenders"`` for a side index."""
    return ATTACKERS if side == ATT else DEFENDERS


def side_index(name: str) -> int:
    """Side index of ``"attackers"``/``"defenders"``."""
    if name == ATTACKERS:
        return ATT
    if name == DEFENDERS:
        return DEF
    raise ValueError(f"side must be attackers or defenders, not {name!r}")


__all__ = [
    "ATT", "DEF", "KING", "Position", "Result", "Tables", "move_text", "parse_move",
    "side_index", "side_name", "tables_for",
]
