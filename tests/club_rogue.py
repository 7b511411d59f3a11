"""A rogue MQTT client for the club's attack tests: plain paho on the real broker, publishing
whatever it likes (raw bytes, forged or replayed seals, under any client id)."""

from __future__ import annotations

import threading

import paho.mqtt.client as mqtt
from club_broker import CLUB_KEY
from paho.mqtt.enums import CallbackAPIVersion
from test_daemon_support import PATIENCE

from companion.club.seal import Signer


class Rogue:
    """A client of the broker that is no board (``client_id``: any, e.g. a board's own)."""

    def __init__(self, url: str, client_id: str = "", *, v5: bool = True,
                 record: str | None = None) -> None:
        host, port = url.removeprefix("mqtt://").rsplit(":", 1)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311)
        self.connected = threading.Event()
        self.connects = 0
        self.heard: list[tuple[str, bytes, bool]] = []  # what ``record`` matched
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_message = lambda c, u, m: self.heard.append(
            (m.topic, bytes(m.payload), bool(m.retain)))
        self._record = record
        self._signers: dict[tuple[str, str], Signer] = {}
        self.client.connect_async(host, int(port), keepalive=30)
        self.client.loop_start()
        assert self.connected.wait(PATIENCE), "the rogue could not connect"

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object,
                    reason: object, properties: object) -> None:
        self.connects += 1
        if self._record:
            client.subscribe(self._record, 1)
        self.connected.set()

    def raw(self, topic: str, payload: bytes, *, retain: bool = False, qos: int = 1) -> None:
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        if qos:
            info.wait_for_publish(PATIENCE)

    def signed(self, topic: str, body: bytes, *, key: str = CLUB_KEY, retain: bool = False,
               qos: int = 1) -> bytes:
        """``body`` with a seal made with ``key`` as the topic's board (the real key: an
        insider; another key: a forger). Returns what was sent."""
        board = topic.split("/")[2]
        signer = self._signers.setdefault((key, board), Signer(key.encode(), board))
        payload = signer.seal(topic, body)
        self.raw(topic, payload, retain=retain, qos=qos)
        return payload

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
