"""The board's push buttons, read by the Pico bridge firmware (``main.py``) in its scan loop.

Runs unchanged under MicroPython and CPython (no f-strings, no typing at runtime). Each button
is a GPIO with the internal pull-up, the button between it and ground: pressed reads 0. A
reading counts once it is the same ``debounce`` scans in a row (contact bounce never counts),
and every change of a debounced button becomes at most one event, sent as a ``BTN`` line:

``short``  released before ``long_ms``: a short press (sent on release);
``long``   held for ``long_ms`` (sent at that moment; its release sends nothing);
``stuck``  held for ``stuck_ms``: stuck, shorted or leant on; nothing more until released;
``free``   released after ``stuck``.

A button already down when the firmware starts is not a press: it is ignored until released
(``stuck`` after ``stuck_ms``, like any other).
"""

# ruff: noqa: UP031 - %-formatting on purpose, as in main.py: every MicroPython build has it.

try:
    import utime as time
except ImportError:  # pragma: no cover - CPython without the shim on the path
    import time

import machine

try:
    from firmware_bridge import protocol as P
except ImportError:
    import protocol as P  # type: ignore[no-redef]


MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments


def check_buttons(cfg):
    # type: (dict[str, Any]) -> list[tuple[str, int]]
    """The configured ``button_pins`` as a sorted list of (name, pin); ValueError naming the
    problem (an unknown button name, a pin that is not a number)."""
    pins = cfg.get("button_pins") or {}
    if not isinstance(pins, dict):
        raise ValueError("button_pins must be an object such as {\"clock\": 26}")
    out = []
    for name in pins:
        if name not in P.BUTTONS:
            raise ValueError("button_pins: unknown button %r (known: %s)"
                             % (name, ", ".join(P.BUTTONS)))
        if not isinstance(pins[name], int) or isinstance(pins[name], bool):
            raise ValueError("button_pins: %s must be a GPIO number" % name)
        out.append((name, pins[name]))
    out.sort()
    for key in ("long_ms", "stuck_ms"):
        if not isinstance(cfg.get(key), int) or cfg[key] <= 0:
            raise ValueError("%s must be a whole number > 0" % key)
    if cfg["stuck_ms"] <= cfg["long_ms"]:
        raise ValueError("stuck_ms must be longer than long_ms")
    return out


class Button:
    """One debounced button and its press state."""

    def __init__(self, name, pin, need):
        # type: (str, int, int) -> None
        self.name = name
        self.pin = machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP)
        self.need = need
        self.down = False  # debounced
        self.cand = False
        self.count = 0
        self.since = 0
        self.long_sent = False
        self.stuck = False
        self.ignore = False

    def raw(self):
        # type: () -> bool
        return bool(self.pin.value() == 0)

    def update(self, now, long_ms, stuck_ms):
        # type: (int, int, int) -> str | None
        """One scan; the event to send (or None)."""
        r = self.raw()
        if r == self.down:
            self.count = 0
        else:
            if r == self.cand and self.count:
                self.count += 1
            else:
                self.cand = r
                self.count = 1
            if self.count >= self.need:
                self.count = 0
                self.down = r
                return self._changed(now)
        if self.down:
            held = time.ticks_diff(now, self.since)
            if not self.stuck and held >= stuck_ms:
                self.stuck = True
                return "stuck"
            if not (self.long_sent or self.ignore) and held >= long_ms:
                self.long_sent = True
                return "long"
        return None

    def _changed(self, now):
        # type: (int) -> str | None
        if self.down:
            self.since = now
            self.long_sent = self.stuck = False
            return None
        event = None
        if self.stuck:
            event = "free"
        elif not (self.long_sent or self.ignore):
            event = "short"
        self.ignore = False
        return event


class Buttons:
    """Every configured button; :meth:`scan` returns the events of one scan."""

    def __init__(self, cfg):
        # type: (dict[str, Any]) -> None
        need = cfg["debounce"] if cfg["debounce"] > 0 else 1
        self.long_ms = cfg["long_ms"]
        self.stuck_ms = cfg["stuck_ms"]
        self.buttons = [Button(name, pin, need) for name, pin in check_buttons(cfg)]

    def prime(self, now):
        # type: (int) -> None
        """Take the buttons as they are at start-up: one already down is not a press."""
        for b in self.buttons:
            b.down = b.cand = b.raw()
            b.since = now
            b.ignore = b.down

    def scan(self, now):
        # type: (int) -> list[tuple[str, str]]
        """``[(name, event), ...]`` for this scan."""
        out = []
        for b in self.buttons:
            event = b.update(now, self.long_ms, self.stuck_ms)
            if event is not None:
                out.append((b.name, event))
        return out
