"""A reader for the compact RON (Rusty Object Notation) that the hnefatafl.org server writes
(``initialize_display``, ``users_updated``, chat lines).

What it reads, and into what (the shapes the server's JSON lines use, so one parser serves
both): ``(field:value,...)`` a struct → ``dict``; ``(a,b)`` a tuple → ``list``, and a
one-element ``(x)`` (a newtype) → ``x``; ``[...]`` → ``list``; ``{key:value}`` → ``dict``;
``Some(x)`` → ``x``; ``None`` → ``None``; ``true``/``false``; ``Name(x)`` (an enum variant with
data) → ``{"Name": x}``; a bare identifier (a unit variant such as ``Yes`` or ``_11``) → its
name; numbers; strings with Rust's escapes. Anything else is a :class:`RonError` naming the
offset. Depth and size are bounded: the text comes from the network.
"""

from __future__ import annotations

MAX_DEPTH = 64
MAX_TEXT = 8 * 1024 * 1024

RonValue = object

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}
_IDENT_START = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_IDENT = _IDENT_START + "0123456789"
_NUMBER = "+-0123456789.eE_"


class RonError(ValueError):
    """Text that is not RON this reader understands; the message says where."""


def loads(text: str) -> RonValue:
    """The value of one RON document (trailing whitespace allowed)."""
    if len(text) > MAX_TEXT:
        raise RonError(f"RON text of {len(text)} characters is over the limit ({MAX_TEXT})")
    reader = _Reader(text)
    value = reader.value(0)
    reader.space()
    if reader.pos != len(text):
        raise RonError(f"unexpected {text[reader.pos]!r} at offset {reader.pos} after the value")
    return value


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> RonError:
        got = repr(self.text[self.pos]) if self.pos < len(self.text) else "the end"
        return RonError(f"expected {what} at offset {self.pos}, found {got}")

    def space(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in " \t\r\n":
            self.pos += 1

    def peek(self) -> str:
        self.space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise self.fail(repr(ch))
        self.pos += 1

    def value(self, depth: int) -> RonValue:
        if depth > MAX_DEPTH:
            raise RonError(f"RON nested deeper than {MAX_DEPTH} at offset {self.pos}")
        ch = self.peek()
        if ch == "(":
            return self.tuple_or_struct(depth)
        if ch == "[":
            return self.seq(depth)
        if ch == "{":
            return self.map(depth)
        if ch == '"':
            return self.string()
        if ch and ch in _NUMBER:
            return self.number()
        if ch and ch in _IDENT_START:
            name = self.ident()
            if name == "None":
                return None
            if name in ("true", "false"):
                return name == "true"
            if self.peek() == "(":
                inner = self.tuple_or_struct(depth)
                return inner if name == "Some" else {name: inner}
            return name
        raise self.fail("a value")

    def ident(self) -> str:
        start = self.pos
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in _IDENT:
            self.pos += 1
        return text[start:self.pos]

    def tuple_or_struct(self, depth: int) -> RonValue:
        self.expect("(")
        if self.peek() == ")":
            self.pos += 1
            return []
        # a struct if it starts with `ident:` (and not `ident(`, a variant)
        save = self.pos
        if self.peek() and self.peek() in _IDENT_START:
            self.ident()
            if self.peek() == ":":
                self.pos = save
                return self.struct_fields(depth)
        self.pos = save
        items: list[RonValue] = []
        while True:
            items.append(self.value(depth + 1))
            if self.peek() == ",":
                self.pos += 1
                if self.peek() == ")":
                    break
                continue
            break
        self.expect(")")
        return items[0] if len(items) == 1 else items

    def struct_fields(self, depth: int) -> dict[str, RonValue]:
        out: dict[str, RonValue] = {}
        while self.peek() != ")":
            if self.peek() not in _IDENT_START or not self.peek():
                raise self.fail("a field name")
            name = self.ident()
            self.expect(":")
            out[name] = self.value(depth + 1)
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != ")":
                raise self.fail("',' or ')'")
        self.pos += 1
        return out

    def seq(self, depth: int) -> list[RonValue]:
        self.expect("[")
        out: list[RonValue] = []
        while self.peek() != "]":
            out.append(self.value(depth + 1))
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "]":
                raise self.fail("',' or ']'")
        self.pos += 1
        return out

    def map(self, depth: int) -> dict[str, RonValue]:
        self.expect("{")
        out: dict[str, RonValue] = {}
        while self.peek() != "}":
            key = self.value(depth + 1)
            if isinstance(key, (dict, list)) or key is None:
                raise RonError(f"a map key must be a string or number (offset {self.pos})")
            self.expect(":")
            out[str(key)] = self.value(depth + 1)
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "}":
                raise self.fail("',' or '}'")
        self.pos += 1
        return out

    def number(self) -> int | float:
        start = self.pos
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in _NUMBER:
            self.pos += 1
        raw = text[start:self.pos].replace("_", "")
        try:
            if any(c in raw for c in ".eE"):
                return float(raw)
            return int(raw)
        except ValueError:
            raise RonError(f"not a number: {raw!r} at offset {start}") from None

    def string(self) -> str:
        self.expect('"')
        text, n = self.text, len(self.text)
        out: list[str] = []
        while True:
            end = self.pos
            while end < n and text[end] not in '"\\':
                end += 1
            out.append(text[self.pos:end])
            self.pos = end
            if end >= n:
                raise RonError("a string is not closed")
            if text[end] == '"':
                self.pos = end + 1
                return "".join(out)
            # an escape
            if end + 1 >= n:
                raise RonError("a string is not closed")
            code = text[end + 1]
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                self.pos = end + 2
            elif code == "u" and text[end + 2:end + 3] == "{":
                close = text.find("}", end + 3, end + 11)
                if close < 0:
                    raise RonError(f"bad \\u escape at offset {end}")
                try:
                    out.append(chr(int(text[end + 3:close], 16)))
                except ValueError:
                    raise RonError(f"bad \\u escape at offset {end}") from None
                self.pos = close + 1
            elif code == "x":
                try:
                    out.append(chr(int(text[end + 2:end + 4], 16)))
                except ValueError:
                    raise RonError(f"bad \\x escape at offset {end}") from None
                self.pos = end + 4
            else:
                raise RonError(f"unknown escape \\{code} at offset {end}")
