"""Self-play matches between two engines: levels, weight sets, or any OTEP engine command.

    nice -n 15 python3 bench/selfplay.py --variant brandubh --a level=7 --b level=6 --pairs 20
    nice -n 15 python3 bench/selfplay.py --a nodes=8000,s.qthreat=1 --b nodes=8000 --jobs 2
    nice -n 15 python3 bench/selfplay.py --a level=10,time=1 --b "otep=python3 -m companion engine"

A player is the built-in engine in this process: ``level=N`` (its limits), optionally with
``,time=S`` per move, ``,nodes=N`` per move instead of the level's limits, ``,scale=F`` to play
the level on nodes alone (its node limit times F; levels 9 and 10 their seconds times ``,nps=N``
— 80,000 unless given — times F: a fixed amount of work, fair on a busy machine), ``,cpu=1`` to
measure its time in CPU seconds, evaluation weights changed with ``,w.NAME=VALUE`` (e.g.
``,w.king_threats=80``) or read from ``,wfile=WEIGHTS.json`` (as bench/train_eval.py writes
them), ``,native=0`` for the pure-Python engine, ``,nn=0`` without the learned network or
``,nn=FILE`` with another (as tools/train_network.py writes it), search switches with
``,s.NAME=on|off|N``
(``s.lmp``, ``s.futility``, ``s.null``, ``s.lmr``, ``s.guard``, ``s.qthreat=1``,
``s.aspiration=50``, …); or
``otep=COMMAND``, any OTEP engine, driven through companion.engine.otep_host.

Every opening (a few seeded random plies, or with ``--book GAMES.csv`` the first
``--opening-plies`` plies of recorded games: more varied, closer to real play) is played twice
with the colours swapped; games longer than ``--max-plies`` are adjudicated draws; ``--jobs``
plays pairs in parallel processes; ``--attacker-odds F`` lets whoever attacks search F times
the nodes (engine self-play in Copenhagen is won by the defenders almost every time, which says
nothing about the two engines: with odds both colours win some games). Prints each pair, then
the score of A, the Elo difference with its 95 % interval and a sequential test (SPRT, Elo 0
against ``--elo1``) log-likelihood ratio, both from the pairs' scores (colour decides most tafl
games, so a pair is one observation).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import shlex
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine.evaluate import Weights, default_weights  # noqa: E402
from companion.engine.levels import Level, get_level  # noqa: E402
from companion.engine.network import Network, load_network  # noqa: E402
from companion.engine.otep_host import EngineClock, OtepHost  # noqa: E402
from companion.engine.otep_process import EngineError  # noqa: E402
from companion.engine.player import SHIPPED, Engine  # noqa: E402
from companion.engine.timing import from_clock  # noqa: E402
from companion.rules import PRESETS, Board, RuleSet  # noqa: E402


@dataclass
class Spec:
    """A player of the match."""

    text: str
    level: int = 10
    seconds: float | None = None
    weights: dict[str, int] | None = None
    nodes: int | None = None
    switches: dict[str, str] | None = None
    cpu: bool = False
    command: list[str] | None = None
    scale: float | None = None
    nps: int = 80_000
    weights_file: str | None = None
    native: bool | None = None
    network: str = "shipped"


def parse_spec(text: str) -> Spec:
    """``level=7,time=0.5,w.sealed=200`` or ``otep=COMMAND``."""
    if text.startswith("otep="):
        return Spec(text, command=shlex.split(text[5:]))
    spec = Spec(text)
    for part in text.split(","):
        key, _, value = part.partition("=")
        if key == "level":
            spec.level = int(value)
        elif key == "time":
            spec.seconds = float(value)
        elif key == "cpu":
            spec.cpu = value not in ("0", "no", "off")
        elif key == "nodes":
            spec.nodes = int(value)
        elif key == "scale":
            spec.scale = float(value)
        elif key == "nps":
            spec.nps = int(value)
        elif key == "wfile":
            spec.weights_file = value
        elif key == "native":
            spec.native = value not in ("0", "no", "off")
        elif key == "nn":
            spec.network = value
        elif key.startswith("s."):
            spec.switches = {**(spec.switches or {}), key[2:]: value}
        elif key.startswith("w."):
            spec.weights = {**(spec.weights or {}), key[2:]: int(value)}
        else:
            raise SystemExit(f"unknown player option {key!r} in {text!r}")
    return spec


def node_level(number: int, scale: float, nps: int) -> Level:
    """Level ``number`` played on nodes alone, so that a match means the same on a busy
    machine: its node limit times ``scale``; a time-limited level (9, 10) gets its seconds
    times ``nps`` (nodes per second of one core) times ``scale``; depth-limited levels stay as
    they are. Noise and mistakes are the level's."""
    lv = get_level(number)
    nodes = lv.nodes
    if nodes is None and lv.depth is None:
        nodes = int(lv.seconds * nps)
    if nodes is not None:
        nodes = max(100, int(nodes * scale))
    return replace(lv, nodes=nodes, seconds=600.0)


class Player:
    """One side's engine for a game. ``byoyomi``: every move gets an overtime period of that
    many seconds (OTEP ``clock S* S* S 99 99``; the in-process engine the same budget)."""

    def __init__(self, spec: Spec, rules: RuleSet, seed: int,
                 byoyomi: float | None = None) -> None:
        self.spec = spec
        self.byoyomi = byoyomi
        self.times: list[float] = []
        self.host: OtepHost | None = None
        self.engine: Engine | None = None
        if spec.command:
            self.host = OtepHost(spec.command, name=spec.text)
        else:
            weights: Weights | None = None
            if spec.weights_file:  # weights as bench/train_eval.py writes them
                data = json.loads(Path(spec.weights_file).read_text())
                weights = Weights(**data["weights"], pst=tuple(data.get("pst", ())))
            if spec.weights:
                weights = (weights or default_weights(rules)).scaled(**spec.weights)
            level: int | Level = spec.level
            if spec.nodes:
                level = Level(0, "nodes", None, spec.nodes, 120.0)
            elif spec.scale:
                level = node_level(spec.level, spec.scale, spec.nps)
            network: Network | Literal["shipped"] | None = SHIPPED
            if spec.network in ("0", "no", "off"):
                network = None
            elif spec.network != SHIPPED:
                network = load_network(Path(spec.network))
            self.engine = Engine(rules, level, seed=seed, weights=weights, native=spec.native,
                                 network=network)
            if spec.cpu:
                self.engine.searcher.clock = time.process_time
            for name, value in (spec.switches or {}).items():
                if value.isdigit():
                    setattr(self.engine.searcher, name, int(value))
                    continue
                if value not in ("on", "off"):
                    raise SystemExit(f"search switch {name}: 'on' or 'off'")
                attr = {"null": "null_move", "guard": "guard_moves"}.get(name, name)
                if not hasattr(self.engine.searcher, attr):
                    raise SystemExit(f"unknown search switch {name}")
                if value == "off":
                    setattr(self.engine.searcher, attr,
                            () if name in ("lmp", "futility") else False)
                elif name not in ("lmp", "futility"):
                    setattr(self.engine.searcher, attr, True)

    def move(self, board: Board) -> str:
        started = time.monotonic()
        try:
            if self.engine is not None:
                budget = None if self.byoyomi is None else from_clock(
                    self.byoyomi, True, self.byoyomi, 99)
                return self.engine.choose(board, self.spec.seconds, budget=budget).move
            assert self.host is not None
            clock = None if self.byoyomi is None else EngineClock(
                self.byoyomi, self.byoyomi, True, True, self.byoyomi, 99, 99)
            try:
                answer = self.host.request_move(board, self.spec.seconds, clock=clock).result(
                    timeout=120)
            except EngineError as exc:  # an illegal move, a crash, silence: the game is lost
                print(f"  {self.spec.text}: {exc}", file=sys.stderr)
                return f"forfeit-{exc.kind}"
            if answer.resigned or answer.move is None:
                return "resign"
            return answer.move
        finally:
            self.times.append(time.monotonic() - started)

    def close(self) -> None:
        if self.host is not None:
            self.host.close()


def opening(rules: RuleSet, rng: random.Random, plies: int) -> list[str]:
    """A few random plies that do not end the game."""
    board = Board(rules)
    out = []
    for _ in range(plies):
        moves = board.legal_moves()
        rng.shuffle(moves)
        for m in moves:
            board.push(m)
            if board.outcome() is None:
                out.append(f"{board.name(m.frm)}-{board.name(m.to)}")
                break
            board.pop()
    return out


def book_openings(rules: RuleSet, path: str, plies: int, rng: random.Random) -> list[list[str]]:
    """The first ``plies`` plies of recorded games (distinct, still undecided), shuffled."""
    seen = set()
    out = []
    for line in Path(path).read_text().splitlines():
        moves = [m for m in line.rsplit(",", 3)[0].split() if m != "timeout"]
        if len(moves) < plies + 10:
            continue
        board = Board(rules)
        try:
            for text in moves[:plies]:
                board.push(board.parse_move(text)[0])
        except ValueError:
            continue
        if board.outcome() is not None or board.otn() in seen:
            continue
        seen.add(board.otn())
        out.append([f"{board.name(m.frm)}-{board.name(m.to)}" for m in board.move_stack])
    rng.shuffle(out)
    return out


def play(
    rules: RuleSet, att: Player, dfn: Player, start: list[str], max_plies: int
) -> tuple[str, str, int]:
    """One game: (``"attackers"``, ``"defenders"`` or ``"draw"``, how it ended, plies)."""
    board = Board(rules)
    result = _play(board, att, dfn, start, max_plies)
    log = os.environ.get("SELFPLAY_GAMES")
    if log:  # --games FILE: every game's moves (corpus CSV style) and who played it
        with open(log, "a") as fh:
            moves = " ".join(f"{board.name(m.frm)}-{board.name(m.to)}" for m in board.move_stack)
            fh.write(f"{moves},{result[0]},{result[1]},{att.spec.text},{dfn.spec.text}\n")
    return result


def _play(
    board: Board, att: Player, dfn: Player, start: list[str], max_plies: int
) -> tuple[str, str, int]:
    for text in start:
        board.push(board.parse_move(text)[0])
    while board.outcome() is None and len(board.move_stack) < max_plies:
        player = att if board.turn == "attackers" else dfn
        text = player.move(board)
        if text == "resign" or text.startswith("forfeit-"):
            winner = "defenders" if board.turn == "attackers" else "attackers"
            why = "resignation" if text == "resign" else text
            return winner, why, len(board.move_stack)
        board.push(board.parse_move(text)[0])
    outcome = board.outcome()
    if outcome is None:
        return "draw", "adjudicated", len(board.move_stack)
    return outcome.result, str(outcome.reason), len(board.move_stack)


def play_pair(job: tuple) -> tuple[int, list[str], list[tuple[str, str, int]],
                                   list[list[float]]]:
    """Both games of one opening (A attacks first); run in a worker process with ``--jobs``.
    Also returns A's and B's times per move."""
    i, a, b, variant, start, max_plies, seed, byoyomi, odds = job
    rules = PRESETS[variant]
    games = []
    times: list[list[float]] = [[], []]
    for a_attacks in (True, False):
        if odds != 1:  # the attackers search `odds` times the nodes
            a_spec, b_spec = (replace(a, nodes=int(a.nodes * odds)), b) if a_attacks else (
                a, replace(b, nodes=int(b.nodes * odds)))
        else:
            a_spec, b_spec = a, b
        pa = Player(a_spec, rules, seed + i, byoyomi)
        pb = Player(b_spec, rules, seed + i, byoyomi)
        att, dfn = (pa, pb) if a_attacks else (pb, pa)
        try:
            games.append(play(rules, att, dfn, start, max_plies))
        finally:
            pa.close()
            pb.close()
        times[0] += pa.times
        times[1] += pb.times
    return i, start, games, times


def elo(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / p - 1)


def sprt_llr(pair_scores: list[float], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of the SPRT (Elo ``elo0`` against ``elo1``) on the pairs' scores
    (the normal approximation of the pentanomial model: a pair of games on one opening is
    one observation, as colour decides most tafl games)."""
    n = len(pair_scores)
    if n < 2:
        return 0.0
    xs = [p / 2 for p in pair_scores]
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / n
    if var <= 0:
        return 0.0
    s0 = 1 / (1 + 10 ** (-elo0 / 400))
    s1 = 1 / (1 + 10 ** (-elo1 / 400))
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


@dataclass
class Summary:
    """A finished match, A's view."""

    variant: str
    a: str
    b: str
    wins: int
    draws: int
    losses: int
    pair_scores: list[float]
    side_wins: dict[str, int]
    a_side: dict[str, list[float]]
    reasons: dict[str, int]
    plies: list[int]
    seconds: float
    times: list[list[float]] = field(default_factory=lambda: [[], []])
    byoyomi: float | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / max(self.games, 1)

    def interval(self) -> tuple[float, float, float]:
        """Elo of A over B with its 95 % interval (from the pairs' scores)."""
        n = len(self.pair_scores)
        mean = sum(self.pair_scores) / (2 * n)
        var = sum((p / 2 - mean) ** 2 for p in self.pair_scores) / max(n - 1, 1)
        se = math.sqrt(var / n)
        if var == 0:  # every pair alike (often 1-1 by colour): the pairs say nothing of the
            # spread, so the games' variance is used (wider, never a zero-width interval)
            games = max(self.games, 1)
            gvar = (self.wins * (1 - mean) ** 2 + self.draws * (0.5 - mean) ** 2
                    + self.losses * mean ** 2) / games
            se = math.sqrt(gvar / games)
        return elo(mean), elo(mean - 1.96 * se), elo(mean + 1.96 * se)

    def report(self, elo1: float) -> str:
        e, lo, hi = self.interval()
        lines = [
            f"{self.variant}: A = {self.a}  vs  B = {self.b}",
            f"games {self.games}: A won {self.wins}, drew {self.draws}, lost {self.losses}; "
            f"score {self.score:.3f}; wins by side {self.side_wins}",
            "A as attackers {:.1f}/{}, as defenders {:.1f}/{}; endings {}; plies mean {:.0f}"
            .format(*self.a_side["attackers"], *self.a_side["defenders"],
                    dict(sorted(self.reasons.items())), sum(self.plies) / max(len(self.plies), 1)),
            f"Elo(A - B) = {e:+.0f}  (95 % interval {lo:+.0f} .. {hi:+.0f})",
            f"SPRT llr(elo0=0, elo1={elo1:g}) = {sprt_llr(self.pair_scores, 0, elo1):+.2f} "
            f"(bounds -2.94 / +2.94)",
            f"time {self.seconds:.0f} s",
        ]
        for name, ts in (("A", self.times[0]), ("B", self.times[1])):
            if ts:
                ts = sorted(ts)
                over = sum(1 for t in ts if self.byoyomi and t > self.byoyomi)
                lines.append(
                    f"{name} time per move: mean {sum(ts) / len(ts):.2f} s, median "
                    f"{ts[len(ts) // 2]:.2f}, p95 {ts[int(len(ts) * 0.95)]:.2f}, max {ts[-1]:.2f}"
                    + (f"; {over} of {len(ts)} moves over the {self.byoyomi:g} s period"
                       if self.byoyomi else ""))
        return "\n".join(lines)


def run_match(
    variant: str, a: Spec, b: Spec, pairs: int, *, opening_plies: int = 4, max_plies: int = 200,
    seed: int = 1, book: str | None = None, jobs: int = 1, verbose: bool = True,
    byoyomi: float | None = None, odds: float = 1.0,
) -> Summary:
    """Play ``pairs`` pairs of games between A and B (colours swapped on each opening)."""
    rules = PRESETS[variant]
    rng = random.Random(seed)
    if book:
        openings = book_openings(rules, book, opening_plies, rng)
        if len(openings) < pairs:
            raise SystemExit(f"only {len(openings)} openings of {opening_plies} plies in {book}")
        starts = openings[:pairs]
    else:
        starts = [opening(rules, rng, opening_plies) for _ in range(pairs)]
    if odds != 1 and not (a.nodes and b.nodes):
        raise SystemExit("--attacker-odds needs players with nodes=N")
    work = [(i, a, b, variant, starts[i], max_plies, seed, byoyomi, odds)
            for i in range(pairs)]
    started = time.monotonic()
    out = Summary(variant, a.text, b.text, 0, 0, 0, [], {"attackers": 0, "defenders": 0,
                  "draw": 0}, {"attackers": [0.0, 0], "defenders": [0.0, 0]}, {}, [], 0.0,
                  byoyomi=byoyomi)
    pool = multiprocessing.Pool(jobs) if jobs > 1 else None
    results = pool.imap_unordered(play_pair, work) if pool else map(play_pair, work)
    for done, (i, start, games, times) in enumerate(results):
        out.times[0] += times[0]
        out.times[1] += times[1]
        score = 0.0
        for a_attacks, (result, reason, length) in zip((True, False), games, strict=True):
            out.side_wins[result] += 1
            out.reasons[reason] = out.reasons.get(reason, 0) + 1
            out.plies.append(length)
            side = "attackers" if a_attacks else "defenders"
            out.a_side[side][1] += 1
            if result == "draw":
                out.draws += 1
                score += 0.5
                out.a_side[side][0] += 0.5
            elif (result == "attackers") == a_attacks:
                out.wins += 1
                score += 1
                out.a_side[side][0] += 1
            else:
                out.losses += 1
        out.pair_scores.append(score)
        if verbose:
            print(f"pair {i + 1:3} ({done + 1}/{pairs}): opening {' '.join(start):30} "
                  f"A scored {score}/2 (total {out.wins}-{out.draws}-{out.losses})", flush=True)
    if pool:
        pool.close()
        pool.join()
    out.seconds = time.monotonic() - started
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--variant", default="brandubh", choices=sorted(PRESETS))
    ap.add_argument("--a", default="level=10,time=0.5")
    ap.add_argument("--b", default="level=6")
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--elo1", type=float, default=50.0)
    ap.add_argument("--book", help="openings from recorded games (a corpus CSV): their first "
                    "--opening-plies plies instead of random ones")
    ap.add_argument("--jobs", type=int, default=1, help="pairs played in parallel processes")
    ap.add_argument("--games", metavar="FILE", help="append every game's moves to FILE")
    ap.add_argument("--byoyomi", type=float, default=None, metavar="SECONDS",
                    help="every move an overtime period of SECONDS (OTEP 'clock S* S* S 99 99')")
    ap.add_argument("--attacker-odds", type=float, default=1.0, metavar="F",
                    help="whoever attacks searches F times the nodes (players with nodes=N): "
                    "fewer games decided by colour alone where the defenders win most")
    args = ap.parse_args()
    if args.games:
        os.environ["SELFPLAY_GAMES"] = str(Path(args.games).resolve())
    summary = run_match(
        args.variant, parse_spec(args.a), parse_spec(args.b), args.pairs,
        opening_plies=args.opening_plies, max_plies=args.max_plies, seed=args.seed,
        book=args.book, jobs=args.jobs, byoyomi=args.byoyomi, odds=args.attacker_odds,
    )
    print()
    print(summary.report(args.elo1))


if __name__ == "__main__":
    main()
