"""Real file-system faults for store tests: a small tmpfs that fills up, a read-only bind mount.

Mounting needs root (CI runs as root). Where mounts are not allowed the test is skipped with the
reason: there is no honest stand-in for a full disk in an unprivileged process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=30)


@contextlib.contextmanager
def mount_or_skip(path: Path, kind: str, size: str = "512k") -> Iterator[Path]:
    """Mount a ``tmpfs`` of ``size`` on ``path``, or bind ``path`` onto itself read-only
    (``kind="bind,ro"``); unmounted afterwards. Skips when this process cannot mount."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs or a read-only bind needs root")
    if kind == "tmpfs":
        res = _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    else:
        res = _run("mount", "--bind", str(path), str(path))
        if res.returncode == 0:
            res2 = _run("mount", "-o", "remount,bind,ro", str(path))
            if res2.returncode != 0:
                _run("umount", str(path))
                res = res2
    if res.returncode != 0:
        pytest.skip(f"cannot mount here ({res.stderr.strip()})")
    try:
        yield path
    finally:
        for _ in range(20):
            if _run("umount", str(path)).returncode == 0:
                break
            _run("sync")


def fill(path: Path, name: str = "filler", keep: int = 0) -> Path:
    """Fill the file system of ``path`` with one file until it is full (ENOSPC); then free
    ``keep`` bytes again. Returns the filler file."""
    filler = path / name
    chunk = b"\0" * 4096
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(chunk)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    if keep:
        size = filler.stat().st_size
        os.truncate(filler, max(0, size - keep))
    return filler
