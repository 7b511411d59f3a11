"""The Pico serial link under replayed, reordered, duplicated and lost lines: stale readings per
100,000 frames, lines lost vs counted, SYNC requests sent.

    python bench/serial_link.py [--frames 100000] [--seed 1]

The model Pico and the faulty link are in ``tests/hw_shims/link_fuzz.py``: 2 % of lines lost,
8 % followed by a replay of one of the last 300 lines (this boot's or an earlier boot's), 2 %
delivered twice, a reboot every ~2,000 lines, the host's own SYNC/HOST requests answered.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "hw_shims"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

from link_fuzz import replay_fuzz  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    st = replay_fuzz(args.frames, args.seed)
    dt = time.perf_counter() - t0
    print(f"{st['frames']:,} frames, {st['reboots']} reboots, {dt:.1f} s")
    per = st["stale"] * 100_000 / st["frames"]
    print(f"stale readings: {st['stale']:,} ({per:.0f} per 100,000 frames)")
    print(f"lines lost: {st['lost']:,}; counted as gaps: {st['gaps']:,}")
    print(f"dropped lines: {st['dropped']:,} {dict(st['reasons'])}")
    print(f"SYNC requests: {st['syncs']}; HELLOs taken: {st['hellos']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
