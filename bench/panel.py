"""The board's display and buttons against the scan loop: what a redraw costs, what a frame puts
on the I2C bus, and the loop's rate with the panel redrawing as fast as it may.

    python bench/panel.py [--seconds 5]

1. compose + render of the four lines (companion.panel.text, companion.drivers.display), per
   frame: median and p95 in ms;
2. luma's real SSD1306 driver turning a frame into bus writes (a counting bus): ms per frame and
   bytes per frame, and what those bytes take on I2C at 100 and 400 kHz (9 bits per byte);
3. a session (simulated Brandubh board, real tracker and store) stepped as fast as one thread
   can for ``--seconds``, without a panel and with one redrawing at its 5 Hz cap while a clock
   runs and a button is pressed every 0.2 s: steps per second both ways.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion.drivers.display import capture_display, open_oled, render  # noqa: E402
from companion.panel.text import game_lines  # noqa: E402

STATE = {"turn": "defenders", "result": "ongoing", "moves": ["d1-c1"] * 12,
         "clock": {"attackers": 297.0, "defenders": 300.0, "running": "defenders",
                   "paused": False, "at": time.time()},
         "move_to_make": {"from": "e7", "to": "c7", "by": "computer", "captures": ["c6"]},
         "match": None}


class CountingBus:
    def __init__(self) -> None:
        self.bytes = 0

    def write_i2c_block_data(self, addr: int, mode: int, data: list[int]) -> None:
        self.bytes += len(data) + 2  # address and control byte besides the data


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def bench_render(n: int = 400) -> None:
    display = capture_display()
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        lines = game_lines(STATE, "en", now=STATE["clock"]["at"] + i)  # type: ignore[index]
        display.show(lines)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"compose + render, per frame: median {statistics.median(times):.2f} ms, "
          f"p95 {percentile(times, 0.95):.2f} ms ({n} frames, a new clock text each)")


def bench_bus(n: int = 100) -> None:
    from luma.core.interface.serial import i2c

    bus = CountingBus()
    display = open_oled("ssd1306", serial=i2c(bus=bus, address=0x3C))
    start = bus.bytes
    times = []
    for i in range(n):
        lines = game_lines(STATE, "en", now=STATE["clock"]["at"] + i)  # type: ignore[index]
        image = render(lines)
        t0 = time.perf_counter()
        display.device.display(image)
        times.append((time.perf_counter() - t0) * 1000)
    per_frame = (bus.bytes - start) / n
    print(f"luma SSD1306 driver: {statistics.median(times):.2f} ms CPU per frame, "
          f"{per_frame:.0f} bytes on the bus per frame")
    for khz in (100, 400):
        print(f"  I2C at {khz} kHz: {per_frame * 9 / (khz * 1000) * 1000:.0f} ms per frame "
              "(on the panel's thread, never the scan loop's)")


def bench_loop(seconds: float) -> None:
    from session_helpers import Harness

    from companion.hardware_config import ButtonsConfig
    from companion.panel import Panel
    from companion.rules import PRESETS

    def run(with_panel: bool) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            h = Harness(Path(tmp), variant="brandubh", tc="5+3")
            panel = None
            stop = threading.Event()
            if with_panel:
                panel = Panel(h.session, h.session.state, buttons=None,
                              display=capture_display(), action=ButtonsConfig().action,
                              variants=[(r.id, r.name) for r in PRESETS.values()])
                announce = h.session._announce

                def both(state: Any) -> None:
                    announce(state)
                    panel.wake()

                h.session._announce = both
                panel.start()

                def presser() -> None:  # the clock button every 0.2 s (through the queue)
                    while not stop.wait(0.2):
                        with contextlib.suppress(Exception):
                            panel.handle(_event())

                threading.Thread(target=presser, daemon=True).start()
            steps = 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                h.t = round(h.t + 0.01, 6)
                h.session.step(h.t)
                steps += 1
            rate = steps / (time.perf_counter() - t0)
            stop.set()
            if panel is not None:
                panel.close()
            h.session.close()
            return rate

    def _event() -> Any:
        from companion.drivers.buttons import ButtonEvent

        return ButtonEvent("clock", "short")

    base = run(False)
    with_panel = run(True)
    print(f"session loop, one thread as fast as it goes: {base:,.0f} steps/s without a panel, "
          f"{with_panel:,.0f} with the panel redrawing and a press every 0.2 s "
          f"({with_panel / base:.0%}); the daemon needs 100")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    bench_render()
    bench_bus()
    bench_loop(args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
