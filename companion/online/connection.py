"""One TCP connection to a line server, non-blocking and bounded both ways.

The network thread owns it: :meth:`LineConnection.receive` reads what is there (never
waits), :meth:`LineConnection.send` queues a line and :meth:`LineConnection.flush` writes
what the socket takes now. A line longer than :data:`MAX_LINE` is dropped whole (counted in
``dropped``), never buffered whole; more than :data:`MAX_OUT` bytes waiting to be written (a
server that stopped reading) is an error. Nothing here blocks past the connect timeout.
"""

from __future__ import annotations

import contextlib
import socket

MAX_LINE = 4 * 1024 * 1024     # the login burst lists every user of the server: allow 4 MiB
MAX_OUT = 256 * 1024
_CHUNK = 65536


class LinkError(OSError):
    """The connection failed or was closed; the message says how."""


def split_address(text: str, default_port: int = 49152) -> tuple[str, int]:
    """``host:port`` (``[v6]:port``, or a bare host) → (host, port); ValueError otherwise."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host or any(c.isspace() for c in host):
        raise ValueError(f"server {text!r}: expected host:port, e.g. hnefatafl.org:49152")
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"server {text!r}: the port must be a number from 1 to 65535")
    return host, int(port_text)


class LineConnection:
    """A connected socket speaking ``\\n``-terminated UTF-8 lines."""

    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise LinkError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        sock.setblocking(False)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 30), ("TCP_KEEPCNT", 3)):
            if hasattr(socket, name):  # as the server's own client does
                sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
        self.sock = sock
        self._in = bytearray()
        self._out = bytearray()
        self._skipping = False
        self.dropped = 0       # lines dropped for their length
        self.closed = False

    def fileno(self) -> int:
        return self.sock.fileno()

    @property
    def wants_write(self) -> bool:
        return bool(self._out)

    def receive(self) -> list[str]:
        """The complete lines that arrived (without their ``\\n``); LinkError once the server
        closed the connection (after the lines that came before it)."""
        lines: list[str] = []
        while True:
            try:
                chunk = self.sock.recv(_CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:
                self.close()
                raise LinkError(f"the connection broke: {exc.strerror or exc}") from None
            if not chunk:
                self._take_lines(lines)
                self.close()
                if lines:
                    return lines  # the next call reports the close
                raise LinkError("the server closed the connection")
            self._in += chunk
            self._take_lines(lines)
            if len(chunk) < _CHUNK:
                break
        return lines

    def _take_lines(self, out: list[str]) -> None:
        buf = self._in
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            else:
                raw = bytes(buf[start:end]).rstrip(b"\r")
                out.append(raw.decode("utf-8", errors="replace"))
            start = end + 1
        del buf[:start]
        if len(buf) > MAX_LINE:
            if not self._skipping:
                self.dropped += 1
            self._skipping = True
            buf.clear()

    def send(self, line: str) -> None:
        """Queue one line (no control characters: the server drops the connection for one)."""
        if not line or any(ord(c) < 32 or ord(c) == 127 for c in line):
            raise ValueError("a protocol line must be non-empty text without control characters")
        data = line.encode() + b"\n"
        if len(self._out) + len(data) > MAX_OUT:
            raise LinkError("the server stopped reading (the send buffer is full)")
        self._out += data

    def flush(self) -> None:
        """Write what the socket takes now."""
        while self._out and not self.closed:
            try:
                sent = self.sock.send(self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self.close()
                raise LinkError(f"the connection broke: {exc.strerror or exc}") from None
            del self._out[:sent]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sock.close()
