"""The firmware's link to the host: non-blocking bytes on stdin/stdout (USB CDC on the Pico,
a pty under CPython), and the byte pair that hands the line back to the REPL.

Runs unchanged under MicroPython and CPython.
"""

import sys

try:
    import utime as time
except ImportError:  # pragma: no cover - CPython without the shim on the path
    import time

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments

# mpremote and pyboard.py interrupt a running program with "\r" + Ctrl-C. The host driver never
# sends either byte, so this pair hands the serial line back to the REPL; a lone 0x03 does not.
REPL_REQUEST = b"\r\x03"


class Console:
    """Non-blocking byte I/O on stdin/stdout (USB CDC on the Pico, a pty under CPython)."""

    def __init__(self):
        # type: () -> None
        self.cpython = sys.implementation.name != "micropython"
        if self.cpython:
            import os
            import select

            self._os = os
            self._select = select
            self._fd_in = sys.stdin.fileno()
            self._fd_out = sys.stdout.fileno()
        else:
            import select

            self._kbd_intr(-1)  # a stray 0x03 byte is data, not Ctrl-C; see REPL_REQUEST
            self._poll = select.poll()
            self._poll.register(sys.stdin, select.POLLIN)
            self._in = getattr(sys.stdin, "buffer", sys.stdin)
            self._out = getattr(sys.stdout, "buffer", sys.stdout)  # type: Any

    def _kbd_intr(self, code):
        # type: (int) -> None
        try:
            import micropython

            micropython.kbd_intr(code)
        except ImportError:
            pass

    def release(self):
        # type: () -> None
        """Give stdin back to the REPL (Ctrl-C works again)."""
        if not self.cpython:
            self._kbd_intr(3)

    def read(self):
        # type: () -> bytes
        """Whatever bytes are waiting (possibly none)."""
        if self.cpython:
            try:
                ready = self._select.select([self._fd_in], [], [], 0)[0]
                if ready:
                    return self._os.read(self._fd_in, 1024)
            except OSError:  # no host on the other end of the pty
                pass
            return b""
        out = bytearray()
        while len(out) < 512 and self._poll.poll(0):
            b = self._in.read(1)
            if not b:
                break
            out.extend(b if isinstance(b, bytes) else b.encode())
        return bytes(out)

    def write(self, data):
        # type: (bytes) -> None
        """Send bytes (a complete line)."""
        if self.cpython:
            view = memoryview(data)
            while view:
                try:
                    n = self._os.write(self._fd_out, view)
                except BlockingIOError:
                    time.sleep_ms(1)
                    continue
                except OSError:
                    return
                view = view[n:]
            return
        self._out.write(data)
