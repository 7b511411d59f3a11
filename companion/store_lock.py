"""One daemon per data directory, enforced by the operating system.

Two daemons on one store would each keep their own game in memory and write over each other's
moves (both pages saying "saved"). :class:`DataDirLock` takes an exclusive ``flock`` on
``daemon.lock`` beside the store and holds it for the process's life: the kernel releases it
when the process ends in any way (``kill -9`` and a power cut included), so a stale lock file
never blocks a restart. The holder writes its pid into the file; a second daemon reads it to
say who holds the store.

The file descriptor is not inherited by child processes (engines are started with ``exec``;
Python's descriptors are close-on-exec), so an engine that outlives the daemon does not keep
the store locked.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

LOCK_NAME = "daemon.lock"


class StoreLocked(ValueError):
    """Another process holds the data directory (its message is the one line to print)."""


class DataDirLock:
    """The exclusive lock on a data directory (see the module docstring)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> DataDirLock:
        """Take the lock (the directory must exist) or raise :class:`StoreLocked` naming the
        holder's pid; ``OSError`` when the lock file cannot be made at all."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_pid(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            who = f"pid {holder}" if holder else "another process"
            raise StoreLocked(
                f"another tafl-companion ({who}) is running on --data-dir {self.data_dir}: "
                "stop it first (one daemon per data directory), or give this one another "
                "--data-dir") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    @property
    def held(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        """Give the lock up (idempotent). The pid stays in the file: only the lock counts."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the only descriptor releases the flock

    def __enter__(self) -> DataDirLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
