"""Issue 25, attack 2, for bench/load.py ``--stuck-writers``: devices that open every
connection they may, each with a tiny receive window, pipeline 8 (``--stuck-pipeline``)
``GET /static/app.js`` and
never read (reopening a connection as soon as the server closes one); meanwhile a new visitor
from another address loads the page again and again (``GET /``, every script and style sheet
it names, ``/api/state``, on one keep-alive connection, as a browser would on a bad day) and
we count the loads that succeed within 10 s."""

from __future__ import annotations

import contextlib
import http.client
import re
import select
import socket
import threading
import time
from typing import Any

REQUEST = b"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
ASSET = re.compile(rb'(?:src|href)="(/(?:static|i18n)/[^"]+)"')


def _open(port: int, src: str, pipeline: int) -> socket.socket | None:
    s = socket.socket()
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(REQUEST * pipeline)
        return s
    except OSError:
        s.close()
        return None


def attack(port: int, addresses: int, per_address: int, stop: threading.Event,
           counts: dict[str, int], pipeline: int = 8) -> None:
    """Hold ``addresses`` × ``per_address`` stuck connections until ``stop``."""
    poller = select.poll()
    socks: dict[int, tuple[socket.socket, str]] = {}
    mask = select.POLLRDHUP | select.POLLHUP | select.POLLERR

    def add(src: str) -> None:
        s = _open(port, src, pipeline)
        if s is None:
            counts["failed"] += 1
            return
        counts["opened"] += 1
        socks[s.fileno()] = (s, src)
        poller.register(s, mask)

    for a in range(addresses):
        for _ in range(per_address):
            add(f"127.0.20.{1 + a}")
    missing: list[str] = []
    while not stop.is_set():
        for fd, _ev in poller.poll(100):
            s, src = socks.pop(fd)
            poller.unregister(fd)
            s.close()
            counts["closed_by_server"] += 1
            missing.append(src)
        for src in missing[:32]:       # reopen at once what the server closed
            add(src)
        del missing[:32]
    for s, _src in socks.values():
        with contextlib.suppress(OSError):
            s.close()


def page_load(port: int, src: str, timeout: float = 10.0) -> bool:
    """One page load by a new visitor: every request answered 200 within ``timeout``."""
    end = time.monotonic() + timeout
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(src, 0))
    try:
        paths = ["/"]
        done = 0
        while done < len(paths):
            conn.timeout = max(0.1, end - time.monotonic())
            if conn.sock is not None:
                conn.sock.settimeout(conn.timeout)
            conn.request("GET", paths[done], headers={"Host": "127.0.0.1"})
            response = conn.getresponse()
            body = response.read()
            if response.status != 200 or time.monotonic() > end:
                return False
            if done == 0:
                paths += [m.decode() for m in ASSET.findall(body)] + ["/api/state"]
            done += 1
        return True
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def stuck_writers(d: Any, addresses: int, per_address: int, duration: float,
                  pipeline: int = 8) -> dict:
    """Run the attack on the daemon of bench/load.py for ``duration`` seconds. (``pipeline``:
    requests per connection; a server that lets the kernel buffer 4 MiB per connection takes
    8 responses of app.js whole, and only more than 4 MiB of them block it.)"""
    counts = {"opened": 0, "failed": 0, "closed_by_server": 0}
    stop = threading.Event()
    attacker = threading.Thread(target=attack, args=(d.port, addresses, per_address, stop,
                                                     counts, pipeline), daemon=True)
    attacker.start()
    time.sleep(2.0)          # the slots are taken
    scans0, t0 = d.scans()
    loads: list[tuple[float, bool]] = []
    start = time.monotonic()
    while time.monotonic() - start < duration:
        loads.append((time.monotonic() - start, page_load(d.port, "127.0.21.1")))
    scans1, t1 = d.scans()
    stop.set()
    attacker.join(10)
    first = [ok for at, ok in loads if at < 30]
    return {"addresses": addresses, "per_address": per_address, "duration_s": duration,
            "pipeline": pipeline,
            **counts, "loads": len(loads), "loads_ok": sum(ok for _, ok in loads),
            "first_30s": len(first), "first_30s_ok": sum(first),
            "scan_hz": round((scans1 - scans0) / (t1 - t0), 1)}
