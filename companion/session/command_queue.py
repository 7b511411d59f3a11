"""The session's command queue: how any thread asks the one loop thread to act.

The session has one writer of the game and the store: its loop thread (the daemon's scan loop,
or in the tests the thread that steps the session). Every other thread — a web request, a
network client, the analysis worker — only *enqueues* a command and, when it needs the answer,
waits on a :class:`concurrent.futures.Future` with a bounded timeout. The loop thread drains
the queue between scans (:meth:`CommandQueue.drain`) and applies each command in order.

A call made on the loop thread itself (the computer resigning during a loop step, a test that
steps the session by hand) runs at once: the loop never waits for itself.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from companion.session.actors import ControlError

log = logging.getLogger("companion.session")

T = TypeVar("T")
P = ParamSpec("P")

#: How long a web thread waits for the loop to apply its command before it answers 503.
COMMAND_TIMEOUT = 5.0
#: At most this many commands wait; more are refused at once with 503 (a flood of controls
#: never grows the queue without bound).
MAX_WAITING = 256
#: A loop step applies waiting commands for at most this long (at least one).
DRAIN_BUDGET = 0.02


def loop_busy() -> ControlError:
    return ControlError(503, "busy", "the board's loop did not answer in time; nothing was "
                                     "changed, try again")


@dataclass
class Settlements:
    """Commands applied by :meth:`CommandQueue.drain`, whose callers are not answered yet."""

    done: list[tuple[Future[Any], Any, BaseException | None]] = field(default_factory=list)

    def settle(self) -> None:
        """Answer every caller (after the state they changed was published)."""
        for future, result, exc in self.done:
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(result)
        self.done.clear()

    def __len__(self) -> int:
        return len(self.done)


@dataclass
class _Command:
    fn: Callable[[], Any]
    future: Future[Any]
    what: str


class CommandQueue:
    """Commands for the loop thread (see the module docstring). Thread-safe."""

    def __init__(self, timeout: float = COMMAND_TIMEOUT) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._waiting: deque[_Command] = deque()
        self._owner: int | None = None
        self._closed = False
        self._posted = threading.Event()  # wakes the loop thread waiting between scans

    # -- the loop thread ----------------------------------------------------------------------
    def claim(self) -> None:
        """The calling thread is the loop thread from now on (called at every loop step): the
        first thread that steps owns the queue for good. Another thread stepping is a
        programming error (two writers of one game): RuntimeError, before anything is done."""
        me = threading.get_ident()
        with self._lock:
            if self._owner is None:
                self._owner = me
            elif self._owner != me:
                raise RuntimeError(
                    f"the session is stepped by thread {threading.current_thread().name!r} but "
                    "its loop thread is another one: one thread steps a session")

    def on_loop_thread(self) -> bool:
        return self._owner == threading.get_ident()

    def drain(self, limit: int = 32, budget: float = DRAIN_BUDGET) -> Settlements:
        """Apply waiting commands in order (on the loop thread): up to ``limit``, and no more
        once ``budget`` seconds went by (the rest wait for the next step, so a flood of
        controls never holds up the scans). Their callers are answered by
        :meth:`Settlements.settle`, once what they changed is published (a caller never reads
        a state older than its own command). A command's exception goes to its caller, never
        up the loop."""
        out = Settlements()
        started = time.monotonic()
        while len(out.done) < limit and (not out.done
                                         or time.monotonic() - started < budget):
            with self._lock:
                if not self._waiting:
                    break
                cmd = self._waiting.popleft()
            if not cmd.future.set_running_or_notify_cancel():
                continue  # its caller gave up waiting: nothing is done
            try:
                out.done.append((cmd.future, cmd.fn(), None))
            except Exception as exc:  # handed to the waiting thread, never up the loop
                if not isinstance(exc, ControlError):
                    log.exception("%s failed on the loop thread", cmd.what)
                out.done.append((cmd.future, None, exc))
        return out

    def wait(self, timeout: float) -> bool:
        """Sleep until a command is posted or ``timeout`` seconds pass (the loop thread,
        between scans); True if a command came. The loop never polls the queue."""
        if timeout > 0:
            self._posted.wait(timeout)
        came = self._posted.is_set()
        self._posted.clear()
        return came

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._waiting)

    def close(self) -> None:
        """No more commands: every waiting one fails with 503 at once (the daemon stops)."""
        with self._lock:
            self._closed = True
            waiting, self._waiting = list(self._waiting), deque()
        for cmd in waiting:
            if cmd.future.set_running_or_notify_cancel():
                cmd.future.set_exception(ControlError(503, "stopping", "the companion is "
                                                                       "stopping"))

    # -- any thread ---------------------------------------------------------------------------
    def post(self, fn: Callable[[], T], what: str = "command") -> Future[T]:
        """Enqueue ``fn`` for the loop thread; its future. Never blocks."""
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                future.set_exception(ControlError(503, "stopping", "the companion is stopping"))
                return future
            if len(self._waiting) >= MAX_WAITING:
                future.set_exception(ControlError(503, "busy", "too many controls at once; "
                                                               "try again"))
                return future
            self._waiting.append(_Command(fn, future, what))
        self._posted.set()
        return future

    def call(self, fn: Callable[[], T], what: str = "command") -> T:
        """Run ``fn`` on the loop thread and return its result (or raise its exception): at
        once when called on the loop thread, else enqueued and waited for, at most
        :attr:`timeout` (then ``ControlError(503, "busy")``, and nothing was done)."""
        if self.on_loop_thread():
            return fn()
        future = self.post(fn, what)
        try:
            return future.result(self.timeout)
        except FutureTimeout:
            if future.cancel():
                log.warning("the loop did not take %s within %.1f s", what, self.timeout)
                raise loop_busy() from None
        except CancelledError:
            raise loop_busy() from None
        try:  # the loop is applying it right now: its answer comes
            return future.result(self.timeout)
        except FutureTimeout:
            raise ControlError(503, "busy", "the board's loop is slow to answer; the control "
                                            "may still be applied") from None


class LoopOwned(Protocol):
    """What :func:`on_loop` needs of the object whose methods it guards."""

    @property
    def commands(self) -> CommandQueue: ...

    def after_command(self) -> None:
        """Publish what the command changed (called on the loop thread after each one)."""
        ...


S = TypeVar("S", bound=LoopOwned)


def on_loop(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """Make a method of a :class:`LoopOwned` object run on its loop thread (see
    :meth:`CommandQueue.call`); what it changed is published after it."""

    @wraps(method)
    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        def apply() -> T:
            try:
                return method(self, *args, **kwargs)
            finally:
                self.after_command()

        return self.commands.call(apply, method.__name__)

    return run
