"""Issue 26 #11: after a broker outage the boards came back 26 s after the broker (paho's
back-off had grown to its 30 s cap). A broker that cannot be reached is now tried every
second however long it stays away (a refused TCP connection: cheap for both), so the link is
back about a second after the broker; one that answers but refuses the login is asked far less
often. The seconds are measured in bench/club_reconnect.py; here the events."""

from __future__ import annotations

import json
from pathlib import Path

from club_broker import CLUB_KEY, MOSQUITTO, Mosquitto
from club_fakes import wait_for
from prerequisites import require

from companion.club.config import Broker
from companion.club.link import REFUSED_S, RETRY_S, ClubLink

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)


def test_a_board_keeps_trying_every_second_and_is_back_with_the_broker(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    got: list[bytes] = []
    board = ClubLink(Broker.parse(broker.url), "tafl-oslo-table-1", key=CLUB_KEY.encode(),
                     board="table-1")
    reader = ClubLink(Broker.parse(broker.url), "reader", key=CLUB_KEY.encode(), board=None)
    reader.subscribe("tafl/oslo/table-1/state", lambda t, body: got.append(body))
    try:
        board.start()
        reader.start()
        wait_for(lambda: board.connected.is_set() and reader.connected.is_set())
        # the reader's subscription acknowledged: what is published from now on reaches it
        wait_for(lambda: reader.subscribed.is_set())
        broker.stop()
        wait_for(lambda: board.state == "reconnecting" and not reader.subscribed.is_set())
        tried = board.attempts
        # a long outage: many failed attempts, and the next one is never further off
        wait_for(lambda: board.attempts >= tried + 6)
        assert board.retry_delay <= RETRY_S
        assert not board.connected.is_set()
        board.publish("tafl/oslo/table-1/state", json.dumps({"n": 1}).encode(), retain=True)
        broker.start()
        wait_for(lambda: board.connected.is_set() and reader.connected.is_set())
        wait_for(lambda: got == [b'{"n": 1}'])  # what was published meanwhile arrives once
        wait_for(lambda: reader.subscribed.is_set())  # subscribed again on the new connection
        assert board.state == "connected" and board.error is None
        assert board.retry_delay <= RETRY_S
    finally:
        board.close()
        reader.close()
        broker.stop()


def test_a_broker_that_refuses_the_login_is_not_asked_every_second(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("")
    broker = Mosquitto(tmp_path / "broker", extra=f"password_file {passwd}\n")
    conf = broker.conf.read_text().replace("allow_anonymous true", "allow_anonymous false")
    broker.stop()
    broker.conf.write_text(conf)
    broker.start()
    board = ClubLink(Broker.parse(broker.url, user="table-1", password="wrong"),
                     "tafl-oslo-table-1", key=CLUB_KEY.encode(), board="table-1")
    try:
        board.start()
        wait_for(lambda: board.state == "error")
        assert "refused" in (board.error or "")
        assert board.retry_delay >= REFUSED_S[0]  # (set on the refusal, before the next try)
    finally:
        board.close()
        broker.stop()
