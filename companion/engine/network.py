"""The learned evaluation network: a small NNUE-style net over the pieces, trained by the
project's own games (``tools/train_network.py``) and played by the native core.

One hidden layer: each unit sums its bias and one weight for every piece on the board (its
kind and square) and one for the attackers to move; its activation is that sum clipped to
0..1; the output, a correction in hundredths of a soldier from the attackers' point of view,
is the activations' dot product with the output weights plus a bias. It is added to the
hand-made evaluation (:mod:`.evaluate`), so it learns what those terms miss: how pieces stand
together (corners sealed, rings closed, a king shut in).

The arithmetic is integer (int8 input weights and activations in 64ths, int32 sums), so this
module's :meth:`Network.score` and the native core's ``network.c`` give the same number;
``tests/test_engine_network.py`` checks it. The pure-Python engine does not use the network
(it keeps the hand-made evaluation: the network costs it more than it gains at its speed).
Shipped as ``weights/<variant>.nnue.json`` (a few kilobytes: the weights base64-encoded).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

from .eval_weights import WEIGHTS_DIR

ONE = 64  # an activation of 1.0, and the scale of the input weights
MAX_HIDDEN = 64  # the native core's limit (NN_MAXH)


class NetworkError(ValueError):
    """A network file that cannot be used (wrong shape, weights out of range)."""


@dataclass(frozen=True)
class Network:
    """The integer weights of a network for boards of ``count`` squares.

    ``w1`` holds ``(3 * count + 1) * hidden`` int8 input weights, row by row: one row for each
    attacker square, then each defender square, then each king square, then the attackers to
    move; ``b1`` the hidden units' biases, ``w2`` their output weights, ``b2`` the output bias.
    """

    count: int
    hidden: int
    w1: tuple[int, ...]
    b1: tuple[int, ...]
    w2: tuple[int, ...]
    b2: int
    trained_on: str = ""

    def __post_init__(self) -> None:
        if not 1 <= self.hidden <= MAX_HIDDEN:
            raise NetworkError(f"hidden units must be 1..{MAX_HIDDEN}, not {self.hidden}")
        if len(self.w1) != (3 * self.count + 1) * self.hidden:
            raise NetworkError(f"{len(self.w1)} input weights for {self.count} squares and "
                               f"{self.hidden} hidden units")
        if len(self.b1) != self.hidden or len(self.w2) != self.hidden:
            raise NetworkError("one hidden bias and one output weight per hidden unit")
        if any(not -128 <= v <= 127 for v in self.w1):
            raise NetworkError("input weights must be int8 (-128..127)")

    def score(self, att: list[int], dfn: list[int], king: int, attackers_to_move: bool) -> int:
        """The network's correction for the pieces on these squares (attackers' view)."""
        h, count, w1 = self.hidden, self.count, self.w1
        acc = list(self.b1)
        rows = [s for s in att] + [count + s for s in dfn]
        if king >= 0:
            rows.append(2 * count + king)
        if attackers_to_move:
            rows.append(3 * count)
        for r in rows:
            base = r * h
            for j in range(h):
                acc[j] += w1[base + j]
        out = sum(min(max(a, 0), ONE) * w for a, w in zip(acc, self.w2, strict=True))
        return out // ONE + self.b2

    def native_data(self) -> list[int]:
        """The weights as the native core's ``tafl_set_network`` reads them."""
        return [self.hidden, *self.w1, *self.b1, *self.w2, self.b2]

    def to_json(self) -> dict[str, object]:
        """The network as a JSON object (the input weights base64-encoded int8)."""
        raw = bytes(v & 0xFF for v in self.w1)
        return {"format": "tafl-companion network 1", "count": self.count,
                "hidden": self.hidden, "trained_on": self.trained_on,
                "w1": base64.b64encode(raw).decode(), "b1": list(self.b1),
                "w2": list(self.w2), "b2": self.b2}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Network:
        """A network from :meth:`to_json`'s object; NetworkError if it is not one."""
        try:
            if data.get("format") != "tafl-companion network 1":
                raise NetworkError(f"not a network file (format {data.get('format')!r})")
            raw = base64.b64decode(str(data["w1"]), validate=True)
            w1 = tuple(b - 256 if b > 127 else b for b in raw)
            b1 = data["b1"]
            w2 = data["w2"]
            if not isinstance(b1, list) or not isinstance(w2, list):
                raise NetworkError("b1 and w2 must be lists")
            return cls(int(str(data["count"])), int(str(data["hidden"])), w1,
                       tuple(int(v) for v in b1), tuple(int(v) for v in w2),
                       int(str(data["b2"])), str(data.get("trained_on", "")))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, NetworkError):
                raise
            raise NetworkError(f"a malformed network file: {exc}") from exc


def network_path(variant: str) -> Path:
    """Where the network shipped for ``variant`` lives."""
    return WEIGHTS_DIR / f"{variant}.nnue.json"


def load_network(path: Path) -> Network:
    """The network in a file; NetworkError (with the file named) if it cannot be used."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise NetworkError(f"{path}: {exc}") from exc
    if not isinstance(data, dict):
        raise NetworkError(f"{path}: not a JSON object")
    try:
        return Network.from_json(data)
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from exc


def shipped_network(variant: str, count: int) -> Network | None:
    """The network shipped for ``variant`` (None where there is none, or it does not fit a
    board of ``count`` squares)."""
    path = network_path(variant)
    if not path.exists():
        return None
    net = load_network(path)
    return net if net.count == count else None
