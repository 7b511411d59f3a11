"""The board's parts it can play without — the display, the buttons, the LEDs — when one is
configured but cannot be opened (a loose cable, a bus not enabled, a library missing).

A missing part never takes the board away: the daemon starts without it, logs which part is
missing, why and how to check for it (``i2cdetect -y 1`` for a display on I2C bus 1), shows the
same on the page (``board.parts`` of ``/api/state``), and :class:`PartsWatch` tries to open it
again every :data:`RETRY_S` seconds on its own thread (never on the scan loop; a failed retry is
logged only when its reason changes). Once it opens, it is handed to whoever uses it (the
panel's :meth:`~companion.panel.Panel.attach_display`, :class:`WaitingLeds`), logged, and gone
from the page. The board itself is not such a part: a board that cannot be read is the
session's ``board.connected``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from companion.drivers.base import LedSink
from companion.drivers.leds import PageOnlySink
from companion.hardware_drivers import PartMissing

log = logging.getLogger("companion.parts")

#: Seconds between two attempts to open a missing part (a cable pushed back in is found within
#: this long; not more often: opening a bus that is not there costs little, but nothing is won).
RETRY_S = 30.0


class PartStatus(TypedDict):
    """One missing part as ``/api/state`` gives it (``board.parts``)."""

    part: str  # "display" | "buttons" | "leds"
    problem: str  # why it cannot be opened (English, as the log says it)
    check: str  # a command that shows whether it is there
    retry_s: float  # it is tried again this often


@dataclass
class _Missing:
    # (only the words are kept, never the exception: its traceback would keep the driver's
    # half-made objects alive, e.g. a gpiozero Button whose pin stays reserved by it)
    problem: str
    check: str
    reopen: Callable[[], Any]
    attach: Callable[[Any], None]


class PartsWatch:
    """The missing parts and their retries (see the module docstring). Thread-safe.

    ``publish`` gets the list of missing parts whenever it changed (on this watch's thread; the
    daemon hands it to the session, a command of its loop). ``wait`` waits ``retry_s`` seconds
    between two rounds and returns True to stop (tests give their own)."""

    def __init__(self, publish: Callable[[list[PartStatus]], None], retry_s: float = RETRY_S,
                 wait: Callable[[float], bool] | None = None) -> None:
        self.retry_s = retry_s
        self._publish = publish
        self._lock = threading.Lock()
        self._missing: dict[str, _Missing] = {}
        self._stop = threading.Event()
        self._wait = wait or self._stop.wait
        self._thread: threading.Thread | None = None
        self._published: list[PartStatus] = []
        self.attempts = 0  # openings tried since the start

    def missing(self, error: PartMissing, reopen: Callable[[], Any],
                attach: Callable[[Any], None]) -> None:
        """``error.part`` could not be opened: ``reopen()`` tries again (raising PartMissing
        while it is still missing), ``attach(device)`` hands over what it opened."""
        log.warning("%s missing: %s; check: %s (the board plays without it; tried again every "
                    "%.0f s)", error.part, error, error.check, self.retry_s)
        with self._lock:
            self._missing[error.part] = _Missing(str(error), error.check, reopen, attach)

    def to_json(self) -> list[PartStatus]:
        with self._lock:
            return [{"part": name, "problem": m.problem, "check": m.check,
                     "retry_s": self.retry_s} for name, m in sorted(self._missing.items())]

    def start(self) -> None:
        """Publish the missing parts and retry them on a thread (nothing when none is)."""
        with self._lock:
            if not self._missing or self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="parts", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop retrying (idempotent); waits for a round in progress."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def _run(self) -> None:
        self._announce()
        while not self._stop.is_set() and self.to_json():
            if self._wait(self.retry_s) or self._stop.is_set():
                return
            self.retry()
            self._announce()

    def retry(self) -> None:
        """One round: try to open every missing part once (the thread's; tests call it)."""
        with self._lock:
            waiting = list(self._missing.items())
        for name, m in waiting:
            if self._stop.is_set():
                return
            self.attempts += 1
            try:
                device = m.reopen()
            except PartMissing as exc:
                self._still_missing(name, m, str(exc), exc.check)
                continue
            except Exception as exc:  # noqa: BLE001 - a driver's bug must not end the retries
                self._still_missing(name, m, f"opening it failed: {exc!r}", m.check)
                continue
            try:
                m.attach(device)
            except Exception:  # noqa: BLE001 - its user is closing: give the device back
                log.exception("%s: found, but it could not be put to use", name)
                _close(device)
                continue
            log.info("%s found: in use again", name)
            with self._lock:
                self._missing.pop(name, None)

    def _still_missing(self, name: str, m: _Missing, problem: str, check: str) -> None:
        if problem == m.problem:
            return  # said again only when the reason changed
        log.warning("%s still missing: %s; check: %s", name, problem, check)
        with self._lock:
            m.problem, m.check = problem, check

    def _announce(self) -> None:
        now = self.to_json()
        if now == self._published:
            return
        try:
            self._publish(now)
        except Exception as exc:  # noqa: BLE001 - the loop busy or stopping: the next round
            log.debug("parts: not published yet: %s", exc)
            return
        self._published = now


class WaitingLeds:
    """The LED sink of a board whose LEDs are missing: nothing is lit (the page still shows
    the LED frame) until :meth:`attach` hands over the opened sink; then the loop's next frame
    goes to it. Shown from the loop thread, attached from the watch's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sink: LedSink = PageOnlySink()
        self._closed = False

    @property
    def sink(self) -> LedSink:
        return self._sink

    def show(self, frame: dict[str, str], now: float) -> None:
        self._sink.show(frame, now)

    def attach(self, sink: LedSink) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the LEDs are closed")
            self._sink = sink

    def close(self) -> None:
        with self._lock:
            self._closed = True
            sink = self._sink
        sink.close()


def _close(device: Any) -> None:
    close = getattr(device, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001 - it is being given up anyway
            log.debug("closing a part that was not put to use failed", exc_info=True)
