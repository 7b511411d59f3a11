"""The daemon at rest: CPU and memory with nobody playing, the cost of one loop iteration, and
the budget that follows for a Raspberry Pi Zero 2 W (issue 31, docs/raspberry-pi.md).

    python bench/idle.py                 # everything (about 90 s)
    python bench/idle.py --seconds 30    # the idle window of the daemon measurement

Reports, as JSON:

* ``daemon``: ``tafl-companion run`` for real (simulated board, Copenhagen, nobody playing):
  CPU share of one core over ``--seconds`` after an 8 s settle (user + system time from /proc),
  per thread, and resident memory; goal <= 1 % and <= 60 MB;
* ``iteration``: one loop iteration measured on the loop thread itself (thread CPU time),
  in-process with the simulated board: at rest (nothing changed: the wakeup, the scan equal to
  the last, the published state compared) and with a change (a piece lifted or placed: the
  tracker, the store, the published state and the page's event);
* ``matrix``: one scan of an 11x11 GPIO reed matrix on gpiozero's MockFactory pins (lgpio and
  gpiozero backends: library calls per scan and the time per scan, the mock's cost included);
* ``serial``: the Pico bridge's reader thread at rest (the host side: a pty whose device end
  sends a heartbeat every second, as the firmware does);
* ``pi_zero_2w``: the loop's share of one core from these figures at the scan rate and at the
  rest rate, with the project's factor for a Pi Zero 2 W (about 10x slower than this machine
  for this Python code, docs/engine.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "hw_shims"))

PIN = "1357"
TICK = os.sysconf("SC_CLK_TCK")
PI_ZERO_FACTOR = 10.0


def _ticks(stat_path: str) -> int:
    fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def daemon(seconds: float) -> dict[str, object]:
    """The real daemon process at rest."""
    data = tempfile.mkdtemp(prefix="tafl-idle-")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--data-dir", data, "--port", str(port),
         "--host", "127.0.0.1", "--pin", PIN], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the daemon did not start") from None
                time.sleep(0.2)
        time.sleep(8)  # settle
        tasks = Path(f"/proc/{proc.pid}/task")

        def per_thread() -> dict[str, int]:
            out: dict[str, int] = {}
            for t in tasks.iterdir():
                try:
                    name = (t / "comm").read_text().strip()
                    out[f"{name}/{t.name}"] = _ticks(str(t / "stat"))
                except OSError:
                    pass
            return out

        before, t0 = per_thread(), time.monotonic()
        total0 = _ticks(f"/proc/{proc.pid}/stat")
        time.sleep(seconds)
        after, t1 = per_thread(), time.monotonic()
        total1 = _ticks(f"/proc/{proc.pid}/stat")
        wall = t1 - t0
        threads = {k.split("/")[1]: round(100 * (v - before.get(k, 0)) / TICK / wall, 2)
                   for k, v in after.items() if v - before.get(k, 0)}
        return {"seconds": round(wall, 1),
                "cpu_percent": round(100 * (total1 - total0) / TICK / wall, 2),
                "cpu_percent_by_thread_id": threads, "rss_mb": _rss_mb(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(30)


def iteration(samples: int) -> dict[str, object]:
    """One loop iteration on the loop thread, at rest and with a change (in-process)."""
    from companion.config import DaemonConfig, with_overrides
    from companion.daemon import Daemon

    data = Path(tempfile.mkdtemp(prefix="tafl-idle-"))
    cfg = with_overrides(DaemonConfig(), data_dir=str(data), port=0, host="127.0.0.1", pin=PIN)
    d = Daemon(cfg)
    costs: list[tuple[int, int]] = []  # (thread ns, snapshot version after)
    step = d.step

    def timed(now: float | None = None) -> bool:
        t = time.thread_time_ns()
        backlog = step(now)
        assert d.session is not None
        costs.append((time.thread_time_ns() - t, d.session.snapshot.version))
        return backlog

    d.step = timed  # type: ignore[method-assign]
    d.start()
    try:
        deadline = time.monotonic() + 60
        while not d.resting and time.monotonic() < deadline:
            time.sleep(0.1)
        costs.clear()
        time.sleep(samples / d.cfg.board.idle_hz)
        rest = [ns for ns, _ in costs[1:]]
        costs.clear()
        headers = {"Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN}
        changed: list[int] = []
        for square in ("d1", "d4", "d4", "d1") * 5:  # lift, place, lift, place back
            before = len(costs)
            version = costs[-1][1] if costs else -1
            req = urllib.request.Request(f"http://127.0.0.1:{d.port}/api/click",
                                         json.dumps({"square": square}).encode(), headers)
            urllib.request.urlopen(req, timeout=10).read()
            # the iteration that applied the click and published it
            for ns, v in costs[before:]:
                if v != version:
                    changed.append(ns)
                    break
            time.sleep(0.3)
        return {
            "rest_rate_hz": d.cfg.board.idle_hz,
            "at_rest_us": {"median": round(statistics.median(rest) / 1000, 1),
                           "p95": round(sorted(rest)[int(0.95 * len(rest))] / 1000, 1),
                           "samples": len(rest)},
            "with_a_change_us": {"median": round(statistics.median(changed) / 1000, 1),
                                 "max": round(max(changed) / 1000, 1),
                                 "samples": len(changed)} if changed else None,
        }
    finally:
        d.stop()


def matrix() -> dict[str, object]:
    """One 11x11 scan on MockFactory pins, and the driver's own work (lgpio calls answered at
    once: what a real Pi adds to it is the calls themselves, a few microseconds each)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from matrix_scan import BCM, bench
    from mock_matrix import FakeLgpio, MatrixSim

    from companion.drivers.matrix import GpioMatrix, LgpioBackend

    out: dict[str, object] = {}
    for backend in ("lgpio", "gpiozero"):
        r = bench(backend, 11, 1.0)
        out[backend] = {"calls_per_scan": r["calls_per_scan"],
                        "us_per_scan_on_mock_pins": round(1000 * r["ms_per_scan"], 1)}

    class AtOnce(FakeLgpio):  # every call answered without touching a (mock) pin
        def group_write(self, handle, gpio, group_bits, group_mask=-1):  # type: ignore[no-untyped-def]
            return 0

        def group_read(self, handle, gpio):  # type: ignore[no-untyped-def]
            return (0, (1 << 11) - 1)  # pulled up: no piece

    rows, cols = BCM[:11], BCM[11:22]
    m = GpioMatrix(rows, cols, backend=LgpioBackend(chip=0, module=AtOnce(MatrixSim(
        rows, cols).factory)), scan_hz=1e9, debounce=2)
    costs = []
    for i in range(3000):
        t = time.thread_time_ns()
        m.scan(float(i))
        costs.append(time.thread_time_ns() - t)
    out["lgpio_driver_only_us_per_scan"] = round(statistics.median(costs) / 1000, 1)
    return out


def serial(seconds: float) -> dict[str, object]:
    from pico_rig import ScriptedDevice

    from companion.drivers.serial_bridge import SerialBridge
    from firmware_bridge import protocol as P

    dev = ScriptedDevice()
    bridge = SerialBridge(7, port=dev.path)
    stop = threading.Event()
    try:
        dev.answer_hello(0, fw="1.0")
        dev.send(1, P.SNAP, P.encode_bitmap([i == 3 for i in range(49)]))
        seq = [2]

        def heartbeat() -> None:
            while not stop.wait(1.0):
                dev.send(seq[0], P.HB)
                seq[0] += 1
                dev.read_host(0.01)  # drain what the host sent (its HB and LED lines)

        beat = threading.Thread(target=heartbeat, daemon=True)
        beat.start()
        time.sleep(1.0)
        reader = next(t for t in threading.enumerate() if t.name == "pico-bridge")
        stat = f"/proc/self/task/{reader.native_id}/stat"
        a, t0 = _ticks(stat), time.monotonic()
        time.sleep(seconds)
        b, t1 = _ticks(stat), time.monotonic()
        scans = []
        for _ in range(2000):
            t = time.perf_counter_ns()
            bridge.scan(time.monotonic())
            scans.append(time.perf_counter_ns() - t)
        return {"reader_thread_cpu_percent": round(100 * (b - a) / TICK / (t1 - t0), 2),
                "scan_us": round(statistics.median(scans) / 1000, 1)}
    finally:
        stop.set()
        bridge.close()
        dev.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=30.0, help="the daemon's idle window")
    args = p.parse_args()
    from companion.hardware_config import BoardConfig

    cfg = BoardConfig()
    report: dict[str, object] = {"python": sys.version.split()[0],
                                 "scan_hz": cfg.scan_hz, "rest_hz": cfg.idle_hz,
                                 "rest_after_s": cfg.idle_after}
    report["daemon"] = daemon(args.seconds)
    it = iteration(200)
    report["iteration"] = it
    report["matrix"] = mx = matrix()
    report["serial"] = serial(min(args.seconds, 10.0))
    rest_us = it["at_rest_us"]["median"]  # type: ignore[index]
    budget = {}
    # a real Pi's lgpio call (an ioctl on /dev/gpiochip) is taken as 5 us on a Pi Zero 2 W
    lgpio_pi_us = PI_ZERO_FACTOR * mx["lgpio_driver_only_us_per_scan"] + 5.0 * 24  # type: ignore[operator]
    for board, here_us, pi_us in (
            ("sim", rest_us, PI_ZERO_FACTOR * rest_us),
            ("gpio (lgpio)", rest_us + mx["lgpio_driver_only_us_per_scan"],  # type: ignore[operator]
             PI_ZERO_FACTOR * rest_us + lgpio_pi_us),
            ("serial (Pico)", rest_us, PI_ZERO_FACTOR * rest_us)):
        budget[board] = {
            "iteration_us_here": round(here_us, 1),
            "iteration_us_pi_zero_2w": round(pi_us, 1),
            "percent_here_at_scan_rate": round(here_us * cfg.scan_hz / 1e4, 2),
            "percent_here_at_rest": round(here_us * cfg.idle_hz / 1e4, 2),
            "percent_pi_zero_2w_at_scan_rate": round(pi_us * cfg.scan_hz / 1e4, 1),
            "percent_pi_zero_2w_at_rest": round(pi_us * cfg.idle_hz / 1e4, 1),
        }
    report["pi_zero_2w"] = budget
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
