"""The learned network (companion/engine/network.py): the native core's integer evaluation is
the Python reference's to the unit, the shipped file loads, a bad file is refused with a
reason, and the engine plays with the network where the native core plays."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine import native
from companion.engine.native import NativeCore, NativeSearcher
from companion.engine.network import (
    Network,
    NetworkError,
    load_network,
    network_path,
    shipped_network,
)
from companion.engine.player import Engine, make_searcher
from companion.engine.position import ATT, Position
from companion.engine.search import Limits
from companion.rules import PRESETS, Board

pytestmark = pytest.mark.skipif(not native.available()[0], reason="no native core")


def random_network(count: int, hidden: int, seed: int) -> Network:
    rng = random.Random(seed)
    return Network(
        count, hidden, tuple(rng.randint(-128, 127) for _ in range((3 * count + 1) * hidden)),
        tuple(rng.randint(-300, 300) for _ in range(hidden)),
        tuple(rng.randint(-400, 400) for _ in range(hidden)), rng.randint(-50, 50))


def random_positions(variant: str, games: int, seed: int) -> list[Position]:
    rules = PRESETS[variant]
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        board = Board(rules)
        for _ in range(120):
            if board.outcome() is not None:
                break
            out.append(Position.from_board(board))
            board.push(rng.choice(list(board.legal_moves())))
    return out


@pytest.mark.parametrize("variant", ["copenhagen", "brandubh", "copenhagen-13"])
def test_the_native_network_is_the_reference_to_the_unit(variant):
    rules = PRESETS[variant]
    count = rules.size ** 2
    net = random_network(count, 24, seed=len(variant))
    plain, learned = NativeCore(rules), NativeCore(rules, network=net)
    positions = random_positions(variant, 3, seed=5)
    assert len(positions) > 100
    for pos in positions:
        plain.set_position(pos)
        learned.set_position(pos)
        att = [s for s in range(count) if pos.att >> s & 1]
        dfn = [s for s in range(count) if pos.dfn >> s & 1]
        ref = net.score(att, dfn, pos.king, pos.side == ATT)
        assert learned.evaluate() - plain.evaluate() == (ref if pos.side == ATT else -ref)


def reference(net: Network, pos: Position) -> int:
    """The reference's score for the side to move."""
    count = net.count
    att = [s for s in range(count) if pos.att >> s & 1]
    dfn = [s for s in range(count) if pos.dfn >> s & 1]
    ref = net.score(att, dfn, pos.king, pos.side == ATT)
    return ref if pos.side == ATT else -ref


@pytest.mark.parametrize("variant", ["copenhagen", "brandubh"])
def test_the_sums_kept_move_by_move_are_the_positions_own(variant):
    """The native core keeps the hidden units' sums through make and unmake (captures of
    soldiers and of the king included): after every move, and back after every unmake, the
    network's part of the evaluation is the reference's for the position reached."""
    rules = PRESETS[variant]
    count = rules.size ** 2
    net = random_network(count, 16, seed=7)
    plain, learned = NativeCore(rules), NativeCore(rules, network=net)
    rng = random.Random(11)
    captures = made = 0
    for _ in range(6):
        pos = Position.from_board(Board(rules))
        for core in (plain, learned):
            core.set_position(pos)
        assert learned.evaluate() - plain.evaluate() == reference(net, pos)
        line = []
        while pos.result is None and len(line) < 150:
            move = rng.choice(sorted(learned.moves()))
            plain.make(move)
            captures += len(learned.make(move))
            pos.make(move)
            line.append(move)
            assert learned.evaluate() - plain.evaluate() == reference(net, pos)
        made += len(line)
        for _ in line:
            plain.unmake()
            learned.unmake()
            pos.unmake()
            assert learned.evaluate() - plain.evaluate() == reference(net, pos)
    assert made > 300 and captures > 10


def test_a_network_changes_the_search_and_none_keeps_the_python_engines_moves():
    rules = PRESETS["copenhagen"]
    pos = random_positions("copenhagen", 1, seed=9)[30]
    plain = NativeSearcher(rules).search(pos, Limits(depth=3))
    loud = NativeSearcher(rules, network=random_network(121, 16, seed=3)).search(
        pos, Limits(depth=3))
    assert (loud.score, loud.nodes) != (plain.score, plain.nodes)
    py = make_searcher(rules, native=False).search(pos, Limits(depth=3))
    none = make_searcher(rules, network=None)
    assert isinstance(none, NativeSearcher)
    assert none.search(pos, Limits(depth=3)).move == py.move


def test_the_shipped_network_loads_and_the_engine_plays_it():
    rules = PRESETS["copenhagen"]
    path = network_path("copenhagen")
    assert path.exists(), "the Copenhagen network is shipped"
    assert path.stat().st_size < 64_000
    net = shipped_network("copenhagen", 121)
    assert net is not None and net.count == 121 and 1 <= net.hidden <= 64
    engine = Engine(rules, 10)
    assert isinstance(engine.searcher, NativeSearcher)
    assert engine.searcher.core.network == net
    # nothing shipped for a board of another size: the hand-made evaluation alone
    assert shipped_network("copenhagen", 169) is None
    choice = engine.choose(Board(rules), seconds=0.2)
    assert choice.move


def test_a_round_trip_through_json_keeps_every_weight(tmp_path):
    net = random_network(49, 8, seed=1)
    path = tmp_path / "n.json"
    path.write_text(json.dumps(net.to_json()))
    assert load_network(path) == net


@pytest.mark.parametrize("change, reason", [
    ({"format": "something else"}, "not a network file"),
    ({"hidden": 9}, "input weights for 49 squares and 9 hidden units"),
    ({"w1": "!!not base64!!"}, "malformed"),
    ({"b1": [1, 2]}, "one hidden bias and one output weight per hidden unit"),
    ({"hidden": 0}, "hidden units must be 1..64"),
])
def test_a_bad_network_file_is_refused_with_its_reason(tmp_path: Path, change, reason):
    data = {**random_network(49, 8, seed=2).to_json(), **change}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(NetworkError, match=reason) as err:
        load_network(path)
    assert str(path) in str(err.value)


def test_a_file_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{ not json")
    with pytest.raises(NetworkError, match="bad.json"):
        load_network(path)


def test_a_broken_shipped_file_is_logged_and_the_engine_plays_without_it(
        tmp_path, monkeypatch, caplog):
    from companion.engine import network

    (tmp_path / "copenhagen.nnue.json").write_text('{"format": "tafl-companion network 1"}')
    monkeypatch.setattr(network, "WEIGHTS_DIR", tmp_path)
    engine = Engine(PRESETS["copenhagen"], 4)
    assert isinstance(engine.searcher, NativeSearcher)
    assert engine.searcher.core.network is None
    assert "the learned network is not used" in caplog.text
    assert "copenhagen.nnue.json" in caplog.text
    assert engine.choose(Board(PRESETS["copenhagen"])).move


def test_the_training_tool_writes_a_network_the_engine_plays(tmp_path):
    """tools/train_network.py on 40 real games (tests/data/copenhagen.csv, from the corpus),
    one epoch: it reports the held-out log-loss and writes a network that loads and plays."""
    pytest.importorskip("numpy")
    root = Path(__file__).resolve().parents[1]
    lines = (root / "tests" / "data" / "copenhagen.csv").read_text().splitlines()
    decided = [line for line in lines if line.endswith(("Black", "White"))][:40]
    games = tmp_path / "games.csv"
    games.write_text("\n".join(decided) + "\n")
    out = tmp_path / "net.json"
    proc = subprocess.run(
        [sys.executable, str(root / "tools" / "train_network.py"), "copenhagen", str(games),
         "--epochs", "1", "--hidden", "4", "--nodes", "200", "--out", str(out)],
        capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "40 games" in proc.stdout
    assert "integer network: held-out log-loss" in proc.stdout
    net = load_network(out)
    assert (net.count, net.hidden) == (121, 4)
    rules = PRESETS["copenhagen"]
    assert Engine(rules, 4, network=net).choose(Board(rules)).move


def test_the_native_core_refuses_a_network_for_another_board():
    with pytest.raises(ValueError, match="121 squares cannot play a board of 49"):
        NativeCore(PRESETS["brandubh"], network=random_network(121, 4, seed=1))
