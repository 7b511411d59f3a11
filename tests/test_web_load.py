"""Many live viewers on a real daemon (real server on loopback, scan loop at 100 Hz): every
viewer sees every move quickly, the scan loop keeps its rate, and viewers that stop reading cost
bounded memory and get the latest state when they read again. (`bench/load.py` measures the
same at 1, 100 and 200 viewers.)"""

from __future__ import annotations

import json
import queue
import selectors
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from test_daemon_support import control, running_daemon, state, wait_for


class Viewers:
    """``n`` event-stream clients spread over loopback addresses (``per_device`` each), read by
    one thread that stamps every frame's arrival cheaply (the number of moves is found without
    parsing the JSON)."""

    def __init__(self, port: int, n: int, per_device: int = 10) -> None:
        self.sel = selectors.DefaultSelector()
        self.first: list[dict[int, float]] = [{} for _ in range(n)]  # moves -> arrival
        self.last: list[bytes] = [b""] * n  # the latest frame's JSON
        self.bufs = [b""] * n
        self.socks = []
        for i in range(n):
            s = socket.socket()
            s.bind((f"127.0.4.{1 + i // per_device}", 0))
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ, i)
            self.socks.append(s)
        self.stop = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop:
            for key, _ in self.sel.select(0.1):
                i = key.data
                try:
                    chunk = key.fileobj.recv(262144)
                except OSError:
                    chunk = b""
                now = time.time()
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    continue
                *frames, self.bufs[i] = (self.bufs[i] + chunk).split(b"\n\n")
                for frame in frames:
                    at = frame.find(b"data: ")
                    if at < 0:
                        continue
                    lo = frame.find(b'"moves":[', at)
                    hi = frame.find(b"]", lo)
                    n = 0 if lo < 0 or hi == lo + 9 else frame.count(b",", lo, hi) + 1
                    self.first[i].setdefault(n, now)
                    self.last[i] = frame[at + 6:]

    def state(self, i: int) -> dict:
        return json.loads(self.last[i]) if self.last[i] else {}

    def arrival(self, i: int, moves: int) -> float | None:
        """When viewer ``i`` first saw a state with ``moves`` moves (None: not yet)."""
        return min((t for n, t in list(self.first[i].items()) if n >= moves), default=None)

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        for s in self.socks:
            s.close()


def run_viewers(port: int, n: int, moves: int) -> None:
    """(In a child process, like phones apart from the daemon.) Connect ``n`` viewers, print
    ``ready`` once each has a state, then for each of ``moves`` moves one JSON line with every
    viewer's arrival time of it."""
    viewers = Viewers(port, n)
    while not all(viewers.last):
        time.sleep(0.02)
    print("ready", flush=True)
    for k in range(1, moves + 1):
        while not all(viewers.arrival(i, k) for i in range(n)):
            time.sleep(0.01)
        print(json.dumps({"moves": k, "arrivals": [viewers.arrival(i, k) for i in range(n)]}),
              flush=True)
    viewers.close()


def spawn_viewers(port: int, n: int, moves: int) -> tuple[subprocess.Popen, queue.Queue]:
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"from test_web_load import run_viewers; run_viewers({port}, {n}, {moves})")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.strip())

    threading.Thread(target=read, daemon=True).start()
    return proc, lines


def test_120_live_viewers_see_every_move_fast_at_a_small_cost(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        b = f"http://127.0.0.1:{d.port}/"
        steps = [0]
        step = d.step

        def counted(now=None):
            steps[0] += now is not None  # the loop's own iterations (controls pass no time)
            return step(now)

        d.step = counted
        moves = (("d1", "d4"), ("f4", "e4"), ("d11", "d8"), ("g7", "g9"), ("h1", "h3"),
                 ("g5", "g3"))
        proc, lines = spawn_viewers(d.port, 120, len(moves))
        try:
            assert lines.get(timeout=30) == "ready"
            assert d.server.live_streams == 120
            latencies = []
            t0, n0, cpu0 = time.monotonic(), steps[0], d.server.cpu_seconds()
            for k, (frm, to) in enumerate(moves, 1):
                assert control(b, "api/click", {"square": frm})[0] == 200
                assert control(b, "api/click", {"square": to})[0] == 200
                seen = json.loads(lines.get(timeout=10))
                accepted = state(b)["accepted_at"]
                assert seen["moves"] == k and len(seen["arrivals"]) == 120
                latencies += [t - accepted for t in seen["arrivals"]]
                time.sleep(0.2)
            wall = time.monotonic() - t0
            rate = (steps[0] - n0) / wall
            cpu = (d.server.cpu_seconds() - cpu0) / wall
        finally:
            proc.kill()
            proc.wait()
        latencies.sort()
        p95 = latencies[int(0.95 * len(latencies))]
        assert len(latencies) == 720 and latencies[0] >= 0
        # bench/load.py measures the product's figure (the bound is 100 ms; p95 32-142 ms at
        # 100 viewers on a machine at load 9-11, 8 ms of web CPU per move at 200); the
        # latency includes the store's fsync, and the suite shares its two cores and disk with
        # other work, so the test allows more: what it catches is a design that polls, queues
        # or serialises per viewer
        assert p95 <= 0.25, f"move-to-screen p95 {p95 * 1000:.1f} ms"
        # 100 Hz on an idle machine; under other load, serving must not cost it 15 %
        # what serving 120 viewers costs the daemon: the server's thread uses a few % of a core
        # (CPU time, which other work on the machine does not inflate), and the scan loop is not
        # held up by it (its rate itself depends on what else the machine runs: the bench
        # measures 82-97 Hz under load 4-10, the same with 1 viewer as with 200)
        assert cpu < 0.1, f"the server's thread used {cpu:.0%} of a core"
        assert rate >= 50, f"scan loop at {rate:.0f} Hz"


def test_viewers_that_never_read_cost_bounded_memory_and_get_the_latest_state(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        stalled = []
        for i in range(10):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.bind((f"127.0.5.{1 + i}", 0))
            s.connect(("127.0.0.1", d.port))
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            stalled.append(s)
        reader = Viewers(d.port, 1)
        try:
            wait_for(lambda: d.server.live_streams == 11, what="11 live streams")
            pad = "x" * 20000
            for n in range(300):  # 6 MB of states for each viewer
                d.hub.publish({"n": n, "pad": pad, "moves": []})
                time.sleep(0.001)
            wait_for(lambda: reader.state(0).get("n") == 299,
                     what="the reading viewer has the last state")
            from companion.web.stream import HIGH_WATER

            stream = d.server.stream
            queued = [c.transport.get_write_buffer_size() for c in list(stream.clients)]
            assert max(queued) <= HIGH_WATER + 20100, queued
            assert stream.frames_skipped > 0
            # a stalled viewer that reads again gets few frames, the last one the latest state
            s = stalled[0]
            s.settimeout(0.5)
            buf = b""
            while b'"n":299' not in buf:
                buf += s.recv(1 << 20)
            frames = buf.count(b"data: ")
            assert frames < 100, frames
            assert d.server.live_streams == 11
        finally:
            reader.close()
            for s in stalled:
                s.close()
