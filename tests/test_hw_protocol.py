"""The Pico bridge line protocol (firmware_bridge/protocol.py), shared by firmware and host."""

from __future__ import annotations

import ast
import random
import zlib
from pathlib import Path

import pytest

from firmware_bridge import PICO_FILES
from firmware_bridge import protocol as P

ROOT = Path(__file__).resolve().parents[1]


def test_crc32_matches_zlib():
    for data in (b"", b"a", b"123456789", bytes(range(256)) * 3):
        assert P.crc32(data) == zlib.crc32(data)
    assert P.crc32(b"123456789") == 0xCBF43926  # the standard check value


def test_the_host_checks_lines_with_zlib_and_the_firmware_crc_agrees():
    """The host side uses zlib's C CRC-32; the firmware keeps its own table-driven one (the
    Pico's MicroPython has no zlib). They agree on every input, continuation included (the
    boot-keyed lines chain the key's CRC into the line's)."""
    assert P.line_crc32 is zlib.crc32
    rng = random.Random(17)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
        start = rng.randrange(1 << 32)
        assert P.crc32(data, start) == zlib.crc32(data, start)
        assert P.crc32(data) == zlib.crc32(data)
    # the vectors tests/hw_shims/micropython/check.py checks the firmware's CRC against
    vectors = ast.literal_eval(
        (ROOT / "tests/hw_shims/micropython/check.py").read_text().split("CRC_VECTORS = ")[1]
        .split("\n]\n")[0] + "\n]")
    assert vectors and all(zlib.crc32(d, s) == want for d, s, want in vectors)
    key = P.crc32(b"3fa2 ")
    assert P.crc32(b"17 SNAP 00ff", key) == zlib.crc32(b"17 SNAP 00ff", zlib.crc32(b"3fa2 "))


def test_button_lines():
    line = P.device_line(9, P.BTN, "hint short", "3fa2")
    assert P.decode_line(line[:-1], P.DEVICE_TYPES, "3fa2") == (9, "BTN", ["hint", "short"])
    assert P.decode_button(["new", "long"]) == ("new", "long")
    for bad in (["hint"], ["lever", "short"], ["hint", "double"], ["hint", "short", "x"]):
        with pytest.raises(P.ProtocolError):
            P.decode_button(bad)


def test_far_ahead_is_a_jump_not_a_line():
    assert not P.seq_jump(10, 11) and not P.seq_jump(10, 10 + P.MAX_AHEAD)
    assert P.seq_jump(10, 11 + P.MAX_AHEAD) and P.seq_jump(65000, (65000 + 30_000) % P.SEQ_MOD)
    assert not P.seq_jump(10, 9)  # behind is stale, not a jump


def test_line_round_trip():
    raw = P.encode_line(42, P.SNAP, "00ff")
    assert raw.endswith(b"\n")
    body, crc = raw[:-1].rsplit(b" *", 1)
    assert body == b"42 SNAP 00ff"
    assert int(crc, 16) == zlib.crc32(body)
    assert P.decode_line(raw[:-1], P.DEVICE_TYPES) == (42, "SNAP", ["00ff"])
    assert P.decode_line(raw[:-1] + b"\r", P.DEVICE_TYPES) == (42, "SNAP", ["00ff"])
    assert P.decode_line(P.encode_line(7, P.HB)[:-1], P.HOST_TYPES) == (7, "HB", [])


@pytest.mark.parametrize(
    "line, reason",
    [
        (b"", "empty"),
        (b"1 SNAP 00ff", "no crc"),
        (b"1 SNAP 00ff *1234", "no crc"),
        (b"1 SNAP 00ff *GGGGGGGG", "no crc"),
        (b"1 SNAP 00fe *" + b"%08X" % zlib.crc32(b"1 SNAP 00ff"), "bad crc"),
        (b"1 SNAP \x01ff *00000000", "bad bytes"),
        (b"1 SNAP \xc3\xa9 *00000000", "bad bytes"),
    ],
)
def test_decode_rejects(line, reason):
    with pytest.raises(P.ProtocolError) as exc:
        P.decode_line(line, P.DEVICE_TYPES)
    assert exc.value.reason == reason


def _signed(body: bytes) -> bytes:
    return body + b" *" + b"%08X" % zlib.crc32(body)


@pytest.mark.parametrize(
    "body, reason",
    [
        (b"SNAP", "truncated"),
        (b"x1 SNAP 00", "bad seq"),
        (b"70000 SNAP 00", "bad seq"),
        (b"1 BOGUS 00", "unknown type"),
        (b"1 LED 00", "unknown type"),  # a host type arriving at the host
        (b"1 SNAP  00", "bad payload"),
    ],
)
def test_decode_rejects_signed_nonsense(body, reason):
    with pytest.raises(P.ProtocolError) as exc:
        P.decode_line(_signed(body), P.DEVICE_TYPES)
    assert exc.value.reason == reason


def test_bitmap_round_trip_and_checks():
    flags = [i % 7 == 0 for i in range(121)]
    text = P.encode_bitmap(flags)
    assert len(text) == 31
    value = P.decode_bitmap(text, 121)
    assert [bool(value >> i & 1) for i in range(121)] == flags
    assert P.encode_bitmap([True, False, False, False, True]) == "11"
    with pytest.raises(P.ProtocolError):
        P.decode_bitmap(text[1:], 121)  # wrong length
    with pytest.raises(P.ProtocolError):
        P.decode_bitmap("0x" + text[2:], 121)  # int() would take it; we do not
    with pytest.raises(P.ProtocolError):
        P.decode_bitmap("2" + "0" * 30, 121)  # bit 121: padding must be clear


def test_led_payload_round_trip_and_checks():
    pixels = [(120, 1, 2, 3), (0, 255, 0, 16)]
    payload = P.encode_leds(pixels)
    assert payload == "0:ff0010 120:010203"
    assert P.decode_leds(payload.split(" "), 121) == sorted(pixels)
    for bad in (["121:000000"], ["1:00000"], ["1:0000zz"], ["1:000000", "1:000001"], [":000000"]):
        with pytest.raises(P.ProtocolError):
            P.decode_leds(bad, 121)


def test_kv():
    assert P.decode_kv(["fw=1.0", "size=11"]) == {"fw": "1.0", "size": "11"}
    with pytest.raises(P.ProtocolError):
        P.decode_kv(["size"])


def test_sequence_gaps_wrap():
    assert P.next_seq(65535) == 0
    assert P.seq_gap(5, 5) == 0
    assert P.seq_gap(5, 8) == 3
    assert P.seq_gap(65534, 1) == 3


def test_line_buffer_splits_and_drops_overlong_runs():
    buf = P.LineBuffer(limit=16)
    assert buf.feed(b"abc\nde") == [b"abc"]
    assert buf.feed(b"f\n") == [b"def"]
    assert buf.feed(b"x" * 40) == []
    assert buf.overflows == 1
    assert buf.feed(b"yyy\nok\n") == [b"ok"]  # the tail of the long run is thrown away too
    assert buf.feed(b"z" * 20 + b"\nfine\n") == [b"fine"]
    assert buf.overflows == 2


def test_random_corruption_is_never_accepted():
    """Flip, drop, insert or duplicate bytes of valid lines: every mutant either fails to decode
    or is byte-identical to a valid line."""
    rng = random.Random(1234)
    flags = [rng.random() < 0.3 for _ in range(121)]
    originals = [
        P.encode_line(rng.randrange(65536), P.SNAP, P.encode_bitmap(flags))[:-1] for _ in range(20)
    ]
    accepted = 0
    for _ in range(5000):
        line = bytearray(rng.choice(originals))
        op = rng.randrange(4)
        pos = rng.randrange(len(line))
        if op == 0:
            line[pos] ^= 1 << rng.randrange(8)
        elif op == 1:
            del line[pos : pos + rng.randrange(1, 8)]
        elif op == 2:
            line[pos:pos] = bytes(rng.randrange(32, 127) for _ in range(rng.randrange(1, 4)))
        else:
            line[pos:pos] = line[pos : pos + 5]
        try:
            P.decode_line(bytes(line), P.DEVICE_TYPES)
        except P.ProtocolError:
            continue
        assert bytes(line) in originals
        accepted += 1
    assert accepted < 50  # only no-op mutations (e.g. duplicating an empty slice) survive


MICROPYTHON_FILES = [ROOT / "firmware_bridge" / name
                     for name in (*PICO_FILES, "sim/machine.py", "sim/neopixel.py")]


def test_every_firmware_file_is_copied_to_the_pico():
    """PICO_FILES (tested under MicroPython) and the README's copy command name every module of
    the firmware: one left out would be missing on the Pico, whose main.py then fails to import."""
    on_disk = {p.name for p in (ROOT / "firmware_bridge").glob("*.py")} - {"__init__.py"}
    assert set(PICO_FILES) == on_disk
    readme = (ROOT / "firmware_bridge" / "README.md").read_text()
    assert "mpremote cp " + " ".join(PICO_FILES) + " :" in readme


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the nodes inside ``if MYPY:`` blocks (never run: MYPY is False at run time)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "MYPY":
            for child in node.body:
                out.update(id(n) for n in ast.walk(child))
    return out


@pytest.mark.parametrize("path", MICROPYTHON_FILES, ids=lambda p: p.name)
def test_firmware_sources_stay_micropython_compatible(path):
    """No f-strings, walrus, match, dataclasses, typing, int.bit_count or annotations."""
    tree = ast.parse(path.read_text())
    typing_only = _type_checking_only(tree)
    assert "MYPY = False" in path.read_text() or not typing_only
    for node in ast.walk(tree):
        if id(node) in typing_only:  # the imports the type comments use
            continue
        assert not isinstance(node, ast.JoinedStr), f"f-string at line {node.lineno}"
        assert not isinstance(node, ast.NamedExpr), f"walrus at line {node.lineno}"
        assert not isinstance(node, ast.Match), f"match at line {node.lineno}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            for bad in ("typing", "dataclasses", "__future__"):
                assert bad not in names, f"import {bad} at line {node.lineno}"
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("bit_count", "to_bytes", "from_bytes"), node.attr
            # MicroPython has no Exception.__init__ to call: super().__init__() only
            assert not (node.attr == "__init__" and isinstance(node.value, ast.Name)), node.lineno
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None and all(a.annotation is None for a in node.args.args)
        assert not isinstance(node, ast.AnnAssign), f"annotation at line {node.lineno}"
