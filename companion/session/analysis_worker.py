"""Post-game analysis on a worker thread with its own engine process.

``POST /api/games/ID/analysis`` queues a stored game (finished, replayed, imported, a match's
game); one worker thread analyses one game at a time through its own
:class:`~companion.engine.OtepHost` (:func:`companion.engine.analyse_game`: every position for
``seconds``) and reports its progress. The worker reads the store (its own connection, read-only
for it) and never writes it: it hands the :class:`~companion.engine.GameReview` to ``save``
(the session's loop thread stores it in the ``analyses`` table with the moves analysed, then
calls :meth:`AnalysisWorker.saved`). A stored analysis is served again without recomputing (as
long as the game's moves are the same). Quitting stops the worker at once.

Finished and imported games are also queued by themselves (:meth:`AnalysisWorker.later`, the
config's ``[computer] analyse_finished``): such an analysis waits :data:`LATER_S` first (people
look at the result, start the next game, the computer player's first search has the CPU), is
dropped if its game is being played again by then (a takeback reopened it: it is queued again
when it ends), and asking for it on the page starts it at once.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from companion.session.results import AnalysisStatus
from companion.store import StoreError, StoreReader

if TYPE_CHECKING:
    from companion.engine import OtepHost
    from companion.engine.analysis import ReviewJSON

log = logging.getLogger("companion.session")

#: A background analysis starts this long after it was queued (see the module docstring).
LATER_S = 20.0

#: Hands a finished analysis to be stored: (game, the moves analysed, seconds, engine, review).
Save = Callable[[int, list[str], float, str, "ReviewJSON"], object]


class _Job(NamedTuple):
    gid: int
    seconds: float
    due: float  # monotonic time it may start (0: at once)
    background: bool  # queued by itself (analyse_finished), not asked for


@dataclass
class _Progress:
    """A queued or running analysis: positions done of total, seconds per move, whether it
    started (a background one waits for its time)."""

    done: int
    total: int
    seconds: float
    started: bool


class AnalysisWorker:
    """Analyses queued games one after the other (see the module docstring)."""

    def __init__(self, store: StoreReader, save: Save,
                 argv: Callable[[], list[str]] | None = None, name: str = "analysis") -> None:
        self.store = store
        self._save = save
        self._argv = argv
        self.name = name
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queue: deque[_Job] = deque()
        self._running: dict[int, _Progress] = {}
        self._failed: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._host: OtepHost | None = None
        self.timings: list[tuple[int, int, float]] = []  # (game, positions, seconds) done

    # -- asking --------------------------------------------------------------------------------
    def status(self, gid: int, moves: list[str] | None = None) -> AnalysisStatus:
        """``{"game", "status", "done", "total", "review", "error"?, "seconds"?}``; status
        ``none``, ``queued`` (a background analysis waiting for its time), ``running``,
        ``done`` or ``failed``."""
        with self._lock:
            running = self._running.get(gid)
            if running is not None:
                status = "running" if running.started else "queued"
                return {"game": gid, "status": status, "done": running.done,
                        "total": running.total, "review": None, "seconds": running.seconds}
            failed = self._failed.get(gid)
        stored = self.store.analysis(gid)
        if moves is None:
            moves = self.store.move_texts(gid)
        if stored is not None and stored["moves"] == moves:
            n = len(moves) + 1
            return {"game": gid, "status": "done", "done": n, "total": n,
                    "review": stored["review"], "seconds": stored["seconds"],
                    "engine": stored["engine"]}
        if failed is not None:
            return {"game": gid, "status": "failed", "done": 0, "total": len(moves) + 1,
                    "review": None, "error": failed}
        return {"game": gid, "status": "none", "done": 0, "total": len(moves) + 1,
                "review": None}

    def start(self, gid: int, seconds: float,
              delay: float = 0.0) -> tuple[int, AnalysisStatus]:
        """Queue ``gid`` (202), or (200) its stored analysis or the one already running. With
        ``delay`` (a background analysis) it starts no sooner than that; asked for without one,
        a background analysis still waiting starts at once, as asked."""
        moves = self.store.move_texts(gid)
        now = self.status(gid, moves)
        if now["status"] in ("done", "running"):
            return (200 if now["status"] == "done" else 202), now
        with self._lock:
            if gid in self._running:  # queued already (or asked twice at once)
                if not delay and not self._running[gid].started:
                    self._queue = deque(_Job(gid, seconds, 0.0, False) if j.gid == gid else j
                                        for j in self._queue)
                    self._running[gid].started, self._running[gid].seconds = True, seconds
                    self._wake.notify()
                return 202, {**now, "status": "running" if not delay else now["status"]}
            self._failed.pop(gid, None)
            self._running[gid] = _Progress(0, len(moves) + 1, seconds, not delay)
            self._queue.append(_Job(gid, seconds, time.monotonic() + delay if delay else 0.0,
                                    bool(delay)))
            self._wake.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="analysis",
                                                 daemon=True)
                self._thread.start()
        return 202, self.status(gid, moves)

    def later(self, gid: int, seconds: float) -> None:
        """Queue a finished or imported game for the background (see the module docstring)."""
        try:
            self.start(gid, seconds, delay=LATER_S)
        except (StoreError, sqlite3.Error, OSError) as exc:
            log.warning("game %d is not analysed in the background: %s", gid, exc)

    def saved(self, gid: int, error: str | None = None) -> None:
        """The loop stored the analysis of ``gid`` (or could not: ``error``)."""
        with self._lock:
            self._running.pop(gid, None)
            if error is not None:
                self._failed[gid] = error

    def use_engine(self, argv: Callable[[], list[str]]) -> None:
        """Analyse with another engine command from the next game on."""
        with self._lock:
            self._argv, host, self._host = argv, self._host, None
        if host is not None:
            host.close()

    def close(self, timeout: float = 5.0) -> None:
        """Stop at once (the engine is killed) and wait for the thread."""
        self._stop.set()
        with self._lock:
            self._queue.clear()
            self._wake.notify()
            thread, host = self._thread, self._host
        if host is not None:
            host.close()
        if thread is not None:
            thread.join(timeout)

    # -- the worker ----------------------------------------------------------------------------
    def _work(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                while not self._stop.is_set():
                    due = min((j.due for j in self._queue), default=None)
                    if due is not None and due <= time.monotonic():
                        break
                    self._wake.wait(None if due is None else due - time.monotonic())
                if self._stop.is_set():
                    return
                job = min(self._queue, key=lambda j: j.due)  # the first due, in order
                self._queue.remove(job)
                gid, seconds = job.gid, job.seconds
            try:
                if job.background and self.store.game(gid).ended is None:
                    self.saved(gid)  # played again (a takeback): queued when it ends
                    continue
                self._analyse(gid, seconds)  # running until the loop stored it
            except Exception as exc:  # an engine failure, a game the rules cannot replay ...
                if self._stop.is_set():
                    return
                log.warning("analysis of game %d failed: %s", gid, exc)
                self.saved(gid, str(exc) or type(exc).__name__)

    def _analyse(self, gid: int, seconds: float) -> None:
        from companion.engine import OtepHost, analyse_game, builtin_engine_command

        try:
            game = self.store.load_game(gid)
        except StoreError as exc:
            raise RuntimeError(f"game {gid} cannot be replayed: {exc}") from None
        moves = list(game.moves)
        with self._lock:
            if self._host is None or self._host.closed:
                argv = self._argv() if self._argv else builtin_engine_command(level=10)
                self._host = OtepHost(argv, name=self.name if self._argv else
                                      "tafl-companion engine")
            host = self._host
            if gid in self._running:  # a background analysis: its time has come
                self._running[gid].started = True

        def progress(done: int, total: int) -> None:
            with self._lock:
                if gid in self._running:
                    self._running[gid].done, self._running[gid].total = done, total

        started = time.monotonic()
        review = analyse_game(host, game, seconds, stop=self._stop, on_progress=progress)
        if self._stop.is_set():
            return
        took = time.monotonic() - started
        self.timings.append((gid, len(moves) + 1, took))
        self._save(gid, moves, seconds, host.name, review.to_json())
        log.info("game %d analysed: %d positions in %.1f s", gid, len(moves) + 1, took)
