"""Sensor traces in the ``tafl-trace/1`` format (docs/interfaces.md §2): read, validate,
write.

Compatible extensions used by this project:

* header ``"sensors": "polarity"`` for boards that also sense the colour of each piece; scan lines
  may then carry ``"colours": {"e3": "a"}`` giving the colour (``"a"`` attacker, ``"d"``
  defender/king) of squares that became occupied or changed colour. The first scan line carries
  the colours of every occupied square. A square's colour is forgotten when it empties.
* any other header keys are kept (the simulator writes ``"generator"``, ``"seed"``, ``"noise"``
  and ``"expect"``); unknown keys on scan lines are ignored.

A missing ``end`` line is accepted (a log cut short by a crash ends at its last scan).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, TypeGuard

from .rules import RuleSet, get_variant
from .scan import ATTACKER_COLOUR, DEFENDER_COLOUR, Scan
from .squares import SquareError, parse_coords

FORMAT = "tafl-trace/1"


class TraceError(ValueError):
    """A malformed trace; the message names the line."""


@dataclass
class Trace:
    """A parsed trace: its header, every scan as a full reading, and the end time."""

    header: dict[str, Any]  # JSON edge: the header line, its variant, size and scan_hz checked
    rules: RuleSet
    scans: list[Scan] = field(default_factory=list)
    end: float = 0.0

    @property
    def variant(self) -> str:
        """The variant id of the header."""
        return self.rules.id

    @property
    def scan_hz(self) -> float:
        """The rate at which the board was scanned."""
        return float(self.header["scan_hz"])


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _squares(value: object, size: int, where: str, key: str) -> list[str]:
    if not isinstance(value, list):
        raise TraceError(f"{where}: {key!r} must be a list of square names")
    out = []
    for name in value:
        if not isinstance(name, str):
            raise TraceError(f"{where}: {key!r} holds {name!r}, not a square name")
        try:
            parse_coords(name, size)
        except SquareError as exc:
            raise TraceError(f"{where}: {key!r} holds an unknown square: {exc}") from None
        out.append(name)
    if len(set(out)) != len(out):
        raise TraceError(f"{where}: {key!r} lists a square twice")
    return out


def _colours(value: object, size: int, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise TraceError(f"{where}: 'colours' must be an object mapping squares to 'a' or 'd'")
    squares = _squares(list(value), size, where, "colours")
    out = {}
    for sq in squares:
        colour = value[sq]
        if colour not in (ATTACKER_COLOUR, DEFENDER_COLOUR):
            raise TraceError(f"{where}: colour of {sq} must be 'a' or 'd', not {colour!r}")
        out[sq] = colour
    return out


def parse_header(line: str, where: str = "line 1"
                 ) -> tuple[dict[str, Any], RuleSet]:  # JSON edge: the parsed header line
    """Validate a header line; returns it and its rule set."""
    try:
        header = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{where}: bad JSON ({exc.msg})") from None
    if not isinstance(header, dict) or header.get("trace") != FORMAT:
        raise TraceError(f"{where}: missing header (expected {{\"trace\": \"{FORMAT}\", ...}})")
    variant = header.get("variant")
    if not isinstance(variant, str):
        raise TraceError(f"{where}: header needs a 'variant'")
    try:
        rules = get_variant(variant)
    except ValueError as exc:
        raise TraceError(f"{where}: {exc}") from None
    size = header.get("size")
    if not isinstance(size, int) or isinstance(size, bool):
        raise TraceError(f"{where}: header needs an integer 'size'")
    if size != rules.size:
        raise TraceError(
            f"{where}: size {size} does not match variant {variant} ({rules.size}x{rules.size})"
        )
    hz = header.get("scan_hz")
    if not _number(hz) or hz <= 0:
        raise TraceError(f"{where}: header needs a positive 'scan_hz'")
    return header, rules


def parse_trace(lines: Iterable[str], source: str = "trace") -> Trace:
    """Parse and strictly validate a trace from its lines; TraceError names the bad line."""
    trace: Trace | None = None
    occupied: set[str] = set()
    colours: dict[str, str] = {}
    last_t = 0.0
    ended = False
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{source} line {number}"
        if not line:
            continue
        if trace is None:
            header, rules = parse_header(line, where)
            trace = Trace(header, rules)
            continue
        if ended:
            raise TraceError(f"{where}: nothing may follow the end line")
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceError(f"{where}: bad JSON ({exc.msg})") from None
        if not isinstance(doc, dict):
            raise TraceError(f"{where}: expected a JSON object")
        t = doc.get("t")
        if not _number(t):
            raise TraceError(f"{where}: 't' must be a number of seconds")
        size = trace.rules.size
        if not trace.scans:
            if "occupied" not in doc:
                raise TraceError(f"{where}: the first scan must list 'occupied' squares")
            occupied = set(_squares(doc["occupied"], size, where, "occupied"))
            if "colours" in doc:
                colours = _colours(doc["colours"], size, where)
            last_t = float(t)
        else:
            if t < last_t:
                raise TraceError(f"{where}: time {t} is before the previous line's {last_t}")
            last_t = float(t)
            if doc.get("end") is True:
                ended = True
                trace.end = last_t
                continue
            if "occupied" in doc:
                raise TraceError(f"{where}: only the first scan lists 'occupied'; use on/off")
            on = _squares(doc.get("on", []), size, where, "on")
            off = _squares(doc.get("off", []), size, where, "off")
            if not on and not off and "colours" not in doc:
                raise TraceError(f"{where}: a scan line needs 'on', 'off' or 'end'")
            for sq in on:
                if sq in occupied:
                    raise TraceError(f"{where}: 'on' lists {sq}, which is already occupied")
            for sq in off:
                if sq not in occupied:
                    raise TraceError(f"{where}: 'off' lists {sq}, which is already empty")
            occupied.difference_update(off)
            occupied.update(on)
            for sq in off:
                colours.pop(sq, None)
            if "colours" in doc:
                colours.update(_colours(doc["colours"], size, where))
        for sq in colours:
            if sq not in occupied:
                raise TraceError(f"{where}: a colour is given for the empty square {sq}")
        trace.scans.append(Scan(last_t, frozenset(occupied), dict(colours) if colours else None))
    if trace is None:
        raise TraceError(f"{source}: missing header (the trace is empty)")
    if not trace.scans:
        raise TraceError(f"{source}: missing the first scan after the header")
    if not ended:
        trace.end = last_t
    return trace


def read_trace(path: str | Path) -> Trace:
    """Read and validate a trace file; TraceError (a ValueError) on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TraceError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not UTF-8 text") from None
    return parse_trace(text.splitlines(), source=path.name)


def _num(t: float) -> float | int:
    r = round(t, 4)
    return int(r) if r == int(r) and abs(r) < 1e15 else r


def format_trace(
    header: Mapping[str, object], scans: Iterable[Scan], end: float | None = None
) -> Iterator[str]:
    """The lines (without newlines) of a trace: header, first scan in full, then on/off deltas
    for every scan that differs from the one before, then the end line."""
    head: dict[str, object] = {"trace": FORMAT}
    head.update({k: v for k, v in header.items() if k != "trace"})
    yield json.dumps(head, separators=(", ", ": "))
    prev: frozenset[str] | None = None
    prev_colours: dict[str, str] = {}
    last = 0.0
    for scan in scans:
        colours = scan.colours or {}
        if prev is None:
            doc: TraceLine = {"t": _num(scan.t),
                              "occupied": sorted(scan.occupied, key=_sq_key)}
            if colours:
                doc["colours"] = dict(sorted(colours.items()))
        else:
            on = sorted(scan.occupied - prev, key=_sq_key)
            off = sorted(prev - scan.occupied, key=_sq_key)
            changed = {s: c for s, c in colours.items() if prev_colours.get(s) != c}
            if not on and not off and not changed:
                continue
            doc = {"t": _num(scan.t)}
            if off:
                doc["off"] = off
            if on:
                doc["on"] = on
            if changed:
                doc["colours"] = dict(sorted(changed.items()))
        yield json.dumps(doc, separators=(", ", ": "))
        prev, prev_colours, last = scan.occupied, dict(colours), scan.t
    yield json.dumps({"t": _num(last if end is None else end), "end": True})


class TraceLine(TypedDict, total=False):
    """A scan line of a trace: its time, and the first scan's ``occupied`` squares or the
    squares that came ``on`` and went ``off`` since the last one; ``colours`` that changed."""

    t: float | int
    occupied: list[str]
    off: list[str]
    on: list[str]
    colours: dict[str, str]


def _sq_key(name: str) -> tuple[int, int]:
    f, r = parse_coords(name)
    return r, f
