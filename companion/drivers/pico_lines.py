"""The Pico's lines as the host takes them: each line checked (CRC under the Pico's boot id,
sequence number, type, payload) and what the accepted ones said kept: the HELLO, the latest
snapshot, the faults and errors the firmware reports, and counters of lines dropped and lost.

No I/O and no thread: :class:`~companion.drivers.serial_bridge.SerialBridge` feeds it the lines
its reader thread reads, holding its lock. Protocol: ``firmware_bridge/protocol.py``; which
HELLO counts: ``firmware_bridge/README.md``.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass

from companion.scan import ATTACKER_COLOUR, DEFENDER_COLOUR
from companion.squares import a_board, square_names
from firmware_bridge import protocol as P

log = logging.getLogger("companion.drivers.serial_bridge")  # the bridge's log, as before

KNOWN_BOOTS = 64  # boot ids remembered: a HELLO of any of them but the current one is refused
OPEN_NONCES = 4  # HOST nonces a HELLO may still answer (the latest ones sent)
#: occupied squares and, on polarity boards, their colours
Snapshot = tuple[frozenset[str], dict[str, str] | None]


@dataclass(frozen=True, slots=True)
class TakenLine:
    """A line that checked out and was in sequence; ``gap``: lines lost before it;
    ``new_boot``: a HELLO of a boot not heard before (the Pico rebooted, its LEDs are dark)."""

    seq: int
    kind: str
    args: list[str]
    gap: int
    new_boot: bool = False


class PicoLines:
    """What the host knows of the Pico from its lines (see the module docstring)."""

    def __init__(self, size: int, sensors: str, clock: Callable[[], float]) -> None:
        self.size = size
        self.sensors = sensors
        self._clock = clock
        self._names = square_names(size)  # of each bitmap index i = rank * size + file
        self.hello: dict[str, str] | None = None
        self.size_error: str | None = None
        self.snapshot: Snapshot | None = None
        self.last_rx: float | None = None  # the last line taken (in sequence)
        self.heard_at: float | None = None  # the last line that checked out, in order or not
        self.device_faults: list[str] = []
        self.device_error: str | None = None
        self.device_error_at = -1e9
        self.boot: str | None = None  # the boot id of the Pico's last HELLO: the CRC key
        # every boot id heard, the current one last: a HELLO of an earlier one is a replay
        self._boots: deque[str] = deque(maxlen=KNOWN_BOOTS)
        self.last_seq: int | None = None  # SEQ of the last line accepted from this boot
        # nonces of the latest HOST lines: a HELLO echoing one is the live Pico's answer, which
        # is trusted whatever its boot id and sequence number (it puts the host back in step)
        self._nonces: deque[str] = deque(maxlen=OPEN_NONCES)
        self.confirm_due = False  # a HELLO we did not ask for came: ask the Pico to confirm
        self.dropped = 0
        self.drop_reasons: Counter[str] = Counter()
        self.gaps = 0  # lines lost: sequence numbers skipped by accepted lines of one boot
        self.hellos = 0
        self.snapshots = 0

    def reset(self) -> None:
        """A port (re)opened: nothing the Pico said before counts until its next HELLO."""
        self.hello = None
        self.snapshot = None
        self.size_error = None
        self.boot = None
        self.last_seq = None
        self._nonces.clear()
        self.confirm_due = False
        self.device_error = None
        self.last_rx = None
        self.heard_at = None

    def asked(self, nonce: str) -> None:
        """A HOST line with ``nonce`` went out: the HELLO that echoes it is the live Pico."""
        self._nonces.append(nonce)
        self.confirm_due = False

    def count_drops(self, reason: str, n: int) -> None:
        """``n`` lines dropped before they could be checked (``"too long"``)."""
        self.dropped += n
        self.drop_reasons[reason] += n

    def take(self, line: bytes) -> TakenLine | None:
        """The line (without its newline) if it checks out and is in sequence; None when it is
        dropped (counted in :attr:`drop_reasons`)."""
        boot = self.boot
        earlier = [b for b in list(self._boots)[-8:] if b != boot]
        try:
            seq, kind, args = P.decode_line(line, P.DEVICE_TYPES, boot or "")
            self.heard_at = self._clock()
        except P.ProtocolError as e:
            reason = e.reason
            if reason == "bad crc" and boot is None:
                reason = "no hello"  # keyed by a boot id we have not been told yet
            elif reason == "bad crc":
                for old in earlier:
                    with contextlib.suppress(P.ProtocolError):
                        P.decode_line(line, P.DEVICE_TYPES, old)
                        reason = "old boot"
                        break
            self._drop(reason, line)
            return None
        hellos = self.hellos
        try:
            gap = self._accept(seq, kind, args)
        except P.ProtocolError as e:
            self._drop(e.reason, line)
            return None
        return TakenLine(seq, kind, args, gap, self.hellos != hellos)

    def _drop(self, reason: str, line: bytes) -> None:
        self.dropped += 1
        self.drop_reasons[reason] += 1
        log.debug("serial bridge: dropped line (%s): %r", reason, line[:80])

    def _accept(self, seq: int, kind: str, args: list[str]) -> int:
        """Take one checked line if it is in sequence; returns the number of lines lost before
        it. ProtocolError for a line to drop: replayed or reordered (``stale seq``), implausibly
        far ahead (``seq jump``), from an earlier boot (``old boot``), a HELLO of an unknown boot
        we did not ask for (``unconfirmed hello``: we ask), before any HELLO (``no hello``), or
        with a payload that makes no sense."""
        if kind == P.HELLO:
            info = P.decode_kv(args)
            boot = info.get("boot", "")
            if not P.is_hex(boot) or len(boot) > 8:
                raise P.ProtocolError("bad payload", "hello without boot id")
            if info.get("nonce", "") in self._nonces:
                # the live Pico answering our HOST: in step from here, whatever came before
                self._nonces.clear()
                self.confirm_due = False
                gap = 0
                if boot != self.boot:
                    self._hello_new_boot(info, boot, seq, args)
                else:
                    self._apply(kind, args)  # the same boot: nothing is lost
                    ahead = P.seq_ahead(self.last_seq, seq) if self.last_seq is not None else 0
                    if 0 < ahead <= P.MAX_AHEAD:  # lines lost before it still count as lost
                        gap = ahead - 1
                        self.gaps += gap
                    self.last_seq = seq
                self.last_rx = self._clock()
                return gap
            if boot != self.boot:
                if boot in self._boots:
                    raise P.ProtocolError("old boot")
                # the Pico rebooted, or a boot we never knew is replayed: only the Pico's
                # answer to a fresh nonce says which
                self.confirm_due = True
                raise P.ProtocolError("unconfirmed hello")
        elif kind == P.ERR and (self.boot is None or not P.seq_ahead(self.last_seq or 0, seq)):
            # Before any HELLO (the firmware cannot run its configuration), or out of step (it
            # rebooted into that state): worth showing all the same; it changes no state.
            self._apply(kind, args)
            return 0
        elif self.boot is None:
            raise P.ProtocolError("no hello")
        last = self.last_seq
        if last is None:  # pragma: no cover - a boot id always comes with a HELLO's SEQ
            raise P.ProtocolError("no hello")
        ahead = P.seq_ahead(last, seq)
        if not ahead:
            raise P.ProtocolError("stale seq")
        if ahead > P.MAX_AHEAD:
            raise P.ProtocolError("seq jump")
        self._apply(kind, args)
        self.last_seq = seq
        self.last_rx = self._clock()
        self.gaps += ahead - 1
        return ahead - 1

    def _hello_new_boot(self, info: dict[str, str], boot: str, seq: int, args: list[str]
                        ) -> None:
        """A HELLO from a boot of the Pico we have not heard from."""
        self._check_hello(info)
        self.boot = boot
        if boot in self._boots:
            self._boots.remove(boot)
        self._boots.append(boot)
        self.last_seq = seq
        self.hello = info
        self.hellos += 1
        self.snapshot = None  # only a SNAP from this boot counts
        self.device_faults = []
        size = int(info["size"])
        if size != self.size:
            self.size_error = f"Pico reports {a_board(size)} but [board] size = {self.size}"
            log.error("serial bridge: %s", self.size_error)
        else:
            self.size_error = None
        if info.get("sensors", "switch") != self.sensors:
            log.warning(
                "serial bridge: the Pico reads %s sensors but [board] sensors = %s",
                info.get("sensors"),
                self.sensors,
            )
        log.info("serial bridge: hello %s", " ".join(args))

    def _check_hello(self, info: dict[str, str]) -> None:
        size_text = info.get("size", "")
        if not size_text.isdigit():
            raise P.ProtocolError("bad payload", "hello without size")
        proto = info.get("proto", "")
        if proto != P.PROTO_VERSION:
            self.size_error = (
                f"the Pico's firmware speaks protocol {proto or '?'}, this companion "
                f"{P.PROTO_VERSION}: copy the firmware_bridge files of this version to the Pico "
                "(firmware_bridge/README.md)"
            )
            log.error("serial bridge: %s", self.size_error)
            raise P.ProtocolError("protocol version")

    def _apply(self, kind: str, args: list[str]) -> None:
        """Act on one checked line; ProtocolError for a payload that makes no sense."""
        if kind == P.HELLO:  # again from the same boot (we asked with HOST): nothing is lost
            info = P.decode_kv(args)
            self._check_hello(info)
            self.hello = info
        elif kind == P.SNAP:
            if self.hello is None or self.size_error is not None:
                raise P.ProtocolError("no hello")
            n = self.size * self.size
            if len(args) not in (1, 2):
                raise P.ProtocolError("bad payload", "snap fields")
            occ = P.decode_bitmap(args[0], n)
            names = self._names
            occupied = frozenset(names[i] for i in range(n) if occ >> i & 1)
            colours = None
            if len(args) == 2:
                att = P.decode_bitmap(args[1], n)
                if att & ~occ:
                    raise P.ProtocolError("bad payload", "colour on an empty square")
                colours = {
                    names[i]: ATTACKER_COLOUR if att >> i & 1 else DEFENDER_COLOUR
                    for i in range(n)
                    if occ >> i & 1
                }
            self.snapshot = (occupied, colours)
            self.snapshots += 1
        elif kind == P.HB:
            info = P.decode_kv(args)
            faults = info.get("faults", "-")
            self.device_faults = [] if faults == "-" else faults.split(",")
        elif kind == P.BTN:
            if self.hello is None or self.size_error is not None:
                raise P.ProtocolError("no hello")
            P.decode_button(args)
        elif kind == P.ACK:
            if len(args) != 1 or not args[0].isdigit():
                raise P.ProtocolError("bad payload", "ack")
        elif kind == P.ERR:
            text = " ".join(args)
            if text != self.device_error:  # a fault the firmware repeats is logged once
                log.warning("Pico reports: %s", text)
            self.device_error = text
            self.device_error_at = self._clock()
            if args[:1] == ["config"]:  # the firmware cannot run: it reads no board at all
                self.hello = self.boot = self.last_seq = None
                self.snapshot = None
