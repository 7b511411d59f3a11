"""The web server's bounds, in one place (docs/security.md, "Limits in one place")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The server's bounds (seconds, bytes, counts).

    A request body is at most ``max_body`` bytes, an import's ``max_import_body``
    (:data:`IMPORT_PATH`).

    ``head_timeout`` and ``request_timeout`` both count from a request's first byte and are never
    extended by more bytes: the head must be whole within the first, the whole request (head and
    body) within the second. One address has at most ``app_per_address`` requests in the app
    at a time and ``requests_rate`` a second after a burst of ``requests_burst``; its other
    requests wait their turn in their connections (nothing is read from them meanwhile). A
    response whose client takes nothing for ``write_stall`` seconds is dropped (a slow reader);
    ``write_timeout`` bounds the wait for a closing connection's last bytes."""

    max_connections: int = 512
    per_address: int = 32
    head_timeout: float = 10.0
    request_timeout: float = 15.0
    idle_timeout: float = 30.0
    write_timeout: float = 30.0
    write_stall: float = 10.0
    max_head: int = 8192
    max_headers: int = 64
    max_body: int = 16 * 1024
    #: an import (``POST /api/import``: a game file as JSON) may be this large, and take this
    #: long to arrive; at most ``large_bodies`` such bodies (over ``max_body``) are held at once
    max_import_body: int = 4 * 1024 * 1024
    import_timeout: float = 120.0
    large_bodies: int = 2
    workers: int = 6
    max_pending: int = 64
    app_per_address: int = 2
    requests_burst: int = 40
    requests_rate: float = 20.0
    max_streams: int = 400
    streams_per_address: int = 16
    keepalive: float = 15.0
    stall_timeout: float = 60.0


DEFAULT_LIMITS = Limits()
#: The one route whose body may be larger than ``max_body`` (a game file to import).
IMPORT_PATH = b"/api/import"

