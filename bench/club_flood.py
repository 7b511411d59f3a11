"""A flood on the club's broker while a board plays: does the board's scan loop notice?

Issue 25, attack 4: table-3 flooding its own 60 KB topics took the boards' scan loops to 71-78
Hz, 66,324 small messages on fake boards to 74-76 Hz (and the board then listed 201 boards and
had made 64 club players of them). This starts a Mosquitto without ACLs on a free port and
``tafl-companion run`` (a simulated board at 100 Hz, in the club; ``bench/load.py``'s child,
which counts the scan loop's reads), then measures the scan loop's rate

- ``quiet``: nobody else on the broker;
- ``small``: an outsider (no key) publishes small messages on fake boards' status and play
  topics (to this board), ``--rate`` a second;
- ``big``: an insider (the club's key, board table-3) publishes 60 KB signed documents on its own
  play topic to this board, ``--big-rate`` a second;

each for ``--seconds``; and what the board made of it: the boards it lists, its club players,
what its link refused or dropped (``/api/club/status``). The goal: >= 90 Hz in every phase, no
fake board listed, no player made. Run with ``nice -n 10 python3 bench/club_flood.py``.
"""

from __future__ import annotations

import argparse
import getpass
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import paho.mqtt.client as mqtt  # noqa: E402
from load import CHILD, PIN, ROOT  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from companion.club.seal import Signer  # noqa: E402

KEY = "bench-club-key-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Board:
    def __init__(self, work: Path, broker: str) -> None:
        self.stats = work / "stats.json"
        config = work / "config.toml"
        config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n[board]\nkind = "sim"\n'
                          f'scan_hz = 100\n[club]\nbroker = "{broker}"\nname = "bench"\n'
                          f'board = "table-1"\nkey = "{KEY}"\nallow_anonymous_broker = true\n')
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(ROOT), str(self.stats), "run", "--config",
             str(config), "--data-dir", str(work / "data"), "--pin", PIN],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.url: str | None = None
        threading.Thread(target=self._read, daemon=True).start()
        end = time.monotonic() + 60
        while self.url is None:
            if time.monotonic() > end or self.proc.poll() is not None:
                raise RuntimeError("the daemon did not start")
            time.sleep(0.05)

    def _read(self) -> None:
        import re

        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            m = re.search(r"tafl-companion on (http://\S+/)", line)
            if m:
                self.url = m.group(1)

    def scans(self) -> tuple[int, float]:
        doc = json.loads(self.stats.read_text())
        return doc["scans"], doc["t"]

    def club(self) -> dict:
        assert self.url is not None
        with urllib.request.urlopen(self.url + "api/club/status", timeout=10) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(15)


def client(port: int) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="", protocol=mqtt.MQTTv5)
    c.max_queued_messages_set(20000)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def flood(port: int, kind: str, rate: float, seconds: float) -> int:
    c = client(port)
    signer = Signer(KEY.encode(), "table-3")
    big = json.dumps({"v": 1, "from": "table-3", "to": "table-1", "seq": 1,
                      "pad": "x" * 60_000}).encode()
    sent, start = 0, time.monotonic()
    while time.monotonic() - start < seconds:
        due = int((time.monotonic() - start) * rate)
        while sent < due:
            if kind == "small":
                fake = f"ghost-{sent % 5000}"
                topic = (f"tafl/bench/{fake}/status" if sent % 2 else
                         f"tafl/bench/{fake}/play/table-1")
                c.publish(topic, b'{"online":true}' if sent % 2 else
                          json.dumps({"v": 1, "from": fake, "to": "table-1", "seq": sent,
                                      "offer": None, "game": None}).encode(), qos=0)
            else:
                topic = "tafl/bench/table-3/play/table-1"
                c.publish(topic, signer.seal(topic, big), qos=0)
            sent += 1
        time.sleep(0.002)
    c.disconnect()
    c.loop_stop()
    return sent


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def real_board(port: int, board: Board, name: str) -> float:
    """A real board (the club's key) says it is online: seconds until this board lists it."""
    c = client(port)
    topic = f"tafl/bench/{name}/status"
    start = time.monotonic()
    c.publish(topic, Signer(KEY.encode(), name).seal(topic, b'{"online":true}'), qos=1,
              retain=True)
    while not any(b["board"] == name for b in board.club()["boards"]):
        time.sleep(0.1)
    took = time.monotonic() - start
    c.disconnect()
    c.loop_stop()
    return took


def measure(board: Board, seconds: float, work: threading.Thread | None,
            port: int, name: str) -> tuple[float, float, float]:
    """The scan rate, the daemon's CPU share, and a real board's message's delay."""
    s0, t0 = board.scans()
    c0 = cpu(board.proc.pid)
    if work is not None:
        work.start()
    time.sleep(seconds / 2)
    delay = real_board(port, board, name)
    time.sleep(max(0.0, seconds / 2 - delay))
    s1, t1 = board.scans()
    c1 = cpu(board.proc.pid)
    if work is not None:
        work.join()
    return (s1 - s0) / (t1 - t0), (c1 - c0) / (t1 - t0), delay


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--rate", type=float, default=4000.0, help="small messages a second")
    ap.add_argument("--big-rate", type=float, default=40.0, help="60 KB messages a second")
    args = ap.parse_args()
    mosq = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    tmp = Path(tempfile.mkdtemp(prefix="club-flood-"))
    port = free_port()
    (tmp / "m.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                                f"user {getpass.getuser()}\nmax_queued_messages 1000\n")
    broker = subprocess.Popen([mosq, "-c", str(tmp / "m.conf")], stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    board = Board(tmp, f"mqtt://127.0.0.1:{port}")
    try:
        time.sleep(3)  # started, connected
        hz, share, delay = measure(board, args.seconds, None, port, "table-2")
        print(f"quiet: {hz:.1f} Hz, daemon CPU {share:.0%}, a real board's message "
              f"{delay:.2f} s")
        sent: list[int] = []
        for kind, rate in (("small", args.rate), ("big", args.big_rate)):
            t = threading.Thread(target=lambda k=kind, r=rate: sent.append(
                flood(port, k, r, args.seconds)))
            hz, share, delay = measure(board, args.seconds, t, port, f"real-{kind}")
            club = board.club()
            print(f"{kind}: {hz:.1f} Hz, daemon CPU {share:.0%}, a real board's message "
                  f"{delay:.2f} s; {sent[-1]} messages sent "
                  f"({sent[-1] / args.seconds:.0f}/s); boards listed {len(club['boards'])}, "
                  f"club players {len(club['players'])}, link {club['link']}, "
                  f"refused/dropped {club['refused']}")
    finally:
        board.stop()
        broker.terminate()
        broker.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
