"""The web API against a real in-process daemon (real web server on loopback, real SQLite, the
real tracker): state, SSE, controls, actors (owner, player link, spectator), CSRF, errors."""

from __future__ import annotations

import importlib.util
import json
import socket
import time
from pathlib import Path

import pytest
from test_daemon_support import PIN, base, control, http, running_daemon, state, wait_for

from companion.rules import get_variant


@pytest.fixture()
def daemon(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        yield d


def read_until(sock: socket.socket, marker: bytes, buf: bytes = b"") -> bytes:
    while marker not in buf:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before {marker!r}"
        buf += chunk
    return buf


def play(d, frm: str, to: str) -> None:
    """Move a piece on the simulated board by two clicks."""
    b = base(d)
    n = len(state(b)["moves"])
    assert control(b, "api/click", {"square": frm})[0] == 200
    assert control(b, "api/click", {"square": to})[0] == 200
    wait_for(lambda: len(state(b)["moves"]) > n, what=f"move {frm}-{to}")


def test_state_has_the_interface_fields(daemon) -> None:
    s = state(base(daemon))
    for key in ("game", "variant", "turn", "moves", "result", "position", "leds", "message",
                "board"):
        assert key in s
    assert s["variant"] == "copenhagen" and s["turn"] == "attackers" and s["moves"] == []
    assert s["result"] == "ongoing" and isinstance(s["game"], int)
    assert s["position"] == get_variant("copenhagen").start
    assert s["board"]["kind"] == "sim" and s["board"]["connected"] is True
    assert len(s["occupied"]) == 37  # the sim board starts with the start position on it
    # this round's fields (INTERFACES.md): no clock, no match, nothing to make, no ending yet
    assert s["reason"] is None and s["move_to_make"] is None
    assert s["clock"] is None and s["match"] is None
    assert {side: p["kind"] for side, p in s["players"].items()} == {
        "attackers": "board", "defenders": "board"}
    assert all(isinstance(p["name"], str) and p["name"] for p in s["players"].values())


def test_page_and_assets_are_small(daemon) -> None:
    b = base(daemon)
    status, headers, html = http(b)
    assert status == 200 and b"<svg" in html and "Content-Security-Policy" in headers
    total = len(html)
    for asset in ("static/app.js", "static/app.css"):
        status, _, data = http(b + asset)
        assert status == 200
        total += len(data)
    assert total < 100 * 1024, f"page weight {total} bytes"


def test_clicks_make_a_move_that_is_stored_and_streamed(daemon) -> None:
    b = base(daemon)
    with socket.create_connection(("127.0.0.1", daemon.port), timeout=5) as sock:
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Accept: text/event-stream\r\n\r\n")
        sock.settimeout(5)
        buf = read_until(sock, b"data: ")
        play(daemon, "d1", "d4")
        buf = read_until(sock, b"d1-d4", buf)
    assert b"text/event-stream" in buf
    events = [json.loads(line[6:]) for line in buf.decode().splitlines()
              if line.startswith("data: ")]
    assert events[0]["moves"] == [] and events[-1]["moves"] == ["d1-d4"]
    assert daemon.store.move_texts(daemon.session.gid) == ["d1-d4"]
    assert state(b)["last"] == {"from": "d1", "to": "d4", "captured": [], "side": "attackers",
                                "text": "d1-d4"}


def test_capture_guidance_and_counts(daemon) -> None:
    b = base(daemon)
    for frm, to in (("d1", "d4"), ("f4", "e4"), ("f2", "f4")):
        play(daemon, frm, to)
    s = state(b)
    assert s["moves"][-1] == "f2-f4xe4" and s["leds"]["e4"] == "capture"
    assert s["captures"] == {"attackers": 1, "defenders": 0}
    assert "e4" in s["message"]
    control(b, "api/click", {"square": "e4"})
    wait_for(lambda: "e4" not in state(b)["leds"], what="capture cleared")


def test_controls_refused_without_pin(daemon) -> None:
    b = base(daemon)
    status, doc = control(b, "api/click", {"square": "d1"}, pin=None)
    assert status == 403 and "spectators cannot act" in doc["error"]
    assert doc["code"] == "forbidden"
    status, doc = control(b, "api/new", {}, pin="0000")
    assert status == 403 and doc["error"] == "wrong PIN"
    assert state(b)["occupied"].count("d1") == 1  # nothing changed


def test_cross_site_requests_refused(daemon) -> None:
    b = base(daemon)
    # a plain form post: no custom header, form content type
    status, _, data = http(b + "api/new", "POST", raw=b"variant=brandubh",
                           headers={"Content-Type": "application/x-www-form-urlencoded",
                                    "X-Tafl-Pin": PIN})
    assert status == 403 and b"X-Tafl-Request" in data
    assert control(b, "api/new", {}, extra={"Origin": "http://evil.example"})[0] == 403
    assert control(b, "api/new", {}, extra={"Origin": "null"})[0] == 403
    assert control(b, "api/new", {}, extra={"Sec-Fetch-Site": "cross-site"})[0] == 403
    status, _, _ = http(b + "api/new", "POST", raw=b"{}", headers={
        "Content-Type": "text/plain", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
    assert status == 415
    same = {"Origin": f"http://127.0.0.1:{daemon.port}", "Sec-Fetch-Site": "same-origin"}
    assert control(b, "api/auth", {}, extra=same)[0] == 200


def test_wrong_pins_are_rate_limited(daemon) -> None:
    b = base(daemon)
    codes = [control(b, "api/auth", {}, pin=f"{i:04d}")[0] for i in range(6)]
    assert codes[:5] == [403] * 5 and codes[5] == 429
    assert control(b, "api/auth", {})[0] == 429  # even the right PIN waits out the lock


def test_bad_requests_get_4xx_json_never_500(daemon) -> None:
    b = base(daemon)
    cases = [
        ("api/click", {"square": "z99"}), ("api/click", {}), ("api/click", {"square": 5}),
        ("api/new", {"variant": "chess"}), ("api/draw", {"action": "accept", "side": "attackers"}),
        ("api/draw", {"action": "dance", "side": "attackers"}), ("api/resign", {"side": "kings"}),
        ("api/takeback", {}), ("api/nope", {}), ("api/state", {}),
    ]
    for path, body in cases:
        status, doc = control(b, path, body)
        assert 400 <= status < 500 and doc.get("error"), (path, body, status, doc)
    for raw in (b"{", b"[1, 2]", b"\xff\xfe", b"null"):
        status, _, data = http(b + "api/new", "POST", raw=raw, headers={
            "Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
        assert 400 <= status < 500 or status == 200, (raw, status)
        assert json.loads(data)
    for path in ("api/games/999", "api/games/999/record.csv", "api/games?limit=x",
                 "api/games?limit=0", "no/such/page", "api/games/abc"):
        status, _, data = http(b + path)
        assert 400 <= status < 500 and json.loads(data)["error"], path
    status, _, data = http(b + "api/new", "PUT", raw=b"{}")
    assert status == 405 and json.loads(data)["error"]
    big = json.dumps({"square": "a" * 40000}).encode()
    status, _, _ = http(b + "api/click", "POST", raw=big, headers={
        "Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
    assert status == 413


def test_takeback_draw_resign_swap_new_game(daemon) -> None:
    b = base(daemon)
    play(daemon, "d1", "d4")
    status, doc = control(b, "api/takeback")
    assert status == 200 and doc["undone"] == "d1-d4"
    assert state(b)["moves"] == [] and daemon.store.move_texts(daemon.session.gid) == []
    # the tracker now guides the piece back: put it back on d1
    wait_for(lambda: state(b)["tracking"] == "setup", what="set-up guidance")
    control(b, "api/click", {"square": "d4"})
    control(b, "api/click", {"square": "d1"})
    wait_for(lambda: state(b)["tracking"] == "ready", what="set-up done")
    # draw: offer, the same side cannot accept, the other side can
    assert control(b, "api/draw", {"action": "offer", "side": "attackers"})[0] == 200
    assert state(b)["draw_offer"] == "attackers"
    assert control(b, "api/draw", {"action": "accept", "side": "attackers"})[0] == 409
    assert control(b, "api/draw", {"action": "accept", "side": "defenders"})[0] == 200
    s = state(b)
    assert s["result"] == "draw" and s["reason"] == "agreement"
    assert daemon.store.game(daemon.session.gid).reason == "agreement"
    assert control(b, "api/resign", {"side": "attackers"})[0] == 409  # already over
    # swap sides after the game: the finished game keeps its players; the next game swaps
    status, doc = control(b, "api/swap")
    assert status == 200 and doc["applies_to"] == "next_game"
    assert doc["players"] == {"attackers": "Player 2", "defenders": "Player 1"}
    old = daemon.session.gid
    assert daemon.store.game(old).attackers == "Player 1"
    status, doc = control(b, "api/new", {"variant": "brandubh"})
    assert status == 200 and doc["game"] != old
    s = wait_for(lambda: (st := state(b))["variant"] == "brandubh" and st)
    assert s["size"] == 7 and len(s["occupied"]) == 13
    assert s["players"]["attackers"] == {"name": "Player 2", "kind": "board"}
    assert control(b, "api/resign", {"side": "defenders"})[0] == 200
    s = wait_for(lambda: (st := state(b))["result"] != "ongoing" and st)
    assert s["result"] == "attackers" and s["reason"] == "resignation"
    assert daemon.store.game(daemon.session.gid).reason == "resignation"
    assert [e["kind"] for e in s["events"]][-3:] == ["swap", "new_game", "resign"]


def test_a_player_link_plays_one_side_only(tmp_path: Path) -> None:
    with running_daemon(tmp_path, defenders="page") as d:
        b = base(d)
        assert control(b, "api/links", {}, pin=None)[0] == 403  # a spectator cannot
        status, doc = control(b, "api/links")
        assert status == 200
        links = doc["links"]
        assert links["defenders"]["url"].startswith(b.rstrip("/") + "/?player=")
        mine, theirs = links["defenders"]["token"], links["attackers"]["token"]
        who = json.loads(http(b + "api/whoami", headers={"X-Tafl-Player": mine})[2])
        assert who == {"role": "player", "side": "defenders"}
        assert control(b, "api/move", {"move": "d1-d4"}, player=theirs)[1]["code"] == (
            "at_the_board")  # the attackers play at the board
        play(d, "d1", "d4")
        legal = json.loads(http(b + "api/legal")[2])
        assert legal["turn"] == "defenders" and {"to": "e4", "captures": []} in legal["moves"]["f4"]
        status, doc = control(b, "api/move", {"from": "f4", "to": "e4"}, player=theirs)
        assert status == 403 and doc["code"] == "not_your_side"
        assert control(b, "api/resign", {"side": "attackers"}, player=mine)[0] == 403
        assert control(b, "api/takeback", {}, player=mine)[0] == 403
        assert control(b, "api/move", {"move": "f4-e4"}, player="bogus-token-1234567")[0] == 403
        status, doc = control(b, "api/move", {"move": "f4-e4"}, player=mine)
        assert status == 200 and doc["move_to_make"]["to"] == "e4"
        s = state(b)
        assert s["move_to_make"]["move"] == "f4-e4" and s["leds"]["f4"] == "make_from"
        play(d, "f4", "e4")
        assert state(b)["move_to_make"] is None
        assert control(b, "api/draw", {"action": "offer"}, player=mine)[0] == 200
        assert state(b)["draw_offer"] == "defenders"


def test_matches_are_listed_and_exported(tmp_path: Path) -> None:
    with running_daemon(tmp_path, time_control="5+0") as d:
        b = base(d)
        status, doc = control(b, "api/match", {})
        assert status == 200 and doc["match"]
        mid = doc["match"]
        assert state(b)["match"]["game"] == 1
        assert control(b, "api/resign", {"side": "defenders"})[0] == 200
        assert control(b, "api/next", {})[0] == 200
        s = wait_for(lambda: (st := state(b))["match"]["game"] == 2 and st)
        assert s["players"]["attackers"]["name"] == "Player 2"
        assert control(b, "api/clock", {"action": "pause"})[1]["paused"] is True
        assert state(b)["clock"]["paused"] is True
        assert control(b, "api/clock", {"action": "resume"})[1]["paused"] is False
        assert control(b, "api/draw", {"action": "offer", "side": "attackers"})[0] == 200
        assert control(b, "api/draw", {"action": "accept", "side": "defenders"})[0] == 200
        m = wait_for(lambda: (st := state(b))["match"]["finished"] and st["match"])
        assert m["score"] == {"Player 1": 1.5, "Player 2": 0.5} and m["winner"] == "Player 1"
        listed = json.loads(http(b + "api/matches")[2])["matches"]
        assert listed[0]["id"] == mid and len(listed[0]["games"]) == 2
        status, _, csv = http(b + f"api/matches/{mid}/record.csv")
        assert status == 200 and csv.decode().count("# tafl-companion game") == 2
        status, _, otg = http(b + f"api/matches/{mid}/games.otg")
        assert status == 200 and otg.decode().count("[rules:") == 2
        assert "[time-control:5+0]" in otg.decode()
        players = json.loads(http(b + "api/players")[2])["players"]
        assert players["Player 1"]["wins_attackers"] == 1
        assert http(b + "api/matches/9223372036854775808")[0] == 404


def test_games_list_replay_and_export(daemon) -> None:
    b = base(daemon)
    for frm, to in (("d1", "d4"), ("f4", "e4"), ("f2", "f4")):
        play(daemon, frm, to)
    games = json.loads(http(b + "api/games")[2])["games"]
    assert games[0]["id"] == daemon.session.gid and games[0]["plies"] == 3
    detail = json.loads(http(b + f"api/games/{daemon.session.gid}")[2])
    assert [m["text"] for m in detail["moves"]] == ["d1-d4", "f4-e4", "f2-f4xe4"]
    assert len(detail["positions"]) == 4 and detail["size"] == 11 and detail["throne"] == "f6"
    status, headers, csv = http(b + f"api/games/{daemon.session.gid}/record.csv")
    assert status == 200 and csv.decode().endswith("\nd1-d4 f4-e4 f2-f4xe4,1,0,Ongoing\n")
    assert "# attackers: Player 1 (board)" in csv.decode()
    assert "attachment" in headers["Content-Disposition"]
    status, _, otg = http(b + f"api/games/{daemon.session.gid}/game.otg")
    if importlib.util.find_spec("companion.rules.otg") is None:
        assert status == 501  # the OpenTafl writer is not installed
    else:
        assert status == 200 and b"1. d1-d4 f4-e4" in otg and b"[rules:dim:11" in otg


def test_sse_limit_falls_back_to_polling(daemon) -> None:
    b = base(daemon)
    socks = []
    try:  # one address may hold streams_per_address live streams
        for _ in range(daemon.server.limits.streams_per_address):
            s = socket.create_connection(("127.0.0.1", daemon.port), timeout=5)
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            read_until(s, b"data: ")
            socks.append(s)
        status, _, data = http(b + "api/events")
        assert status == 503 and b"poll" in data
        assert state(b)["variant"] == "copenhagen"  # polling still works
    finally:
        for s in socks:
            s.close()


def test_sse_event_arrives_after_the_move_is_accepted(daemon) -> None:
    """The move's acceptance (stored first), then the SSE event at a client (bench/load.py
    measures how soon)."""
    with socket.create_connection(("127.0.0.1", daemon.port), timeout=5) as sock:
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        buf = read_until(sock, b"data: ")
        b = base(daemon)
        control(b, "api/click", {"square": "d1"})
        control(b, "api/click", {"square": "d4"})
        buf = read_until(sock, b"d1-d4", buf)
        arrived = time.time()
    doc = [json.loads(x[6:]) for x in buf.decode().splitlines() if x.startswith("data: ")][-1]
    assert doc["moves"] == ["d1-d4"] and arrived - doc["accepted_at"] >= 0


def test_a_new_match_with_house_rules_and_a_clock_from_the_page(daemon) -> None:
    b = base(daemon)
    options = json.loads(http(b + "api/variants")[2])["options"]
    assert {"sheltered_king", "chain_capture", "king_armed", "escape", "repetition"} <= set(
        options)
    status, doc = control(b, "api/match", {
        "options": {"sheltered_king": True, "chain_capture": True, "king_armed": False},
        "time_control": "3+2", "players": {"attackers": {"name": "Ann"},
                                           "defenders": {"name": "Bo", "kind": "page"}}})
    assert status == 200 and doc["match"], doc
    s = wait_for(lambda: (st := state(b))["game"] == doc["game"] and st)
    assert s["settings"]["options"] == {"sheltered_king": True, "chain_capture": True,
                                        "king_armed": False}
    assert s["clock"]["control"]["text"] == "3+2" and s["clock"]["defenders"] == 180.0
    assert s["match"]["score"] == {"Ann": 0.0, "Bo": 0.0}
    assert s["players"]["defenders"] == {"name": "Bo", "kind": "page"}
    row = daemon.store.game(doc["game"])
    assert row.time_control == "3+2" and row.match_id == doc["match"]
    csv = http(b + f"api/games/{doc['game']}/record.csv")[2].decode()
    assert "sheltered_king=true" in csv and "# time control: 3+2" in csv
    otg = http(b + f"api/games/{doc['game']}/game.otg")[2].decode()
    assert "sheltered_king=on" in otg and "chain_capture=on" in otg
    for bad in ({"time_control": "3+"}, {"options": {"escape": "sky"}},
                {"options": {"king_armed": "maybe"}}, {"options": ["escape"]}):
        status, err = control(b, "api/new", bad)
        assert status == 400 and err["code"] == "bad_settings", (bad, err)
    assert state(b)["game"] == doc["game"]  # a refused new game changes nothing
