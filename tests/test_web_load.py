"""Many live viewers on a real daemon (real server on loopback, scan loop at 100 Hz): every
viewer sees every move, in order, and viewers that stop reading cost bounded memory and get the
latest state when they read again. How fast, at what CPU and with what scan-loop rate is
measured by `bench/load.py` (1, 100 and 200 viewers), not asserted here: the suite shares its
machine with other work."""

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


def test_120_live_viewers_see_every_move(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        b = f"http://127.0.0.1:{d.port}/"
        moves = (("d1", "d4"), ("f4", "e4"), ("d11", "d8"), ("g7", "g9"), ("h1", "h3"),
                 ("g5", "g3"))
        proc, lines = spawn_viewers(d.port, 120, len(moves))
        try:
            assert lines.get(timeout=30) == "ready"
            assert d.server.live_streams == 120
            latencies = []
            for k, (frm, to) in enumerate(moves, 1):
                assert control(b, "api/click", {"square": frm})[0] == 200
                assert control(b, "api/click", {"square": to})[0] == 200
                seen = json.loads(lines.get(timeout=10))
                accepted = state(b)["accepted_at"]
                assert seen["moves"] == k and len(seen["arrivals"]) == 120
                latencies += [t - accepted for t in seen["arrivals"]]
                time.sleep(0.2)
        finally:
            proc.kill()
            proc.wait()
        # every viewer saw every move, after it was accepted (bench/load.py: how soon)
        assert len(latencies) == 720 and min(latencies) >= 0


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
