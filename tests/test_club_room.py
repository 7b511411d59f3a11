"""The tournament room: hostile broker traffic changes nothing, and the page in headless
Chromium at phone size shows every board, one board in full, and a finished game's review."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from club_broker import CLUB_KEY, MOSQUITTO, Mosquitto
from club_rogue import Rogue
from prerequisites import require
from test_daemon_support import PATIENCE

from companion.club.config import Broker
from companion.club.room_web import RoomServer
from companion.rules import PRESETS
from companion.rules.game import Game

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)
GAME = ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]  # brandubh, the defenders win


def board_state(gid: int, moves: list[str]) -> dict:
    g = Game(PRESETS["brandubh"])
    for m in moves:
        g.play_text(m)
    outcome = g.outcome()
    last = g.played[-1] if g.played else None
    return {"game": gid, "variant": "brandubh", "variant_name": "Brandubh", "size": 7,
            "first": "attackers", "turn": g.turn, "moves": g.moves, "result": g.result,
            "reason": str(outcome.reason) if outcome else None, "position": g.board.otn(),
            "last": {"from": g.board.name(last.move.frm), "to": g.board.name(last.move.to),
                     "text": last.text} if last else None,
            "players": {"attackers": {"name": "Ann", "kind": "board"},
                        "defenders": {"name": "Bo", "kind": "board"}},
            "clock": {"attackers": 290.0, "defenders": 300.0, "running": "attackers",
                      "at": 1e9}, "throne": "d4", "corners": ["a1", "a7", "g1", "g7"]}


@pytest.fixture()
def room(tmp_path: Path) -> Iterator[tuple[RoomServer, Rogue]]:
    broker = Mosquitto(tmp_path / "broker")
    pub = Rogue(broker.url)  # publishes in the boards' names with the club's key
    server = RoomServer(Broker.parse(broker.url), "hall", "127.0.0.1", 0, interval=0.05,
                        key=CLUB_KEY.encode())
    server.start()
    assert server.link.subscribed.wait(PATIENCE)
    yield server, pub
    server.close()
    pub.close()
    broker.stop()


def get(server: RoomServer, path: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait(pred, timeout: float = PATIENCE) -> None:  # type: ignore[no-untyped-def]
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_hostile_states_are_ignored(room: tuple[RoomServer, Rogue]) -> None:
    server, pub = room
    good = board_state(1, GAME[:2])
    pub.signed("tafl/hall/table-1/state", json.dumps(good).encode(), retain=True)
    wait(lambda: get(server, "/api/club")[1]["boards"])
    before = get(server, "/api/club")[1]
    for topic, payload in [
        ("tafl/hall/table-1/state", b"{broken"),
        ("tafl/hall/table-1/state", b"x" * 70_000),
        ("tafl/hall/table-1/state", json.dumps({**good, "variant": "chess"}).encode()),
        ("tafl/hall/table-1/state", json.dumps({**good, "moves": "all"}).encode()),
        ("tafl/hall/table-1/state", json.dumps({**good, "result": "mine"}).encode()),
        ("tafl/hall/BAD.Name/state", json.dumps(good).encode()),
    ]:  # one by one (a newer message on a topic replaces a queued one)
        n = server.room.rejected + server.link.dropped["too_big"]
        pub.signed(topic, payload)
        wait(lambda: server.room.rejected + server.link.dropped["too_big"] > n)  # noqa: B023
    assert get(server, "/api/club")[1] == before
    assert get(server, "/api/club/table-9")[0] == 404
    assert get(server, "/api/club/..%2f..")[0] == 404
    # a late viewer sees the retained state; the review replays the moves
    status, review = get(server, "/api/club/table-1/review")
    assert status == 200 and review["moves"] == GAME[:2] and len(review["positions"]) == 3
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/club", method="POST",
                                 data=b"{}", headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=5)
    assert err.value.code == 405


def test_the_room_page_in_a_browser(room: tuple[RoomServer, Rogue]) -> None:
    from test_e2e_browser import ARGS, CHROMIUM, PHONE

    playwright = pytest.importorskip("playwright.sync_api")
    server, pub = room
    pub.signed("tafl/hall/table-1/state", json.dumps(board_state(3, GAME[:3])).encode(),
                retain=True)
    pub.signed("tafl/hall/table-2/state", json.dumps(board_state(5, GAME)).encode(),
                retain=True)
    wait(lambda: len(get(server, "/api/club")[1]["boards"]) == 2)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            ctx = browser.new_context(viewport=PHONE, locale="de-DE")
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{server.port}/")
            page.wait_for_selector(".card >> nth=1")
            assert "Turniersaal" in page.inner_text("h1")
            cards = page.inner_text("#room")
            assert "table-1" in cards and "table-2" in cards and "Verteidiger gewinnen" in cards
            assert page.locator(".card").first.locator(".pc").count() == 13  # 8 + 4 + king
            # live: a move at table-1 shows up without reloading
            pub.signed("tafl/hall/table-1/state",
                        json.dumps(board_state(3, GAME[:4])).encode(), retain=True)
            page.locator(".card").filter(has_text="d4-d1").wait_for(timeout=5000)
            # one board in full, and the finished game's review
            page.click("text=table-2")
            page.wait_for_selector("#detail .review button")
            assert page.locator("#detail .moves li").count() == len(GAME)
            page.click("#detail .review button >> nth=0")  # to the start
            page.wait_for_selector(f"text=Zug 0 / {len(GAME)}")
            box = page.locator("#detail .board").bounding_box()
            assert box is not None and box["width"] <= PHONE["width"]
            assert errors == []
        finally:
            browser.close()
