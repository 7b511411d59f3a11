"""The link to the club's broker: paho-mqtt 2.x, its network loop on a thread of its own.

Why paho-mqtt (docs/club.md): the Eclipse project's client, kept up, MQTT 3.1.1 and 5 in one
API, TLS and user/password, and a network loop on its own thread (``loop_start``) that
reconnects by itself. Nothing here blocks its caller: ``publish`` hands the message to paho's
queue; paho resends what the broker did not acknowledge when the link is back.

**Signed.** Every message published is sealed with the club's key and every message read is
checked first (:mod:`companion.club.seal`): one without the seal, with a wrong one, a replay or
an old one is refused and counted (``refused``), never handed on.

**Budgeted.** The broker is hostile too (anyone on it may flood): paho's thread reads at most
:class:`Budget` messages and bytes a second (beyond, it waits: the socket fills and the broker
holds or drops the rest), refuses a message over :data:`MAX_MESSAGE` bytes, and only queues
what passed the seal. The handlers run on a thread of their own (``club-intake``) from a queue
of at most :data:`MAX_QUEUED` messages; a board's state, status and play topics carry a whole
document each, so a newer message on such a queued topic replaces the older one
(``coalesced``), while the messages of its ``moves`` stream keep their places. So the
board's scan loop never shares its time with more than the budget's worth of network work.

**Reconnection.** A broker that cannot be reached is tried again every second (a refused or
unanswered TCP connection: cheap for both sides), so the link is back within about a second
of the broker's; a broker that answers but refuses the login is tried every 15 s to 60 s.

**Client ids** carry a random part chosen at each connection (``tafl-oslo-table-1-3f9a...``):
a client using the board's name as its id cannot take the board's connection over, one that
learnt the exact id takes it once (the link comes back under a new one, never fighting), and
two daemons never fight for one. Every document is retained and delivered again on
resubscription, and paho sends again what the broker did not acknowledge, so a new session
loses nothing; an old one expires after :data:`SESSION_EXPIRY_S` (MQTT 5).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from companion.club.config import Broker
from companion.club.seal import MAX_AGE_S, SealError, Signer, Verifier, topic_board
from companion.token_bucket import TokenBucket

log = logging.getLogger("companion.club")

Handler = Callable[[str, bytes], None]
SESSION_EXPIRY_S = int(MAX_AGE_S)  # queued messages older than this are refused anyway
RETRY_S = 1            # the broker cannot be reached: try again every second
REFUSED_S = (15, 60)   # it refuses the login: back off (15 s doubling to 60 s)
MAX_MESSAGE = 64 * 1024 + 200   # a payload (topics.MAX_PAYLOAD) and its seal
MAX_QUEUED = 256       # topics waiting for the handlers
DROPS = ("too_big", "overflow", "coalesced", "throttled")
WHOLE, PLAY = ("state", "status"), "play"  # topics that carry a whole document each


class Budget:
    """``messages`` and ``nbytes`` a second after a burst of two seconds' worth: two token
    buckets, taken together (``take`` says how long to wait; beyond the budget, the buckets
    go into debt, which refills first)."""

    def __init__(self, messages: float, nbytes: float,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.messages, self.nbytes, self._monotonic = messages, nbytes, monotonic
        now = monotonic()
        self._messages = TokenBucket.full(2 * messages, messages, now)
        self._bytes = TokenBucket.full(2 * nbytes, nbytes, now)

    def take(self, size: int) -> float:
        """Take one message of ``size`` bytes; the seconds until both debts are paid."""
        now = self._monotonic()
        self._messages.refill(now)
        self._bytes.refill(now)
        self._messages.take(1)
        self._bytes.take(size)
        return max(self._messages.wait(0.0), self._bytes.wait(0.0))


#: a board's link (it reads a peer or two and the boards' status) and the room's (every board)
BOARD_BUDGET = (1000.0, 2 * 1024 * 1024.0)
ROOM_BUDGET = (2000.0, 8 * 1024 * 1024.0)


def _untyped(f: Any) -> Any:
    """paho's Properties constructor has no annotations (mypy --strict)."""
    return f


class ClubLink:
    """One connection to the broker, shared by the publisher and the club players."""

    def __init__(self, broker: Broker, client_id: str, *, key: bytes, board: str | None,
                 persistent: bool = True, will: tuple[str, bytes] | None = None,
                 on_status: Callable[[str, str | None], None] | None = None,
                 budget: tuple[float, float] = BOARD_BUDGET) -> None:
        """``key``: the club's key; ``board``: the board that signs what this link publishes
        (None: the room, which only reads)."""
        self.broker = broker
        self._persistent = persistent
        self._signer = Signer(key, board) if board is not None else None
        self._verifier = Verifier(key)
        self._budget = Budget(*budget)
        self._will = will
        self._queue: OrderedDict[str, tuple[str, bytes, tuple[Handler, ...]]] = OrderedDict()
        self._queued = threading.Condition()
        self._intake: threading.Thread | None = None
        self.dropped: dict[str, int] = dict.fromkeys(DROPS, 0)
        self._warned = 0
        self._id_prefix, self._attempts = client_id, 0
        self.client_id = f"{client_id}-{secrets.token_hex(8)}"
        self._v5 = broker.protocol == "5"
        self._lock = threading.Lock()
        self._subs: dict[str, tuple[int, Handler]] = {}
        self._acks: dict[int, Callable[[], None]] = {}
        self._early: set[int] = set()
        self._on_connect_hooks: list[Callable[[], None]] = []
        self._on_status = on_status
        self.connected = threading.Event()
        #: set once the broker has acknowledged every subscription asked for on this
        #: connection (a message published before that may not reach this link: tests wait
        #: for it, not for ``connected``)
        self.subscribed = threading.Event()
        self._sub_pending: set[int] = set()
        self._sub_early: set[int] = set()
        self.state = "connecting"
        self.error: str | None = None
        self.received = 0
        # attempts to connect that ended without a connection (refused, cut, unreachable): a
        # test proves "never connected" by waiting for one, not by sleeping
        self.failed_attempts = 0
        #: called (on paho's thread: quickly) with a topic of this link's own board on which
        #: a message was refused: a forgery may have replaced the board's retained document
        self.on_forged: Callable[[str], None] | None = None
        self.drops = 0  # connections lost
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=self.client_id,
                             protocol=mqtt.MQTTv5 if self._v5 else mqtt.MQTTv311,
                             # 3.1.1 has no session expiry: a session per start would stay
                             # at the broker for good (every document is retained anyway)
                             clean_session=None if self._v5 else True)
        client.reconnect_delay_set(RETRY_S, RETRY_S)
        client.max_inflight_messages_set(20)
        client.max_queued_messages_set(0)  # unbounded: the outbox bounds what is owed
        if broker.user is not None:
            client.username_pw_set(broker.user, broker.password)
        if broker.tls:
            client.tls_set(ca_certs=broker.ca_file, cert_reqs=ssl.CERT_REQUIRED,
                           tls_version=ssl.PROTOCOL_TLS_CLIENT,
                           certfile=broker.client_cert, keyfile=broker.client_key)
        client.on_pre_connect = self._pre_connect
        client.on_connect = self._connected
        client.on_disconnect = self._disconnected
        client.on_message = self._message
        client.on_publish = self._published
        client.on_subscribe = self._subscribed
        client.on_connect_fail = self._connect_failed
        self._client = client
        self._started = False

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in the background (retrying with back-off until it works)."""
        props = None
        if self._v5:
            props = _untyped(Properties)(PacketTypes.CONNECT)
            props.SessionExpiryInterval = SESSION_EXPIRY_S if self._persistent else 0
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=30,
                                   clean_start=mqtt.MQTT_CLEAN_START_FIRST_ONLY
                                   if self._persistent else True,
                                   properties=props)
        self._intake = threading.Thread(target=self._run_intake, name="club-intake",
                                        daemon=True)
        self._started = True
        self._intake.start()
        self._client.loop_start()

    def close(self, final: tuple[str, bytes] | None = None, timeout: float = 2.0) -> None:
        """Disconnect (publishing ``final`` first, e.g. an offline status) and stop the loop."""
        if not self._started:
            return
        if final is not None and self.connected.is_set():
            info = self._client.publish(final[0], self._seal(final[0], final[1]), qos=1,
                                        retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self._started = False
        self._client.disconnect()
        self._client.loop_stop()
        with self._queued:
            self._queued.notify_all()
        if self._intake is not None and self._intake is not threading.current_thread():
            self._intake.join(timeout)

    def on_connect(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` (on the network thread) after every (re)connection."""
        self._on_connect_hooks.append(hook)

    # -- sending and receiving -------------------------------------------------------------
    def subscribe(self, topic_filter: str, handler: Handler, qos: int = 1) -> None:
        with self._lock:
            self._subs[topic_filter] = (qos, handler)
        if self.connected.is_set():
            self.subscribed.clear()
            self._track_subscription(self._client.subscribe(topic_filter, qos)[1])

    def _track_subscription(self, mid: int | None) -> None:
        """Wait for the SUBACK of ``mid`` before :attr:`subscribed` is set (one that came
        first is in ``_sub_early``)."""
        with self._lock:
            if mid is not None and mid in self._sub_early:
                self._sub_early.discard(mid)
            elif mid is not None:
                self._sub_pending.add(mid)
            if not self._sub_pending:
                self.subscribed.set()

    def _subscribed(self, client: mqtt.Client, userdata: Any, mid: int,
                    reason_codes: Any, properties: Any) -> None:
        with self._lock:
            if mid in self._sub_pending:
                self._sub_pending.discard(mid)
            else:
                self._sub_early.add(mid)
            if not self._sub_pending:
                self.subscribed.set()

    def unsubscribe(self, topic_filter: str) -> None:
        with self._lock:
            self._subs.pop(topic_filter, None)
        if self.connected.is_set():
            self._client.unsubscribe(topic_filter)

    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                acked: Callable[[], None] | None = None) -> None:
        """Hand a message to paho (queued while the link is down, sent in order once it is
        back); ``acked()`` runs on the network thread once the broker has it (QoS 1)."""
        # paho calls on_publish holding its own lock: never hold ours around its publish (a
        # PUBACK that beats the registration below is kept in ``_early``)
        info = self._client.publish(topic, self._seal(topic, payload), qos=qos, retain=retain)
        with self._lock:
            early = info.mid in self._early
            self._early.discard(info.mid)
            if acked is not None and not early and qos > 0:
                self._acks[info.mid] = acked
                return
        if acked is not None and (early or info.rc == mqtt.MQTT_ERR_SUCCESS):
            acked()

    @property
    def pending(self) -> int:
        """Messages handed to paho that the broker has not acknowledged yet."""
        with self._lock:
            return len(self._acks)

    @property
    def attempts(self) -> int:
        """Connection attempts made so far."""
        return self._attempts

    @property
    def retry_delay(self) -> float:
        """How long paho waits before its next attempt once one failed (seconds)."""
        client: Any = self._client
        with client._reconnect_delay_mutex:
            delay = client._reconnect_delay
            return float(client._reconnect_min_delay if delay is None else delay)

    @property
    def refused(self) -> dict[str, int]:
        """Messages refused by their seal, by reason (``seal.REASONS``)."""
        return dict(self._verifier.refused)

    def counts(self) -> dict[str, int]:
        """What was refused or dropped, by reason (for the page and the log)."""
        return {k: v for k, v in {**self._verifier.refused, **self.dropped}.items() if v}

    def _seal(self, topic: str, payload: bytes) -> bytes:
        if self._signer is None:
            raise ValueError("this link only reads (it has no board to sign as)")
        return self._signer.seal(topic, payload)

    # -- paho's callbacks (network thread) -------------------------------------------------
    def _pre_connect(self, client: mqtt.Client, userdata: Any) -> None:
        """Before every connection attempt: a new client id after the first (a client that
        took the id over, e.g. one that learnt it, is never fought with: the link comes back
        under another), and the will, sealed now (it is this connection's)."""
        self._attempts += 1
        if self._attempts > 1:
            self.client_id = f"{self._id_prefix}-{secrets.token_hex(8)}"
            client._client_id = self.client_id.encode()  # (paho has no setter for it)
        if self._will is not None:
            client.will_set(self._will[0], self._seal(*self._will), qos=1, retain=True)

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any,
                   reason: ReasonCode, properties: Any) -> None:
        if reason.is_failure:
            self.failed_attempts += 1
            client.reconnect_delay_set(*REFUSED_S)  # it answers: no need to ask every second
            self._set_state("error", f"the broker refused the connection: {reason_words(reason)}")
            return
        client.reconnect_delay_set(RETRY_S, RETRY_S)
        with self._lock:
            subs = list(self._subs.items())
            self._sub_pending.clear()
            self._sub_early.clear()
        self.subscribed.clear()
        for topic_filter, (qos, _) in subs:
            self._track_subscription(client.subscribe(topic_filter, qos)[1])
        if not subs:
            self.subscribed.set()
        self.connected.set()
        self._set_state("connected", None)
        for hook in self._on_connect_hooks:
            try:
                hook()
            except Exception:  # a hook's bug must not stop the network loop
                log.exception("club: on-connect hook failed")

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any,
                      reason: ReasonCode, properties: Any) -> None:
        was_connected = self.connected.is_set()
        self.connected.clear()
        self.subscribed.clear()
        if not was_connected:
            self.failed_attempts += 1
        self.drops += was_connected
        if self._started and (was_connected or self.state != "error"):  # a refusal stays
            self._set_state("reconnecting", dropped_words(reason))

    def _connect_failed(self, client: mqtt.Client, userdata: Any) -> None:
        self.failed_attempts += 1

    def _set_state(self, state: str, error: str | None) -> None:
        changed = state != self.state or error != self.error
        self.state, self.error = state, error
        if changed:
            if error:
                log.warning("club: %s (%s)", error, self.broker.url)
            else:
                log.info("club: %s to %s", state, self.broker.url)
            if self._on_status is not None:
                self._on_status(state, error)

    def _message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Paho's thread: the budget, the size cap, the seal; then queued for the handlers."""
        self.received += 1
        size = len(msg.payload)
        wait = self._budget.take(size)
        if wait > 0:  # over the budget: this thread waits (the socket fills, the broker holds)
            self.dropped["throttled"] += 1
            time.sleep(min(wait, 1.0))
        if size > MAX_MESSAGE:
            self._drop("too_big", msg.topic, f"{size} bytes")
            return
        try:
            body = self._verifier.open(msg.topic, bytes(msg.payload), bool(msg.retain))
        except SealError as exc:
            if exc.reason != "duplicate":
                self._warn(f"refused a message on {msg.topic[:120]}: {exc}")
                if (self.on_forged is not None and self._signer is not None
                        and topic_board(msg.topic) == self._signer.board):
                    self.on_forged(msg.topic)  # somebody wrote on this board's own topic
            return
        with self._lock:
            handlers = tuple(h for f, (_, h) in self._subs.items()
                             if mqtt.topic_matches_sub(f, msg.topic))
        if not handlers:
            return
        # a whole document (state, status, play) replaces a queued older one of its topic;
        # the messages of a stream (moves) each keep their place
        whole = msg.topic.rsplit("/", 2)[-1] in WHOLE or f"/{PLAY}/" in msg.topic
        key = msg.topic if whole else f"{msg.topic}\0{self.received}"
        with self._queued:
            if key in self._queue:
                self.dropped["coalesced"] += 1  # the newer document replaces the older one
            elif len(self._queue) >= MAX_QUEUED:
                self._drop("overflow", msg.topic, "the queue is full")
                return
            self._queue[key] = (msg.topic, body, handlers)
            self._queued.notify()

    def _drop(self, reason: str, topic: str, why: str) -> None:
        self.dropped[reason] += 1
        self._warn(f"dropped a message on {topic[:120]} ({why})")

    def _warn(self, text: str) -> None:
        self._warned += 1
        if self._warned <= 20 or self._warned % 1000 == 0:
            log.warning("club: %s (%s so far)", text, self.counts())

    def _run_intake(self) -> None:
        """The handlers' thread: queued messages in order of arrival."""
        while True:
            with self._queued:
                self._queued.wait_for(lambda: bool(self._queue) or not self._started)
                if not self._started:
                    return
                _, (topic, body, handlers) = self._queue.popitem(last=False)
            for handler in handlers:
                try:
                    handler(topic, body)
                except Exception:  # a bad message must never stop the intake
                    log.exception("club: handling a message on %s failed", topic)

    def _published(self, client: mqtt.Client, userdata: Any, mid: int,
                   reason: ReasonCode, properties: Any) -> None:
        with self._lock:
            acked = self._acks.pop(mid, None)
            if acked is None:
                self._early.add(mid)
        if acked is not None:
            try:
                acked()
            except Exception:
                log.exception("club: recording an acknowledged message failed")


def reason_words(reason: ReasonCode) -> str:
    """An MQTT reason in words a person reads: paho's "Unspecified error" (a code it has no
    name for, a lost socket) says nothing, so the code is given instead."""
    name = str(reason)
    if name == "Unspecified error":
        return f"no reason given (code {int(reason.value)})"
    return name[:1].lower() + name[1:]


def dropped_words(reason: ReasonCode) -> str:
    """Why the link is reconnecting: a lost connection (what paho reports as "Unspecified
    error") or the broker's own reason."""
    if str(reason) in ("Unspecified error", "Success"):
        return "the connection to the broker was lost; reconnecting"
    return f"the broker closed the link ({reason_words(reason)}); reconnecting"
