"""The scan loop's rate while the online client's network is quiet, silent, flooded or down.

    python bench/online.py [--seconds 5]

Runs an in-process daemon (simulated board, its 100 Hz scan loop) whose online client is logged
in to the protocol-faithful test server (tests/hnefatafl_double.py) and measures the loop's
iterations per second in four phases: a quiet lobby; a server that stops answering (the client
must notice, never wait); a lobby flood (500 open games pushed, 200 KiB garbage lines and a
4.5 MiB line); the server gone (connection refused, reconnect back-off). Also: the time a
session-side call (``OnlinePlayer.send_move``, ``status()``) takes, p50/p99/max, while the
server is silent. Not a test: figures for docs/online.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hnefatafl_double import HnefataflDouble  # noqa: E402
from test_daemon_support import test_config, wait_for  # noqa: E402

from companion.daemon import Daemon  # noqa: E402
from companion.online.account import OnlineConfig  # noqa: E402
from companion.online.player import OnlinePlayer  # noqa: E402
from companion.rules import Move  # noqa: E402

CPU: dict[str, float] = {}


def rate(daemon: Daemon, seconds: float, name: str = "") -> float:
    start, t0, c0 = daemon.iterations, time.monotonic(), time.process_time()
    time.sleep(seconds)
    CPU[name] = (time.process_time() - c0) / (time.monotonic() - t0)
    return (daemon.iterations - start) / (time.monotonic() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    server = HnefataflDouble().start()
    server.add_account("alice", "pw")
    with tempfile.TemporaryDirectory() as tmp:
        cfg = replace(test_config(Path(tmp)), online=OnlineConfig(
            server=server.address, user="alice", password="pw"))
        daemon = Daemon(cfg)
        daemon.start()
        try:
            online = daemon.online
            assert online is not None
            wait_for(lambda: online.status()["status"] == "lobby", timeout=10, what="login")
            figures = {"quiet lobby": rate(daemon, args.seconds, "quiet lobby")}
            server.freeze()
            player = OnlinePlayer(online)
            calls = []
            t_end = time.monotonic() + args.seconds
            start, t0 = daemon.iterations, time.monotonic()
            while time.monotonic() < t_end:
                c0 = time.perf_counter()
                player.send_move(0, Move(3, 36))
                online.status()
                calls.append(time.perf_counter() - c0)
                time.sleep(0.002)
            figures["server silent"] = (daemon.iterations - start) / (time.monotonic() - t0)
            server.freeze(False)
            wait_for(lambda: online.status()["status"] == "lobby", timeout=20, what="relogin")
            for i in range(500):
                server.inject("alice", "= games_updated " + json.dumps({"created": [[
                    i, None, {"id": 1000 + i, "attacker": f"u{i}", "defender": None,
                              "challenger": None, "rated": "Yes", "timed": "UnTimed",
                              "spectators": {}, "challenge_accepted": False,
                              "game_over": False, "board_size": "_11",
                              "turn": "Roleless"}]], "removed": [], "updated": {}}))
            for _ in range(20):
                server.inject("alice", "x" * 200_000)
            server.inject("alice", "y" * 4_500_000)
            figures["lobby flood"] = rate(daemon, args.seconds, "lobby flood")
            figures["lobby size after the flood"] = float(len(online.status()["open_games"]))
            server.stop()
            figures["server gone"] = rate(daemon, args.seconds, "server gone")
        finally:
            daemon.stop()
    calls.sort()
    print(f"scan loop (target {1 / 0.01:.0f} Hz), {args.seconds:g} s per phase:")
    for name, value in figures.items():
        cpu = f"   (process CPU {CPU[name] * 100:.0f} %)" if name in CPU else ""
        print(f"  {name:28s} {value:8.1f}{cpu}")
    print(f"session-side call while the server is silent ({len(calls)} calls): "
          f"p50 {statistics.median(calls) * 1e6:.0f} us, "
          f"p99 {calls[int(len(calls) * 0.99)] * 1e6:.0f} us, max {calls[-1] * 1e6:.0f} us")


if __name__ == "__main__":
    main()
