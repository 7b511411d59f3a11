"""Live viewers: how many phones the daemon serves, how fast a move reaches them, at what cost.

Starts ``tafl-companion run`` (simulated board at 100 Hz, the real tracker) as a child process,
then for each viewer count (default 1, 100 and 200) connects that many Server-Sent-Events
clients (ten per loopback address, each address standing for one phone), plays moves by
clicking the simulated board through the API, and reports per count:

- viewers held: clients that stayed connected and received every move;
- move-to-screen latency percentiles: from the move's acceptance (``accepted_at`` in the state,
  stamped by the daemon when the tracker's move was stored) to the arrival of the first state
  holding it at each client;
- the daemon's RSS (and peak), its CPU share, and the scan loop's rate (board scans per
  second, counted inside the child).

``--stalled N`` adds N clients that connect and never read (their memory must stay bounded).
``--slowloris N`` first opens N connections (ten per address) that trickle a request head, one
header line every second, and reports how fast the page answers meanwhile and when the server has
cut them all (the request-head deadline).
Run with ``nice -n 10 python3 bench/load.py``; ``--json`` prints the figures as JSON too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

PIN = "2468135790"
ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, threading, time
sys.path.insert(0, sys.argv[1])
import companion.drivers.sim as sim
scans = [0]
original = sim.SimBoard.scan
def counted(self, now):  # the scan loop's own reads (a control also reads the board at once)
    if threading.current_thread().name == "scan-loop":
        scans[0] += 1
    return original(self, now)
sim.SimBoard.scan = counted
import companion.web.hub as hub
published = {}
publish = hub.StateHub.publish
def stamped(self, state):  # when the first state holding each move count was published
    changed = publish(self, state)
    published.setdefault(len(state.get("moves") or ()), time.time())
    return changed
hub.StateHub.publish = stamped
stats = sys.argv[2]
def report():
    while True:
        tmp = stats + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"scans": scans[0], "t": time.monotonic(), "published": published}, f)
        os.replace(tmp, stats)
        time.sleep(0.1)
threading.Thread(target=report, daemon=True).start()
from companion.cli import main
sys.exit(main(sys.argv[3:]))
"""


def moves_without_captures(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` legal Copenhagen moves that capture nothing and do not end the game."""
    sys.path.insert(0, str(ROOT))
    from companion.rules import get_variant
    from companion.rules.game import Game

    rng = random.Random(seed)
    game = Game(get_variant("copenhagen"))
    out: list[tuple[str, str]] = []
    while len(out) < n:
        options = game.board.legal_moves()
        rng.shuffle(options)
        for move in options:
            played = game.play(move)
            if played.captured or game.is_over():
                game.undo()
                continue
            out.append((game.board.name(move.frm), game.board.name(move.to)))
            break
        else:
            raise RuntimeError("no quiet move")
    return out


class Viewer(asyncio.Protocol):
    """One SSE client: stamps each state frame's arrival and notes how many moves it holds
    (found without parsing the JSON, so that 200 clients in one process stamp promptly)."""

    def __init__(self) -> None:
        self.buf = b""
        self.first: dict[int, float] = {}  # number of moves -> first arrival
        self.frames: list[bytes] = []  # (the last few, for accepted_at)
        self.closed = False
        self.got = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.buf += data
        *frames, self.buf = self.buf.split(b"\n\n")
        for frame in frames:
            at = frame.find(b"data: ")
            if at < 0:
                continue
            i = frame.find(b'"moves":[', at)
            j = frame.find(b"]", i)
            n = 0 if i < 0 or j == i + 9 else frame.count(b",", i, j) + 1
            self.first.setdefault(n, now)
            self.frames = [*self.frames[-3:], frame[at + 6:]]
            self.got.set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True

    def arrival(self, moves: int) -> float | None:
        return min((t for n, t in self.first.items() if n >= moves), default=None)

    def accepted_at(self, moves: int) -> float | None:
        for raw in reversed(self.frames):
            s = json.loads(raw)
            if len(s.get("moves", ())) >= moves and s.get("accepted_at"):
                return float(s["accepted_at"])
        return None


async def open_viewer(port: int, src: str) -> Viewer:
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.bind((src, 0))
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    transport, viewer = await loop.create_connection(Viewer, sock=sock)
    transport.write(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return viewer


def stalled_client(port: int, i: int) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind((f"127.0.9.{1 + i}", 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return s


def click(base: str, square: str) -> None:
    req = urllib.request.Request(base + "api/click", data=json.dumps({"square": square}).encode(),
                                 method="POST", headers={"Content-Type": "application/json",
                                                         "X-Tafl-Request": "1",
                                                         "X-Tafl-Pin": PIN})
    urllib.request.urlopen(req, timeout=10).read()


def state(base: str) -> dict:
    return json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())


def memory_mb(pid: int) -> tuple[float, float]:
    vals = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            key, value = line.split(":")
            vals[key] = int(value.split()[0]) / 1024
    return round(vals["VmRSS"], 1), round(vals["VmHWM"], 1)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Daemon:
    """The child process and its scan counter."""

    def __init__(self, work: Path) -> None:
        self.stats = work / "stats.json"
        config = work / "config.toml"
        config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n[board]\nkind = "sim"\n'
                          "scan_hz = 100\n")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(ROOT), str(self.stats), "run", "--config",
             str(config), "--data-dir", str(work / "data"), "--pin", PIN],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.url: str | None = None
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        end = time.monotonic() + 30
        while self.url is None:
            if time.monotonic() > end or self.proc.poll() is not None:
                raise RuntimeError("the daemon did not start:\n" + "".join(self.lines))
            time.sleep(0.05)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            m = re.search(r"tafl-companion on (http://\S+/)", line)
            if m:
                self.url = m.group(1)

    @property
    def port(self) -> int:
        assert self.url is not None
        return int(self.url.rsplit(":", 1)[1].strip("/"))

    def scans(self) -> tuple[int, float]:
        doc = json.loads(self.stats.read_text())
        return doc["scans"], doc["t"]

    def published(self) -> dict[int, float]:
        """Move count -> when the daemon published the first state holding it."""
        return {int(k): v for k, v in json.loads(self.stats.read_text())["published"].items()}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(15)


def slowloris(d: Daemon, n: int) -> dict:
    """N trickling connections; the page's answer times meanwhile; when they were all cut."""
    base = d.url
    assert base is not None
    socks: list[socket.socket] = []
    refused = 0
    t_open = time.monotonic()
    for i in range(n):
        s = socket.socket()
        s.bind((f"127.0.{10 + i // 2500}.{1 + (i // 10) % 250}", 0))
        try:
            s.connect(("127.0.0.1", d.port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        except OSError:
            refused += 1
            s.close()
    times = []
    for _ in range(50):
        t0 = time.monotonic()
        urllib.request.urlopen(base + "api/state", timeout=10).read()
        times.append(time.monotonic() - t0)
    alive = set(range(len(socks)))
    end = time.monotonic() + 60
    while alive and time.monotonic() < end:
        time.sleep(1)
        for i in list(alive):
            try:
                socks[i].sendall(b"X-Slow: 1\r\n")
            except OSError:
                alive.discard(i)
    for s in socks:
        s.close()
    return {"connections": n, "refused_at_connect": refused,
            "state_p50_ms": round(1000 * percentile(times, 50), 1),
            "state_max_ms": round(1000 * max(times), 1),
            "all_cut_after_s": round(time.monotonic() - t_open, 1) if not alive else None,
            "rss_mb": memory_mb(d.proc.pid)[0]}


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


async def measure(d: Daemon, n: int, moves: list[tuple[str, str]], stalled: int,
                  pause: float) -> dict:
    base = d.url
    assert base is not None
    loop = asyncio.get_running_loop()
    stuck = [stalled_client(d.port, i) for i in range(stalled)]
    viewers = [await open_viewer(d.port, f"127.0.8.{1 + i // 10}") for i in range(n)]
    await asyncio.wait_for(asyncio.gather(*(v.got.wait() for v in viewers)), 10)
    start_moves = len((await loop.run_in_executor(None, state, base))["moves"])
    await asyncio.sleep(0.5)
    scans0, t0 = d.scans()
    cpu0 = cpu_seconds(d.proc.pid)
    wall0 = time.monotonic()
    latencies: list[float] = []
    fanout: list[float] = []  # publish -> receive: the web layer's share
    missed = 0
    for k, (frm, to) in enumerate(moves, start_moves + 1):
        await loop.run_in_executor(None, click, base, frm)
        await loop.run_in_executor(None, click, base, to)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(k in v.first for v in viewers):
            await asyncio.sleep(0.02)
        accepted = viewers[0].accepted_at(k)
        await asyncio.sleep(pause)
        published = d.published().get(k)
        for v in viewers:
            got = v.arrival(k)
            if got is None or accepted is None:
                missed += 1
            else:
                latencies.append(got - accepted)
                if published is not None:
                    fanout.append(got - published)
    scans1, t1 = d.scans()
    cpu = (cpu_seconds(d.proc.pid) - cpu0) / (time.monotonic() - wall0)
    rss, peak = memory_mb(d.proc.pid)
    held = sum(1 for v in viewers if not v.closed and v.arrival(start_moves + len(moves)))
    for s in stuck:
        s.close()
    for v in viewers:
        v.transport.close()
    return {
        "viewers": n, "stalled": stalled, "held": held, "moves": len(moves), "missed": missed,
        "p50_ms": round(1000 * percentile(latencies, 50), 1) if latencies else None,
        "p95_ms": round(1000 * percentile(latencies, 95), 1) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 99), 1) if latencies else None,
        "max_ms": round(1000 * max(latencies), 1) if latencies else None,
        "fanout_p95_ms": round(1000 * percentile(fanout, 95), 1) if fanout else None,
        "fanout_max_ms": round(1000 * max(fanout), 1) if fanout else None,
        "rss_mb": rss, "peak_rss_mb": peak, "cpu_pct": round(100 * cpu, 1),
        "scan_hz": round((scans1 - scans0) / (t1 - t0), 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--viewers", default="1,100,200", help="viewer counts (default 1,100,200)")
    p.add_argument("--moves", type=int, default=40, help="moves per viewer count")
    p.add_argument("--pause", type=float, default=0.3, help="seconds between moves")
    p.add_argument("--stalled", type=int, default=0, help="extra clients that never read")
    p.add_argument("--slowloris", type=int, default=0, help="trickling connections to try first")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    counts = [int(x) for x in a.viewers.split(",")]
    plan = moves_without_captures(a.moves * len(counts))
    rows = []
    with tempfile.TemporaryDirectory(prefix="tafl-load-") as work:
        d = Daemon(Path(work))
        try:
            idle_rss = memory_mb(d.proc.pid)[0]
            slow = slowloris(d, a.slowloris) if a.slowloris else None
            for i, n in enumerate(counts):
                chunk = plan[i * a.moves:(i + 1) * a.moves]
                rows.append(asyncio.run(measure(d, n, chunk, a.stalled, a.pause)))
                time.sleep(1)
        finally:
            d.stop()
    load = os.getloadavg()[0]
    print(f"daemon idle RSS {idle_rss} MB; {a.moves} moves per row; latency = move accepted "
          f"-> state received by each viewer (loopback); load average {load:.1f} on "
          f"{os.cpu_count()} CPUs")
    print("(web p95/max: from the daemon publishing the state to its arrival, the web layer's "
          "share)")
    print(f"{'viewers':>8} {'stalled':>7} {'held':>5} {'missed':>6} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'p99 ms':>7} {'max ms':>7} {'web p95':>8} {'web max':>8} {'RSS MB':>7} "
          f"{'peak':>6} {'CPU %':>6} {'scan Hz':>8}")
    for r in rows:
        print(f"{r['viewers']:>8} {r['stalled']:>7} {r['held']:>5} {r['missed']:>6} "
              f"{r['p50_ms']:>7} {r['p95_ms']:>7} {r['p99_ms']:>7} {r['max_ms']:>7} "
              f"{r['fanout_p95_ms']:>8} {r['fanout_max_ms']:>8} "
              f"{r['rss_mb']:>7} {r['peak_rss_mb']:>6} {r['cpu_pct']:>6} {r['scan_hz']:>8}")
    if slow:
        print(f"slowloris: {slow['connections']} trickling connections "
              f"({slow['refused_at_connect']} refused at once); /api/state meanwhile p50 "
              f"{slow['state_p50_ms']} ms, max {slow['state_max_ms']} ms; all cut after "
              f"{slow['all_cut_after_s']} s; RSS {slow['rss_mb']} MB")
    if a.json:
        print(json.dumps({"idle_rss_mb": idle_rss, "slowloris": slow, "rows": rows}))


if __name__ == "__main__":
    main()
