"""Line protocol between the Pico bridge firmware and the host (``tafl-bridge/3``).

This module runs unchanged under MicroPython (on the Pico) and CPython (on the host): no
f-strings, no dataclasses, no typing at runtime, no ``int.bit_count``, only ``%`` formatting and
plain loops over ``bytes``.

Every line is printable ASCII ending in ``\\n`` (a ``\\r`` before it is ignored)::

    <SEQ> <TYPE>[ <payload>] *<CRC>

``SEQ`` is a decimal counter 0..65535 per sender, wrapping. The Pico starts it at 0 when it boots
and never restarts it while running; the host drops any line whose SEQ is not ahead of the last
line it accepted from that boot (a replayed or reordered line), counts the skipped numbers as lost
lines, and restarts its count on a HELLO from a new boot that the Pico has confirmed by echoing
the host's last HOST nonce (a HELLO of any earlier boot is refused, an unconfirmed one of an
unknown boot is only a reason to ask). A line more than ``MAX_AHEAD`` numbers ahead is dropped
(``seq jump``): real lines are never lost in such numbers without the host noticing the silence
and asking for a HELLO, which puts it back in step. ``CRC`` is the CRC-32 (IEEE, as zlib),
as 8 upper-case hex digits, of everything before `` *`` -- for SNAP, HB and ACK lines prefixed by
the boot id and a space (``"3fa2 17 SNAP ..."``), so a line from an earlier boot of the Pico never
checks out; HELLO and ERR lines are not keyed (the host reads the boot id from HELLO, and an ERR
may come before any HELLO). A line whose CRC, sequence field, type or payload does not check out is
dropped whole.

Pico -> host:
    ``HELLO fw=1.2 proto=3 size=11 sensors=switch|polarity leds=121 boot=<hex>[ nonce=<hex>]``
        after boot (SEQ 0, no nonce) and whenever the host sends HOST (SEQ goes on), then with
        the HOST's nonce echoed.
    ``SNAP <occupied hex> [<attacker hex>]``
        full snapshot of the debounced board: on every change and every second. Bit ``i`` of the
        big-endian hex number is square ``i = rank * size + file`` (``a1`` = 0, ``b1`` = 1, ...,
        ``a2`` = size). With polarity sensors the second bitmap marks attacker magnets.
    ``HB up=<ms> scans=<n> bad=<n> faults=<list or ->``
        heartbeat, every 0.5 s.
    ``ACK <host seq>``  an LED frame was applied.
    ``BTN <button> short|long|stuck|free``  a board button (``clock``, ``hint``, ``takeback``,
        ``new``): a short press (on release), a long press (when held ``long_ms``), held down
        ``stuck_ms`` (stuck or shorted: ignored until released), released after being stuck.
    ``ERR <code> <text>``  something the firmware wants logged (bad host line, stuck file, a
        configuration it cannot run: then it sends that ERR every second and nothing else).

Host -> Pico:
    ``HOST proto=3 nonce=<hex>``  hello request; the Pico answers with HELLO (echoing the nonce)
                      then SNAP, and takes the host's SEQ afresh (a restarted host starts at 0).
    ``HB``            heartbeat, every second; without one for 5 s the Pico blanks its LEDs.
    ``SYNC``          please send a SNAP now (the host saw a sequence gap); at most a few per
                      second (the host limits them, the Pico answers one per 50 ms at most).
    ``LED [<index>:<rrggbb> ...]``  the complete LED frame: listed LEDs lit, all others off.
"""

# ruff: noqa: UP031 - %-formatting on purpose: it is the one string formatting every MicroPython
# build has, and the cheapest on the Pico.

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from collections.abc import Callable, Iterable, Sequence  # noqa: F401 - used in type comments

PROTO_VERSION = "3"
MAX_LINE = 4200  # bytes, enough for a 19x19 LED frame with every LED lit
SEQ_MOD = 65536
MAX_AHEAD = 1024  # a line further ahead than this is dropped (``seq jump``)

HELLO = "HELLO"
SNAP = "SNAP"
HB = "HB"
ACK = "ACK"
ERR = "ERR"
BTN = "BTN"
HOST = "HOST"
SYNC = "SYNC"
LED = "LED"

DEVICE_TYPES = (HELLO, SNAP, HB, ACK, ERR, BTN)
HOST_TYPES = (HOST, HB, SYNC, LED)
UNKEYED_TYPES = (HELLO, ERR)  # device lines whose CRC does not include the boot id

SEQ_HALF = SEQ_MOD // 2

BUTTONS = ("clock", "hint", "takeback", "new")  # the names a BTN line may carry
BUTTON_EVENTS = ("short", "long", "stuck", "free")

_HEX = "0123456789abcdef"
_HEX_CHARS = "0123456789abcdefABCDEF"


class ProtocolError(ValueError):
    """A received line that must be dropped; ``reason`` is a short tag for statistics."""

    def __init__(self, reason, detail=""):
        # type: (str, str) -> None
        # super(), not ValueError.__init__: MicroPython has no Exception.__init__ to call
        super().__init__(reason + (": " + detail if detail else ""))
        self.reason = reason


def _make_table():
    # type: () -> list[int]
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            if c & 1:
                c = (c >> 1) ^ 0xEDB88320
            else:
                c = c >> 1
        table.append(c)
    return table


_CRC_TABLE = _make_table()


def crc32(data, crc=0):
    # type: (bytes, int) -> int
    """CRC-32 (IEEE 802.3, the zlib one) of ``data`` (bytes), continuing from ``crc``: the
    firmware's own, in plain Python (MicroPython has no ``zlib.crc32``)."""
    crc = crc ^ 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _line_crc():
    # type: () -> Callable[..., int]
    # The host (CPython) checks lines with zlib's C CRC-32, the same function as crc32 above
    # (tests/test_hw_protocol.py proves they agree, continuation included); the Pico uses its own.
    try:
        import zlib

        return zlib.crc32 if hasattr(zlib, "crc32") else crc32
    except ImportError:
        return crc32


line_crc32 = _line_crc()


def _crc_text(crc):
    # type: (int) -> str
    # two halves keep MicroPython in small ints for the formatting
    return "%04X%04X" % ((crc >> 16) & 0xFFFF, crc & 0xFFFF)


def next_seq(seq):
    # type: (int) -> int
    """The sequence number after ``seq``."""
    return (seq + 1) % SEQ_MOD


def seq_gap(expected, got):
    # type: (int, int) -> int
    """How many lines were lost when ``got`` arrives while ``expected`` was due."""
    return (got - expected) % SEQ_MOD


def seq_ahead(last, got):
    # type: (int, int) -> int
    """How far ``got`` is ahead of ``last`` (1 = the next line), or 0 when it is the same number
    or behind it (a replayed or reordered line): half the number space counts as behind."""
    d = (got - last) % SEQ_MOD
    return d if d < SEQ_HALF else 0


def seq_jump(last, got):
    # type: (int, int) -> bool
    """True when ``got`` is ahead of ``last`` by more than MAX_AHEAD: not a line to take."""
    return seq_ahead(last, got) > MAX_AHEAD


def _key_crc(key):
    # type: (str) -> int
    return line_crc32((key + " ").encode()) if key else 0


def encode_line(seq, kind, payload="", key=""):
    # type: (int, str, str, str) -> bytes
    """One complete protocol line (bytes, with CRC and newline); a non-empty ``key`` (the boot
    id) is covered by the CRC without being sent."""
    if payload:
        body = "%d %s %s" % (seq, kind, payload)
    else:
        body = "%d %s" % (seq, kind)
    raw = body.encode()
    return raw + b" *" + _crc_text(line_crc32(raw, _key_crc(key))).encode() + b"\n"


def device_line(seq, kind, payload, boot):
    # type: (int, str, str, str) -> bytes
    """A Pico -> host line of the Pico booted as ``boot``: keyed unless in UNKEYED_TYPES."""
    return encode_line(seq, kind, payload, "" if kind in UNKEYED_TYPES else boot)


def is_hex(text):
    # type: (str) -> bool
    """True when ``text`` is a non-empty run of hex digits (nothing else: no 0x, no _)."""
    if not text:
        return False
    return all(ch in _HEX_CHARS for ch in text)


def decode_line(raw, allowed, key=""):
    # type: (bytes, Sequence[str], str) -> tuple[int, str, list[str]]
    """Check one received line (bytes without the newline) and split it.

    Returns ``(seq, kind, args)`` with ``args`` a list of strings; raises ProtocolError for any
    line to drop: bad bytes, missing or wrong CRC, malformed sequence number, a type not in
    ``allowed``. With a ``key`` (the boot id of the Pico the host talks to) lines must carry the
    keyed CRC, except those of UNKEYED_TYPES, which must carry the plain one.
    """
    if raw[-1:] == b"\r":
        raw = raw[:-1]
    if not raw:
        raise ProtocolError("empty")
    if len(raw) > MAX_LINE:
        raise ProtocolError("too long")
    for b in raw:
        if b < 0x20 or b > 0x7E:
            raise ProtocolError("bad bytes")
    star = raw.rfind(b" *")
    if star < 0:
        raise ProtocolError("no crc")
    body = raw[:star]
    crc_field = raw[star + 2 :].decode()
    if len(crc_field) != 8 or not is_hex(crc_field):
        raise ProtocolError("no crc")
    plain = line_crc32(body)
    if key:
        keyed = crc_field == _crc_text(line_crc32(body, _key_crc(key)))
        if not keyed and crc_field != _crc_text(plain):
            raise ProtocolError("bad crc")
    else:
        keyed = False
        if crc_field != _crc_text(plain):
            raise ProtocolError("bad crc")
    parts = body.decode().split(" ")
    if len(parts) < 2:
        raise ProtocolError("truncated")
    seq_text = parts[0]
    if not seq_text or len(seq_text) > 5 or not seq_text.isdigit():
        raise ProtocolError("bad seq")
    seq = int(seq_text)
    if seq >= SEQ_MOD:
        raise ProtocolError("bad seq")
    kind = parts[1]
    if kind not in allowed:
        raise ProtocolError("unknown type", kind)
    if key and keyed == (kind in UNKEYED_TYPES):
        raise ProtocolError("bad crc", "keyed" if keyed else "not keyed")
    args = []
    for p in parts[2:]:
        if not p:
            raise ProtocolError("bad payload", "double space")
        args.append(p)
    return seq, kind, args


def hex_digits(nbits):
    # type: (int) -> int
    """Number of hex digits in a bitmap of ``nbits`` bits."""
    return (nbits + 3) // 4


def encode_bitmap(flags):
    # type: (Sequence[object]) -> str
    """Hex bitmap of a sequence of truthy/falsy values: bit ``i`` set when ``flags[i]``."""
    n = len(flags)
    out = []
    for d in range(hex_digits(n) - 1, -1, -1):
        nib = 0
        base = d * 4
        for j in range(4):
            i = base + j
            if i < n and flags[i]:
                nib |= 1 << j
        out.append(_HEX[nib])
    return "".join(out)


def decode_bitmap(text, nbits):
    # type: (str, int) -> int
    """Integer of a hex bitmap of exactly ``hex_digits(nbits)`` digits; ProtocolError when the
    length is wrong, a character is not hex, or a padding bit above ``nbits`` is set."""
    if len(text) != hex_digits(nbits) or not is_hex(text):
        raise ProtocolError("bad payload", "bitmap")
    value = int(text, 16)
    if value >> nbits:
        raise ProtocolError("bad payload", "bitmap padding")
    return value


def valid_nonce(text):
    # type: (str) -> bool
    """True for a HOST nonce: 1 to 8 hex digits."""
    return 0 < len(text) <= 8 and is_hex(text)


def decode_button(args):
    # type: (list[str]) -> tuple[str, str]
    """``(button, event)`` of a BTN payload; ProtocolError for an unknown button or event."""
    if len(args) != 2 or args[0] not in BUTTONS or args[1] not in BUTTON_EVENTS:
        raise ProtocolError("bad payload", "button")
    return args[0], args[1]


def encode_kv(pairs):
    # type: (Sequence[tuple[str, object]]) -> str
    """``key=value`` tokens from a list of (key, value) pairs."""
    return " ".join(["%s=%s" % (k, v) for k, v in pairs])


def decode_kv(args):
    # type: (list[str]) -> dict[str, str]
    """Dict of ``key=value`` tokens; ProtocolError on a token without ``=``."""
    out = {}
    for a in args:
        eq = a.find("=")
        if eq <= 0:
            raise ProtocolError("bad payload", "expected key=value")
        out[a[:eq]] = a[eq + 1 :]
    return out


def encode_leds(pixels):
    # type: (Iterable[tuple[int, int, int, int]]) -> str
    """LED payload from ``[(index, r, g, b), ...]`` (only lit LEDs need to be listed)."""
    toks = []
    for p in sorted(pixels):
        idx, r, g, b = p
        toks.append("%d:%02x%02x%02x" % (idx, r, g, b))
    return " ".join(toks)


def decode_leds(args, count):
    # type: (list[str], int) -> list[tuple[int, int, int, int]]
    """``[(index, r, g, b), ...]`` from LED payload tokens; ProtocolError when an index is out of
    range (``count`` LEDs), repeated, or a colour is not 6 hex digits."""
    out = []
    seen = {}
    for tok in args:
        colon = tok.find(":")
        if colon <= 0:
            raise ProtocolError("bad payload", "led token")
        idx_text = tok[:colon]
        rgb = tok[colon + 1 :]
        if not idx_text.isdigit() or len(idx_text) > 4 or len(rgb) != 6 or not is_hex(rgb):
            raise ProtocolError("bad payload", "led token")
        idx = int(idx_text)
        if idx >= count or idx in seen:
            raise ProtocolError("bad payload", "led index")
        seen[idx] = True
        out.append((idx, int(rgb[0:2], 16), int(rgb[2:4], 16), int(rgb[4:6], 16)))
    return out


class LineBuffer:
    """Splits a byte stream into lines; a run longer than MAX_LINE without a newline is thrown
    away up to the next newline (counted in ``overflows``)."""

    def __init__(self, limit=MAX_LINE):
        # type: (int) -> None
        self.limit = limit
        self.buf = b""
        self.skipping = False
        self.overflows = 0

    def clear(self):
        # type: () -> None
        """Forget any partial line (after a reconnect)."""
        self.buf = b""
        self.skipping = False

    def feed(self, data):
        # type: (bytes) -> list[bytes]
        """Add received bytes; return the list of complete lines (without newline)."""
        lines = []
        buf = self.buf + data
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line = buf[:nl]
            buf = buf[nl + 1 :]
            if self.skipping:
                self.skipping = False
                continue
            if len(line) > self.limit:
                self.overflows += 1
                continue
            lines.append(line)
        if len(buf) > self.limit:
            self.overflows += 1
            buf = b""
            self.skipping = True
        self.buf = buf
        return lines
