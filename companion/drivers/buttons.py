"""The board's push buttons: presses in, as :class:`ButtonEvent` s, behind one Protocol.

Three sources, one vocabulary (``clock``, ``hint``, ``takeback``, ``new``; events ``short``,
``long``, ``stuck``, ``free``, as the Pico's ``BTN`` lines, ``firmware_bridge/buttons.py``):

* :class:`GpioButtons`: buttons on the Pi's header, read with gpiozero ``Button`` (pull-up, the
  button to ground). Edges are debounced here, not by the pin library (a press must stay down
  ``bounce_s`` and so must a release), so contact bounce is never a press whatever backend
  gpiozero uses; :class:`PressTracker` turns the debounced edges into events;
* :class:`PicoButtons`: the buttons the Pico bridge reads, from its ``BTN`` lines;
* :class:`SimButtons`: the simulated board's, pressed through ``POST /api/button``.

A button held ``stuck_s`` is reported ``stuck`` (with a message in :meth:`status`) and does
nothing until released; one already down when the driver starts is not a press.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, Protocol, TypedDict, runtime_checkable

from firmware_bridge.protocol import BUTTONS

if TYPE_CHECKING:
    from companion.drivers.serial_bridge import SerialBridge

log = logging.getLogger(__name__)

BUTTON_NAMES: tuple[str, ...] = tuple(BUTTONS)


@dataclass(frozen=True)
class ButtonEvent:
    """``button`` (a name of :data:`BUTTON_NAMES`) did ``kind`` (``short``, ``long``,
    ``stuck`` or ``free``)."""

    button: str
    kind: str


Listener = Callable[[ButtonEvent], None]


class ButtonsStatus(TypedDict):
    """The buttons' health: their kind and names, sentences about stuck ones, and a source's
    own: the pins (gpio), the bounces filtered (gpio), the presses taken (pico)."""

    kind: str
    buttons: list[str]
    faults: list[str]
    pins: NotRequired[dict[str, int]]
    bounces: NotRequired[int]
    presses: NotRequired[int]


class _Pin(Protocol):
    """A gpiozero ``Button`` as these drivers use it (beyond its callbacks)."""

    is_pressed: bool

    def close(self) -> None: ...


@runtime_checkable
class ButtonSource(Protocol):
    """Something that reports button presses to one listener."""

    kind: str  # "gpio" | "pico" | "sim"
    names: tuple[str, ...]

    def listen(self, listener: Listener) -> None:
        """Call ``listener`` with every event from now on (on the source's own thread)."""
        ...

    def status(self) -> ButtonsStatus:
        """``kind``, ``buttons`` and ``faults`` (sentences about stuck buttons)."""
        ...

    def close(self) -> None:
        """Release the pins."""
        ...


def stuck_message(button: str, seconds: float) -> str:
    return (f"the {button} button has been held down for {seconds:.0f} s: stuck, shorted or "
            "leant on? It does nothing until it is released")


class _Faults:
    """The stuck buttons of one source, as sentences for :meth:`ButtonSource.status`."""

    def __init__(self, stuck_s: float) -> None:
        self.stuck_s = stuck_s
        self.stuck: set[str] = set()

    def note(self, event: ButtonEvent) -> None:
        if event.kind == "stuck":
            self.stuck.add(event.button)
            log.warning("buttons: %s", stuck_message(event.button, self.stuck_s))
        elif event.kind == "free" and event.button in self.stuck:
            self.stuck.discard(event.button)
            log.info("buttons: the %s button is free again", event.button)

    def sentences(self) -> list[str]:
        return [stuck_message(b, self.stuck_s) for b in sorted(self.stuck)]


class PressTracker:
    """One button's events from its raw edges, on the caller's clock (pure, no threads).

    A raw level counts once it has held ``bounce_s``; its time is the time of the edge. Down
    then up before ``long_s`` is ``short``; ``long`` comes at ``long_s`` (its release says
    nothing); ``stuck`` at ``stuck_s``; ``free`` on the release after ``stuck``.
    """

    def __init__(self, name: str, bounce_s: float, long_s: float, stuck_s: float,
                 down: bool = False, now: float = 0.0) -> None:
        self.name = name
        self.bounce_s, self.long_s, self.stuck_s = bounce_s, long_s, stuck_s
        self.raw = self.down = down
        self.raw_at = self.since = now
        self.long_sent = self.stuck = False
        self.ignore = down  # down at start-up: not a press
        self.bounces = 0  # raw edges that did not last
        self._out: list[ButtonEvent] = []

    def edge(self, down: bool, t: float) -> None:
        """The pin changed to ``down`` at ``t``."""
        if down == self.raw:
            return
        self._advance(t)  # the level that ends now may have lasted long enough to count
        if down == self.down and t - self.raw_at < self.bounce_s:
            self.bounces += 1  # back before it counted: a bounce
        self.raw, self.raw_at = down, t

    def poll(self, t: float) -> list[ButtonEvent]:
        """The events due by ``t`` (and those decided at edges since the last poll)."""
        self._advance(t)
        out, self._out = self._out, []
        return out

    def _advance(self, t: float) -> None:
        out = self._out
        if self.raw != self.down and t - self.raw_at >= self.bounce_s:
            self.down = self.raw
            if self.down:
                self.since = self.raw_at
                self.long_sent = self.stuck = False
            else:
                if self.stuck:
                    out.append(ButtonEvent(self.name, "free"))
                elif not (self.long_sent or self.ignore):
                    out.append(ButtonEvent(self.name, "short"))
                self.ignore = False
        if self.down:
            held = t - self.since
            if not (self.long_sent or self.ignore) and held >= self.long_s:
                self.long_sent = True
                out.append(ButtonEvent(self.name, "long"))
            if not self.stuck and held >= self.stuck_s:
                self.stuck = True
                out.append(ButtonEvent(self.name, "stuck"))

    def next_due(self) -> float | None:
        """When :meth:`poll` may next have something to say (None: only after an edge)."""
        if self.raw != self.down:
            return self.raw_at + self.bounce_s
        if not self.down:
            return None
        if not (self.long_sent or self.ignore):
            return self.since + self.long_s
        return None if self.stuck else self.since + self.stuck_s


class GpioButtons:
    """Buttons on the Pi's GPIO through gpiozero (``pins``: name -> BCM number).

    ``pin_factory`` is gpiozero's (``MockFactory`` in tests); ``clock`` stamps the edges;
    ``start=False`` runs no thread: the caller calls :meth:`poll` (tests on a fake clock).
    """

    kind = "gpio"

    def __init__(self, pins: Mapping[str, int], *, bounce_s: float = 0.03,
                 long_s: float = 1.0, stuck_s: float = 10.0, pin_factory: Any = None,
                 clock: Callable[[], float] = time.monotonic, start: bool = True) -> None:
        from gpiozero import Button

        for name in pins:
            if name not in BUTTON_NAMES:
                raise ValueError(f"unknown button {name!r} (known: {', '.join(BUTTON_NAMES)})")
        self.names = tuple(sorted(pins))
        self._clock = clock
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._listener: Listener | None = None
        self._faults = _Faults(stuck_s)
        self.pins = dict(pins)
        self._buttons: dict[str, _Pin] = {}
        self._trackers: dict[str, PressTracker] = {}
        self._thread = threading.Thread(target=self._run, name="buttons", daemon=True)
        now = clock()
        try:
            for name in self.names:
                button = Button(pins[name], pull_up=True, bounce_time=None,
                                pin_factory=pin_factory)
                self._buttons[name] = button
                self._trackers[name] = PressTracker(name, bounce_s, long_s, stuck_s,
                                                    down=bool(button.is_pressed), now=now)
                button.when_pressed = self._edge_handler(name, True)
                button.when_released = self._edge_handler(name, False)
        except Exception:
            self.close()  # (the buttons opened so far; the thread never ran)
            raise
        if start:
            self._thread.start()

    def _edge_handler(self, name: str, down: bool) -> Callable[[], None]:
        def handler() -> None:
            with self._lock:
                self._trackers[name].edge(down, self._clock())
            self._wake.set()

        return handler

    def listen(self, listener: Listener) -> None:
        self._listener = listener

    def poll(self, now: float | None = None) -> list[ButtonEvent]:
        """Events due now (also given to the listener); the thread calls this."""
        t = self._clock() if now is None else now
        with self._lock:
            events = [e for tr in self._trackers.values() for e in tr.poll(t)]
        for e in events:
            self._faults.note(e)
            if self._listener is not None:
                self._listener(e)
        return events

    def _next_wait(self) -> float:
        with self._lock:
            due = [d for tr in self._trackers.values() if (d := tr.next_due()) is not None]
        if not due:
            return 1.0
        return min(1.0, max(0.0, min(due) - self._clock()) + 0.001)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._next_wait())
            self._wake.clear()
            try:
                self.poll()
            except Exception:  # a listener's failure must not stop the buttons
                log.exception("buttons: handling a press failed")

    def status(self) -> ButtonsStatus:
        with self._lock:
            bounces = sum(tr.bounces for tr in self._trackers.values())
        return {"kind": self.kind, "buttons": list(self.names), "pins": dict(self.pins),
                "faults": self._faults.sentences(), "bounces": bounces}

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        for button in self._buttons.values():
            button.close()
        self._buttons.clear()


class PicoButtons:
    """The buttons the Pico bridge reads (its ``BTN`` lines, already debounced there)."""

    kind = "pico"

    def __init__(self, bridge: SerialBridge, names: tuple[str, ...] = BUTTON_NAMES,
                 stuck_s: float = 10.0) -> None:
        self.names = names
        self._bridge = bridge
        self._listener: Listener | None = None
        self._faults = _Faults(stuck_s)
        bridge.button_listener = self._line

    def _line(self, button: str, kind: str) -> None:
        event = ButtonEvent(button, kind)
        self._faults.note(event)
        if self._listener is not None:
            self._listener(event)

    def listen(self, listener: Listener) -> None:
        self._listener = listener

    def status(self) -> ButtonsStatus:
        return {"kind": self.kind, "buttons": list(self.names),
                "faults": self._faults.sentences(), "presses": self._bridge.button_presses}

    def close(self) -> None:
        self._bridge.button_listener = None


class SimButtons:
    """The simulated board's buttons: :meth:`press` is a hand on a button."""

    kind = "sim"
    names = BUTTON_NAMES

    def __init__(self) -> None:
        self._listener: Listener | None = None

    def listen(self, listener: Listener) -> None:
        self._listener = listener

    def press(self, button: str, long: bool = False) -> ButtonEvent:
        """A short (or long) press of ``button``; ValueError for a button the board lacks."""
        if button not in self.names:
            raise ValueError(f"no button {button!r} (the board has {', '.join(self.names)})")
        event = ButtonEvent(button, "long" if long else "short")
        if self._listener is not None:
            self._listener(event)
        return event

    def status(self) -> ButtonsStatus:
        return {"kind": self.kind, "buttons": list(self.names), "faults": []}

    def close(self) -> None:
        self._listener = None
