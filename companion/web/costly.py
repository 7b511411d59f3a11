"""Costly requests: a budget per device, and renders kept instead of made again.

A QR code takes ~60 ms of Python to draw, the review of a 2,000-move game ~0.3 s and half a
megabyte; sixteen of them at once from one phone took the scan loop from 100 to 22–33 Hz (issue
17, defect 2). So the routes that make such answers (:data:`COSTLY`) are admitted by a
:class:`Budget`:

- each device (an address; IPv6: its /64) has a bucket of ``burst`` seconds of work (the CPU
  time its costly requests take, measured), refilled at ``rate`` seconds a second: a request
  is admitted while the bucket is not empty, and what it took is then taken from it (a QR code
  ~0.06 s: a few a second; a long game's review ~0.5 s: one every few seconds); the server
  lets a device have two requests in the app at a time (:class:`~companion.web.server.Turns`),
  so a page loading three QR codes gets them one after the other, never refused for it;
- all devices together may have ``running`` costly requests running at a time;
- beyond that the answer is ``429`` with ``Retry-After`` (``{"code": "busy"}``), at once: no
  thread waits for a turn.

What a costly route makes is kept in a :class:`RenderCache` (least recently used, bounded in
bytes): the same QR code or the same version of a finished game's review is made once. After a
costly request the worker thread gives the memory it freed back to the system (glibc keeps it
in the thread's arena otherwise: a few reviews of a long game left the daemon 25 MB larger).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from flask import Flask, Response, current_app, g, jsonify, request

from companion.token_bucket import TokenBucket
from companion.web.auth import address_key

#: Endpoints whose answers are costly to make: QR codes, review and replay documents, exports,
#: analyses, imports.
COSTLY = frozenset({
    "review.qr_svg", "review.review", "review.import_file",
    "game", "export_csv", "export_otg", "match_export_csv", "match_export_otg",
    "analysis", "start_analysis",
})


class Busy(Exception):
    """A costly request refused for now; try again after ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass
class _Device:
    bucket: TokenBucket
    running: int = 0


class Budget:
    """Admission of costly requests per device (see the module docstring)."""

    def __init__(self, burst: float = 1.5, rate: float = 0.1, running: int = 3,
                 devices: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.rate = rate
        self.running = running
        self.devices = devices
        self.clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, _Device] = OrderedDict()
        self._running = 0
        self.refused = 0

    def enter(self, device: str) -> None:
        """Admit one costly request of ``device`` (call :meth:`leave` after it); Busy if not."""
        now = self.clock()
        with self._lock:
            dev = self._buckets.get(device)
            if dev is None:
                self._make_room(now)
                dev = self._buckets[device] = _Device(
                    TokenBucket.full(self.burst, self.rate, now))
            self._buckets.move_to_end(device)
            if dev.bucket.refill(now) <= 0.0:
                self.refused += 1
                wait = dev.bucket.wait(0.0) + 0.1
                raise Busy(f"too many costly requests from your device: try again in "
                           f"{math.ceil(wait)} s", wait)
            if self._running >= self.running:
                self.refused += 1
                raise Busy("the companion is busy with other costly requests: try again "
                           "shortly", 1.0)
            dev.running += 1
            self._running += 1

    def leave(self, device: str, spent: float) -> None:
        """A costly request of ``device`` has finished after ``spent`` seconds of work."""
        with self._lock:
            dev = self._buckets.get(device)
            if dev is not None:
                dev.bucket.take(spent)
                dev.running = max(0, dev.running - 1)
            self._running = max(0, self._running - 1)

    def _make_room(self, now: float) -> None:
        """Keep at most ``devices`` buckets with a new one: drop idle full ones, oldest first
        (a device that comes back gets a full bucket, which it had anyway)."""
        if len(self._buckets) < self.devices:
            return
        for key in list(self._buckets):
            dev = self._buckets[key]
            if not dev.running and dev.bucket.is_full(now):
                del self._buckets[key]
                if len(self._buckets) < self.devices:
                    return
        while len(self._buckets) >= self.devices:  # all busy or spent: the oldest goes
            self._buckets.popitem(last=False)


class RenderCache:
    """Made answers by key, least recently used first out, at most ``max_bytes`` in all."""

    def __init__(self, max_bytes: int = 8 * 1024 * 1024, max_item: int = 2 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self.max_item = max_item
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, bytes] = OrderedDict()
        self.size = 0
        self.hits = 0
        self.misses = 0

    def get_or_make(self, key: Hashable, make: Callable[[], bytes]) -> bytes:
        with self._lock:
            data = self._items.get(key)
            if data is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return data
            self.misses += 1
        data = make()
        if len(data) <= self.max_item:
            with self._lock:
                old = self._items.pop(key, None)
                self.size -= len(old) if old is not None else 0
                self._items[key] = data
                self.size += len(data)
                while self.size > self.max_bytes:
                    _, gone = self._items.popitem(last=False)
                    self.size -= len(gone)
        return data


def _malloc_trim() -> Callable[[], object]:
    """glibc's ``malloc_trim(0)`` (hands freed heap memory back to the system), or a no-op."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is None:
        return lambda: None
    return lambda: trim(0)


give_back_memory = _malloc_trim()
#: Seconds of work after which a costly request gives its memory back (:func:`give_back_memory`).
TRIM_AFTER = 0.05


def cached(key: Hashable, make: Callable[[], bytes]) -> bytes:
    """``make()``, or what it made before for ``key``, from the app's render cache."""
    renders: RenderCache = current_app.extensions["tafl_renders"]
    return renders.get_or_make(key, make)


def install(app: Flask, budget: Budget | None = None, cache: RenderCache | None = None) -> Budget:
    """Admit the app's :data:`COSTLY` endpoints by ``budget`` and give it a render cache (call
    after the routes are added: an endpoint named here that does not exist is a bug)."""
    missing = COSTLY - set(app.view_functions)
    if missing:
        raise RuntimeError(f"costly endpoints not found: {', '.join(sorted(missing))}")
    budget = budget or Budget()
    app.extensions["tafl_budget"] = budget
    app.extensions["tafl_renders"] = cache or RenderCache()

    @app.before_request
    def _admit() -> None:
        if request.endpoint in COSTLY:
            device = address_key(request.remote_addr or "?")
            budget.enter(device)
            g.tafl_costly = (device, time.thread_time())

    @app.teardown_request
    def _done(_exc: BaseException | None) -> None:
        entered = g.pop("tafl_costly", None)
        if entered is not None:
            spent = time.thread_time() - entered[1]
            budget.leave(entered[0], spent)
            if spent > TRIM_AFTER:
                give_back_memory()

    @app.errorhandler(Busy)
    def _busy(exc: Busy) -> tuple[Response, int]:
        resp = jsonify(error=exc.message, code="busy")
        resp.headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
        return resp, 429

    return budget
