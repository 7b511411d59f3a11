"""A fuzz of the Pico link at the host driver's line handler (tests and ``bench/serial_link.py``).

A model Pico emits real protocol lines (``protocol.device_line``): a SNAP on every board change,
periodic SNAPs and heartbeats, a HELLO (and a SNAP) when it boots and whenever the host asks with
HOST. The link between it and :class:`SerialBridge` loses lines, delivers some late, replays old
ones (of this boot and of earlier ones) and duplicates others. After every delivered line the
host's reading is compared with the Pico's history: a *stale reading* is a board state older than
one the host has already shown.
"""

from __future__ import annotations

import random

from companion.drivers.serial_bridge import SerialBridge
from firmware_bridge import protocol as P


class _Port:
    """Stands in for the serial port: nothing to read, records what the host writes."""

    in_waiting = 0

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def read(self, n: int) -> bytes:
        return b""

    def write(self, data: bytes) -> int:
        self.written.append(data)
        return len(data)


def replay_fuzz(frames: int, seed: int, size: int = 7) -> dict:
    """Run ``frames`` Pico lines through a faulty link; figures as a dict (``stale``, ``gaps``,
    ``lost``, ``dropped``, ``reasons``, ``syncs``, ``hellos``, ``reboots``)."""
    rng = random.Random(seed)
    n = size * size
    names = [f"{chr(97 + i % size)}{i // size + 1}" for i in range(n)]
    now = [0.0]
    bridge = SerialBridge(size, port="fuzz", start=False, clock=lambda: now[0])
    port = _Port()
    bridge._link.ser = port  # type: ignore[assignment]
    # confirmed: the host has taken this boot's HELLO (the answer to its nonce); until then the
    # host takes no line of the boot, so none of them can be counted as lost
    pico = {"boot": "", "seq": 0, "boots": 0, "confirmed": False}
    occ = [False] * n
    states: dict[str, int] = {}  # bitmap -> the latest version of the board with it
    version = 0
    shown = -1
    stale = lost = pending_lost = 0
    history: list[bytes] = []  # every line the Pico sent, for replays

    def emit(kind: str, payload: str) -> bytes:
        if hasattr(P, "device_line"):
            line = P.device_line(pico["seq"], kind, payload, pico["boot"])
        else:  # protocol 1 (before boot-keyed CRCs): to measure the old driver in the bench
            line = P.encode_line(pico["seq"], kind, payload)
        pico["seq"] = P.next_seq(pico["seq"])
        history.append(line)
        return line

    def hello(nonce: str = "") -> bytes:
        answer = f" nonce={nonce}" if nonce else ""
        return emit(P.HELLO, f"fw=1.2 proto={P.PROTO_VERSION} size={size} sensors=switch "
                             f"leds={n} boot={pico['boot']}{answer}")

    def change() -> None:
        nonlocal version
        occ[rng.randrange(n)] ^= True
        version += 1
        states[P.encode_bitmap(occ)] = version

    def deliver(line: bytes) -> None:
        nonlocal stale, shown
        bridge._handle(line[:-1])
        s = bridge.scan(now[0])
        if s is None:
            return
        v = states.get(P.encode_bitmap([name in s.occupied for name in names]), -1)
        if v < shown:
            stale += 1
        else:
            shown = v

    def boot() -> None:
        pico["boots"] += 1
        pico["boot"] = f"{rng.randrange(1 << 16):04x}"
        pico["seq"] = 0
        pico["confirmed"] = False

    boot()
    states[P.encode_bitmap(occ)] = version
    deliver(hello())
    deliver(emit(P.SNAP, P.encode_bitmap(occ)))
    for _ in range(frames):
        now[0] += 0.01
        del port.written[:]
        bridge._pump()  # heartbeats, LED frames, SYNC and HOST requests
        asked = [w for w in port.written if b" HOST " in w]
        r = rng.random()
        if asked:  # the Pico answers a HOST with HELLO (echoing its nonce) and SNAP
            nonce = P.decode_kv(P.decode_line(asked[-1][:-1], P.HOST_TYPES)[2]).get("nonce", "")
            deliver(hello(nonce))
            pico["confirmed"] = True
            line = emit(P.SNAP, P.encode_bitmap(occ))
        elif r < 0.0005:  # the Pico reboots (and the board may have changed meanwhile)
            boot()
            pending_lost = 0
            change()
            deliver(hello())
            line = emit(P.SNAP, P.encode_bitmap(occ))
        elif r < 0.3:
            change()
            line = emit(P.SNAP, P.encode_bitmap(occ))
        elif r < 0.5:
            line = emit(P.SNAP, P.encode_bitmap(occ))  # periodic snapshot
        else:
            line = emit(P.HB, "up=1 scans=1 bad=0 faults=-")
        fault = rng.random()
        if fault < 0.02:  # lost (some of them turn up later among the replays)
            if pico["confirmed"]:
                pending_lost += 1
            continue
        lost += pending_lost
        pending_lost = 0
        deliver(line)
        if fault < 0.10:  # an old line, of this boot or an earlier one, delivered again
            deliver(rng.choice(history[-300:]))
        elif fault < 0.12:  # delivered twice
            deliver(line)
    st = bridge.status()
    return {
        "frames": frames,
        "stale": stale,
        "gaps": st["gaps"],
        "lost": lost,
        "dropped": st["dropped_lines"],
        "reasons": st["drop_reasons"],
        "syncs": st.get("syncs"),
        "hellos": st["hellos"],
        "reboots": pico["boots"] - 1,
    }
