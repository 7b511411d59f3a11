"""The state hub: the latest page state as JSON, and a way to wait for the next one.

The daemon's scan loop publishes; listeners (the web server's event stream) are told the moment
a new state arrives, and :meth:`StateHub.wait` lets a thread block until then (no polling inside
the daemon). A listener is called on the publishing thread and must return at once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping


class StateHub:
    """Latest state (a JSON text) with a version number; :meth:`wait` blocks until it changes."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version = 0
        self._text = "{}"
        self._closed = False
        self._listeners: tuple[Callable[[], None], ...] = ()

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every change (on the publishing thread; keep it short)."""
        with self._cond:
            self._listeners = (*self._listeners, listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        with self._cond:
            self._listeners = tuple(x for x in self._listeners if x != listener)

    @property
    def closed(self) -> bool:
        return self._closed

    def publish(self, state: Mapping[str, object]) -> bool:
        """Make ``state`` current; True (and wake the waiters) if it differs from the last."""
        text = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
        with self._cond:
            if text == self._text:
                return False
            self._text = text
            self._version += 1
            self._cond.notify_all()
            listeners = self._listeners
        for listener in listeners:
            listener()
        return True

    def current(self) -> tuple[int, str]:
        """``(version, json_text)`` of the current state."""
        with self._cond:
            return self._version, self._text

    def wait(self, after: int, timeout: float) -> tuple[int, str] | None:
        """The state once its version passes ``after``; None on timeout or when closed."""
        with self._cond:
            self._cond.wait_for(lambda: self._version > after or self._closed, timeout)
            if self._closed or self._version <= after:
                return None
            return self._version, self._text

    def close(self) -> None:
        """Wake every waiter for good (the daemon is stopping)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            listeners = self._listeners
        for listener in listeners:
            listener()
