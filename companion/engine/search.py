"""The search: iterative deepening, principal-variation alpha-beta, a transposition table,
move ordering (TT move, captures, killers, history), late-move reductions, null-move pruning,
and a tafl quiescence search.

Tafl's forcing moves are the king's: a king with an open line to an escape square must be
answered at once. The quiescence search therefore (1) scores a defender to move with an open
escape line as a win in one, (2) lets the attackers answer an escape threat only with moves that
block the line or take the king (none: a loss in two), (3) tries the defenders' king moves that
open such a line (a *raichi*; two lines at once, a *tuichi*, is won), and (4) captures. The main
search extends a move that creates an escape threat by one ply.

Scores are from the side to move's point of view; a win in ``k`` plies is ``WIN - k``.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.rules import core
from companion.rules.ruleset import RuleSet

from .evaluate import Evaluator, Weights
from .position import ATT, DEF, Position, move_text

WIN = 100_000
MATE_BOUND = WIN - 1000  # scores beyond this are forced wins/losses
INF = 1_000_000

EXACT, LOWER, UPPER = 0, 1, 2
# frontier pruning: quiet moves searched at depth 1, 2, 3 before the rest are skipped, and the
# margins under alpha from which only the first quiet move is tried
LMP = (0, 8, 16, 30)
FUTILITY = (0, 150, 350)


class Abort(Exception):
    """Raised inside the search when time is up or a stop was requested."""


@dataclass
class Limits:
    """When to stop: any of depth, nodes, seconds (None: no limit), or the ``stop`` event."""

    depth: int | None = None
    nodes: int | None = None
    seconds: float | None = None
    stop: threading.Event | None = None
    multipv: int = 1
    # no new iteration once about half of this has passed (None: search to ``seconds``)
    soft: float | None = None


@dataclass
class Info:
    """What the search reports after each iteration (and at the end)."""

    depth: int
    score: int
    pv: list[int]
    nodes: int
    seconds: float
    texts: list[str] = field(default_factory=list)

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


@dataclass
class Result:
    """The outcome of a search: best move, its score, the principal variation, and the scores
    of the root moves the last complete iteration searched exactly (multi-PV)."""

    move: int | None
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[int]
    root_scores: dict[int, int]


def score_text(score: int) -> str:
    """A score for people: ``+1.25`` (in soldiers) or ``win in 3`` / ``loss in 2``."""
    if score >= MATE_BOUND:
        return f"win in {WIN - score}"
    if score <= -MATE_BOUND:
        return f"loss in {WIN + score}"
    return f"{score / 100:+.2f}"


class Searcher:
    """Searches positions of one rule set. Keeps its transposition table and history between
    searches of one game (call :meth:`new_game` between games)."""

    def __init__(
        self, rules: RuleSet, weights: Weights | None = None, tt_entries: int = 400_000,
        qdepth: int = 6,
    ) -> None:
        self.rules = rules
        self.evaluator = Evaluator(rules, weights)
        self.eval_cache: dict[int, int] = {}
        self.kd_cache: dict[int, tuple[int, int]] = {}
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.tt_entries = tt_entries
        self.qdepth = qdepth
        t = self.evaluator.t
        self.t = t
        self.history = [0] * (t.count << 9)
        self.killers: list[list[int]] = [[0, 0] for _ in range(128)]
        geo = t.geo
        n = geo.n
        self.between = {}
        for a in range(geo.count):
            for ray in geo.rays[a]:
                acc = 0
                for s in ray:
                    self.between[a << 9 | s] = acc
                    acc |= 1 << s
        self.adjacent_bb = [sum(1 << a for a in geo.adjacent[s]) for s in range(geo.count)]
        full = geo.full
        self.full = full
        self.fmask_e2 = 0  # squares whose file allows a +2 step east
        self.fmask_w2 = 0
        for s in range(geo.count):
            if s % n <= n - 3:
                self.fmask_e2 |= 1 << s
            if s % n >= 2:
                self.fmask_w2 |= 1 << s
        # pruning switches (benchmarks turn them off to measure what each is worth)
        self.lmp: tuple[int, ...] = LMP
        self.futility: tuple[int, ...] = FUTILITY
        self.null_move = True
        self.lmr = True
        self.tt_cutoffs = True  # off only to compare searches exactly (tests)
        # Three switches, off by default: none gained in self-play (Brandubh, 8,000 nodes a
        # move, 60 games each: guard moves -23 Elo (-90..+42), qthreat 2 +0 (-46..+46),
        # aspiration 50 +23 (-22..+69); docs/engine.md). bench/selfplay.py turns them on with
        # s.guard=on, s.qthreat=N, s.aspiration=N.
        # attackers' moves onto the king's lines or the squares with an open line to escape
        # are ordered first among quiet moves and neither pruned nor reduced much
        self.guard_moves = False
        # quiescence: attackers facing a raichi threat may stand pat only after the defenders'
        # free move is searched, at quiescence plies below this (0: off)
        self.qthreat = 0
        # aspiration window at the root (hundredths of a soldier; 0: off) from depth 4 on
        self.aspiration = 0
        # the clock the time limit is measured on (benchmarks on a shared machine use CPU time)
        self.clock: Callable[[], float] = time.monotonic
        self.nodes = 0
        self.deadline = 0.0
        self.node_limit = 0
        self.stop: threading.Event | None = None
        self.on_info: Callable[[Info], None] | None = None

    def use_cpu_clock(self, scale: float = 1.0) -> None:
        """Measure the time limit in CPU seconds times ``scale`` (benchmarks: a busy machine,
        or a slower one emulated)."""
        self.clock = (lambda: time.process_time() * scale) if scale != 1.0 else time.process_time

    def evaluate(self, pos: Position) -> int:
        """The static score for the side to move (cached by position key)."""
        key = pos.key
        score = self.eval_cache.get(key)
        if score is None:
            if len(self.eval_cache) > 300_000:
                self.eval_cache.clear()
            score = self.eval_cache[key] = self.evaluator.evaluate(pos)
        return score

    def new_game(self) -> None:
        """Forget what was learnt about the previous game."""
        self.tt.clear()
        self.eval_cache.clear()
        self.kd_cache.clear()
        self.history = [0] * (self.t.count << 9)

    # -- helpers ------------------------------------------------------------------------------
    def capture_squares(self, pos: Position) -> int:
        """Empty squares where an arriving piece of the side to move captures a soldier (the
        ordinary custodial pattern; used to order moves)."""
        t = self.t
        n = t.n
        occ = pos.occupied
        throne_empty = not occ & t.geo.throne_bit
        if pos.side == ATT:
            victims = pos.dfn
            closer = pos.att | ((t.corner_vs_def | (t.throne_vs_def if throne_empty else 0))
                                & ~occ)
        else:
            victims = pos.att
            closer = pos.dfn | (1 << pos.king if pos.king >= 0 and self.rules.king_armed
                                else 0)
            closer |= (t.corner_vs_att | (t.throne_vs_att if throne_empty else 0)) & ~occ
        sq = ((victims >> 1) & (closer >> 2) & self.fmask_e2)
        sq |= ((victims << 1) & (closer << 2) & self.fmask_w2)
        sq |= (victims >> n) & (closer >> (2 * n))
        sq |= (victims << n) & (closer << (2 * n))
        return sq & self.full & ~occ

    def king_escape_info(self, pos: Position) -> tuple[int, int]:
        """``(king destinations, escape squares among them)`` (0, 0 without a king); cached
        by position key."""
        key = pos.key
        info = self.kd_cache.get(key)
        if info is None:
            king = pos.king
            if king < 0:
                info = (0, 0)
            else:
                kd = pos.destinations_bb(king, pos.king_lines(), pos.occupied, pos.occT())
                info = (kd, kd & self.t.escape_mask)
            if len(self.kd_cache) > 300_000:
                self.kd_cache.clear()
            self.kd_cache[key] = info
        return info

    def block_mask(self, king: int, esc: int) -> int:
        """Squares that block every open line from the king to the escape squares ``esc``."""
        mask = 0
        while esc:
            low = esc & -esc
            esc ^= low
            e = low.bit_length() - 1
            mask |= self.between[king << 9 | e] | low
        return mask

    def king_capture_squares(self, pos: Position) -> int:
        """The empty squares beside the king where an attacker arriving would capture him
        (with the rarer captures of the king, every empty square beside him)."""
        king = pos.king
        if king < 0:
            return 0
        geo = self.t.geo
        occ = pos.occupied
        if self.t.special_capture:
            return self.adjacent_bb[king] & ~occ
        out = 0
        for a in geo.adjacent[king]:
            b = 1 << a
            if not occ & b and core.king_is_captured(geo, self.rules, pos.att | b, occ | b,
                                                     king, a):
                out |= b
        return out

    def stop_escape_mask(self, pos: Position, esc: int) -> int:
        """Where an attacker stops the king's escape to ``esc``: every square of his one open
        line (with two or more open, no single move blocks them all), and the squares where
        an attacker captures him."""
        mask = self.king_capture_squares(pos)
        if esc and not esc & (esc - 1):
            mask |= self.block_mask(pos.king, esc)
        return mask

    def guard_squares(self, pos: Position, threats: int) -> int:
        """Squares where an attacker stops the king's raichi threats ``threats`` (squares he
        can move to with an open line from there): the threat squares, the king's path to them
        and their lines to the escape squares."""
        king = pos.king
        lines = pos.king_lines()
        occ = pos.occupied ^ 1 << king
        occT = pos.occT() ^ self.t.tbit[king]
        escape = self.t.escape_mask
        between = self.between
        mask = threats
        rest = threats
        while rest:
            low = rest & -rest
            rest ^= low
            d = low.bit_length() - 1
            mask |= between[king << 9 | d]
            mask |= self.block_mask(d, pos.destinations_bb(d, lines, occ, occT) & escape)
        return mask & ~escape

    def terminal(self, pos: Position, ply: int) -> int:
        """Score of a decided position for the side to move."""
        winner = pos.result[0] if pos.result else None
        if winner is None:
            return 0
        return WIN - ply if winner == pos.side else -(WIN - ply)

    def check_time(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise Abort
        if self.deadline and self.clock() >= self.deadline:
            raise Abort
        if self.node_limit and self.nodes >= self.node_limit:
            raise Abort

    # -- the search ---------------------------------------------------------------------------
    def search(
        self, pos: Position, limits: Limits, on_info: Callable[[Info], None] | None = None,
        rng: random.Random | None = None, noise: int = 0,
    ) -> Result:
        """Iterative deepening from ``pos`` within ``limits``. With ``noise`` (a weaker level)
        every root move is scored exactly and the choice is made among them with a seeded
        random error of that size."""
        start = self.clock()
        self.nodes = 0
        self.deadline = start + limits.seconds if limits.seconds else 0.0
        self.node_limit = limits.nodes or 0
        self.stop = limits.stop
        self.on_info = on_info
        if len(self.tt) > self.tt_entries:
            self.tt.clear()
        moves = pos.moves()
        if not moves:
            return Result(None, 0, 0, 0, 0.0, [], {})
        for k in self.killers:
            k[0] = k[1] = 0
        self.history = [h >> 3 for h in self.history]
        best_move = moves[0]
        best_score = -INF
        pv: list[int] = [best_move]
        root_scores: dict[int, int] = {}
        depth_done = 0
        max_depth = limits.depth or 64
        exact_all = noise > 0 or limits.multipv > 1
        order = self.order_root(pos, moves)
        if len(moves) == 1 and not exact_all:
            max_depth = min(max_depth, 1)
        try:
            for depth in range(1, max_depth + 1):
                window = self.aspiration
                if not window or exact_all or depth < 4 or abs(best_score) >= MATE_BOUND:
                    lo_bound, hi_bound = -INF, INF
                else:
                    lo_bound, hi_bound = best_score - window, best_score + window
                while True:
                    scores: dict[int, int] = {}
                    alpha = lo_bound
                    beta = hi_bound
                    iter_best = None
                    iter_score = -INF
                    for i, m in enumerate(order):
                        pos.make(m)
                        ext = self.extension(pos)
                        if exact_all:
                            if noise or len(scores) < limits.multipv:
                                lo = -INF
                            else:
                                lo = sorted(scores.values(), reverse=True)[limits.multipv - 1] - 1
                            s = -self.negamax(pos, depth - 1 + ext, -INF, -lo, 1, True)
                        elif i == 0:
                            s = -self.negamax(pos, depth - 1 + ext, -beta, -alpha, 1, True)
                        else:
                            s = -self.negamax(pos, depth - 1 + ext, -alpha - 1, -alpha, 1, True)
                            if s > alpha and s < beta:
                                s = -self.negamax(pos, depth - 1 + ext, -beta, -alpha, 1, True)
                        pos.unmake()
                        scores[m] = s
                        if s > iter_score:
                            iter_score, iter_best = s, m
                            if s > alpha:
                                alpha = s
                            # the first move is the last iteration's choice: one that beats it
                            # is used even if this iteration is cut short
                            if not exact_all and (i > 0 or depth_done == 0) and s > lo_bound:
                                best_move, best_score = m, s
                            if s >= beta:
                                break
                    if iter_score <= lo_bound and lo_bound > -INF:
                        lo_bound = -INF  # failed low: search again with the window open below
                    elif iter_score >= hi_bound and hi_bound < INF:
                        hi_bound = INF  # failed high: open above
                    else:
                        break
                    order.sort(key=lambda mv: -scores.get(mv, -INF))
                order.sort(key=lambda mv: -scores.get(mv, -INF))
                assert iter_best is not None
                best_move, best_score = iter_best, iter_score
                root_scores = scores
                depth_done = depth
                self.store(pos.key, depth, EXACT, best_score, best_move, 0)
                pv = self.principal_variation(pos, best_move)
                self.report(depth, best_score, pv, start)
                if abs(best_score) >= MATE_BOUND and WIN - abs(best_score) <= depth:
                    break  # a forced result within the horizon: deeper cannot change it
                if limits.soft is not None and self.clock() - start >= limits.soft * 0.5:
                    break  # the next iteration would not finish within the soft limit
        except Abort:
            pass
        if noise and rng is not None and root_scores:
            best_move = max(
                root_scores,
                key=lambda m: root_scores[m] + (0 if abs(root_scores[m]) >= MATE_BOUND
                                                else rng.gauss(0, noise)),
            )
            best_score = root_scores[best_move]
            pv = [best_move]
        elapsed = self.clock() - start
        if best_score == -INF:
            best_score = 0
        return Result(best_move, best_score, depth_done, self.nodes, elapsed, pv, root_scores)

    def report(self, depth: int, score: int, pv: list[int], start: float) -> None:
        if self.on_info is not None:
            geo = self.t.geo
            self.on_info(Info(depth, score, pv, self.nodes, self.clock() - start,
                              [move_text(geo, m) for m in pv]))

    def principal_variation(self, pos: Position, first: int) -> list[int]:
        """The expected line from the TT, starting with ``first``."""
        pv = [first]
        pos.make(first)
        made = 1
        seen = {pos.key}
        while made < 32 and pos.result is None:
            entry = self.tt.get(pos.key)
            if entry is None or not entry[3] or entry[3] not in pos.moves():
                break
            pos.make(entry[3])
            made += 1
            if pos.key in seen:
                break
            seen.add(pos.key)
            pv.append(entry[3])
        for _ in range(made):
            pos.unmake()
        return pv

    def order_root(self, pos: Position, moves: list[int]) -> list[int]:
        entry = self.tt.get(pos.key)
        tt_move = entry[3] if entry else 0
        caps = self.capture_squares(pos)
        kd, esc = self.king_escape_info(pos)

        def key(m: int) -> int:
            if m == tt_move:
                return -10**9
            to = m & 511
            s = 0
            if esc and pos.side == DEF and (m >> 9) == pos.king and esc >> to & 1:
                s -= 10**8
            if caps >> to & 1:
                s -= 10**6
            return s - self.history[m]

        return sorted(moves, key=key)

    def extension(self, pos: Position) -> int:
        """One ply more after a move that gives the king an open line to escape."""
        if pos.result is not None or pos.side != ATT or pos.king < 0:
            return 0
        _, esc = self.king_escape_info(pos)
        return 1 if esc else 0

    def store(self, key: int, depth: int, flag: int, score: int, move: int, ply: int) -> None:
        if score >= MATE_BOUND:
            score += ply
        elif score <= -MATE_BOUND:
            score -= ply
        tt = self.tt
        if len(tt) >= self.tt_entries * 2:  # bound the memory (a Pi Zero has 512 MB)
            tt.clear()
        tt[key] = (depth, flag, score, move)

    def negamax(
        self, pos: Position, depth: int, alpha: int, beta: int, ply: int, allow_null: bool
    ) -> int:
        self.nodes += 1
        if not self.nodes & 127:
            self.check_time()
        if pos.result is not None:
            return self.terminal(pos, ply)
        if depth <= 0:
            return self.quiesce(pos, alpha, beta, ply, 0)
        side = pos.side
        king = pos.king
        kd, esc = self.king_escape_info(pos)
        if esc and side == DEF:
            return WIN - ply - 1  # the king escapes now
        alpha0 = alpha
        pv_node = beta - alpha > 1
        key = pos.key
        entry = self.tt.get(key)
        tt_move = 0
        if entry is not None:
            e_depth, flag, score, tt_move = entry
            if e_depth >= depth and not pv_node and self.tt_cutoffs:
                if score >= MATE_BOUND:
                    score -= ply
                elif score <= -MATE_BOUND:
                    score += ply
                if flag == EXACT:
                    return score
                if flag == LOWER and score >= beta:
                    return score
                if flag == UPPER and score <= alpha:
                    return score
        threatened = bool(esc)  # attackers to move facing an open escape line
        # null move: let the opponent move twice; if that still fails high, prune
        if (
            allow_null and self.null_move and not pv_node and depth >= 3 and not threatened
            and beta < MATE_BOUND and alpha > -MATE_BOUND
            and self.evaluate(pos) >= beta
        ):
            pos.make_null()
            r = 2 if depth < 6 else 3
            s = -self.negamax(pos, depth - 1 - r, -beta, -beta + 1, ply + 1, False)
            pos.unmake()
            if s >= beta:
                return beta if s >= MATE_BOUND else s
        moves = pos.moves()
        if not moves:
            res = pos.no_moves_result()
            if res[0] is None:
                return 0
            return WIN - ply if res[0] == side else -(WIN - ply)
        if threatened:
            block = self.stop_escape_mask(pos, esc)
            forcing = [m for m in moves if block >> (m & 511) & 1]
            if not forcing:
                return -(WIN - ply - 2)
            moves = forcing
        # order: TT move, captures, killers, history
        caps = self.capture_squares(pos)
        killers = self.killers[ply] if ply < len(self.killers) else [0, 0]
        hist = self.history
        front: list[int] = []
        quiet: list[int] = []
        for m in moves:
            if m == tt_move:
                continue
            if caps >> (m & 511) & 1:
                front.append(m)
            else:
                quiet.append(m)
        guard_sq = 0
        if self.guard_moves and side == ATT and king >= 0:
            guard_sq = self.evaluator.escape_lines(pos)[0] | kd
            quiet.sort(key=lambda m: hist[m] + (1 << 40 if guard_sq >> (m & 511) & 1 else 0),
                       reverse=True)
        else:
            quiet.sort(key=hist.__getitem__, reverse=True)
        k0, k1 = killers
        ordered = [tt_move] if tt_move and tt_move in moves else []
        ordered += front
        n_front = len(ordered)
        if k0 and k0 in quiet:
            quiet.remove(k0)
            ordered.append(k0)
        if k1 and k1 in quiet:
            quiet.remove(k1)
            ordered.append(k1)
        n_front = len(ordered)
        ordered += quiet
        # frontier pruning: at depth 1-3 skip quiet moves that cannot matter (a lost cause by
        # the static score, or late in the order), keeping the king's moves and the attackers'
        # moves onto his lines or beside him
        prune = 0
        if (
            depth <= 3 and self.lmp and not pv_node and not threatened
            and -MATE_BOUND < alpha < MATE_BOUND
        ):
            prune = self.lmp[depth]
            if depth <= 2 and self.futility and self.evaluate(pos) + self.futility[depth] <= alpha:
                prune = 1
            keep = kd | self.adjacent_bb[king] | guard_sq if king >= 0 else 0
        best = -INF
        best_move = 0
        quiet_seen = 0
        for i, m in enumerate(ordered):
            if prune and i >= n_front:
                quiet_seen += 1
                if quiet_seen > prune and best > -MATE_BOUND:
                    frm, to = m >> 9, m & 511
                    if not (frm == king or keep >> to & 1):
                        continue
            pos.make(m)
            ext = self.extension(pos) if side == DEF else 0
            if i == 0:
                s = -self.negamax(pos, depth - 1 + ext, -beta, -alpha, ply + 1, True)
            else:
                red = 0
                if self.lmr and depth >= 3 and i >= n_front + 2 and not ext and not threatened:
                    red = 1 if i < n_front + 10 else (2 if i < n_front + 30 else 3)
                    if guard_sq >> (m & 511) & 1:
                        red = min(red, 1)
                    if red > depth - 2:
                        red = depth - 2
                s = -self.negamax(pos, depth - 1 - red + ext, -alpha - 1, -alpha, ply + 1, True)
                if s > alpha and (red or pv_node):
                    s = -self.negamax(pos, depth - 1 + ext, -beta, -alpha, ply + 1, True)
            pos.unmake()
            if s > best:
                best = s
                best_move = m
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        if not caps >> (m & 511) & 1 and ply < len(self.killers):
                            if killers[0] != m:
                                killers[1] = killers[0]
                                killers[0] = m
                            hist[m] += depth * depth
                        break
        if best == -INF:  # every move pruned: the static score stands
            best = alpha
        flag = EXACT if alpha0 < best < beta else (LOWER if best >= beta else UPPER)
        self.store(key, depth, flag, best, best_move, ply)
        return best

    def quiesce(self, pos: Position, alpha: int, beta: int, ply: int, qd: int) -> int:
        self.nodes += 1
        if not self.nodes & 127:
            self.check_time()
        if pos.result is not None:
            return self.terminal(pos, ply)
        side = pos.side
        king = pos.king
        kd, esc = self.king_escape_info(pos)
        if esc:
            if side == DEF:
                return WIN - ply - 1
            # attackers must block the line(s) or take the king
            moves = pos.moves()
            if not moves:
                res = pos.no_moves_result()
                return 0 if res[0] is None else (WIN - ply if res[0] == side else -(WIN - ply))
            block = self.stop_escape_mask(pos, esc)
            forcing = [m for m in moves if block >> (m & 511) & 1]
            if not forcing:
                return -(WIN - ply - 2)
            if qd >= self.qdepth:
                return self.evaluate(pos)
            best = -INF
            for m in forcing:
                pos.make(m)
                s = -self.quiesce(pos, -beta, -alpha, ply + 1, qd + 1)
                pos.unmake()
                if s > best:
                    best = s
                    if s > alpha:
                        alpha = s
                        if s >= beta:
                            break
            return best
        stand = self.evaluate(pos)
        if qd >= self.qdepth:
            return stand
        guard = 0
        if side == ATT and king >= 0 and qd < self.qthreat:
            # the king threatens to move where he has an open line (a raichi next move):
            # standing pat is worth what the defenders make of a free move
            threats = kd & self.evaluator.escape_lines(pos)[0]
            if threats:
                pos.make_null()
                stand = min(stand, -self.quiesce(pos, -beta, -alpha, ply + 1, qd + 1))
                pos.unmake()
                if stand >= beta:
                    return stand
                guard = self.guard_squares(pos, threats)
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        caps = self.capture_squares(pos)
        targets = caps | guard
        if side == ATT and king >= 0:
            targets |= self.king_capture_squares(pos)
        candidates: list[int] = []
        if targets:
            for m in pos.moves():
                if targets >> (m & 511) & 1:
                    candidates.append(m)
        if side == DEF and king >= 0 and qd < 2:
            _, threats = self.evaluator.king_threat_squares(pos)
            if threats:
                candidates += [king << 9 | d for d in self.t.geo.iter_bits(threats)]
        for m in candidates:
            pos.make(m)
            s = -self.quiesce(pos, -beta, -alpha, ply + 1, qd + 1)
            pos.unmake()
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        break
        return best
