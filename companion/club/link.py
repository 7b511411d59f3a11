"""The link to the club's broker: paho-mqtt 2.x, its network loop on a thread of its own.

Why paho-mqtt (docs/club.md): the Eclipse project's client, kept up, MQTT 3.1.1 and 5 in one
API, TLS and user/password, and a network loop on its own thread (``loop_start``) that
reconnects by itself with a back-off of 1 s doubling up to 30 s. A persistent session (a fixed
client id, no clean start, a week's session expiry under MQTT 5) keeps QoS 1 messages for
this board at the broker while it is away; paho resends what the broker did not acknowledge
when the link is back. Nothing here blocks its caller: ``publish`` hands the message to paho's
queue, and the callbacks run on paho's thread (handlers must be quick and never raise).
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from companion.club.config import Broker

log = logging.getLogger("companion.club")

Handler = Callable[[str, bytes], None]
SESSION_EXPIRY_S = 7 * 24 * 3600
BACKOFF_MIN_S, BACKOFF_MAX_S = 1, 30


def _untyped(f: Any) -> Any:
    """paho's Properties constructor has no annotations (mypy --strict)."""
    return f


class ClubLink:
    """One connection to the broker, shared by the publisher and the club players."""

    def __init__(self, broker: Broker, client_id: str, *, persistent: bool = True,
                 will: tuple[str, bytes] | None = None,
                 on_status: Callable[[str, str | None], None] | None = None) -> None:
        self.broker = broker
        self._persistent = persistent
        self._v5 = broker.protocol == "5"
        self._lock = threading.Lock()
        self._subs: dict[str, tuple[int, Handler]] = {}
        self._acks: dict[int, Callable[[], None]] = {}
        self._early: set[int] = set()
        self._on_connect_hooks: list[Callable[[], None]] = []
        self._on_status = on_status
        self.connected = threading.Event()
        self.state = "connecting"
        self.error: str | None = None
        self.received = 0
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                             protocol=mqtt.MQTTv5 if self._v5 else mqtt.MQTTv311,
                             clean_session=None if self._v5 else not persistent)
        client.reconnect_delay_set(BACKOFF_MIN_S, BACKOFF_MAX_S)
        client.max_inflight_messages_set(20)
        client.max_queued_messages_set(0)  # unbounded: the outbox bounds what is owed
        if broker.user is not None:
            client.username_pw_set(broker.user, broker.password)
        if broker.tls:
            client.tls_set(ca_certs=broker.ca_file, cert_reqs=ssl.CERT_REQUIRED,
                           tls_version=ssl.PROTOCOL_TLS_CLIENT)
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.on_connect = self._connected
        client.on_disconnect = self._disconnected
        client.on_message = self._message
        client.on_publish = self._published
        client.on_subscribe = None
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
                                   clean_start=not self._persistent if self._v5
                                   else mqtt.MQTT_CLEAN_START_FIRST_ONLY,
                                   properties=props)
        self._client.loop_start()
        self._started = True

    def close(self, final: tuple[str, bytes] | None = None, timeout: float = 2.0) -> None:
        """Disconnect (publishing ``final`` first, e.g. an offline status) and stop the loop."""
        if not self._started:
            return
        if final is not None and self.connected.is_set():
            info = self._client.publish(final[0], final[1], qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self._started = False
        self._client.disconnect()
        self._client.loop_stop()

    def on_connect(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` (on the network thread) after every (re)connection."""
        self._on_connect_hooks.append(hook)

    # -- sending and receiving -------------------------------------------------------------
    def subscribe(self, topic_filter: str, handler: Handler, qos: int = 1) -> None:
        with self._lock:
            self._subs[topic_filter] = (qos, handler)
        if self.connected.is_set():
            self._client.subscribe(topic_filter, qos)

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
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
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

    # -- paho's callbacks (network thread) -------------------------------------------------
    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any,
                   reason: ReasonCode, properties: Any) -> None:
        if reason.is_failure:
            self._set_state("error", f"the broker refused the connection: {reason_words(reason)}")
            return
        with self._lock:
            subs = list(self._subs.items())
        for topic_filter, (qos, _) in subs:
            client.subscribe(topic_filter, qos)
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
        if self._started and (was_connected or self.state != "error"):  # a refusal stays
            self._set_state("reconnecting", dropped_words(reason))

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
        self.received += 1
        with self._lock:
            handlers = [h for f, (_, h) in self._subs.items()
                        if mqtt.topic_matches_sub(f, msg.topic)]
        for handler in handlers:
            try:
                handler(msg.topic, bytes(msg.payload))
            except Exception:  # a bad message must never stop the network loop
                log.exception("club: handling a message on %s failed", msg.topic)

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
