"""Cost of one GPIO matrix scan: library calls per scan and scans per second, 11x11, on gpiozero
MockFactory pins (the lgpio and RPi.GPIO backends run on fakes over the same mock pins, so their
call counts are exact and their speed is the driver's own overhead plus the mock's).

    python bench/matrix_scan.py [--seconds 2] [--size 11]

On a real Pi the library call count is what matters: each lgpio/RPi.GPIO call is a syscall or a
register access of a few microseconds, so lgpio's 24 calls make a full 11x11 scan well under 1 ms.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "hw_shims"))

from mock_matrix import FakeLgpio, FakeRPiGPIO, MatrixSim  # noqa: E402

from companion.drivers.matrix import (  # noqa: E402
    GpioMatrix,
    GpiozeroBackend,
    LgpioBackend,
    RPiGPIOBackend,
)

BCM = [2, 3, 4, 17, 27, 22, 5, 6, 13, 19, 26, 14, 15, 18, 23, 24, 25, 12, 16, 20, 21, 7, 8, 9]


def bench(name: str, size: int, seconds: float) -> dict:
    rows, cols = BCM[:size], BCM[size : 2 * size]
    sim = MatrixSim(rows, cols)
    sim.set_occupied([f"{chr(97 + f)}{r + 1}" for f in range(size) for r in range(size) if f == r])
    backend = {
        "lgpio": lambda: LgpioBackend(chip=0, module=FakeLgpio(sim.factory)),
        "rpigpio": lambda: RPiGPIOBackend(module=FakeRPiGPIO(sim.factory)),
        "gpiozero": lambda: GpiozeroBackend(sim.factory),
    }[name]()
    m = GpioMatrix(rows, cols, backend=backend, scan_hz=1e9, debounce=2)
    t = 0.0
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t += 1.0
        scan = m.scan(t)
        n += 1
    elapsed = time.perf_counter() - start
    assert scan is not None and len(scan.occupied) == size
    return {
        "backend": name,
        "calls_per_scan": m.calls_per_scan,
        "scans_per_s": n / elapsed,
        "ms_per_scan": 1000 * elapsed / n,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--size", type=int, default=11, choices=range(7, 13))
    args = ap.parse_args()
    print(f"{args.size}x{args.size} matrix on MockFactory pins, {args.seconds:g} s per backend")
    print(f"{'backend':10} {'calls/scan':>10} {'scans/s':>10} {'ms/scan':>8}")
    for name in ("lgpio", "rpigpio", "gpiozero"):
        r = bench(name, args.size, args.seconds)
        print(
            f"{r['backend']:10} {r['calls_per_scan']:>10} {r['scans_per_s']:>10.0f} "
            f"{r['ms_per_scan']:>8.3f}"
        )


if __name__ == "__main__":
    main()
