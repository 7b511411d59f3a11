"""Self-play matches between two engines: levels, weight sets, or any OTEP engine command.

    nice -n 10 python3 bench/selfplay.py --variant brandubh --a level=7 --b level=6 --pairs 20
    nice -n 10 python3 bench/selfplay.py --a level=10,time=1 --b "otep=python3 -m companion engine"

A player is ``level=N`` (the built-in engine in this process, optionally ``,time=S`` per move,
``,nodes=N`` per move instead of the level's limits, evaluation weights changed with
``,w.NAME=VALUE``, e.g. ``,w.king_threats=80``, and search features switched off with
``,s.lmp=off`` / ``s.futility=off`` / ``s.null=off`` / ``s.lmr=off``, and ``,cpu=1`` to
measure its time in CPU seconds, fair on a busy machine) or
``otep=COMMAND`` (any OTEP engine, driven through companion.engine.otep_host). Every opening (a
few seeded random plies) is played twice with the colours swapped; games longer than
``--max-plies`` are adjudicated draws. Prints each pair, then the score of A, the Elo difference
with its 95 % interval (from the pairs' scores), and a sequential test (SPRT, Elo 0 vs
``--elo1``) log-likelihood ratio.
"""

from __future__ import annotations

import argparse
import math
import random
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine.evaluate import Weights, default_weights  # noqa: E402
from companion.engine.levels import Level  # noqa: E402
from companion.engine.otep_host import OtepHost  # noqa: E402
from companion.engine.player import Engine  # noqa: E402
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
        elif key.startswith("s."):
            spec.switches = {**(spec.switches or {}), key[2:]: value}
        elif key.startswith("w."):
            spec.weights = {**(spec.weights or {}), key[2:]: int(value)}
        else:
            raise SystemExit(f"unknown player option {key!r} in {text!r}")
    return spec


class Player:
    """One side's engine for a game."""

    def __init__(self, spec: Spec, rules: RuleSet, seed: int) -> None:
        self.spec = spec
        self.host: OtepHost | None = None
        self.engine: Engine | None = None
        if spec.command:
            self.host = OtepHost(spec.command, name=spec.text)
        else:
            weights: Weights | None = None
            if spec.weights:
                weights = default_weights(rules).scaled(**spec.weights)
            level: int | Level = spec.level
            if spec.nodes:
                level = Level(0, "nodes", None, spec.nodes, 120.0)
            self.engine = Engine(rules, level, seed=seed, weights=weights)
            if spec.cpu:
                self.engine.searcher.clock = time.process_time
            for name, value in (spec.switches or {}).items():
                if value != "off":
                    raise SystemExit(f"search switch {name}: only 'off' is known")
                setattr(self.engine.searcher, {"null": "null_move"}.get(name, name),
                        () if name in ("lmp", "futility") else False)

    def move(self, board: Board) -> str:
        if self.engine is not None:
            return self.engine.choose(board, self.spec.seconds).move
        assert self.host is not None
        answer = self.host.request_move(board, self.spec.seconds).result(timeout=120)
        if answer.resigned or answer.move is None:
            return "resign"
        return answer.move

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


def play(rules: RuleSet, att: Player, dfn: Player, start: list[str], max_plies: int) -> str:
    """One game: ``"attackers"``, ``"defenders"`` or ``"draw"``."""
    board = Board(rules)
    for text in start:
        board.push(board.parse_move(text)[0])
    while board.outcome() is None and len(board.move_stack) < max_plies:
        player = att if board.turn == "attackers" else dfn
        text = player.move(board)
        if text == "resign":
            return "defenders" if board.turn == "attackers" else "attackers"
        board.push(board.parse_move(text)[0])
    outcome = board.outcome()
    return outcome.result if outcome else "draw"


def elo(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / p - 1)


def sprt_llr(w: int, d: int, lo: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of the trinomial SPRT (Bayeselo-free approximation)."""
    n = w + d + lo
    if n == 0 or w == 0 or lo == 0:
        return 0.0
    mean = (w + d / 2) / n
    var = (w * (1 - mean) ** 2 + d * (0.5 - mean) ** 2 + lo * mean**2) / n
    if var <= 0:
        return 0.0
    s0 = 1 / (1 + 10 ** (-elo0 / 400))
    s1 = 1 / (1 + 10 ** (-elo1 / 400))
    return (s1 - s0) * (2 * mean - s0 - s1) / (2 * var / n)


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
    args = ap.parse_args()
    rules = PRESETS[args.variant]
    a, b = parse_spec(args.a), parse_spec(args.b)
    rng = random.Random(args.seed)
    w = d = lo = 0
    pair_scores = []
    side_wins = {"attackers": 0, "defenders": 0, "draw": 0}
    started = time.monotonic()
    for i in range(args.pairs):
        start = opening(rules, rng, args.opening_plies)
        score = 0.0
        for a_attacks in (True, False):
            pa, pb = Player(a, rules, args.seed + i), Player(b, rules, args.seed + i)
            att, dfn = (pa, pb) if a_attacks else (pb, pa)
            result = play(rules, att, dfn, start, args.max_plies)
            pa.close()
            pb.close()
            side_wins[result] += 1
            if result == "draw":
                d += 1
                score += 0.5
            elif (result == "attackers") == a_attacks:
                w += 1
                score += 1
            else:
                lo += 1
        pair_scores.append(score)
        print(f"pair {i + 1:3}: opening {' '.join(start):30} A scored {score}/2 "
              f"(total {w}-{d}-{lo})", flush=True)
    n = len(pair_scores)
    mean = sum(pair_scores) / (2 * n)
    var = sum((s / 2 - mean) ** 2 for s in pair_scores) / max(n - 1, 1)
    se = math.sqrt(var / n)
    lo_p, hi_p = mean - 1.96 * se, mean + 1.96 * se
    print(f"\n{args.variant}: A = {a.text}  vs  B = {b.text}")
    print(f"games {2 * n}: A won {w}, drew {d}, lost {lo}; score {mean:.3f}; "
          f"wins by side {side_wins}")
    print(f"Elo(A - B) = {elo(mean):+.0f}  (95 % interval {elo(lo_p):+.0f} .. {elo(hi_p):+.0f})")
    print(f"SPRT llr(elo0=0, elo1={args.elo1:g}) = {sprt_llr(w, d, lo, 0, args.elo1):+.2f} "
          f"(bounds -2.94 / +2.94)")
    print(f"time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
