"""The storage outbox: what the session has decided but not stored yet, and the store's health.

Event rows (the tracker's reports, refusals, hints, ...) wait here until the next write takes
them with the game in one transaction; log lines of moves wait too (a move in the log is never
lost). When a write fails (a full disk, I/O errors) everything stays pending, the storage state
says so (``storage`` in the page state), and :meth:`Outbox.due` says when to try again (once a
second); the first write that succeeds stores every row of the outage.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from enum import StrEnum
from typing import TypedDict

from companion.store_types import EventRow, RowData

log = logging.getLogger("companion.session")

STORAGE_RETRY_S = 1.0
#: Errors of a write that the outbox waits out (anything else is a bug and propagates).
STORE_ERRORS = (sqlite3.Error, OSError)

#: An event row: (kind, data, wall time)
Row = EventRow


class Written(StrEnum):
    """How a write went: stored (``OK``), stored after an outage (``RECOVERED``), not stored
    (``FAILED``), or not stored and the store worked until now (``DOWN``)."""

    OK = "ok"
    RECOVERED = "recovered"
    FAILED = "failed"
    DOWN = "down"

    @property
    def stored(self) -> bool:
        return self in (Written.OK, Written.RECOVERED)


class StorageJSON(TypedDict, total=False):
    """``storage`` in the page state."""

    ok: bool
    since: float
    detail: str
    pending: int
    retries: int


class Outbox:
    """Pending rows and log lines, and whether the store writes (see the module docstring)."""

    def __init__(self, wall: Callable[[], float]) -> None:
        self._wall = wall
        self.rows: list[Row] = []
        self._unlogged: list[str] = []
        self.state: StorageJSON = {"ok": True}
        self._retry_at = 0.0

    @property
    def ok(self) -> bool:
        return bool(self.state["ok"])

    def add(self, kind: str, data: RowData, wall: float | None = None) -> None:
        self.rows.append((kind, data, self._wall() if wall is None else wall))

    def log_when_stored(self, line: str) -> None:
        self._unlogged.append(line)

    def due(self, now: float) -> bool:
        """Whether a failed write is to be tried again now."""
        return not self.ok and now >= self._retry_at

    def write(self, store: Callable[[list[Row]], None], now: float) -> Written:
        """Call ``store`` with the pending rows: on success they are done (and their log lines
        written); on failure everything stays pending and the state says so."""
        try:
            store(list(self.rows))
        except STORE_ERRORS as exc:
            return self.failed(exc, now)
        self.rows.clear()
        for line in self._unlogged:
            log.info("%s", line)
        self._unlogged.clear()
        if self.ok:
            return Written.OK
        log.warning("the store writes again: every move and event of the outage is saved")
        self.state = {"ok": True}
        return Written.RECOVERED

    def failed(self, exc: BaseException, now: float) -> Written:
        """A write failed (``DOWN`` when the store worked until now: the board is to wait)."""
        self._retry_at = now + STORAGE_RETRY_S
        first = self.ok
        if first:
            log.error("the store cannot write (%s): moves are not being saved; the board waits",
                      exc)
            self.state = {"ok": False, "since": self._wall(), "detail": str(exc)}
        self.state["pending"] = len(self.rows)
        self.state["retries"] = self.state.get("retries", 0) + 1
        return Written.DOWN if first else Written.FAILED
