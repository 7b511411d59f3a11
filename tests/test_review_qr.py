"""Getting a phone onto the page: the links printed at start-up, the QR code in the terminal
(read back module by module), the page's QR endpoint, and escape threats (raichi/tuichi)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_daemon_support import http, running_daemon, spawn_daemon

from companion import qr
from companion.rules import Board, get_variant
from companion.rules.threats import escape_threat


def terminal_modules(text: str) -> list[list[bool]]:
    """Read a compact terminal QR code back into dark (True) / light modules: each character
    holds two rows (upper and lower half); a light module is printed as a full block."""
    top = {"█": False, "▀": False, "▄": True, " ": True}
    bottom = {"█": False, "▀": True, "▄": False, " ": True}
    rows: list[list[bool]] = []
    for line in text.splitlines():
        if not line or any(ch not in top for ch in line):
            continue
        rows.append([top[ch] for ch in line])
        rows.append([bottom[ch] for ch in line])
    return rows


@pytest.mark.parametrize("url", ["http://192.168.1.20:8080/", "http://tafl.local/review/12"])
def test_terminal_code_reads_back_to_the_encoded_matrix(url: str) -> None:
    out = io.StringIO()
    qr.terminal(url, out)
    modules = terminal_modules(out.getvalue())
    want = [[bool(v) for v in row] for row in qr.matrix(url).matrix]
    n, border = len(want), 2
    got = [row[border:border + n] for row in modules[border:border + n]]
    assert got == want
    # the quiet zone is light all round (an odd last half-line is the terminal's own)
    whole = modules[:n + 2 * border]
    assert not any(whole[0]) and not any(whole[-1]) and not any(row[0] for row in whole)


def test_svg_is_a_scalable_document() -> None:
    doc = ET.fromstring(qr.svg("http://192.168.1.20:8080/"))
    assert doc.tag.endswith("svg") and doc.get("viewBox") == "0 0 33 33"  # 25 + 2 * 4
    assert doc.get("width") is None  # sized by the page's CSS


def test_links_for_phones() -> None:
    urls = qr.page_urls("0.0.0.0", 8080, addresses=["192.168.1.20", "10.0.0.5"], mdns="tafl.local")
    assert urls == ["http://tafl.local:8080/", "http://192.168.1.20:8080/",
                    "http://10.0.0.5:8080/", "http://localhost:8080/"]
    assert qr.page_urls("0.0.0.0", 80, addresses=[], mdns="") == ["http://localhost/"]
    assert qr.page_urls("127.0.0.1", 8080) == ["http://127.0.0.1:8080/"]
    assert qr.page_urls("::1", 8080) == ["http://[::1]:8080/"]
    assert all(a != "127.0.0.1" for a in qr.interface_addresses())


def test_startup_text_names_the_links_and_prints_the_code() -> None:
    out = io.StringIO()
    urls = qr.print_startup("127.0.0.1", 8080, out, with_qr=True)
    text = out.getvalue()
    assert urls == ["http://127.0.0.1:8080/"] and "http://127.0.0.1:8080/" in text
    assert "only this machine can reach it" in text and "▀" in text
    quiet = io.StringIO()
    qr.print_startup("0.0.0.0", 8080, quiet, with_qr=False)
    assert "▀" not in quiet.getvalue() and "http://localhost:8080/" in quiet.getvalue()


def test_daemon_prints_the_links_and_a_qr_code_at_start(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('pin = "1357"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    proc, url = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "d")])
    try:
        out = proc.output
    finally:
        out = proc.stop()
    assert "Open the page on a phone" in out and url in out
    assert "▄▄▄▄▄" in out  # the code's finder patterns


def test_qr_endpoint(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        status, headers, body = http(base + "api/qr.svg?text=http%3A%2F%2Ftafl.local%2F")
        assert status == 200 and headers["Content-Type"].startswith("image/svg+xml")
        assert body.startswith(b"<svg")
        for bad in ("javascript:alert(1)", "http://" + "x" * 500, ""):
            status, _, _ = http(base + "api/qr.svg?text=" + bad)
            assert status == 400
        status, _, body = http(base + "api/links")
        assert status == 200 and b"127.0.0.1" in body


# -- raichi and tuichi ------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "otn", "turn", "want"), [
    # brandubh: corners escape; the king on the a-file edge sees a7 (a1 blocked by a3)
    ("brandubh", "/7/7/t6/K6/7/7/3t3/", "attackers", ("raichi", "a4", ("a7",))),
    ("brandubh", "/7/7/7/K6/3t3/7/3t3/", "attackers", ("tuichi", "a4", ("a1", "a7"))),
    # tablut: edge escape, a king in the middle of an open board reaches three edges
    ("tablut", "/9/9/9/9/3tK4/9/9/4t4/9/", "defenders", ("tuichi", "e5", ("e1", "i5"))),
    ("brandubh", None, "attackers", None),            # the start: no free line
    ("brandubh", "/7/7/7/1K5/7/7/3t3/", "attackers", None),  # b4: no corner in line
])
def test_escape_threats(variant, otn, turn, want) -> None:
    board = Board(get_variant(variant), otn, turn)
    got = escape_threat(board)
    names = None if got is None else (
        got.kind, board.name(got.king), tuple(board.name(s) for s in got.squares))
    assert names == want


def test_no_threat_once_the_game_is_over() -> None:
    board = Board(get_variant("brandubh"), "/7/7/t6/K6/7/7/3t3/", "defenders")
    move = next(m for m in board.legal_moves() if board.name(m.to) == "a7")
    board.push(move)
    assert board.outcome() is not None and escape_threat(board) is None


def test_raichi_is_a_config_switch() -> None:
    from companion.config import ConfigError, parse_config

    assert parse_config({}).raichi is True
    assert parse_config({"raichi": False}).raichi is False
    with pytest.raises(ConfigError, match="raichi must be true or false"):
        parse_config({"raichi": "no"})


@pytest.mark.parametrize("on", [True, False])
def test_raichi_leds_on_the_escape_squares(tmp_path: Path, on: bool) -> None:
    """The king reaches d1 with a free line to a1: the LEDs light a1 in the raichi role
    (unless the config turns it off); the page state carries the threat either way."""
    from dataclasses import replace

    from test_daemon_support import control, state, test_config, wait_for

    from companion.daemon import Daemon
    from companion.tracker import Tracker

    cfg = replace(test_config(tmp_path, variant="brandubh"), raichi=on)
    d = Daemon(cfg, tracker_factory=Tracker)
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        wait_for(lambda: state(base)["tracking"] == "ready", what="ready")
        for n, m in enumerate(["d1-e1", "d3-e3", "d2-e2", "d4-d1"], 1):
            for sq in m.split("-"):
                assert control(base, "api/click", {"square": sq})[0] == 200
            wait_for(lambda n=n: len(state(base)["moves"]) == n, what=f"move {m}")
        s = wait_for(lambda: (s := state(base))["threat"] and s, what="the threat")
        assert s["threat"] == {"kind": "raichi", "king": "d1", "squares": ["a1"]}
        wait_for(lambda: (state(base)["leds"].get("a1") == "raichi") == on, what="the LED")
    finally:
        d.stop()
