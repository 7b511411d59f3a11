"""One OTEP engine process and the threads that serve it (for :mod:`.otep_host`).

A reader thread hands every stdout line to the host, a drain thread keeps the last stderr
lines (quoted when the engine crashes), a writer thread sends the host's lines once the engine
has said ``hello``, and a timer reports a missing ``hello``. The process runs in its own session,
so :meth:`EngineProcess.kill` ends its whole process group (an engine started by a shell
script included).
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

#: ``schedule(delay, fn)`` runs ``fn()`` once after ``delay`` seconds (on some other thread) and
#: returns a function that cancels it: the host's timers (a hello, a request's deadline, the
#: reaping of a closed engine). Tests pass one driven by a fake clock.
Schedule = Callable[[float, Callable[[], None]], Callable[[], None]]


def thread_timer(delay: float, fn: Callable[[], None]) -> Callable[[], None]:
    """The real :data:`Schedule`: a daemon ``threading.Timer``."""
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()
    return timer.cancel


class EngineError(Exception):
    """An engine failed: ``kind`` is ``crash``, ``silence``, ``garbage``, ``illegal`` or
    ``stopped``; the message is for people (the page shows it)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class ProcessOwner:
    """What an :class:`EngineProcess` needs from whoever runs it (the host): the command, and
    where its lines, its exit and its failures go (called on the process's threads)."""

    argv: Sequence[str]
    name: str
    cwd: str | None
    hello_timeout: float
    on_line: Callable[[EngineProcess, str], None]
    on_exit: Callable[[EngineProcess], None]
    on_fail: Callable[[EngineProcess, EngineError], None]
    schedule: Schedule = field(default=thread_timer)
    clock: Callable[[], float] = field(default=time.monotonic)


class EngineProcess:
    """One engine process and its threads."""

    def __init__(self, owner: ProcessOwner) -> None:
        self.owner = host = owner
        self.hello = threading.Event()
        # what waits for the hello (the host's request deadlines; under the host's lock)
        self.on_hello: list[Callable[[], None]] = []
        self.dead = threading.Event()
        self.outbox: queue.Queue[str | None] = queue.Queue()
        self.stderr_tail: deque[str] = deque(maxlen=8)
        self.junk_tail: deque[str] = deque(maxlen=4)
        self.exit_code: int | None = None
        self.proc: subprocess.Popen[str] | None = None
        self.killed = False
        self.started = host.clock()
        try:
            self.proc = subprocess.Popen(
                list(host.argv), cwd=host.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                bufsize=1, start_new_session=True,
            )
        except OSError as exc:
            self.dead.set()
            raise EngineError(
                "crash", f"engine {host.name!r} could not be started: {exc.strerror or exc}"
            ) from None
        self._drainer = threading.Thread(target=self._drain, name="otep-err", daemon=True)
        self._drainer.start()
        for target, name in ((self._read, "out"), (self._write, "in")):
            threading.Thread(target=target, name=f"otep-{name}", daemon=True).start()
        host.schedule(host.hello_timeout, self._hello_timeout)

    def send(self, line: str) -> None:
        self.outbox.put(line)

    def _write(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        while True:
            line = self.outbox.get()
            if line is None:
                break
            while not self.hello.wait(0.1):
                if self.dead.is_set():
                    return
            try:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                return  # the reader reports the exit

    def _drain(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stderr is not None
        try:
            for line in proc.stderr:
                if line.strip():
                    self.stderr_tail.append(line.rstrip()[:200])
        except (OSError, ValueError):
            pass

    def _read(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        try:
            for raw in proc.stdout:
                line = raw.strip()
                if line:
                    self.owner.on_line(self, line)
        except (OSError, ValueError):
            pass
        try:
            self.exit_code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.exit_code = None
        # its last words on stderr belong in the report of its exit: the drain ends at the
        # pipe's end, which a busy machine may reach after this thread saw stdout's
        self._drainer.join(timeout=2)
        self.dead.set()
        self.outbox.put(None)
        self.owner.on_exit(self)

    def _hello_timeout(self) -> None:
        if not self.hello.is_set() and not self.dead.is_set():
            self.owner.on_fail(self, EngineError(
                "silence",
                f"engine {self.owner.name!r} did not say hello within "
                f"{self.owner.hello_timeout:g} s{self.junk_note()}",
            ))

    def junk_note(self) -> str:
        if self.junk_tail:
            return "; it printed only: " + " | ".join(self.junk_tail)
        if self.stderr_tail:
            return "; its last message: " + self.stderr_tail[-1]
        return ""

    def kill(self) -> None:
        self.killed = True
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                with contextlib.suppress(OSError):
                    proc.kill()
        self.outbox.put(None)
