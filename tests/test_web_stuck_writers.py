"""Issue 25, attack 2: devices that open every connection they may, pipeline requests for a
large file with a tiny receive window and never read. Every slot then holds a complete request
(one writing into a full window, the others waiting for their turn), so an eviction that only
picked connections waiting for or reading a request found nothing, and a new visitor got a 503.
Real daemon on loopback, real sockets, each device a loopback address."""

from __future__ import annotations

import contextlib
import socket
from dataclasses import replace
from pathlib import Path

import pytest
from test_daemon_support import running_daemon, wait_for
from web_load_support import request

PIPELINE = b"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 8


@pytest.fixture()
def quick_limits(monkeypatch):
    from companion.web import server

    def use(**kw) -> None:
        monkeypatch.setattr(server, "DEFAULT_LIMITS", replace(server.Limits(), **kw))

    return use


def stuck_writer(port: int, src: str, times: int = 1) -> socket.socket:
    """A connection that asks for app.js 8 (× ``times``) times with a tiny receive window and
    never reads."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(PIPELINE * times)
    return s


def fetch(port: int, path: str, src: str) -> int:
    return request(port, path, src, headers={"Host": "127.0.0.1"})[0]


def test_pipelined_requests_never_read_cannot_keep_a_new_visitor_out(quick_limits,
                                                                      tmp_path: Path) -> None:
    quick_limits(max_connections=64, per_address=16)
    with running_daemon(tmp_path) as d:
        server = d.server
        socks: list[socket.socket] = []
        try:
            for i in range(64):     # 4 devices, 16 connections each: every slot
                socks.append(stuck_writer(d.port, f"127.0.3.{1 + i // 16}"))
            # every connection holds a whole request: in the app or waiting for its turn
            wait_for(lambda: len(server.connections) == 64 and all(
                c.request is not None for c in list(server.connections)), what="slots held")
            statuses = [fetch(d.port, path, "127.0.4.1") for path in
                        ("/", "/static/app.js", "/static/app.css", "/api/state")]
            assert statuses == [200, 200, 200, 200]
            assert len(server.connections) <= 64
        finally:
            for s in socks:
                with contextlib.suppress(OSError):
                    s.close()


def test_a_response_its_client_never_reads_is_dropped_after_the_write_stall(
        quick_limits, tmp_path: Path) -> None:
    quick_limits(write_stall=0.5)
    with running_daemon(tmp_path) as d:
        server = d.server
        s = stuck_writer(d.port, "127.0.3.9", times=8)   # more than the kernel's buffers take
        try:
            wait_for(lambda: any(c.paused for c in list(server.connections)),
                     what="a response waiting for its client")
            # taken for a slow reader: closed, its slot free
            wait_for(lambda: not any(c.key == "127.0.3.9" for c in list(server.connections)),
                     what="the stuck connection dropped")
        finally:
            s.close()
