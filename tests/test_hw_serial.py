"""The Pico bridge end to end: the real firmware (firmware_bridge/main.py) under CPython with the
machine/neopixel/utime shims on one end of a pty, the host driver on the other.

A poller thread calls ``scan()`` all the time and records every reading; each test checks that
every reading ever returned was a board state the test really set up (no phantom scans).
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from pico_rig import (  # noqa: E402
    INTERPRETERS,
    Rig,
    ScriptedDevice,
    firmware_interpreter,
    reading,
    wait_for,
)

from companion.drivers.base import colour_changes  # noqa: E402
from companion.drivers.serial_bridge import SerialBridge, find_pico  # noqa: E402
from companion.scan import Scan  # noqa: E402
from firmware_bridge import protocol as P  # noqa: E402
from firmware_bridge.sim import write_board  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "hardware" / "examples"
STUCK_C = (
    "file c reads closed with every row released: short to ground, or a switch shorted past "
    "its diode"
)


@pytest.fixture(params=INTERPRETERS)
def rig(request, tmp_path):
    """(pico, bridge, poller) factory, the firmware under CPython and under MicroPython's unix
    port; torn down and checked for phantom scans."""
    r = Rig(tmp_path, firmware_interpreter(request.param))
    yield r
    r.close()


START = {"a4", "a5", "a6", "d1", "e1", "f6", "g3", "k7"}


def test_scans_arrive_as_scan_objects(rig):
    pico, bridge, poller = rig(initial=START)
    wait_for(lambda: reading(bridge) == START, what="first snapshot")
    st = bridge.status()
    assert st["connected"] and st["detail"] == f"Pico fw 1.2 on {pico.link}"
    assert st["firmware"] == "1.2"
    # at most the boot's own HELLO and SNAP, sent before the host's nonce was answered
    assert set(st["drop_reasons"]) <= {"unconfirmed hello", "no hello"}, st["drop_reasons"]
    assert st["dropped_lines"] <= 2
    s = bridge.scan(12.5)
    assert isinstance(s, Scan) and s.t == 12.5 and s.colours is None
    # a move, the way hands make it: lift g3, put it down on e3
    pico.place(START - {"g3"})
    wait_for(lambda: reading(bridge) == START - {"g3"}, what="lift")
    pico.place(START - {"g3"} | {"e3"})
    wait_for(lambda: reading(bridge) == START - {"g3"} | {"e3"}, what="drop")
    wait_for(lambda: len(poller.seen) == 3, what="poller")
    seen = [set(s.occupied) for s in poller.seen]
    assert seen == [START, START - {"g3"}, START - {"g3"} | {"e3"}]


def test_led_frames_reach_the_pico_and_are_resent_after_a_reboot(rig):
    pico, bridge, poller = rig(initial={"e5"})
    wait_for(lambda: reading(bridge) == {"e5"}, what="first snapshot")
    bridge.set_pixels({0: (255, 0, 0), 12: (0, 0, 40), 5: (0, 0, 0)})
    want = {"0": [255, 0, 0], "12": [0, 0, 40]}
    wait_for(lambda: pico.leds() == want, what="LED frame on the Pico")
    hellos = bridge.status()["hellos"]
    sent = bridge.led_frames_sent
    pico.reboot()  # killed mid-whatever: its LEDs are dark until the host sends the frame again
    wait_for(lambda: bridge.status()["hellos"] > hellos, what="hello after reboot")
    wait_for(lambda: pico.leds() == want, what="LED frame resent after reboot")
    assert bridge.led_frames_sent > sent
    wait_for(lambda: reading(bridge) == {"e5"}, what="snapshot after reboot")
    bridge.set_pixels({})
    wait_for(lambda: pico.leds() == {}, what="LEDs off")


def test_garbled_lines_are_dropped_without_phantom_scans(rig):
    pico, bridge, poller = rig(initial=START)
    wait_for(lambda: reading(bridge) == START, what="first snapshot")
    everything = P.encode_bitmap([True] * 121)
    boot, seq = bridge.status()["boot"], bridge.status()["seq"] + 1000  # in step, CRC right
    real = P.device_line(seq, P.SNAP, everything, boot)
    bad_crc = real[:-3] + (b"0" if real[-3:-2] != b"0" else b"1") + real[-2:]
    rng = random.Random(7)
    junk = [
        b"\x00\xff\xfe garbage \x03\x04\r\n",  # noise, a Ctrl-C and a Ctrl-D byte
        bad_crc,  # a board full of pieces, wrong CRC
        real[: len(real) // 2] + b"\n",  # truncated
        P.device_line(seq, "BOGUS", "x", boot),  # unknown type, CRC fine
        P.device_line(seq, P.SNAP, "ff", boot),  # CRC fine, bitmap of the wrong size
        P.device_line(seq, P.SNAP, everything + " " + "0" * 31 + " x", boot),  # too many fields
        b"7" * 5000 + b"\n",  # an endless line
        bytes(rng.randrange(256) for _ in range(3000)) + b"\n",
    ]
    for chunk in junk:
        pico.inject(chunk)
        time.sleep(0.02)
    # each kind of garbage counted under its reason (the hello's own drops count too, so the
    # total alone can be reached before the last lines are read)
    kinds = ("bad crc", "no crc", "unknown type", "bad payload", "too long")
    wait_for(lambda: all(bridge.status()["drop_reasons"].get(k) for k in kinds),
             what=f"drops counted: {kinds}")
    assert bridge.status()["dropped_lines"] >= len(junk) - 1
    # the link still works and the next real change arrives
    pico.place(START | {"h8"})
    wait_for(lambda: reading(bridge) == START | {"h8"}, what="change after the garbage")
    assert all(set(s.occupied) in (START, START | {"h8"}) for s in poller.seen)
    assert bridge.status()["connected"]


def test_unplugged_cable_then_replugged(rig):
    pico, bridge, poller = rig(initial={"c3"})
    wait_for(lambda: reading(bridge) == {"c3"}, what="first snapshot")
    pico.unplug()
    wait_for(lambda: not bridge.status()["connected"], what="disconnect noticed")
    st = bridge.status()
    assert st["detail"].startswith("link lost ") and "s ago" in st["detail"]
    assert bridge.scan(time.monotonic()) is None
    nones = poller.nones
    wait_for(lambda: poller.nones > nones + 20, what="scan() keeps returning None")
    pico.place({"c3", "d4"})  # moved while unplugged
    pico.plug()
    wait_for(lambda: reading(bridge) == {"c3", "d4"}, what="reconnect")
    st = bridge.status()
    assert st["connected"] and st["reconnects"] >= 1


def test_firmware_that_goes_silent_is_stale(rig):
    pico, bridge, poller = rig(initial={"b2"}, stale_after=0.6)
    wait_for(lambda: reading(bridge) == {"b2"}, what="first snapshot")
    pico.proc.send_signal(signal.SIGSTOP)  # hung firmware: port open, nothing arrives
    try:
        wait_for(lambda: bridge.scan(time.monotonic()) is None, what="stale")
        assert not bridge.status()["connected"]
    finally:
        pico.proc.send_signal(signal.SIGCONT)
    wait_for(lambda: reading(bridge) == {"b2"}, what="back")


def test_no_pico_found(tmp_path):
    bridge = SerialBridge(11, finder=lambda: find_pico(str(tmp_path), scan_usb=False))
    try:
        time.sleep(0.1)
        st = bridge.status()
        assert not st["connected"] and st["detail"].startswith("no Pico found")
        assert bridge.scan(0.0) is None
    finally:
        bridge.close()


def test_explicit_port_that_does_not_exist(tmp_path):
    port = str(tmp_path / "ttyACM9")
    bridge = SerialBridge(11, port=port)
    try:
        wait_for(lambda: "No such file" in bridge.status()["detail"], what="error")
        assert bridge.status()["detail"] == f"cannot open {port}: No such file or directory"
        assert bridge.scan(0.0) is None
    finally:
        bridge.close()


def test_board_size_mismatch_gives_no_scans(rig):
    pico, bridge, poller = rig(
        config={
            "size": 13,
            "row_pins": list(range(13)),
            "col_pins": list(range(13, 26)),
            "led_pin": 26,
        },
        size=11,
    )
    wait_for(lambda: "Pico reports a 13x13 board" in bridge.status()["detail"], what="mismatch")
    time.sleep(0.3)
    assert bridge.scan(time.monotonic()) is None and poller.seen == []
    pico.states.clear()


def test_linear_hall_polarity_gives_colours(rig):
    colours = {"e3": "a", "f4": "d", "k11": "a"}
    pico, bridge, poller = rig(
        config={"size": 11, "mode": "hall"}, sensors="polarity", initial=colours, colours=colours
    )
    wait_for(lambda: reading(bridge) == set(colours), what="first snapshot")
    first = bridge.scan(1.0)
    assert first.colours == colours
    assert bridge.status()["sensors"] == "polarity"
    # the attacker on e3 is swapped for a defender: same occupancy, new colour
    swapped = {**colours, "e3": "d"}
    pico.place(swapped, swapped)
    wait_for(lambda: bridge.scan(2.0).colours == swapped, what="colour change")
    assert colour_changes(first, bridge.scan(2.0)) == {"e3": "d"}
    assert colour_changes(None, first) == colours


def test_stuck_column_is_reported_by_the_firmware(rig):
    pico, bridge, poller = rig(initial={"c2", "d4"})
    wait_for(lambda: reading(bridge) == {"c2", "d4"}, what="first snapshot")
    write_board(str(pico.dir), {"c2", "d4"}, None, stuck_cols=[2])
    wait_for(lambda: bridge.status()["faults"] == [STUCK_C], what="fault in heartbeat")
    assert "stuck files c" in bridge.status()["last_device_error"]
    time.sleep(0.1)
    assert reading(bridge) == {"c2", "d4"}  # file c is frozen, not suddenly full of pieces


@pytest.mark.parametrize(
    "path", sorted(EXAMPLES.glob("bridge_config-*.json")), ids=lambda p: p.stem
)
def test_example_firmware_configs_run(rig, path):
    config = json.loads(path.read_text())
    size = config["size"]
    sensors = "polarity" if config["mode"] == "hall" else "switch"
    last = f"{chr(96 + size)}{size}"
    colours = {"a1": "a", last: "d"} if sensors == "polarity" else None
    pico, bridge, poller = rig(
        config=config, size=size, sensors=sensors, initial={"a1", last}, colours=colours
    )
    wait_for(lambda: reading(bridge) == {"a1", last}, what=f"snapshot from {path.name}")
    assert bridge.scan(0.0).colours == colours


# -- the host driver against a scripted device (no firmware) ----------------------------------


def test_sequence_gap_triggers_a_sync_request(tmp_path):
    dev = ScriptedDevice()
    bridge = SerialBridge(7, port=dev.path)
    try:
        dev.answer_hello(0, fw="9.9")
        dev.send(1, P.SNAP, P.encode_bitmap([i == 3 for i in range(49)]))
        wait_for(lambda: reading(bridge) == {"d1"}, what="snapshot")
        dev.send(5, P.SNAP, P.encode_bitmap([i == 4 for i in range(49)]))  # 2, 3, 4 lost
        wait_for(lambda: reading(bridge) == {"e1"}, what="next snapshot")
        assert bridge.status()["gaps"] == 3
        wait_for(lambda: any(k == P.SYNC for _, k, _ in dev.read_host()), what="SYNC")
        assert bridge.status()["detail"] == f"Pico fw 9.9 on {dev.path}"
    finally:
        bridge.close()
        dev.close()


def test_snapshot_without_hello_is_ignored(tmp_path):
    dev = ScriptedDevice()
    bridge = SerialBridge(7, port=dev.path)
    try:
        wait_for(lambda: bridge.status()["port"] == dev.path, what="open")
        dev.send(0, P.SNAP, P.encode_bitmap([True] * 49))
        wait_for(lambda: bridge.status()["drop_reasons"].get("no hello"), what="drop")
        assert bridge.scan(0.0) is None
        assert "waiting for the Pico's hello" in bridge.status()["detail"]
    finally:
        bridge.close()
        dev.close()


def test_led_frame_is_resent_until_acknowledged(tmp_path):
    dev = ScriptedDevice()
    bridge = SerialBridge(7, port=dev.path)
    try:
        dev.answer_hello(0, fw="1.0")
        bridge.set_pixels({3: (1, 2, 3)})

        def led_lines():
            return [(s, a) for s, k, a in dev.read_host() if k == P.LED]

        frame = ["3:010203"]
        # (a frame of the board's lights before ours may come first: the HELLO can be read
        # before set_pixels on a busy machine; ours is then sent, and resent, alone)
        wait_for(lambda: sum(a == frame for _, a in led_lines()) >= 2, what="resend")
        sent = [a for _, a in led_lines()]
        assert all(a == frame for a in sent[sent.index(frame):]), sent
        acked = led_lines()[-1][0]
        dev.send(1, P.ACK, str(acked))
        time.sleep(0.3)
        if led_lines()[-1][0] != acked:  # a resend crossed our ACK: acknowledge that one
            dev.send(2, P.ACK, str(led_lines()[-1][0]))
            time.sleep(0.1)
        count = len(led_lines())
        time.sleep(1.3)
        assert len(led_lines()) == count  # acknowledged: no more resends
    finally:
        bridge.close()
        dev.close()


def test_silent_pico_gets_soft_reset_requests(tmp_path):
    """A Pico left at the MicroPython prompt never answers HOST: the driver sends Ctrl-B Ctrl-D
    every few unanswered requests so it reboots into the firmware."""
    dev = ScriptedDevice()
    bridge = SerialBridge(7, port=dev.path, hello_interval=0.05)
    raw = bytearray()
    try:

        def soft_reset_seen():
            if select.select([dev.master], [], [], 0.02)[0]:
                raw.extend(os.read(dev.master, 4096))
            return b"\r\x02\x04" in raw

        wait_for(soft_reset_seen, what="soft reset bytes")
        # the driver counts the reset after writing it: the count may trail the bytes a moment
        wait_for(lambda: bridge.soft_resets >= 1, what="the soft reset counted")
        assert b"\x03" not in raw  # never a Ctrl-C: that would stop a running firmware
    finally:
        bridge.close()
        dev.close()


def test_mpremote_interrupt_hands_the_line_to_the_repl(rig):
    pico, bridge, poller = rig(initial={"a1"})
    wait_for(lambda: reading(bridge) == {"a1"}, what="first snapshot")
    with open(str(pico.link), "wb", buffering=0) as port:
        port.write(b"\x03 noise \x03\n")  # lone Ctrl-C bytes are data
        time.sleep(0.2)
        assert pico.proc.poll() is None
        port.write(b"\r\x03")  # what mpremote sends to interrupt a program
        assert pico.proc.wait(timeout=5) == 0


def test_tracker_follows_a_move_read_through_the_bridge(rig):
    """Brandubh on a 7x7 reed matrix behind the Pico: the tracker turns the driver's scans into
    the move the hand made (lift d1, put it down on c1)."""
    from companion.rules import get_variant
    from companion.rules.game import Game
    from companion.tracker import Tracker

    game = Game(get_variant("brandubh"))
    start = set(game.board.occupied_names())
    tracker = Tracker(game)
    config = {"size": 7, "row_pins": list(range(7)), "col_pins": list(range(7, 14))}
    pico, bridge, poller = rig(config=config, size=7, initial=start)
    wait_for(lambda: reading(bridge) == start, what="start position")
    events = []

    def feed_until(cond, what):
        def step():
            s = bridge.scan(time.monotonic())
            if s is not None:
                events.extend(tracker.feed(s))
            return cond()

        wait_for(step, what=what)

    feed_until(lambda: tracker.state == "ready", "tracker ready")
    pico.place(start - {"d1"})
    feed_until(lambda: tracker.state == "lifted", "piece lifted")
    pico.place(start - {"d1"} | {"c1"})
    feed_until(lambda: tracker.moves, "move accepted")
    assert tracker.moves == ("d1-c1",)
    assert [e.data["move"] for e in events if e.kind == "move"] == ["d1-c1"]
    assert not [e for e in events if e.kind in ("illegal", "warning")]
