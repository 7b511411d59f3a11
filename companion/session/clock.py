"""Game clocks: time controls and a two-sided chess clock on an injected time base.

Time controls (``--time-control``, the config's ``time_control``, the API)::

    none                no clock
    MAIN                sudden death: MAIN minutes each (a decimal such as 0.25 is allowed)
    MAIN+INC            Fischer: MAIN minutes, INC seconds added after each of one's own moves
    MAIN+INC/PxS        MAIN minutes (+INC while in main time), then P overtime periods of
                        S seconds each (byo-yomi, the form the OpenTafl engine protocol uses):
                        a move made within a period keeps it; a period that runs out is used
                        up; the flag falls when the last one runs out.

The clock knows nothing about wall time: every call passes ``t``, seconds on the caller's time
base. The session uses the *board's* clock (the tracker's time base), so a switch can be
backdated to the moment the piece came to rest (``placed_at``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

SIDES = ("attackers", "defenders")
_TC = re.compile(
    r"^(?P<main>[0-9]+(?:\.[0-9]+)?)(?:\+(?P<inc>[0-9]+(?:\.[0-9]+)?))?"
    r"(?:/(?P<periods>[0-9]+)x(?P<period>[0-9]+(?:\.[0-9]+)?))?$"
)
#: Below this many seconds left the page warns (low-time warning).
LOW_TIME = 10.0



class SideTimeJSON(TypedDict):
    main: float
    periods: int
    period_left: float


class ClockSnapshot(TypedDict):
    """A clock as stored (with every move, with the game): :meth:`GameClock.snapshot`."""

    control: str
    times: dict[str, SideTimeJSON]
    running: str | None
    paused: bool
    flagged: str | None


class TimeControlJSON(TypedDict):
    text: str
    main: float
    increment: float
    periods: int
    period: float


class OvertimeJSON(TypedDict):
    in_overtime: bool
    periods: int


class ClockJSON(TypedDict):
    """``clock`` of the page state (docs/http-api.md): seconds left per side, ..."""

    attackers: float
    defenders: float
    running: str | None
    paused: bool
    control: TimeControlJSON
    overtime: dict[str, OvertimeJSON]
    low: list[str]
    flagged: str | None
    at: NotRequired[float]  # the wall time it was read at (the session's clocks add it)

class TimeControlError(ValueError):
    """A time control that cannot be parsed; the message shows the accepted forms."""


@dataclass(frozen=True)
class TimeControl:
    """Main time and increment in seconds, plus ``periods`` overtime periods of ``period`` s."""

    main: float
    increment: float = 0.0
    periods: int = 0
    period: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl | None:
        """``none`` -> None; ``5``, ``5+3``, ``10+0/3x30`` -> a TimeControl."""
        text = text.strip() if isinstance(text, str) else text
        if not isinstance(text, str) or not text:
            raise TimeControlError("a time control is required: none, MAIN, MAIN+INC or "
                                   "MAIN+INC/PERIODSxSECONDS (e.g. 5+3)")
        if text.lower() == "none":
            return None
        m = _TC.match(text)
        if not m:
            raise TimeControlError(
                f"time control {text!r}: expected none, MAIN, MAIN+INC or MAIN+INC/PxS "
                "(minutes, seconds, periods x seconds), e.g. 5+3 or 10+0/3x30")
        main = float(m["main"]) * 60
        inc = float(m["inc"] or 0)
        periods = int(m["periods"] or 0)
        period = float(m["period"] or 0)
        if main <= 0 and periods == 0:
            raise TimeControlError(f"time control {text!r}: the main time must be above 0")
        if main > 24 * 3600 or inc > 3600 or periods > 100 or period > 3600:
            raise TimeControlError(f"time control {text!r}: at most 1440 minutes, an increment "
                                   "of 3600 s and 100 periods of 3600 s")
        if periods and period <= 0:
            raise TimeControlError(f"time control {text!r}: an overtime period must be above 0 s")
        if not all(math.isfinite(x) for x in (main, inc, period)):
            raise TimeControlError(f"time control {text!r}: not a number")
        return cls(main, inc, periods, period)

    @property
    def text(self) -> str:
        """The canonical text form (``5+3``, ``10+0/3x30``)."""
        out = f"{_num(self.main / 60)}+{_num(self.increment)}"
        if self.periods:
            out += f"/{self.periods}x{_num(self.period)}"
        return out

    def to_json(self) -> TimeControlJSON:
        return {"text": self.text, "main": self.main, "increment": self.increment,
                "periods": self.periods, "period": self.period}


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass
class SideTime:
    """One side's time: main time left, overtime periods left, what is left of the current
    period (counted once the main time is used up) and the period length."""

    main: float
    periods: int
    period_left: float
    period: float = 0.0

    def copy(self) -> SideTime:
        return SideTime(self.main, self.periods, self.period_left, self.period)

    def shown(self) -> float:
        """What a clock face shows: main time, or in overtime what is left of the period."""
        if self.main > 0 or self.periods <= 0:
            return max(0.0, self.main)
        return max(0.0, self.period_left)

    def until_flag(self) -> float:
        """Seconds until the flag falls if this side's clock ran from now."""
        rest = max(0.0, self.main)
        if self.periods > 0:
            rest += self.period_left + (self.periods - 1) * self.period
        return rest


@dataclass
class GameClock:
    """A two-sided clock for one game. ``running`` is the side whose time is running (None when
    stopped); ``paused`` is an owner's pause (the running side is remembered)."""

    control: TimeControl
    times: dict[str, SideTime] = field(default_factory=dict)
    running: str | None = None
    since: float | None = None  # when ``running`` started to run (caller's time base)
    paused: bool = False
    flagged: str | None = None

    def __post_init__(self) -> None:
        if not self.times:
            tc = self.control
            self.times = {s: SideTime(tc.main, tc.periods, tc.period, tc.period) for s in SIDES}

    # -- reading --------------------------------------------------------------------------
    def left(self, side: str, t: float) -> float:
        """Seconds left on ``side``'s clock at ``t``: main time, or (in overtime) what is left of
        the current period."""
        return self._charged(side, t).shown()

    def _charged(self, side: str, t: float) -> SideTime:
        st = self.times[side].copy()
        if self.running == side and not self.paused and self.since is not None:
            _charge(st, max(0.0, t - self.since))
        return st

    def flag_due(self, t: float) -> str | None:
        """The running side if its time has run out at ``t``."""
        side = self.running
        if side is None or self.paused or self.since is None:
            return None
        st = self.times[side].copy()
        return side if not _charge(st, max(0.0, t - self.since)) else None

    def flag_at(self) -> float | None:
        """The time at which the running side's flag falls (None when nothing runs)."""
        side = self.running
        if side is None or self.paused or self.since is None:
            return None
        return self.since + self.times[side].until_flag()

    # -- running --------------------------------------------------------------------------
    def start(self, side: str, t: float) -> None:
        """Run ``side``'s clock from ``t`` (the other side's stops)."""
        if self.flagged:
            return
        self.running, self.since = side, t

    def stop(self, t: float) -> None:
        """Charge the running side up to ``t`` and stop (the game is over)."""
        self._settle(t)
        self.running, self.since = None, None

    def switch(self, mover: str, t: float) -> None:
        """``mover`` completed a move at ``t``: charge him up to ``t``, add the increment (main
        time) or renew his overtime period, and start the opponent's clock at ``t``. A move
        made while his clock did not run (paused, or the game's first move, before which no
        clock runs) is not charged and earns nothing: no increment, no renewed period."""
        ran = self.running == mover and not self.paused and self.since is not None
        if self.running == mover:
            self._settle(t)
        st = self.times[mover]
        if self.flagged is None and ran:
            if st.main > 0:
                st.main += self.control.increment
            elif st.periods > 0:
                st.period_left = self.control.period
        other = SIDES[1] if mover == SIDES[0] else SIDES[0]
        self.running, self.since = other, t

    def pause(self, t: float) -> None:
        """Stop the running clock without switching (the owner's pause)."""
        if self.paused:
            return
        self._settle(t)
        self.paused = True
        self.since = t

    def resume(self, t: float) -> None:
        if not self.paused:
            return
        self.paused = False
        self.since = t if self.running else None

    def _settle(self, t: float) -> None:
        side = self.running
        if side is None or self.since is None or self.paused:
            return
        st = self.times[side]
        if not _charge(st, max(0.0, t - self.since)):
            self.flagged = side
        self.since = t

    # -- snapshots (takebacks, the store) -------------------------------------------------
    def snapshot(self, t: float | None = None) -> ClockSnapshot:
        """The clock's state as JSON-ready data (stored with every move): the times as they
        stand at ``t`` (without ``t``: as they stood when the running clock last started); a
        restored clock runs again from the time it is given."""
        times = {s: self._charged(s, t) if t is not None else v for s, v in self.times.items()}
        return {
            "control": self.control.text,
            "times": {s: {"main": round(v.main, 3), "periods": v.periods,
                          "period_left": round(v.period_left, 3)} for s, v in times.items()},
            "running": self.running, "paused": self.paused, "flagged": self.flagged,
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any], t: float | None = None) -> GameClock:
        """A clock from :meth:`snapshot` data (a ClockSnapshot, or the same read back from the
        store: a JSON edge, each field converted here); it runs from ``t`` if it was
        running."""
        control = TimeControl.parse(data["control"])
        if control is None:
            raise TimeControlError("a stored clock has no time control")
        times = {s: SideTime(float(v["main"]), int(v["periods"]), float(v["period_left"]),
                             control.period) for s, v in data["times"].items()}
        clock = cls(control, times, data.get("running"), None, bool(data.get("paused")),
                    data.get("flagged"))
        if clock.running and t is not None:
            clock.since = t
        return clock

    def to_json(self, t: float) -> ClockJSON:
        """What ``/api/state`` shows as ``clock``."""
        now = {s: self._charged(s, t) for s in SIDES}
        return {
            "attackers": round(self.left("attackers", t), 2),
            "defenders": round(self.left("defenders", t), 2),
            "running": None if self.paused else self.running,
            "paused": self.paused,
            "control": self.control.to_json(),
            "overtime": {s: {"in_overtime": now[s].main <= 0 and self.control.periods > 0,
                             "periods": now[s].periods} for s in SIDES},
            "low": [s for s in SIDES if now[s].until_flag() < LOW_TIME and not self.flagged],
            "flagged": self.flagged,
        }


def _charge(st: SideTime, elapsed: float) -> bool:
    """Take ``elapsed`` seconds off ``st``; False when its time ran out."""
    if st.main > 0:
        use = min(st.main, elapsed)
        st.main -= use
        elapsed -= use
        if st.main > 1e-9:
            return True
        st.main = 0.0
    while elapsed > 0 and st.periods > 0:
        use = min(st.period_left, elapsed)
        st.period_left -= use
        elapsed -= use
        if st.period_left <= 1e-9:
            st.periods -= 1
            st.period_left = st.period if st.periods > 0 else 0.0
    return st.periods > 0
