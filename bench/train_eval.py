"""Train the engine's evaluation on game results: the hand-made terms plus learned
piece-square values and reach terms, by logistic regression (Texel-style), and write the
weights the engine ships (``companion/engine/weights/<variant>.json``, a few hundred bytes).

    python3 bench/train_eval.py copenhagen ../shared/corpus/copenhagen.csv [--games SELFPLAY.csv]
        [--write]

Samples: every position (after the first plies) of every decided game: the real games of the
corpus (``moves,att_caps,def_caps,Black|White``) and, with ``--games``, self-play or match
games as ``bench/selfplay.py --games`` writes them (``moves,winner,reason,...``). Features: the
terms of :class:`~companion.engine.evaluate.Weights` and, per symmetry class of squares, how
many attackers, defenders and kings stand there. ``P(attackers win) = sigmoid(features · v)``
is fitted with a little L2 on four fifths of the games; the log-loss on the fifth left out is
printed for the fitted and the current weights. ``--write`` stores the fitted weights (scaled
so that an attacker is worth 100). Self-play (``bench/selfplay.py``) then decides whether they
play better. Needs numpy (a development tool, not a dependency).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from companion.engine.evaluate import (  # noqa: E402
    FEATURES,
    WEIGHTS_DIR,
    ZONE_BANDS,
    ZONE_SIZE,
    Evaluator,
    Weights,
    class_count,
    default_weights,
)
from companion.engine.position import Position  # noqa: E402
from companion.rules import PRESETS, Board, MoveError  # noqa: E402

# terms the engine computes only when weighted: fitted too
TRAINED = [name for name in FEATURES if name not in ("king_reach2", "open_lines2",
                                                      "king_threats2", "open_lines")]


def games(path: str) -> list[tuple[list[str], float]]:
    """(moves, 1.0 if the attackers won else 0.0) of every decided game in a CSV file."""
    out = []
    for line in Path(path).read_text().splitlines():
        parts = line.split(",")
        if len(parts) < 2:
            continue
        moves = [m for m in parts[0].split() if m != "timeout"]
        status = parts[-1] if parts[-1] in ("Black", "White", "Draw", "Ongoing") else parts[1]
        if status in ("Black", "attackers"):
            out.append((moves, 1.0))
        elif status in ("White", "defenders"):
            out.append((moves, 0.0))
    return out


def replayed(variant: str, records: list[tuple[list[str], float]], skip: int,
             ) -> Iterator[tuple[int, float, int, Position]]:
    """(game number, result, ply, position) of every position after ``skip`` plies of every
    game that is not over yet (a game stops at a move the rules refuse)."""
    rules = PRESETS[variant]
    for g, (moves, y) in enumerate(records):
        board = Board(rules)
        for ply, text in enumerate(moves):
            try:
                board.push(board.parse_move(text)[0])
            except (MoveError, ValueError):
                break
            if board.outcome() is None and ply >= skip:
                yield g, y, ply, Position.from_board(board)


def samples(variant: str, records: list[tuple[list[str], float]], skip: int,
            stride: int, zone: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features (the last one a constant 1), results and game numbers of the positions."""
    rules = PRESETS[variant]
    ev = Evaluator(rules, Weights())
    xs, ys, gs = [], [], []
    for g, y, ply, pos in replayed(variant, records, skip):
        if ply % stride:
            continue
        f = dict(zip(FEATURES, ev.features(pos), strict=True))
        xs.append([f[n] for n in TRAINED] + ev.pst_features(pos)
                  + (ev.zone_features(pos) if zone else []) + [1])
        ys.append(y)
        gs.append(g)
    return np.array(xs, dtype=float), np.array(ys), np.array(gs)


def fit(x: np.ndarray, y: np.ndarray, l2: float, rounds: int = 60) -> np.ndarray:
    """The logistic regression's vector: Newton's method with an L2 of ``l2``, for at most
    ``rounds`` steps (it stops once a step is negligible)."""
    v = np.zeros(x.shape[1])
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-(x @ v)))
        grad = x.T @ (p - y) + l2 * v
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        v -= step
        if np.abs(step).max() < 1e-9:
            break
    return v


def intercept(z: np.ndarray, y: np.ndarray) -> float:
    """The constant that, added to the scores ``z``, fits the results ``y`` best."""
    b = 0.0
    for _ in range(30):
        p = 1 / (1 + np.exp(-(z + b)))
        b -= float(np.mean(p - y) / max(np.mean(p * (1 - p)), 1e-6))
    return b


def logloss(x: np.ndarray, y: np.ndarray, v: np.ndarray) -> float:
    p = np.clip(1 / (1 + np.exp(-(x @ v))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def current_vector(variant: str, classes: int, zone: bool) -> np.ndarray:
    w = default_weights(PRESETS[variant])
    pst = list(w.pst) if w.pst else [0] * (3 * classes)
    zw = (list(w.zone) or [0] * (ZONE_BANDS * ZONE_SIZE)) if zone else []
    return np.array([getattr(w, n) for n in TRAINED] + pst + zw + [0], dtype=float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("variant", choices=sorted(PRESETS))
    ap.add_argument("csv", nargs="+", help="game records (corpus or selfplay --games files)")
    ap.add_argument("--skip", type=int, default=4, help="first plies left out")
    ap.add_argument("--stride", type=int, default=1, help="use every n-th ply")
    ap.add_argument("--l2", type=float, default=20.0)
    ap.add_argument("--zone", action="store_true", help="fit the corner zones too")
    ap.add_argument("--cache", metavar="FILE.npz", help="keep the samples in FILE.npz (made "
                    "once, read back on the next run with the same games)")
    ap.add_argument("--write", action="store_true", help="store the fitted weights")
    args = ap.parse_args()
    records = [g for path in args.csv for g in games(path)]
    if args.cache and Path(args.cache).exists():
        data = np.load(args.cache)
        x, y, g = data["x"], data["y"], data["g"]
    else:
        x, y, g = samples(args.variant, records, args.skip, args.stride, args.zone)
        if args.cache:
            np.savez_compressed(args.cache, x=x, y=y, g=g)
    classes = class_count(PRESETS[args.variant].size)
    test = g % 5 == 0
    keep = x[~test].std(axis=0) > 0
    keep[-1] = True  # the constant
    print(f"{len(records)} games, {len(y)} positions, attackers won {y.mean():.1%}")
    v = np.zeros(x.shape[1])
    v[keep] = fit(x[~test][:, keep], y[~test], args.l2)
    cur = current_vector(args.variant, classes, args.zone)
    best = (np.inf, 0.0)
    for k in np.geomspace(1e-4, 1e-1, 80):  # the current weights at their best scale
        v_cur = cur * k
        v_cur[-1] = intercept(x[~test] @ v_cur, y[~test])
        best = min(best, (logloss(x[test], y[test], v_cur), k))
    constant = np.zeros_like(v)
    constant[-1] = intercept(np.zeros(int((~test).sum())), y[~test])
    print(f"held-out log-loss: fitted {logloss(x[test], y[test], v):.4f}, current "
          f"{best[0]:.4f}, constant {logloss(x[test], y[test], constant):.4f}")
    v[keep] = fit(x[:, keep], y, args.l2)  # all games for the weights written
    scale = 100 / v[TRAINED.index("attacker")]
    w = np.rint(v * scale).astype(int)
    weights = {n: int(w[i]) for i, n in enumerate(TRAINED)}
    npst = 3 * classes
    pst = [int(a) for a in w[len(TRAINED):len(TRAINED) + npst]]
    zone = [int(a) for a in w[len(TRAINED) + npst:-1]]
    print("weights:", weights)
    print("pst (attackers, defenders, king by square class):", pst)
    if zone:
        print("zone (per band: attackers, defenders by class, sealed):", zone)
    if args.write:
        WEIGHTS_DIR.mkdir(exist_ok=True)
        out = WEIGHTS_DIR / f"{args.variant}.json"
        out.write_text(json.dumps({
            "variant": args.variant,
            "trained_on": f"{len(records)} games ({', '.join(Path(p).name for p in args.csv)})",
            "weights": weights, "pst": pst, **({"zone": zone} if zone else {}),
        }, indent=1) + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
