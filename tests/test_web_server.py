"""The web server itself (h11 under the project's loop), against real sockets on loopback: HTTP/1.0
keep-alive, bare-LF heads, responses streamed with bounded buffers, and issue 17's defect 1 (a
trickled request body took the page away). Connections come from several loopback addresses
(127.0.x.y), each standing for one device."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_daemon_support import http, running_daemon
from test_web_hardening import connect, read_all

from companion.web.hub import StateHub
from companion.web.limits import Limits
from companion.web.server import WebServer

BIG = 8 * 1024 * 1024


def broken_body() -> Iterator[bytes]:
    yield b"half"
    raise RuntimeError("the disk went away")


def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    """A small WSGI app: ``/big`` answers 8 MB in one chunk, ``/chunks`` three chunks without
    a length, ``/broken`` fails after its first chunk, anything else ``ok``."""
    path = environ["PATH_INFO"]
    if path == "/broken":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return broken_body()
    if path == "/big":
        start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                  ("Content-Length", str(BIG))])
        return [b"x" * BIG]
    if path == "/chunks":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"one ", b"two ", b"three"]
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


@contextlib.contextmanager
def serving(**limits: Any) -> Iterator[WebServer]:
    server = WebServer(app, StateHub(), "127.0.0.1", 0, limits=replace(Limits(), **limits))
    server.start()
    try:
        yield server
    finally:
        server.close()


def test_http_1_0_keep_alive_gets_a_correct_close() -> None:
    with serving() as server:
        for extra in (b"Connection: keep-alive\r\n", b""):
            s = connect(server.port)
            s.sendall(b"GET / HTTP/1.0\r\n" + extra + b"\r\n")
            answer = read_all(s)  # the server closes: the client is not left waiting
            s.close()
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK") and body == b"ok"
            assert b"\r\nconnection: close" in head.lower()


def test_a_body_without_a_length_is_chunked_for_1_1_and_delimited_by_the_close_for_1_0() -> None:
    with serving() as server:
        s = connect(server.port)
        s.sendall(b"GET /chunks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = read_all(s)
        assert b"transfer-encoding: chunked" in answer.lower()
        assert answer.endswith(b"4\r\none \r\n4\r\ntwo \r\n5\r\nthree\r\n0\r\n\r\n")
        s = connect(server.port)
        s.sendall(b"GET /chunks HTTP/1.0\r\n\r\n")
        assert read_all(s).endswith(b"\r\n\r\none two three")


def test_an_app_failing_in_its_body_hangs_up_and_the_server_goes_on() -> None:
    with serving() as server:
        s = connect(server.port)
        s.sendall(b"GET /broken HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            answer = read_all(s)
        assert answer.startswith(b"HTTP/1.1 200 OK") and not answer.endswith(b"0\r\n\r\n")
        assert http(f"http://127.0.0.1:{server.port}/")[2] == b"ok"


def test_a_bare_lf_head_is_refused_at_once() -> None:
    with serving(head_timeout=30) as server:
        for raw in (b"GET / HTTP/1.1\nHost: x\n\n", b"GET / HTTP/1.1\r\nHost: x\n"):
            s = connect(server.port, timeout=3)  # well before the head deadline
            s.sendall(raw)
            answer = read_all(s)
            s.close()
            assert answer.startswith(b"HTTP/1.1 400 ") and b"CR LF" in answer, answer


def test_a_large_response_is_streamed_not_buffered_whole() -> None:
    with serving() as server:
        s = connect(server.port, timeout=10)
        s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        time.sleep(0.5)  # the client reads nothing yet: the server may not queue 8 MB for it
        buffered = [c.transport.get_write_buffer_size() for c in list(server.connections)
                    if c.transport is not None]
        assert buffered and max(buffered) <= 256 * 1024, buffered
        answer = read_all(s)
        s.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK") and len(body) == BIG and body == b"x" * BIG


# -- defect 1: a trickled request body took the page away ---------------------------------------


@pytest.fixture()
def small_server(monkeypatch):
    from companion.web import server

    monkeypatch.setattr(server, "DEFAULT_LIMITS", replace(
        server.Limits(), max_connections=40, per_address=10, request_timeout=3.0))


def test_trickled_request_bodies_do_not_take_the_page_away(small_server, tmp_path: Path) -> None:
    """Eight devices with ten connections each send ``POST /api/auth`` with a 16,000-byte
    Content-Length a byte at a time, reconnecting when cut: more than the server holds. The
    page from another device must still answer every time, and every trickler is cut by the
    whole-request deadline (408) or evicted for a real request."""
    with running_daemon(tmp_path) as d:
        stop = threading.Event()
        outcomes: list[bytes] = []

        def trickle(src: str) -> None:
            while not stop.is_set():
                try:
                    s = connect(d.port, src, timeout=0.2)
                    s.sendall(b"POST /api/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                              b"application/json\r\nContent-Length: 16000\r\n\r\n{")
                    while not stop.is_set():
                        try:
                            answer = s.recv(200)
                        except TimeoutError:
                            s.sendall(b" ")
                            continue
                        outcomes.append(answer[:12])
                        break
                    s.close()
                except OSError:
                    outcomes.append(b"reset")

        threads = [threading.Thread(target=trickle, args=(f"127.0.7.{1 + i // 10}",),
                                    daemon=True) for i in range(80)]
        for t in threads:
            t.start()
        try:
            time.sleep(1.0)  # the server is full of trickling bodies
            answered = 0
            for _ in range(15):
                status = http(f"http://127.0.0.1:{d.port}/", timeout=5)[0]
                answered += status == 200
                time.sleep(0.2)
            time.sleep(1.5)  # past the whole-request deadline of the first tricklers
        finally:
            stop.set()
            for t in threads:
                t.join(5)
        assert answered == 15
        assert len(outcomes) > 80  # tricklers were cut to make room (and came back)


def test_a_trickled_body_is_cut_by_the_whole_request_deadline(monkeypatch, tmp_path: Path) -> None:
    from companion.web import server

    monkeypatch.setattr(server, "DEFAULT_LIMITS", replace(server.Limits(), request_timeout=1.0))
    with running_daemon(tmp_path) as d:
        s = connect(d.port, timeout=0.1)
        s.sendall(b"POST /api/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                  b"application/json\r\nContent-Length: 16000\r\n\r\n{")
        sent = 0
        answer = b""
        while not answer and sent < 100:  # a byte every 0.1 s: each is not a new deadline
            try:
                answer = s.recv(1000)
            except TimeoutError:
                s.sendall(b" ")
                sent += 1
        s.close()
        assert answer.startswith(b"HTTP/1.1 408 ") and b"within 1 s" in answer, answer
        assert sent < 50
