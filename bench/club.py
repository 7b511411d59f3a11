"""Scale of the club: N simulated boards publishing to one Mosquitto, one tournament room page
(``tafl-companion club``, its own process) with V viewers on its live stream.

    python bench/club.py [--boards 50] [--viewers 100] [--seconds 60] [--every 5]

Each board (one process runs them all: a broker link, an outbox and a publisher each, as in the
daemon) plays a random legal Copenhagen game, one move every ``--every`` seconds (staggered).
Printed: move-to-page latency (from the snapshot handed to the board's publisher to each
viewer's receipt of the room's event showing the move) p50/p95/max, and CPU seconds and peak
RSS of the broker and of the room process. Not a test: figures for docs/club.md.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from companion.club.config import Broker  # noqa: E402
from companion.club.link import ClubLink  # noqa: E402
from companion.club.outbox import Outbox  # noqa: E402
from companion.club.publisher import BoardPublisher  # noqa: E402
from companion.rules import PRESETS  # noqa: E402
from companion.rules.game import Game  # noqa: E402

KEY = b"bench-club-key-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_usage(pid: int) -> tuple[float, int]:
    """(CPU seconds, RSS kB) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = 100.0
    cpu = (int(fields[11]) + int(fields[12])) / tick
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            rss = int(line.split()[1])
    return cpu, rss


class SimBoard:
    def __init__(self, url: str, folder: Path, club: str, name: str, seed: int) -> None:
        self.name = name
        self.link = ClubLink(Broker.parse(url), f"bench-{club}-{name}", key=KEY, board=name)
        self.outbox = Outbox(folder / f"{name}.sqlite3")
        self.pub = BoardPublisher(self.link, self.outbox, club, name)
        self.game = Game(PRESETS["copenhagen"])
        self.rnd = random.Random(seed)
        self.gid = seed + 1
        self.sent: dict[int, float] = {}  # plies -> when handed to the publisher

    def start(self) -> None:
        self.pub.start()
        self.link.start()
        self.offer()

    def offer(self) -> None:
        g = self.game
        state = {"game": self.gid, "variant": "copenhagen", "variant_name": "Copenhagen",
                 "size": 11, "first": "attackers", "turn": g.turn, "moves": g.moves,
                 "result": g.result, "reason": None, "position": g.board.otn(),
                 "players": {"attackers": {"name": f"{self.name} A", "kind": "board"},
                             "defenders": {"name": f"{self.name} D", "kind": "board"}},
                 "clock": None, "last": None}
        self.sent[len(g.moves)] = time.time()
        self.pub.offer(json.dumps(state))

    def move(self) -> None:
        if self.game.is_over():
            self.game = Game(PRESETS["copenhagen"])
            self.gid += 1000
        self.game.play(self.rnd.choice(self.game.board.legal_moves()))
        self.offer()

    def close(self) -> None:
        self.pub.close()
        self.link.close()
        self.outbox.close()


async def viewer(port: int, seen: list[tuple[str, int, float]], stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**22)
    writer.write(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream"
                 b"\r\n\r\n")
    await writer.drain()
    last: dict[str, int] = {}
    while not stop.is_set():
        try:
            line = await asyncio.wait_for(reader.readline(), 1.0)
        except TimeoutError:
            continue
        if not line:
            break
        if line.startswith(b"data:"):
            now = time.time()
            doc = json.loads(line[5:])
            for b in doc.get("boards", []):
                plies = b["state"].get("plies", 0)
                if last.get(b["board"]) != plies:
                    last[b["board"]] = plies
                    seen.append((b["board"], plies, now))
    writer.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=50)
    ap.add_argument("--viewers", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=5.0, help="seconds between a board's moves")
    args = ap.parse_args()
    mosq = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    tmp = Path(tempfile.mkdtemp(prefix="club-bench-"))
    port = free_port()
    (tmp / "m.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                                f"persistence true\npersistence_location {tmp}/\n"
                                f"user {getpass.getuser()}\n")
    broker = subprocess.Popen([mosq, "-c", str(tmp / "m.conf")], stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    url = f"mqtt://127.0.0.1:{port}"
    room = subprocess.Popen([sys.executable, "-m", "companion", "club", "--broker", url,
                             "--club", "bench", "--host", "127.0.0.1", "--port", "0",
                             "--allow-anonymous-broker"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "TAFL_CLUB_KEY": KEY.decode()})
    assert room.stdout is not None
    room_port = 0
    for line in room.stdout:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if m:
            room_port = int(m.group(1))
            break
    threading.Thread(target=room.stdout.read, daemon=True).start()
    boards = [SimBoard(url, tmp, "bench", f"table-{i + 1}", i) for i in range(args.boards)]
    for b in boards:
        b.start()
    time.sleep(2.0)
    cpu0 = {"broker": proc_usage(broker.pid)[0], "room": proc_usage(room.pid)[0]}
    seen: list[tuple[str, int, float]] = []
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    async def viewers() -> None:
        await asyncio.gather(*(viewer(room_port, seen, stop) for _ in range(args.viewers)))

    vt = threading.Thread(target=lambda: loop.run_until_complete(viewers()), daemon=True)
    vt.start()
    time.sleep(2.0)
    start = time.monotonic()
    step = args.every / len(boards)
    i = 0
    while time.monotonic() - start < args.seconds:
        boards[i % len(boards)].move()
        i += 1
        time.sleep(step)
    time.sleep(2.0)
    loop.call_soon_threadsafe(stop.set)
    vt.join(5)
    cpu1 = {"broker": proc_usage(broker.pid), "room": proc_usage(room.pid)}
    sent = {b.name: b.sent for b in boards}
    lat = [now - sent[name][plies] for name, plies, now in seen
           if plies in sent[name] and plies > 0 and now >= sent[name][plies]]
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [float("nan")] * 99
    out = {"boards": len(boards), "viewers": args.viewers, "moves": i,
           "seconds": args.seconds, "deliveries": len(lat),
           "expected_deliveries": i * args.viewers,
           "latency_ms": {"p50": round(q[49] * 1000, 1), "p95": round(q[94] * 1000, 1),
                          "max": round(max(lat) * 1000, 1) if lat else None},
           "broker": {"cpu_s": round(cpu1["broker"][0] - cpu0["broker"], 2),
                      "peak_rss_mb": round(cpu1["broker"][1] / 1024, 1)},
           "room": {"cpu_s": round(cpu1["room"][0] - cpu0["room"], 2),
                    "peak_rss_mb": round(cpu1["room"][1] / 1024, 1)}}
    for b in boards:
        b.close()
    room.send_signal(signal.SIGTERM)
    room.wait(10)
    broker.terminate()
    broker.wait(10)
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
