"""When a search stops: its :class:`Limits`, and the :class:`SearchBudget` that counts its
nodes and stops it (raising :class:`Abort`) once a limit is reached."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


class Abort(Exception):
    """Raised inside the search when time is up or a stop was requested."""


@dataclass
class Limits:
    """When to stop: any of depth, nodes, seconds (None: no limit), or the ``stop`` event."""

    depth: int | None = None
    nodes: int | None = None
    seconds: float | None = None
    stop: threading.Event | None = None
    multipv: int = 1
    # no new iteration once about half of this has passed (None: search to ``seconds``)
    soft: float | None = None


class SearchBudget:
    """The nodes a search has visited and its time, node and stop limits. The search counts
    every node in :attr:`nodes` and calls :meth:`check` every 128 nodes."""

    def __init__(self) -> None:
        # the clock the time limit is measured on (benchmarks on a shared machine use CPU time)
        self.clock: Callable[[], float] = time.monotonic
        self.nodes = 0
        self.deadline = 0.0
        self.node_limit = 0
        self.stop: threading.Event | None = None

    def use_cpu_clock(self, scale: float = 1.0) -> None:
        """Measure the time limit in CPU seconds times ``scale`` (benchmarks: a busy machine,
        or a slower one emulated)."""
        self.clock = (lambda: time.process_time() * scale) if scale != 1.0 else time.process_time

    def start(self, limits: Limits) -> float:
        """Start counting a search under ``limits``; its start time on :attr:`clock`."""
        start = self.clock()
        self.nodes = 0
        self.deadline = start + limits.seconds if limits.seconds else 0.0
        self.node_limit = limits.nodes or 0
        self.stop = limits.stop
        return start

    def check(self) -> None:
        """Raise :class:`Abort` if a stop was requested, time is up or the nodes are spent."""
        if self.stop is not None and self.stop.is_set():
            raise Abort
        if self.deadline and self.clock() >= self.deadline:
            raise Abort
        if self.node_limit and self.nodes >= self.node_limit:
            raise Abort
