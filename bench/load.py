"""Live viewers: how many phones the daemon serves, how fast a move reaches them, at what cost.

Starts ``tafl-companion run`` (simulated board at 100 Hz, the real tracker) as a child process,
then for each viewer count (default 1, 100 and 200) connects that many Server-Sent-Events
clients (ten per loopback address, each address standing for one phone), plays moves by
clicking the simulated board through the API, and reports per count:

- viewers held: clients that stayed connected and received every move;
- move-to-screen latency percentiles: from the move's acceptance (``accepted_at`` in the state,
  stamped by the daemon when the tracker's move was stored) to the arrival of the first state
  holding it at each client;
- the daemon's RSS (and peak), its CPU share, the web server thread's CPU per move, and the
  scan loop's rate (board scans per second, counted inside the child).

``--stalled N`` adds N clients that connect and never read (their memory must stay bounded).
``--slowloris N`` first runs N connections (ten per address; ``--slow-per-address``) that send a
request line and then one header line every 40 s (``--slow-interval``), reconnecting whenever the
server cuts them, for 90 s (``--slow-duration``), and reports how fast the page answers
meanwhile. ``--guess S`` finally guesses PINs for S seconds from 1,000 rotating addresses and
reports how many guesses the server checked (the rest are refused unchecked).
``--stuck-writers S`` first runs issue 25's attack 2 for S seconds (bench/stuck_writers.py):
16 addresses hold 32 connections each, pipelining requests they never read, while a new visitor
loads the page.
Run with ``nice -n 10 python3 bench/load.py``; ``--json`` prints the figures as JSON too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "tests"))
from web_load_support import quiet_game  # noqa: E402  (tests/web_load_support.py)

PIN = "2468135790"

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
import companion.web.server as server
servers = []
init = server.WebServer.__init__
def kept(self, *a, **kw):
    init(self, *a, **kw)
    servers.append(self)
server.WebServer.__init__ = kept
stats = sys.argv[2]
def report():
    while True:
        tmp = stats + ".tmp"
        web_cpu = servers[0].cpu_seconds() if servers else 0.0
        with open(tmp, "w") as f:
            json.dump({"scans": scans[0], "t": time.monotonic(), "published": published,
                       "web_cpu": web_cpu}, f)
        os.replace(tmp, stats)
        time.sleep(0.1)
threading.Thread(target=report, daemon=True).start()
from companion.cli import main
sys.exit(main(sys.argv[3:]))
"""


def moves_without_captures(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` legal Copenhagen moves that capture nothing and do not end the game."""
    sys.path.insert(0, str(ROOT))
    game = quiet_game(n, seed)
    return [(game.board.name(p.move.frm), game.board.name(p.move.to)) for p in game.played]


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

    def __init__(self, work: Path, root: Path = ROOT) -> None:
        self.stats = work / "stats.json"
        config = work / "config.toml"
        # idle_after = 0: the full rate throughout (the loop's rate is what is measured)
        config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n[board]\nkind = "sim"\n'
                          "scan_hz = 100\nidle_after = 0\n")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root), str(self.stats), "run", "--config",
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

    def web_cpu(self) -> float:
        """CPU seconds used so far by the web server's event-loop thread."""
        return float(json.loads(self.stats.read_text())["web_cpu"])

    def published(self) -> dict[int, float]:
        """Move count -> when the daemon published the first state holding it."""
        return {int(k): v for k, v in json.loads(self.stats.read_text())["published"].items()}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(15)


SLOW_HEAD = (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Slow: 1\r\n")
SLOW_BODY = (b"POST /api/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 16000\r\n\r\n{", b" ")


def slowloris(d: Daemon, n: int, interval: float, duration: float, per_address: int,
              trickle: tuple[bytes, bytes] = SLOW_HEAD) -> dict:
    """``n`` connections (``per_address`` from each loopback address) that send a request line
    and then one header line every ``interval`` seconds, and open a new connection whenever the
    server cuts one, for ``duration`` seconds; meanwhile a client from another address fetches
    the page (``GET /``) every 0.5 s. Reports the page's answer times and what the server did
    with the trickling connections. ``trickle``: what a connection sends first and then at each
    interval (a head line by line, or with :data:`SLOW_BODY` a 16,000-byte body byte by byte)."""
    port = d.port
    page = d.url
    assert page is not None
    baseline = open_connections(d.proc.pid)  # the listening socket and the daemon's own
    stop = time.monotonic() + duration
    counts = {"opened": 0, "refused": 0, "timed_out": 0, "closed": 0}
    lock = threading.Lock()

    def count(key: str) -> None:
        with lock:
            counts[key] += 1

    def attacker(i: int) -> None:
        src = f"127.0.{10 + i // per_address // 250}.{1 + (i // per_address) % 250}"
        while time.monotonic() < stop:
            s = socket.socket()
            try:
                s.bind((src, 0))
                s.connect(("127.0.0.1", port))
                s.sendall(trickle[0])
                count("opened")
                while time.monotonic() < stop:
                    s.settimeout(max(0.1, min(interval, stop - time.monotonic())))
                    try:
                        answer = s.recv(4096)
                    except TimeoutError:
                        s.sendall(trickle[1])
                        continue
                    count("refused" if answer.startswith(b"HTTP/1.1 503") else
                          "timed_out" if answer.startswith(b"HTTP/1.1 408") else "closed")
                    break
            except OSError:
                count("closed")
            finally:
                s.close()
            time.sleep(0.2)

    threads = [threading.Thread(target=attacker, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    time.sleep(min(2.0, duration / 4))
    times: list[float] = []
    failed = 0
    held = 0
    while time.monotonic() < stop - 1:
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(page, timeout=10) as r:
                r.read()
            times.append(time.monotonic() - t0)
        except OSError:
            failed += 1
        held = max(held, open_connections(d.proc.pid) - baseline)
        time.sleep(max(0.0, 0.5 - (time.monotonic() - t0)))
    for t in threads:
        t.join(interval + 5)
    return {"connections": n, "addresses": -(-n // per_address), "interval_s": interval,
            "duration_s": duration, "held_max": held, **counts,
            "page_ok": len(times), "page_failed": failed,
            "page_p50_ms": round(1000 * percentile(times, 50), 1) if times else None,
            "page_p95_ms": round(1000 * percentile(times, 95), 1) if times else None,
            "page_max_ms": round(1000 * max(times), 1) if times else None,
            "rss_mb": memory_mb(d.proc.pid)[0], "load": round(os.getloadavg()[0], 1)}


def open_connections(pid: int) -> int:
    """Sockets the daemon holds open now."""
    n = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            n += os.readlink(fd).startswith("socket:")
    return n


def guess_pins(d: Daemon, seconds: float, addresses: int) -> dict:
    """Guess the PIN from ``addresses`` rotating loopback addresses as fast as the server
    answers, for ``seconds``: how many guesses the server actually checked (403 wrong PIN)
    rather than refused unchecked (429), and what that means for the default 10-digit code."""
    import http.client

    checked: list[float] = []
    refused = 0
    t0 = time.monotonic()
    i = 0
    while time.monotonic() - t0 < seconds:
        src = f"127.1.{i // 250 % 250}.{1 + i % 250}"
        conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10,
                                          source_address=(src, 0))
        try:
            conn.request("POST", "/api/auth", body=b"{}", headers={
                "Content-Type": "application/json", "X-Tafl-Request": "1",
                "X-Tafl-Pin": f"{i:010d}"})
            status = conn.getresponse().status
        finally:
            conn.close()
        if status == 403:
            checked.append(time.monotonic() - t0)
        elif status == 429:
            refused += 1
        else:
            raise RuntimeError(f"unexpected answer {status} to a wrong PIN")
        i = (i + 1) % addresses
        if len(checked) >= 20 and checked[-1] < time.monotonic() - t0 - 1:
            time.sleep(1)  # the budget is spent: one try a second is plenty to see refills
    elapsed = time.monotonic() - t0
    burst = sum(1 for t in checked if t < 5)
    later = len(checked) - burst
    per_hour = later / (elapsed - 5) * 3600 if elapsed > 5 else 0.0
    from companion.web.auth import BUDGET, CODE_DIGITS, REFILL_S

    expected_tries = 10**CODE_DIGITS / 2
    years = (expected_tries - BUDGET) / (3600 / REFILL_S) / (24 * 365)
    return {"seconds": round(elapsed, 1), "addresses": addresses, "sent": len(checked) + refused,
            "checked": len(checked), "checked_in_first_5s": burst,
            "checked_per_hour_after": round(per_hour, 1), "refused_unchecked": refused,
            "budget": BUDGET, "refill_s": REFILL_S,
            "years_to_find_default_code": round(years), "load": round(os.getloadavg()[0], 1)}


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
    web0 = d.web_cpu()
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
    web_ms = (d.web_cpu() - web0) * 1000 / len(moves)
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
        "web_cpu_ms_per_move": round(web_ms, 2),
        "scan_hz": round((scans1 - scans0) / (t1 - t0), 1),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--viewers", default="1,100,200", help="viewer counts (default 1,100,200)")
    p.add_argument("--moves", type=int, default=40, help="moves per viewer count")
    p.add_argument("--pause", type=float, default=0.3, help="seconds between moves")
    p.add_argument("--stalled", type=int, default=0, help="extra clients that never read")
    p.add_argument("--slowloris", type=int, default=0,
                   help="trickling connections to run against the page first (e.g. 110)")
    p.add_argument("--slow-interval", type=float, default=40.0,
                   help="seconds between a trickling connection's header lines (default 40)")
    p.add_argument("--slow-duration", type=float, default=90.0,
                   help="seconds the slowloris attack lasts (default 90)")
    p.add_argument("--slow-per-address", type=int, default=10,
                   help="trickling connections per source address (default 10)")
    p.add_argument("--slow-body", action="store_true",
                   help="trickle request bodies (POST /api/auth, Content-Length 16000, a byte "
                        "per interval) instead of heads")
    p.add_argument("--stuck-writers", type=float, default=0.0, metavar="SECONDS",
                   help="run issue 25's attack 2 first for SECONDS: 16 addresses x 32 "
                        "connections pipelining GET /static/app.js with a tiny window, never "
                        "reading; a new visitor's page loads meanwhile (bench/stuck_writers.py)")
    p.add_argument("--stuck-pipeline", type=int, default=8,
                   help="requests each stuck writer pipelines (default 8)")
    p.add_argument("--guess", type=float, default=0.0,
                   help="seconds of PIN guessing from rotating addresses, run last (e.g. 400)")
    p.add_argument("--root", type=Path, default=ROOT,
                   help="the checkout to run (default: this one; another for a before/after)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    counts = [int(x) for x in a.viewers.split(",")]
    plan = moves_without_captures(a.moves * len(counts))
    rows = []
    with tempfile.TemporaryDirectory(prefix="tafl-load-") as work:
        d = Daemon(Path(work), root=a.root.resolve())
        try:
            idle_rss = memory_mb(d.proc.pid)[0]
            stuck = None
            if a.stuck_writers:
                from stuck_writers import stuck_writers
                stuck = stuck_writers(d, 16, 32, a.stuck_writers, a.stuck_pipeline)
                stuck["rss_mb"] = memory_mb(d.proc.pid)[0]
            slow = (slowloris(d, a.slowloris, a.slow_interval, a.slow_duration,
                              a.slow_per_address, SLOW_BODY if a.slow_body else SLOW_HEAD)
                    if a.slowloris else None)
            for i, n in enumerate(counts):
                chunk = plan[i * a.moves:(i + 1) * a.moves]
                rows.append(asyncio.run(measure(d, n, chunk, a.stalled, a.pause)))
                time.sleep(1)
            guesses = guess_pins(d, a.guess, 1000) if a.guess else None
        finally:
            d.stop()
    load = os.getloadavg()[0]
    print(f"daemon idle RSS {idle_rss} MB; {a.moves} moves per row; latency = move accepted "
          f"-> state received by each viewer (loopback); load average {load:.1f} on "
          f"{os.cpu_count()} CPUs at the end (each row: the 1-minute load average as it ended)")
    print("(web p95/max: from the daemon publishing the state to its arrival, the web layer's "
          "share; web ms: CPU of the web server's event-loop thread per move, every request and "
          "frame of the row included)")
    print(f"{'viewers':>8} {'stalled':>7} {'held':>5} {'missed':>6} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'p99 ms':>7} {'max ms':>7} {'web p95':>8} {'web max':>8} {'RSS MB':>7} "
          f"{'peak':>6} {'CPU %':>6} {'web ms':>6} {'scan Hz':>8} {'load':>5}")
    for r in rows:
        print(f"{r['viewers']:>8} {r['stalled']:>7} {r['held']:>5} {r['missed']:>6} "
              f"{r['p50_ms']:>7} {r['p95_ms']:>7} {r['p99_ms']:>7} {r['max_ms']:>7} "
              f"{r['fanout_p95_ms']:>8} {r['fanout_max_ms']:>8} "
              f"{r['rss_mb']:>7} {r['peak_rss_mb']:>6} {r['cpu_pct']:>6} "
              f"{r['web_cpu_ms_per_move']:>6} {r['scan_hz']:>8} "
              f"{r['load']:>5}")
    if slow:
        print(f"slowloris: {slow['connections']} connections from {slow['addresses']} "
              f"address(es), {'a body byte' if a.slow_body else 'a header line'} every "
              f"{slow['interval_s']:g} s, for "
              f"{slow['duration_s']:g} s (reconnecting when cut): at most {slow['held_max']} "
              f"connections held; {slow['opened']} opened, {slow['refused']} refused at once "
              f"(503), {slow['timed_out']} cut by a deadline (408), {slow['closed']} "
              f"closed otherwise (evicted for a new connection); the page (GET /) meanwhile: "
              f"{slow['page_ok']} answered, "
              f"{slow['page_failed']} failed, p50 {slow['page_p50_ms']} ms, p95 "
              f"{slow['page_p95_ms']} ms, max {slow['page_max_ms']} ms; RSS {slow['rss_mb']} "
              f"MB; load average {slow['load']}")
    if stuck:
        w = stuck
        print(f"stuck writers: {w['addresses']} addresses x {w['per_address']} connections, "
              f"each pipelining {w['pipeline']} GET /static/app.js with a 1 KiB receive window "
              f"and never "
              f"reading, reopened when closed, for {w['duration_s']:g} s: {w['opened']} opened, "
              f"{w['closed_by_server']} closed by the server; a new visitor's page loads "
              f"(GET /, its scripts and styles, /api/state, within 10 s): {w['loads_ok']} of "
              f"{w['loads']} ({w['first_30s_ok']} of {w['first_30s']} in the first 30 s); scan "
              f"loop {w['scan_hz']} Hz; RSS {w['rss_mb']} MB")
    if guesses:
        g = guesses
        print(f"PIN guessing: {g['sent']} wrong PINs sent in {g['seconds']} s from "
              f"{g['addresses']} rotating addresses; {g['checked']} checked "
              f"({g['checked_in_first_5s']} in the first 5 s, then "
              f"{g['checked_per_hour_after']} per hour), {g['refused_unchecked']} refused "
              f"unchecked (429); budget {g['budget']}, one more every {g['refill_s']:g} s: "
              f"the default 10-digit code takes ~{g['years_to_find_default_code']:,} years on "
              f"average; load average {g['load']}")
    if a.json:
        print(json.dumps({"idle_rss_mb": idle_rss, "slowloris": slow, "stuck_writers": stuck,
                          "rows": rows,
                          "pin_guessing": guesses}))


if __name__ == "__main__":
    main()
