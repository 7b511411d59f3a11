"""How soon a board of the club is back after a broker outage (issue 26 #11: 26 s after the
broker, with paho's back-off grown to 30 s; the goal: within 2 s).

Starts a Mosquitto on a free port and a board's broker link (``ClubLink``, as the daemon makes
it), stops the broker for ``--outage`` seconds (35 by default, as in the issue), starts it
again and prints how long after the broker listened again the link was connected, and how many
connection attempts the link made during the outage (one a second: a refused TCP connection).
``--runs`` repeats it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))
from club_broker import Mosquitto  # noqa: E402

from companion.club.config import Broker  # noqa: E402
from companion.club.link import ClubLink  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--outage", type=float, default=35.0)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp) / "b")
        link = ClubLink(Broker.parse(broker.url), "bench-table-1",
                        key=b"bench-club-key-0123456789abcdef", board="table-1")
        link.start()
        assert link.connected.wait(30)
        try:
            for _ in range(args.runs):
                broker.stop()
                before = link.attempts
                time.sleep(args.outage)
                during = link.attempts - before
                broker.start()  # returns once the broker listens
                back = time.monotonic()
                while not link.connected.is_set():
                    time.sleep(0.01)
                print(f"outage {args.outage:.0f} s: connected {time.monotonic() - back:.2f} s "
                      f"after the broker was back; {during} attempts during the outage")
        finally:
            link.close()
            broker.stop()


if __name__ == "__main__":
    main()
