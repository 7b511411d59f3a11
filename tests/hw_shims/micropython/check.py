"""Checks run under real MicroPython (tests/test_hw_protocol.py, when the WebAssembly port is
available): the protocol and the firmware's main loop with stub pins."""

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


def run():
    assert sys.implementation.name == "micropython"
    assert P.crc32(b"123456789") == 0xCBF43926
    flags = [i % 7 == 0 for i in range(121)]
    line = P.encode_line(42, P.SNAP, P.encode_bitmap(flags))
    print(line)
    seq, kind, args = P.decode_line(line[:-1], P.DEVICE_TYPES)
    v = P.decode_bitmap(args[0], 121)
    assert (seq, kind) == (42, "SNAP")
    assert [i for i in range(121) if (v >> i) & 1] == [i for i in range(121) if flags[i]]
    for bad, reason in (
        (b"1 SNAP 00", "no crc"),
        (line[:-1].replace(b"SNAP", b"SNAQ"), "bad crc"),
        (b"1 SNAP 00 *12345678", "bad crc"),
    ):
        try:
            P.decode_line(bad, P.DEVICE_TYPES)
            raise AssertionError("accepted " + repr(bad))
        except P.ProtocolError as e:
            assert e.reason == reason, e.reason
    pixels = P.decode_leds(P.encode_leds([(5, 1, 2, 3), (0, 255, 0, 16)]).split(" "), 121)
    assert pixels == [(0, 255, 0, 16), (5, 1, 2, 3)]
    buf = P.LineBuffer(limit=16)
    assert buf.feed(b"abc\nde") == [b"abc"]
    assert buf.feed(b"f\n" + b"x" * 40) == [b"def"]
    assert buf.feed(b"y\nok\n") == [b"ok"] and buf.overflows == 1

    cfg = M.load_config("no-such-file.json")
    cfg["scan_ms"] = 0
    machine.Pin.closed = {(0, 11), (2, 15)}  # a1 (rank 1 x file a), e3 (rank 3 x file e)
    con = FakeConsole()
    b = M.Bridge(cfg, con)
    b.prime()
    b.hello()
    con.inbox = P.encode_line(0, P.LED, "3:ff0000 7:000010") + P.encode_line(1, P.HOST) + b"x\n"
    for _ in range(5):
        b.step()
    got = [P.decode_line(x[:-1], P.DEVICE_TYPES) for x in con.out]
    kinds = [g[1] for g in got]
    assert kinds == ["HELLO", "SNAP", "ACK", "HELLO", "SNAP", "ERR"], kinds
    assert got[1][2] == ["0000000000000000000000004000001"], got[1]
    assert b.leds.np.buf[3] == (255, 0, 0) and b.leds.np.buf[7] == (0, 0, 16)
    con.inbox = b"\r\x03"
    b.step()
    assert b.stopped
    print("ALL OK")
