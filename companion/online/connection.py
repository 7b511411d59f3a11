"""One TCP connection to a line server, non-blocking and bounded both ways.

The network thread owns it: :meth:`LineConnection.read` reads once what is there (never
waits, at most one 64 KiB chunk) and :meth:`LineConnection.next_line` hands the complete lines
out one at a time; the client reads again only when every line read was taken
(:attr:`LineConnection.wants_read`), so a server that sends faster than the client handles
waits in TCP's flow control and what is read ahead stays under :data:`MAX_LINE` + 64 KiB.
A line longer than :data:`MAX_LINE` is never buffered whole: it is skipped up to its newline
(counted in ``dropped``, reported by the client) and the link goes on with the next line.
:meth:`LineConnection.send` queues a line and :meth:`LineConnection.flush` writes what the
socket takes now; more than :data:`MAX_OUT` bytes waiting to be written (a server that stopped
reading) is an error. Nothing here blocks past the connect timeout.
"""

from __future__ import annotations

import contextlib
import socket
from collections import deque

MAX_LINE = 4 * 1024 * 1024     # the login burst lists every user of the server: allow 4 MiB
MAX_OUT = 256 * 1024
RECEIVE_BUFFER = 256 * 1024    # the socket's receive buffer (the kernel's read-ahead)
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


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    """``socket.create_connection`` with a bounded receive buffer, set before the connect (so
    the window is bounded from the start): the kernel holds at most :data:`RECEIVE_BUFFER`
    of what the server sent ahead, instead of growing its buffer to tens of MiB."""
    error: OSError | None = None
    for family, kind, proto, _name, address in socket.getaddrinfo(
            host, port, 0, socket.SOCK_STREAM):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
            sock.settimeout(timeout)
            sock.connect(address)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    raise error or OSError(f"{host} has no address")


class LineConnection:
    """A connected socket speaking ``\\n``-terminated UTF-8 lines."""

    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        try:
            sock = _connect(host, port, timeout)
        except OSError as exc:
            raise LinkError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        sock.setblocking(False)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 30), ("TCP_KEEPCNT", 3)):
            if hasattr(socket, name):  # as the server's own client does
                sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
        self.sock = sock
        self._in = bytearray()           # the line being read (at most MAX_LINE bytes)
        self._ready: deque[str] = deque()  # complete lines read, not yet taken
        self._ready_bytes = 0
        self._eof: str | None = None
        self._out = bytearray()
        self._skipping = False
        self.dropped = 0       # lines dropped for their length
        self.closed = False

    def fileno(self) -> int:
        return self.sock.fileno()

    @property
    def wants_write(self) -> bool:
        return bool(self._out)

    @property
    def wants_read(self) -> bool:
        """Whether to read from the socket now: only once every line read so far was taken
        (back-pressure: a server that sends faster than the client handles waits in TCP)."""
        return not self._ready and not self.closed

    @property
    def ended(self) -> bool:
        """The server closed the connection and every line before the close was taken
        (:meth:`read` then raises LinkError)."""
        return self._eof is not None and not self._ready

    @property
    def buffered(self) -> int:
        """Bytes read from the socket and not yet taken as lines (at most about
        :data:`MAX_LINE` + one read)."""
        return len(self._in) + self._ready_bytes

    def read(self) -> None:
        """Read once (at most :data:`_CHUNK` bytes, never waits) and split off the complete
        lines for :meth:`next_line`; LinkError once the server closed the connection (after
        the lines that came before it were taken)."""
        if self._eof:
            if not self._ready:
                raise LinkError(self._eof)
            return
        try:
            chunk = self.sock.recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.close()
            raise LinkError(f"the connection broke: {exc.strerror or exc}") from None
        if not chunk:
            self.close()
            self._eof = "the server closed the connection"
            if not self._ready:
                raise LinkError(self._eof)
            return
        self._split(chunk)

    def next_line(self) -> str | None:
        """The next complete line read (without its ``\\n``), or None."""
        if not self._ready:
            return None
        line = self._ready.popleft()
        self._ready_bytes -= len(line)
        return line

    def receive(self) -> list[str]:
        """Read once and take every complete line (tests; the client uses :meth:`read` and
        :meth:`next_line`)."""
        if self.wants_read or self._eof:
            self.read()
        lines = []
        while (line := self.next_line()) is not None:
            lines.append(line)
        return lines

    def _split(self, chunk: bytes) -> None:
        """Append ``chunk``; move its complete lines to the ready queue. A line is never
        buffered past :data:`MAX_LINE`: the rest of it, up to its newline, is skipped."""
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            elif len(self._in) + end - start > MAX_LINE:
                self.dropped += 1
            else:
                self._in += chunk[start:end]
                raw = bytes(self._in).rstrip(b"\r")
                self._in.clear()
                text = raw.decode("utf-8", errors="replace")
                self._ready.append(text)
                self._ready_bytes += len(text)
            self._in.clear()
            start = end + 1
        if self._skipping:
            return
        if len(self._in) + len(chunk) - start > MAX_LINE:
            self.dropped += 1
            self._skipping = True
            self._in.clear()
        else:
            self._in += chunk[start:]

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
