"""The club end to end: real daemons (simulated boards, the real HTTP API) publish to a real
Mosquitto, and ``tafl-companion club`` shows every board as the boards show themselves; the
broker stopped mid-game and a board killed with -9 lose no move."""

from __future__ import annotations

import json
import secrets
import signal
import threading
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
from club_broker import CLUB_KEY, MOSQUITTO, Mosquitto
from club_support import Room, board, equal_to_board, play
from paho.mqtt.enums import CallbackAPIVersion
from prerequisites import require
from test_daemon_support import PIN, control, wait_for

from companion.club.config import Broker
from companion.club.seal import SealError, Verifier

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)
GAME = ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]  # brandubh, the defenders win
class Watcher:
    """A subscriber of every board's moves topic that misses nothing: a persistent session
    (MQTT 3.1.1, ``clean_session=False``, one fixed client id) at QoS 1, so what a board
    publishes while the watcher is reconnecting after a broker restart waits for it at the
    broker (the board's :class:`ClubLink` takes a new id at each connection and reads the
    retained documents instead, which a stream of moves is not). Each message is opened with
    the club's key, as a board would (a resend is refused as a duplicate)."""

    def __init__(self, url: str, club: str) -> None:
        self.got: list[dict] = []
        self._seen: set[tuple[str, object, object]] = set()
        broker = Broker.parse(url)
        self._verifier = Verifier(CLUB_KEY.encode())
        self._topic = f"tafl/{club}/+/moves"
        self.connected = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                  client_id=f"watcher-{club}-{secrets.token_hex(4)}",
                                  protocol=mqtt.MQTTv311, clean_session=False)
        self.client.reconnect_delay_set(0.2, 0.2)
        self.client.on_connect = self._connected
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_message = self._message
        self.client.connect_async(broker.host, broker.port, keepalive=30)
        self.client.loop_start()
        assert self.connected.wait(30)

    def _connected(self, client: mqtt.Client, userdata: object, flags: object,
                   reason: object, properties: object) -> None:
        client.subscribe(self._topic, 1)
        self.connected.set()

    def _message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        try:
            body = self._verifier.open(msg.topic, bytes(msg.payload), bool(msg.retain))
        except SealError:
            return
        doc = json.loads(body)
        # a row the board sent again after a restart (its PUBACK was lost with the process)
        # is known by its source and sequence number, as every receiver knows it (outbox.py)
        if (msg.topic, doc.get("src"), doc.get("seq")) in self._seen:
            return
        self._seen.add((msg.topic, doc.get("src"), doc.get("seq")))
        self.got.append({"topic": msg.topic, **doc})

    def moves(self, name: str) -> list[dict]:
        return [m for m in list(self.got) if m["topic"].split("/")[2] == name]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_boards_publish_and_the_room_shows_them_as_they_are(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    watcher = Watcher(broker.url, "oslo")
    d1, base1 = board(tmp_path, broker.url, "oslo", "table-1")
    d2, base2 = board(tmp_path, broker.url, "oslo", "table-2")
    room = None
    try:
        for move in GAME[:3]:
            play(base1, move)
        play(base2, GAME[0])
        # a late viewer: the room starts after the moves and sees them (retained state)
        room = Room(broker.url, "oslo")
        wait_for(lambda: equal_to_board(room, "table-1", base1)
                 and equal_to_board(room, "table-2", base2))
        assert "PIN" not in json.dumps(room.club()) and PIN not in json.dumps(room.club())
        # the board's own page: the club link's state; accepting needs the owner
        with urllib.request.urlopen(base1 + "api/club/status", timeout=5) as r:
            own = json.loads(r.read())
        assert (own["club"], own["board"], own["link"]) == ("oslo", "table-1", "connected")
        assert control(base1, "/api/club/accept", {"board": "table-2"}, pin=None)[0] == 403
        assert control(base1, "/api/club/accept", {"board": "table-2"})[0] == 404
        # live: the room follows the next moves, to the end of the game
        for move in GAME[3:]:
            play(base1, move)
        wait_for(lambda: equal_to_board(room, "table-1", base1))
        assert room.board("table-1")["result"] == "defenders"  # type: ignore[index]
        with urllib.request.urlopen(room.url + "api/club/table-1/review", timeout=5) as r:
            review = json.loads(r.read())
        assert review["moves"] == GAME and len(review["positions"]) == len(GAME) + 1
        with urllib.request.urlopen(room.url, timeout=5) as r:
            assert "Tournament room" in r.read().decode()
        req = urllib.request.Request(room.url, headers={"Accept-Language": "de"})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert "Turniersaal" in r.read().decode()
        # every move of table-1 on its moves topic, in order, once
        wait_for(lambda: [m.get("move") for m in watcher.moves("table-1")
                          if m["kind"] == "move"] == GAME)
        kinds = [m["kind"] for m in watcher.moves("table-1")]
        assert kinds == ["start"] + ["move"] * len(GAME) + ["end"]
        seqs = [m["seq"] for m in watcher.moves("table-1")]
        assert seqs == sorted(set(seqs))
    finally:
        if room is not None:
            room.stop()
        d1.stop()
        d2.stop()
        watcher.close()
        broker.stop()


def test_broker_down_for_a_move_and_a_board_killed_lose_nothing(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    watcher = Watcher(broker.url, "bergen")
    d1, base1 = board(tmp_path, broker.url, "bergen", "table-1")
    room = Room(broker.url, "bergen")
    try:
        play(base1, GAME[0])
        wait_for(lambda: len(watcher.moves("table-1")) == 2)
        broker.stop()
        play(base1, GAME[1])  # accepted at the board while the broker is down
        time.sleep(0.5)
        broker.start()
        wait_for(lambda: [m.get("move") for m in watcher.moves("table-1")
                          if m["kind"] == "move"] == GAME[:2])
        wait_for(lambda: equal_to_board(room, "table-1", base1))
        # the board dies hard right after a move, and comes back
        play(base1, GAME[2])
        d1.stop(signal.SIGKILL)
        d1, base1 = board(tmp_path, broker.url, "bergen", "table-1")
        play(base1, GAME[3])
        try:
            wait_for(lambda: [m.get("move") for m in watcher.moves("table-1")
                              if m["kind"] == "move"] == GAME[:4])
        except AssertionError:
            raise AssertionError(f"the watcher has {watcher.moves('table-1')}") from None
        wait_for(lambda: equal_to_board(room, "table-1", base1))
        moves = [(m["ply"], m["move"]) for m in watcher.moves("table-1") if m["kind"] == "move"]
        assert moves == list(enumerate(GAME[:4]))  # in order, once
    finally:
        room.stop()
        d1.stop()
        watcher.close()
        broker.stop()
