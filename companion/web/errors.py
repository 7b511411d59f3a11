"""Bad input gets a clear 4xx, and a bug is logged without flooding the log.

- :class:`IdConverter` replaces Flask's ``int`` URL converter: a path id must fit SQLite's
  64-bit integer, so ``/api/games/9223372036854775808`` (or a 5,000-digit id) is a plain 404
  instead of an ``OverflowError`` deep in the store.
- :class:`StrictJSONProvider` parses request bodies with bounded nesting and without the
  ``NaN``/``Infinity`` extensions: a body nested 1,000 deep is a 400 naming the limit, not a
  ``RecursionError``.
- :func:`check_square` parses a square name from the network strictly (ASCII, canonical, on the
  board, by :mod:`companion.squares`): ``d01``, ``a１``, ``İ1`` are 400s.
- :class:`ErrorLog` logs a bug's traceback once per kind (exception type and route) per minute
  and counts the repeats, so 500 bad requests cannot write 450 KB of log.

:func:`install` wires all of it into the Flask app; call it right after creating the app,
before its routes are added (the converter applies to the routes added after it).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import OrderedDict
from typing import Any

from flask import Flask, Response, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest
from werkzeug.routing import IntegerConverter

from companion.squares import MAX_SIZE, parse_coords

log = logging.getLogger("companion.web")

MAX_ID = 2**63 - 1  # SQLite's largest integer
MAX_JSON_DEPTH = 20  # a control body is an object of strings: 2 levels would do


def at_most(limit: int) -> str:
    """A regular expression matching exactly the decimal numbers 0..``limit`` (leading zeros
    allowed up to the limit's length)."""
    digits = str(limit)
    n = len(digits)
    parts = [f"[0-9]{{1,{n - 1}}}"] if n > 1 else []
    for i, d in enumerate(digits):
        if d != "0":
            low = "0" if d == "1" else f"0-{int(d) - 1}"
            rest = f"[0-9]{{{n - i - 1}}}" if i < n - 1 else ""
            parts.append(f"{digits[:i]}[{low}]{rest}")
    parts.append(digits)
    return "(?:" + "|".join(parts) + ")"


class IdConverter(IntegerConverter):
    """``<int:...>`` for ids: ASCII digits up to 2**63-1; anything else does not match the route
    (404). The bound is in the regular expression itself: a value refused only by the converter
    would let werkzeug answer 405 where a GET and a POST route share the path."""

    regex = at_most(MAX_ID)

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (brackets inside strings do
    not count); linear in the text, no recursion."""
    depth = deepest = 0
    for ch in _BRACKETS.findall(_STRINGS.sub("", text)):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, but loading refuses deep nesting (400) and ``NaN``/``Infinity``."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if isinstance(s, bytes | bytearray):
            s = s.decode("utf-8")  # UnicodeDecodeError is a ValueError: "not valid JSON"
        if json_depth(s) > MAX_JSON_DEPTH:
            raise BadRequest(f"the JSON body is nested more than {MAX_JSON_DEPTH} levels deep")
        kwargs.setdefault("parse_constant", _no_constants)
        return json.loads(s, **kwargs)


def check_square(value: object, size: int | None) -> str:
    """``value`` if it is a canonical square name (on a ``size`` board when given), else a 400
    that names the bad text (the project's one strict parser, :mod:`companion.squares`)."""
    if not isinstance(value, str):
        raise BadRequest(f"a square name must be text, not {type(value).__name__}")
    try:
        parse_coords(value, size or MAX_SIZE)
    except ValueError as exc:  # SquareError: the text and what is wrong with it
        raise BadRequest(str(exc)) from None
    return value


class ErrorLog:
    """Logs each kind of error at most once per ``every`` seconds (with its traceback) and
    counts the repeats left out in between; remembers the last ``kinds`` kinds."""

    def __init__(self, logger: logging.Logger = log, every: float = 60.0, kinds: int = 256,
                 clock: Any = time.monotonic) -> None:
        self.logger = logger
        self.every = every
        self.kinds = kinds
        self.clock = clock
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, list[float | int]] = OrderedDict()  # kind -> [last, n]

    def error(self, kind: str, message: str, exc: BaseException | None = None) -> bool:
        """Log ``message`` for ``kind`` unless it was logged lately; True if logged."""
        now = self.clock()
        with self._lock:
            seen = self._seen.get(kind)
            if seen is not None and now - seen[0] < self.every:
                seen[1] += 1
                return False
            skipped = int(seen[1]) if seen else 0
            self._seen[kind] = [now, 0]
            self._seen.move_to_end(kind)
            while len(self._seen) > self.kinds:
                self._seen.popitem(last=False)
        more = f" ({skipped} more like it since the last report)" if skipped else ""
        self.logger.error("%s%s", message, more,
                          exc_info=(type(exc), exc, exc.__traceback__) if exc else None)
        return True


def install(app: Flask) -> ErrorLog:
    """Bounded ids, strict JSON and a rate-limited 500 handler for ``app`` (call it before the
    routes are added). Returns the app's :class:`ErrorLog`."""
    app.url_map.converters["int"] = IdConverter
    app.json = StrictJSONProvider(app)
    errors = ErrorLog()
    app.extensions["tafl_error_log"] = errors

    @app.errorhandler(Exception)
    def _bug(exc: Exception) -> tuple[Response, int]:  # a bug, not a bad request
        rule = request.url_rule.rule if request.url_rule is not None else request.path[:80]
        kind = f"{type(exc).__name__} {request.method} {rule}"
        errors.error(kind, f"error serving {request.method} {request.path[:200]}: "
                           f"{type(exc).__name__}: {str(exc)[:200]}", exc)
        return jsonify(error=f"internal error: {type(exc).__name__}"), 500

    return errors
