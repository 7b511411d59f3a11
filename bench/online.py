"""The scan loop's rate while the online client's network is quiet, silent, flooded or down.

    python bench/online.py [--seconds 5] [--flood-seconds 30] [--flood-only]

First a hostile flood (issue 25, attack 1): a daemon logged in to tests/hostile_line_server.py,
a process of its own that sends 3.2 MiB ``games_updated`` lines back to back as fast as the
socket takes them; the scan loop's rate and the process's RSS before, at the end and at its
peak. Then an in-process daemon (simulated board, its 100 Hz scan loop) whose online client is
logged in to the protocol-faithful test server (tests/hnefatafl_double.py), in four phases: a
quiet lobby; a server that stops answering (the client must notice, never wait); a lobby flood
(500 open games pushed, 200 KiB garbage lines and a 4.5 MiB line); the server gone (connection
refused, reconnect back-off). Also: the time a session-side call (``OnlinePlayer.send_move``,
``status()``) takes, p50/p99/max, while the server is silent. Not a test: figures for
docs/online.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
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


def rss_mb(key: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def hostile_phase(seconds: float, mib: float) -> dict[str, float]:
    """Issue 25, attack 1: a daemon of its own logged in to tests/hostile_line_server.py (a
    process of its own), which floods it with ``mib`` MiB ``games_updated`` lines back to back;
    the scan loop's rate and this process's RSS before, during and at the peak."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "hostile_line_server.py"),
                                 "--mib", str(mib), "--port-file", str(port_file)])
        try:
            wait_for(port_file.exists, timeout=10, what="the hostile server")
            cfg = replace(test_config(Path(tmp)), online=OnlineConfig(
                server=f"127.0.0.1:{port_file.read_text()}", user="alice", password="pw"))
            daemon = Daemon(cfg)
            daemon.start()
            try:
                out["RSS MB before"] = rss_mb()
                out["scan Hz before the flood (1 s)"] = rate(daemon, 1.0, "before")
                online = daemon.online
                assert online is not None
                wait_for(lambda: online.status()["status"] == "lobby", timeout=10, what="login")
                out[f"scan Hz under the flood ({seconds:g} s)"] = rate(daemon, seconds, "flood")
                conn = online.server_login.conn
                out["RSS MB at the flood's end"] = rss_mb()
                out["peak RSS MB (VmHWM)"] = rss_mb("VmHWM")
                out["lines handled (MiB/s)"] = online.lines_handled * mib / seconds
                out["bytes read ahead at the end"] = float(conn.buffered if conn else 0)
            finally:
                daemon.stop()
        finally:
            proc.kill()
            proc.wait()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--flood-seconds", type=float, default=30.0,
                    help="seconds of the hostile flood of 3.2 MiB lines (issue 25)")
    ap.add_argument("--flood-only", action="store_true", help="only the hostile flood")
    args = ap.parse_args()
    hostile = hostile_phase(args.flood_seconds, 3.2)
    print("hostile flood of 3.2 MiB games_updated lines (tests/hostile_line_server.py):")
    for name, value in hostile.items():
        cpu = f"   (process CPU {CPU[name] * 100:.0f} %)" if name in CPU else ""
        print(f"  {name:34s} {value:10.1f}")
    print(f"  process CPU under the flood {CPU['flood'] * 100:.0f} %")
    if args.flood_only:
        return
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
