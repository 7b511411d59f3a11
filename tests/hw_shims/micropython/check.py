"""Checks run under MicroPython's unix port (tests/test_hw_micropython.py), with the firmware laid
out as on the Pico (``main`` and ``protocol`` as top-level modules, .py or .mpy) and stub
``machine``/``neopixel`` modules: the protocol round trips and the firmware's main loop."""

import sys

import machine
import main as M
import protocol as P


class FakeConsole:
    def __init__(self):
        self.out = []
        self.inbox = b""

    def read(self):
        d, self.inbox = self.inbox, b""
        return d

    def write(self, data):
        self.out.append(data)

    def release(self):
        pass


class ManualClock:
    """The firmware's clock, stepped by the check: ``sleep_ms`` moves it, nothing else does, so
    a busy machine cannot stretch a press or a hold (the firmware takes ``utime`` otherwise)."""

    def __init__(self):
        self.now = 1000

    def ticks_ms(self):
        return self.now

    def sleep_ms(self, ms):
        self.now += ms


def rejects(line, reason, key=""):
    try:
        P.decode_line(line, P.DEVICE_TYPES, key)
    except P.ProtocolError as e:
        assert e.reason == reason, (line, e.reason)
        return
    raise AssertionError("accepted " + repr(line))


# zlib.crc32 on CPython of these inputs (tests/test_hw_protocol.py checks it on the host side)
CRC_VECTORS = [
    (b"", 0, 0x00000000),
    (b"123456789", 0, 0xCBF43926),
    (b"17 SNAP 00ff", 0x5A1C47E2, 0x20AB3BF1),
    (b"\x00\xff\x7f\x80 HELLO boot=3fa2", 0, 0x31BD194C),
]


def check_protocol():
    assert P.line_crc32 is P.crc32  # the firmware's own: MicroPython has no zlib.crc32
    for data, start, want in CRC_VECTORS:
        assert P.crc32(data, start) == want, (data, start, P.crc32(data, start), want)
    flags = [i % 7 == 0 for i in range(121)]
    line = P.device_line(42, P.SNAP, P.encode_bitmap(flags), "3fa2")
    seq, kind, args = P.decode_line(line[:-1], P.DEVICE_TYPES, "3fa2")
    assert (seq, kind) == (42, "SNAP")
    v = P.decode_bitmap(args[0], 121)
    assert [i for i in range(121) if (v >> i) & 1] == [i for i in range(121) if flags[i]]
    rejects(line[:-1], "bad crc", "3fa3")  # another boot's line
    rejects(line[:-1], "bad crc")  # keyed, read as plain
    rejects(b"1 SNAP 00", "no crc")
    rejects(line[:-1].replace(b"SNAP", b"SNAQ"), "bad crc", "3fa2")
    hello = P.device_line(0, P.HELLO, "boot=3fa2", "3fa2")
    assert P.decode_line(hello[:-1], P.DEVICE_TYPES, "3fa2")[1] == "HELLO"  # not keyed
    assert P.decode_line(hello[:-1], P.DEVICE_TYPES)[1] == "HELLO"
    assert P.seq_ahead(65535, 2) == 3 and P.seq_ahead(5, 5) == 0 and P.seq_ahead(5, 4) == 0
    pixels = P.decode_leds(P.encode_leds([(5, 1, 2, 3), (0, 255, 0, 16)]).split(" "), 121)
    assert pixels == [(0, 255, 0, 16), (5, 1, 2, 3)]
    buf = P.LineBuffer(limit=16)
    assert buf.feed(b"abc\nde") == [b"abc"]
    assert buf.feed(b"f\n" + b"x" * 40) == [b"def"]
    assert buf.feed(b"y\nok\n") == [b"ok"] and buf.overflows == 1


def decoded(con, boot):
    return [P.decode_line(x[:-1], P.DEVICE_TYPES, boot) for x in con.out]


def check_firmware():
    cfg = M.load_config("no-such-file.json")
    M.check_config(cfg)
    cfg["scan_ms"] = 0
    machine.Pin.closed = {(0, 11), (2, 15)}  # a1 (rank 1 x file a), e3 (rank 3 x file e)
    con = FakeConsole()
    b = M.Bridge(cfg, con, ManualClock())
    b.prime()
    b.hello()
    con.inbox = P.encode_line(0, P.LED, "3:ff0000 7:000010") + P.encode_line(1, P.HOST) + b"x\n"
    for _ in range(5):
        b.step()
    got = decoded(con, b.boot)
    kinds = [g[1] for g in got]
    assert kinds == ["HELLO", "SNAP", "ACK", "HELLO", "SNAP", "ERR"], kinds
    assert [g[0] for g in got] == list(range(6))  # one sequence per boot, HELLO included
    assert got[1][2] == ["0000000000000000000000004000001"], got[1]
    assert b.leds.np.buf[3] == (255, 0, 0) and b.leds.np.buf[7] == (0, 0, 16)

    # host lines out of order are dropped; a burst of SYNCs gets one snapshot
    con.out = []
    con.inbox = P.encode_line(1, P.LED, "1:010101") + b"".join(
        [P.encode_line(s, P.SYNC) for s in range(2, 12)]
    )
    b.step()
    kinds = [g[1] for g in decoded(con, b.boot)]
    assert kinds == ["ERR", "SNAP"], kinds  # stale LED frame refused, one SNAP for ten SYNCs

    # a column shorted to ground in the middle of the board is frozen to its debounced state
    con.out = []
    machine.Pin.shorted = {15}  # file e: e3 is a piece, e5 is not
    for _ in range(4):
        b.step()
    machine.Pin.shorted = set()
    snaps = [g for g in decoded(con, b.boot) if g[1] == "SNAP"]
    assert not snaps, snaps  # nothing changed on the board
    errs = [g for g in decoded(con, b.boot) if g[1] == "ERR"]
    assert errs and errs[0][2][:3] == ["stuck", "files", "e"], errs

    # a configuration it cannot run is an ERR line, not a crash
    bad = dict(cfg)
    bad["row_pins"] = [0, 1, 2]
    try:
        M.check_config(bad)
        raise AssertionError("short row_pins accepted")
    except M.ConfigError as e:
        assert "row_pins lists 3 pins" in str(e), str(e)
    con = FakeConsole()
    f = M.Fault("row_pins lists 3 pins", con)
    f.report()
    seq, kind, args = P.decode_line(con.out[0][:-1], P.DEVICE_TYPES)
    assert kind == "ERR" and args[:2] == ["config", "row_pins"], args

    con.inbox = b"\r\x03"
    b.console = con
    b.step()
    assert b.stopped


def check_buttons():
    """Short, long and stuck presses, bounce, and a button already down at start-up, on the
    check's own clock: a step every 2 ms, however slowly this machine runs them."""
    cfg = M.load_config("no-such-file.json")
    cfg.update(scan_ms=0, button_pins={"clock": 26, "hint": 27, "new": 28}, long_ms=60,
               stuck_ms=200)
    M.check_config(cfg)
    machine.Pin.closed = set()
    machine.Pin.grounded = {28}  # "new" is held down while the firmware starts
    clock = ManualClock()
    con = FakeConsole()
    b = M.Bridge(cfg, con, clock)
    b.prime()
    con.out = []

    def run_for(ms, grounded):
        # a step every 2 ms of the check's clock, the last one at ``ms``
        machine.Pin.grounded = grounded
        for _ in range(ms // 2):
            clock.sleep_ms(2)
            b.step()

    def events():
        got = [g for g in decoded(con, b.boot) if g[1] == "BTN"]
        con.out = []
        return [" ".join(g[2]) for g in got]

    run_for(20, {28})
    run_for(20, set())
    assert events() == [], "a button down at start-up is no press"
    run_for(20, {26})
    run_for(20, set())
    assert events() == ["clock short"]
    run_for(100, {27})
    assert events() == ["hint long"]
    run_for(20, set())
    assert events() == [], "a long press sends nothing on release"
    for _ in range(30):  # contact bounce: never the same reading twice in a row
        machine.Pin.grounded = {26} if not machine.Pin.grounded else set()
        b.step()
    machine.Pin.grounded = set()
    b.step()
    b.step()
    assert events() == [], "bounce is no press"
    run_for(260, {26})
    assert events() == ["clock long", "clock stuck"]
    run_for(20, set())
    assert events() == ["clock free"]
    bad = dict(cfg)
    bad["button_pins"] = {"lever": 5}
    try:
        M.check_config(bad)
        raise AssertionError("unknown button accepted")
    except M.ConfigError as e:
        assert "unknown button" in str(e), str(e)
    bad["button_pins"] = {"clock": 22}  # the LED pin
    try:
        M.check_config(bad)
        raise AssertionError("a pin with two jobs accepted")
    except M.ConfigError as e:
        assert "two jobs" in str(e), str(e)


def run():
    assert sys.implementation.name == "micropython"
    check_protocol()
    check_firmware()
    check_buttons()
    print("ALL OK")


run()
