"""Issue 12's web defects, each reproduced against a real daemon on loopback (real server, real
SQLite, the real tracker): slowloris, live-update slots, oversized ids, log floods, Host names,
strict JSON and squares. Connections come from several loopback addresses (127.0.x.y), each
standing for one device on the network."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest
from test_daemon_support import (
    PIN,
    base,
    control,
    http,
    running_daemon,
    state,
    test_config,
    wait_for,
)


@pytest.fixture()
def daemon(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        yield d


def post_raw(d, path: str, raw: bytes) -> tuple[int, dict]:
    status, _, data = http(base(d) + path, "POST", raw=raw, headers={
        "Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
    return status, json.loads(data)


# -- 4. oversized ids: 4xx, and a flood of errors writes a few log lines ---------------------


@pytest.mark.parametrize("gid", ["9223372036854775808", "9" * 40, "1" * 1000],
                         ids=["2**63", "40-digits", "1000-digits"])
def test_oversized_ids_are_404_on_every_id_route(daemon, gid: str) -> None:
    for path in (f"api/games/{gid}", f"api/games/{gid}/record.csv", f"api/games/{gid}/game.otg",
                 f"api/games/{gid}/analysis", f"api/matches/{gid}",
                 f"api/matches/{gid}/record.csv", f"api/matches/{gid}/games.otg",
                 f"api/review/{gid}", f"review/{gid}"):
        status, _, data = http(base(daemon) + path)
        assert status == 404 and json.loads(data)["error"], path


def test_the_largest_id_is_a_plain_not_found(daemon) -> None:
    status, _, data = http(base(daemon) + f"api/games/{2**63 - 1}")
    assert status == 404 and "no game" in json.loads(data)["error"]


def test_a_flood_of_failing_requests_logs_one_report_per_kind(daemon, caplog) -> None:
    def broken(gid: int):
        raise RuntimeError("disk on fire")

    import http.client

    daemon.session.reader.game = broken  # the page reads on its own connections
    caplog.set_level(logging.INFO)
    for i in range(200):  # from 200 devices (one device's costly requests are budgeted)
        conn = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=5,
                                          source_address=(f"127.0.6.{1 + i}", 0))
        conn.request("GET", "/api/games/1")
        resp = conn.getresponse()
        status, data = resp.status, resp.read()
        conn.close()
        assert status == 500 and json.loads(data)["error"] == "internal error: RuntimeError"
    reports = [r for r in caplog.records if "disk on fire" in r.getMessage()]
    assert len(reports) == 1 and reports[0].exc_info is not None
    assert sum(len(r.getMessage()) for r in caplog.records) < 5000


def test_error_log_counts_the_repeats_it_left_out() -> None:
    from companion.web.errors import ErrorLog

    now = [0.0]
    lines: list[str] = []

    class Sink(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("test.errorlog")
    logger.addHandler(Sink())
    errors = ErrorLog(logger, every=60, clock=lambda: now[0])
    for i in range(50):
        now[0] = i
        errors.error("KeyError GET /x", "boom")
        errors.error("ValueError GET /y", "bang")
    now[0] = 61
    errors.error("KeyError GET /x", "boom")
    assert lines == ["boom", "bang", "boom (49 more like it since the last report)"]


# -- 7. strict input -------------------------------------------------------------------------


def test_deeply_nested_json_is_a_400_not_a_recursion_error(daemon) -> None:
    for raw in (b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000):
        status, doc = post_raw(daemon, "api/click", raw)
        assert status == 400 and "nested" in doc["error"]
    status, doc = post_raw(daemon, "api/click", b'{"square": NaN}')
    assert status == 400
    assert state(base(daemon))["variant"] == "copenhagen"


@pytest.mark.parametrize("square", ["d01", "a\uff11", "a\u0e51", "\u01301", "D1", " d1", "d1 ",
                                    "a0", "l1", "a12", "d+1", "", "d1\x00", "ａ1"])
def test_squares_are_parsed_strictly(daemon, square: str) -> None:
    before = state(base(daemon))["occupied"]
    status, doc = control(base(daemon), "api/click", {"square": square})
    assert status == 400 and doc["error"], (square, status, doc)
    assert state(base(daemon))["occupied"] == before
    assert daemon.loop_errors == 0


@pytest.mark.parametrize("players", ["x", ["attackers"], 3, True])
def test_players_that_are_not_an_object_are_refused(daemon, players) -> None:
    status, doc = control(base(daemon), "api/new", {"players": players})
    assert status == 400 and doc["code"] == "bad_players", doc
    assert state(base(daemon))["game"] == 1  # no new game was started


@pytest.mark.parametrize("body", [{"rules": {"king_armed": False}}, {"variant": "brandubh",
                                                                     "bogus": 1}])
def test_unknown_new_game_fields_are_refused_not_ignored(daemon, body) -> None:
    status, doc = control(base(daemon), "api/new", body)
    assert status == 400 and doc["code"] == "bad_field", doc
    assert next(iter(set(body) - {"variant"})) in doc["error"]
    assert state(base(daemon))["game"] == 1  # no game was started with the field left out
    status, doc = control(base(daemon), "api/match", body)
    assert status == 400 and doc["code"] == "bad_field", doc


def test_a_strict_square_still_clicks(daemon) -> None:
    status, doc = control(base(daemon), "api/click", {"square": "d1"})
    assert status == 200 and doc == {"square": "d1", "occupied": False}


# -- helpers for raw connections from chosen loopback addresses (each a "device") -------------


def connect(port: int, src: str = "127.0.0.1", timeout: float = 5.0) -> socket.socket:
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_all(s: socket.socket) -> bytes:
    """Everything until the server closes (socket.timeout if it does not)."""
    buf = b""
    while chunk := s.recv(65536):
        buf += chunk
    return buf


def read_until(s: socket.socket, marker: bytes) -> bytes:
    buf = b""
    while marker not in buf:
        chunk = s.recv(65536)
        assert chunk, f"closed before {marker!r}: {buf[:200]!r}"
        buf += chunk
    return buf


@pytest.fixture()
def quick_limits(monkeypatch):
    """Short server timeouts and small caps, so that the limits show within a test."""
    from companion.web import server

    def use(**kw) -> None:
        monkeypatch.setattr(server, "DEFAULT_LIMITS", replace(server.Limits(), **kw))

    return use


# -- 1. slowloris ----------------------------------------------------------------------------


def test_slowloris_connections_do_not_stop_the_page(daemon) -> None:
    socks = []
    try:
        for i in range(120):  # 12 devices, 10 trickling connections each
            s = connect(daemon.port, f"127.0.1.{1 + i // 10}")
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n")
            socks.append(s)
        for path in ("", "api/state", "static/app.js", "api/games"):
            assert http(base(daemon) + path, timeout=3)[0] == 200, path
        ev = connect(daemon.port, "127.0.2.1")
        ev.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert b"data: " in read_until(ev, b"data: ")
        ev.close()
    finally:
        for s in socks:
            s.close()


def test_a_trickled_request_head_is_cut_off(quick_limits, tmp_path: Path) -> None:
    quick_limits(head_timeout=0.5)
    with running_daemon(tmp_path) as d:
        s = connect(d.port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.settimeout(0.1)
        sent = 0
        answer = b""
        while not answer and sent < 100:  # a header line every 0.1 s: each is not a new deadline
            try:
                answer = s.recv(1000)
            except TimeoutError:
                with contextlib.suppress(OSError):
                    s.sendall(b"X-Slow: 1\r\n")
                sent += 1
        assert answer.startswith(b"HTTP/1.1 408 ") and b"within 0.5 s" in answer
        assert sent < 50  # cut long before the lines stopped coming


def test_one_address_cannot_take_every_connection(daemon) -> None:
    per = daemon.server.limits.per_address
    socks = [connect(daemon.port, "127.0.1.1") for _ in range(per + 8)]
    try:
        refused = 0
        for s in socks[per:]:
            answer = read_all(s)
            refused += answer.startswith(b"HTTP/1.1 503 ") and b"your address" in answer
        assert refused == 8
        assert http(base(daemon) + "api/state", timeout=3)[0] == 200  # others are served
    finally:
        for s in socks:
            s.close()


def test_rotating_addresses_cannot_fill_the_server(quick_limits, tmp_path: Path) -> None:
    quick_limits(max_connections=40)
    with running_daemon(tmp_path) as d:
        socks = []
        try:
            for i in range(60):  # more trickling connections than the server holds
                s = connect(d.port, f"127.0.1.{1 + i}")
                s.sendall(b"GET / HTTP/1.1\r\n")
                socks.append(s)
            assert http(base(d) + "api/state", timeout=3)[0] == 200
            assert len(d.server.connections) <= 40
            # the oldest waiting connections made room: they were closed, the newest kept
            socks[0].settimeout(2)
            with contextlib.suppress(ConnectionResetError):  # closed, or reset
                assert socks[0].recv(100) == b""
        finally:
            for s in socks:
                s.close()


def test_malformed_heads_are_refused_with_4xx(daemon) -> None:
    cases = {
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n": b"501",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n":
            b"400",
        b"GET / HTTP/1.1\r\n\r\n": b"400",  # no Host
        b"GET http://evil/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n": b"400",
        b"GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n": b"505",
        b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n": b"400",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-A: b\r\n" * 2000 + b"\r\n": b"431",
        b"POST /api/click HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999\r\n\r\n": b"413",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Name: x\r\n\r\n": b"400",
    }
    for raw, code in cases.items():
        s = connect(daemon.port)
        s.sendall(raw)
        answer = read_all(s)
        s.close()
        assert answer.startswith(b"HTTP/1.1 " + code), (raw[:60], answer[:100])
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]


def test_keep_alive_and_pipelining(daemon) -> None:
    s = connect(daemon.port)
    s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
              b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    answer = read_all(s)
    s.close()
    assert answer.count(b"HTTP/1.1 200 OK") == 2 and b'"variants"' in answer


# -- 2. live-update slots ----------------------------------------------------------------------


def test_head_on_the_event_stream_takes_no_slot(daemon) -> None:
    for _ in range(20):  # curl -I, 20 times
        status, headers, body = http(base(daemon) + "api/events", "HEAD")
        assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
        assert body == b""
    assert daemon.server.live_streams == 0
    socks = [connect(daemon.port) for _ in range(daemon.server.limits.streams_per_address)]
    try:
        for s in socks:
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert b"data: {" in read_until(s, b"data: {")
    finally:
        for s in socks:
            s.close()


def test_closed_streams_free_their_slots_at_once(daemon) -> None:
    for _round in range(3):
        socks = [connect(daemon.port) for _ in range(daemon.server.limits.streams_per_address)]
        for s in socks:
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            read_until(s, b"data: ")
        assert daemon.server.live_streams == len(socks)
        for s in socks:
            s.close()
        wait_for(lambda: daemon.server.live_streams == 0, what="slots freed")


# -- 6. Host header (DNS rebinding) ----------------------------------------------------------


def test_foreign_host_names_are_refused(daemon) -> None:
    b = base(daemon)
    for path in ("", "api/state", "api/games", "static/app.js"):
        status, _, data = http(b + path, headers={"Host": "evil.example"})
        assert status == 403 and "evil.example" in json.loads(data)["error"], path
    s = connect(daemon.port)
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: rebind.evil.example:8080\r\n\r\n")
    assert read_all(s).startswith(b"HTTP/1.1 403 ")
    for pin in ("0000", "1111", "2222", "3333", "4444", "5555"):  # tries no PIN at all
        status, doc = control(b, "api/auth", {}, pin=pin, extra={"Host": "evil.example"})
        assert status == 403
    assert control(b, "api/auth", {})[0] == 200  # the PIN guard never saw those


def test_own_names_and_addresses_are_served(daemon) -> None:
    name = socket.gethostname().split(".")[0]
    port = daemon.port
    for host in ("127.0.0.1", f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST",
                 f"{name}.local:{port}", name, f"{name}.local.", "[::1]:8080", "127.0.0.2"):
        assert http(base(daemon) + "api/state", headers={"Host": host})[0] == 200, host


def test_configured_names_are_served(tmp_path: Path) -> None:
    from companion.daemon import Daemon

    cfg = replace(test_config(tmp_path), allowed_hosts=("tafl.example.org", "*.club.example"))
    d = Daemon(cfg)
    d.start()
    try:
        for host, code in (("tafl.example.org", 200), ("board.club.example:80", 200),
                           ("example.org", 403), ("tafl.example.org.evil.example", 403)):
            assert http(base(d) + "api/state", headers={"Host": host})[0] == code, host
    finally:
        d.stop()


def test_host_check_follows_new_interface_addresses() -> None:
    from companion.web.auth import HostCheck

    nets = {ipaddress.ip_network("192.168.1.20/32")}
    check = HostCheck(hostname="tafl", networks=lambda: set(nets), refresh_s=0)
    assert check.allows("192.168.1.20:8080") and check.allows("tafl.local")
    assert not check.allows("192.168.1.21")
    nets.add(ipaddress.ip_network("192.168.1.21/32"))  # a new DHCP lease
    assert check.allows("192.168.1.21")
    for bad in (None, "", "tafl.local:80:80", "[::1", "tafl.local:x", "tafl.evil", "1.2.3.4"):
        assert not check.allows(bad), bad


# -- 5. PIN guessing, owner sessions, the code at start --------------------------------------


def test_rotating_addresses_cannot_keep_guessing_the_pin(daemon) -> None:
    from companion.web import auth

    codes = []
    for i in range(auth.BUDGET + 10):  # every guess from a fresh address of the LAN
        status, _ = control_from(daemon, f"127.0.3.{1 + i}", "api/auth",
                                 pin=f"{i:04d}" if f"{i:04d}" != PIN else "9999")
        codes.append(status)
    assert codes[:auth.BUDGET] == [403] * auth.BUDGET
    assert set(codes[auth.BUDGET:]) == {429}
    status, doc = control_from(daemon, "127.0.3.200", "api/auth")  # the right PIN
    assert status == 429 and "paused" in doc["error"]


def test_the_page_gets_an_owner_token_instead_of_keeping_the_pin(daemon) -> None:
    b = base(daemon)
    status, doc = control(b, "api/auth", {})
    assert status == 200 and doc["token"].startswith("o1.") and PIN not in doc["token"]
    assert doc["expires"] > time.time() + 29 * 86400
    token = {"X-Tafl-Token": doc["token"]}
    status, doc = control(b, "api/click", {"square": "d1"}, pin=None, extra=token)
    assert status == 200
    status, doc = control(b, "api/click", {"square": "d1"}, pin=None,
                          extra={"X-Tafl-Token": token["X-Tafl-Token"][:-2] + "xx"})
    assert status == 403 and "PIN" in doc["error"]
    assert control(b, "api/auth", {}, pin=None, extra=token)[1].get("token") is None


def control_from(d, src: str, path: str, pin: str | None = PIN) -> tuple[int, dict]:
    """POST a control like the page, from the loopback address ``src`` (one device)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=5, source_address=(src, 0))
    headers = {"Content-Type": "application/json", "X-Tafl-Request": "1"}
    if pin is not None:
        headers["X-Tafl-Pin"] = pin
    try:
        conn.request("POST", "/" + path, body=b"{}", headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def test_the_server_listens_on_ipv6_and_both_families() -> None:
    from companion.web.server import bind

    for host, reach in (("::1", "::1"), ("::", "127.0.0.1"), ("::", "::1")):
        try:
            sock = bind(host, 0)
        except OSError:
            pytest.skip("no IPv6 on this machine")
        with sock:
            port = sock.getsockname()[1]
            family = socket.AF_INET6 if ":" in reach else socket.AF_INET
            with socket.socket(family) as c:
                c.connect((reach, port))
