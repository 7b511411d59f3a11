"""Train the engine's learned network (companion/engine/network.py) on the project's games and
write the network the native core plays (``companion/engine/weights/<variant>.nnue.json``).

    python3 tools/train_network.py copenhagen ../shared/corpus/copenhagen.csv \\
        --games SELFPLAY.csv [--hidden 32] [--epochs 40] [--write]

Samples: every position (after ``--skip`` plies) of every decided game, real ones (the corpus)
and the project's self-play (``bench/selfplay.py --games``), each seen in the board's eight
symmetries. The network corrects the hand-made evaluation: ``P(attackers win) =
sigmoid((hand + net) / K)``, with ``K`` first fitted to the hand-made evaluation alone; the
network is fitted by Adam on the log-loss with a little L2, its input weights kept inside
int8's range, and written in integer form. Prints the held-out log-loss (every fifth game
left out) of the hand-made evaluation alone and with the network, float and integer. Self-play
then decides whether it plays better (``bench/selfplay.py --a ...,nn=FILE``). Needs numpy (a
development tool, not a dependency).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from train_eval import games, replayed  # noqa: E402

from companion.engine.evaluate import default_weights  # noqa: E402
from companion.engine.native import NativeCore, NativeSearcher  # noqa: E402
from companion.engine.network import ONE, Network, network_path  # noqa: E402
from companion.engine.position import ATT  # noqa: E402
from companion.engine.search import MATE_BOUND, Limits  # noqa: E402
from companion.rules import PRESETS  # noqa: E402


def symmetries(n: int) -> list[list[int]]:
    """The board's eight symmetries as square maps."""
    maps = []
    for k in range(8):
        m = []
        for s in range(n * n):
            f, r = s % n, s // n
            if k & 1:
                f = n - 1 - f
            if k & 2:
                r = n - 1 - r
            if k & 4:
                f, r = r, f
            m.append(r * n + f)
        maps.append(m)
    return maps


def samples(variant: str, records: list[tuple[list[str], float]], skip: int, nodes: int,
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Inputs (the active rows of each position, padded; eight symmetries each), the
    hand-made evaluation and a search's score of ``nodes`` nodes (attackers' view, soldiers;
    +-100 a forced result), results and game numbers."""
    rules = PRESETS[variant]
    core = NativeCore(rules, default_weights(rules))
    searcher = NativeSearcher(rules, default_weights(rules))
    n = rules.size
    count = n * n
    maps = symmetries(n)
    rows, hand, deep, ys, gs = [], [], [], [], []
    for g, y, _, pos in replayed(variant, records, skip):
        core.set_position(pos)
        e = core.evaluate()
        sc = e
        if nodes:
            sc = searcher.search(pos, Limits(nodes=nodes)).score
            if abs(sc) >= MATE_BOUND:
                sc = 10_000 if sc > 0 else -10_000
        att = [s for s in range(count) if pos.att >> s & 1]
        dfn = [s for s in range(count) if pos.dfn >> s & 1]
        for m in maps:  # the hand-made evaluation is symmetric, so one value serves all
            r = [m[s] for s in att] + [count + m[s] for s in dfn]
            if pos.king >= 0:
                r.append(2 * count + m[pos.king])
            if pos.side == ATT:
                r.append(3 * count)
            rows.append(r)
            hand.append((e if pos.side == ATT else -e) / 100)
            deep.append((sc if pos.side == ATT else -sc) / 100)
            ys.append(y)
            gs.append(g)
    width = max(len(r) for r in rows)
    idx = np.full((len(rows), width), 3 * count + 1, dtype=np.int32)  # the pad: a zero row
    for i, r in enumerate(rows):
        idx[i, :len(r)] = r
    return (idx, np.array(hand, dtype=np.float32), np.array(deep, dtype=np.float32),
            np.array(ys, dtype=np.float32), np.array(gs))


def dense(idx: np.ndarray, inputs: int) -> np.ndarray:
    """The 0/1 input matrix of the active rows (the pad column dropped)."""
    x = np.zeros((len(idx), inputs + 1), dtype=np.float32)
    np.put_along_axis(x, idx, 1.0, axis=1)
    return x[:, :inputs]


def logloss(z: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(1 / (1 + np.exp(-z)), 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_k(hand: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The scale K and intercept b with sigmoid(hand / K + b) fitting the results best."""
    best = (np.inf, 1.0, 0.0)
    for k in np.geomspace(0.3, 30, 60):
        b = 0.0
        for _ in range(20):
            p = 1 / (1 + np.exp(-(hand / k + b)))
            b -= float(np.mean(p - y) / max(float(np.mean(p * (1 - p))), 1e-6))
        best = min(best, (logloss(hand / k + b, y), float(k), b))
    return best[1], best[2]


class Model:
    """The float network being fitted (output in soldiers, attackers' view)."""

    def __init__(self, inputs: int, hidden: int, rng: np.random.Generator) -> None:
        self.w1 = rng.normal(0, 0.05, (inputs, hidden)).astype(np.float32)
        self.b1 = np.full(hidden, 0.5, dtype=np.float32)
        self.w2 = rng.normal(0, 0.05, hidden).astype(np.float32)
        self.b2 = np.float32(0.0)

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        acc = x @ self.w1 + self.b1
        return acc, np.clip(acc, 0, 1) @ self.w2 + self.b2

    def copy(self) -> Model:
        twin = Model.__new__(Model)
        twin.w1, twin.b1, twin.w2 = self.w1.copy(), self.b1.copy(), self.w2.copy()
        twin.b2 = self.b2
        return twin

    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2]


def train(model: Model, x: np.ndarray, hand: np.ndarray, y: np.ndarray, k: float, b: float,
          epochs: int, l2: float, rng: np.random.Generator, xt: np.ndarray, ht: np.ndarray,
          yt: np.ndarray, lr: float) -> Model:
    """Adam on the cross-entropy of sigmoid((hand + net) / K + b) against the targets ``y``,
    the input weights clipped to int8's range; prints the held-out log-loss against the
    results ``yt`` every epoch and returns the epoch's model that had the lowest."""
    best: tuple[float, Model | None] = (np.inf, None)
    beta1, beta2, batch = 0.9, 0.999, 2048
    m = [np.zeros_like(p) for p in model.params()] + [0.0]
    v = [np.zeros_like(p) for p in model.params()] + [0.0]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            sel = order[start:start + batch]
            xb = x[sel]
            acc, out = model.forward(xb)
            p = 1 / (1 + np.exp(-((hand[sel] + out) / k + b)))
            d = (p - y[sel]) / k / len(sel)
            h = np.clip(acc, 0, 1)
            g_w2 = h.T @ d + l2 * model.w2
            g_b2 = float(d.sum())
            dacc = np.outer(d, model.w2) * ((acc > 0) & (acc < 1))
            g_w1 = xb.T @ dacc + l2 * model.w1
            g_b1 = dacc.sum(axis=0)
            step += 1
            grads = [g_w1, g_b1, g_w2, g_b2]
            for i, g in enumerate(grads):
                m[i] = beta1 * m[i] + (1 - beta1) * g
                v[i] = beta2 * v[i] + (1 - beta2) * g * g
                mh = m[i] / (1 - beta1 ** step)
                vh = v[i] / (1 - beta2 ** step)
                upd = lr * mh / (np.sqrt(vh) + 1e-8)
                if i == 3:
                    model.b2 = np.float32(model.b2 - upd)
                else:
                    model.params()[i] -= upd.astype(np.float32)
            np.clip(model.w1, -127 / ONE, 127 / ONE, out=model.w1)
        _, out_t = model.forward(xt)
        loss = logloss((ht + out_t) / k + b, yt)
        print(f"epoch {epoch + 1}: held-out log-loss {loss:.4f}", flush=True)
        if loss < best[0]:
            best = (loss, model.copy())
    assert best[1] is not None
    return best[1]


def quantize(model: Model, count: int, trained_on: str) -> Network:
    """The integer network: input weights and biases in 64ths, output weights in hundredths
    of a soldier."""
    w1 = np.clip(np.rint(model.w1 * ONE), -128, 127).astype(int)
    return Network(count, model.w1.shape[1], tuple(int(v) for v in w1.reshape(-1)),
                   tuple(int(v) for v in np.rint(model.b1 * ONE)),
                   tuple(int(v) for v in np.rint(model.w2 * 100)),
                   int(np.rint(model.b2 * 100)), trained_on)


def integer_scores(net: Network, x: np.ndarray) -> np.ndarray:
    """The integer network's output (soldiers) as the engine computes it."""
    w1 = np.array(net.w1, dtype=np.int64).reshape(-1, net.hidden)
    acc = x.astype(np.int64) @ w1 + np.array(net.b1)
    out = np.clip(acc, 0, ONE) @ np.array(net.w2)
    return (out // ONE + net.b2) / 100


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("variant", choices=sorted(PRESETS))
    ap.add_argument("csv", nargs="+", help="game records (corpus or selfplay --games files)")
    ap.add_argument("--skip", type=int, default=6, help="first plies left out")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=0, help="label each position also by a "
                    "search of this many nodes (0: by the game's result alone)")
    ap.add_argument("--lam", type=float, default=0.5, help="the result's share of the target "
                    "where --nodes is given (the rest: the search's score)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--out", type=Path, help="where to write (default: the shipped file)")
    ap.add_argument("--write", action="store_true", help="store the network")
    args = ap.parse_args()
    t0 = time.monotonic()
    records = [g for path in args.csv for g in games(path)]
    idx, hand, deep, y, g = samples(args.variant, records, args.skip, args.nodes)
    count = PRESETS[args.variant].size ** 2
    inputs = 3 * count + 1
    x = dense(idx, inputs)
    test = g % 5 == 0
    print(f"{len(records)} games, {len(y) // 8} positions (x8 symmetries), attackers won "
          f"{y.mean():.1%}; samples in {time.monotonic() - t0:.0f} s")
    k, b = fit_k(hand[~test], y[~test])
    print(f"hand-made evaluation: K {k:.2f} soldiers, held-out log-loss "
          f"{logloss(hand[test] / k + b, y[test]):.4f}")
    target = y
    if args.nodes:
        target = args.lam * y + (1 - args.lam) / (1 + np.exp(-(deep / k + b)))
        print(f"search of {args.nodes} nodes: held-out log-loss "
              f"{logloss(deep[test] / k + b, y[test]):.4f}")
    rng = np.random.default_rng(args.seed)
    model = train(Model(inputs, args.hidden, rng), x[~test], hand[~test], target[~test], k, b,
                  args.epochs, args.l2, rng, x[test], hand[test], y[test], args.lr)
    names = ", ".join(Path(p).name for p in args.csv)
    net = quantize(model, count, f"{len(records)} games ({names})")
    zi = (hand[test] + integer_scores(net, x[test])) / k + b
    print(f"integer network: held-out log-loss {logloss(zi, y[test]):.4f}; "
          f"{time.monotonic() - t0:.0f} s in all")
    if args.write or args.out:
        out = args.out or network_path(args.variant)
        out.write_text(json.dumps(net.to_json()) + "\n")
        print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
