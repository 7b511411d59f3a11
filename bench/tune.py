"""Fit the evaluation weights to real game results (Texel-style logistic regression).

    python3 bench/tune.py copenhagen ../shared/corpus/copenhagen.csv

Every position of every decided game (``Black``: the attackers won, ``White``: the defenders
won) after the first plies becomes a sample: its features (:meth:`Evaluator.features`) and the
result. A logistic regression (Newton's method, a little L2) fits ``P(attackers win) =
sigmoid(features · v)``; the weights are ``v`` scaled so that an attacker is worth 100. It prints
the fitted weights (to paste into ``companion/engine/evaluate.py``) with the log-loss of the
fitted and of the current weights. Needs numpy (a development tool, not a dependency).
Self-play (bench/selfplay.py) decides whether the fitted weights play better.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from train_eval import fit, logloss  # noqa: E402  (bench/train_eval.py)

from companion.engine.evaluate import FEATURES, Evaluator, default_weights  # noqa: E402
from companion.engine.position import Position  # noqa: E402
from companion.rules import PRESETS, MoveError  # noqa: E402
from companion.rules.game import Game  # noqa: E402


def samples(variant: str, path: str, skip: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    rules = PRESETS[variant]
    ev = Evaluator(rules)
    xs, ys = [], []
    for line in Path(path).read_text().splitlines():
        parts = line.rsplit(",", 3)
        if len(parts) != 4 or parts[3] not in ("Black", "White"):
            continue
        y = 1.0 if parts[3] == "Black" else 0.0
        game = Game(rules)
        moves = [m for m in parts[0].split() if m != "timeout"]
        for ply, text in enumerate(moves):
            try:
                game.play_text(text)
            except MoveError:
                break
            if game.is_over() or ply < skip or ply % stride:
                continue
            xs.append(ev.features(Position.from_board(game.board)))
            ys.append(y)
    return np.array(xs, dtype=float), np.array(ys)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("variant", choices=sorted(PRESETS))
    ap.add_argument("csv", help="game records (moves,att_caps,def_caps,status)")
    ap.add_argument("--skip", type=int, default=6, help="first plies left out")
    ap.add_argument("--stride", type=int, default=1, help="use every n-th ply")
    ap.add_argument("--l2", type=float, default=1.0)
    args = ap.parse_args()
    x, y = samples(args.variant, args.csv, args.skip, args.stride)
    keep = x.std(axis=0) > 0
    print(f"{len(y)} positions, attackers won {y.mean():.1%}; constant features dropped: "
          f"{[n for n, k in zip(FEATURES, keep, strict=True) if not k]}")
    v = np.zeros(len(FEATURES))
    v[keep] = fit(x[:, keep], y, args.l2, rounds=50)
    scale = 100 / v[FEATURES.index("attacker")]
    current = default_weights(PRESETS[args.variant]).to_json()
    cur = np.array([current[n] for n in FEATURES], dtype=float)
    # the current weights' best sigmoid scale, for a fair comparison
    best = min((logloss(x, y, cur * k), k) for k in np.geomspace(1e-4, 1e-1, 60))
    print(f"log-loss: fitted {logloss(x, y, v):.4f}, current {best[0]:.4f}, "
          f"constant {logloss(x, y, np.zeros_like(v)):.4f}")
    print("fitted weights (an attacker = 100):")
    for name, value in zip(FEATURES, v * scale, strict=True):
        print(f"    {name}={value:.0f},  # current {current[name]}")


if __name__ == "__main__":
    main()
