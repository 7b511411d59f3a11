"""The club's settings and the broker's security: URLs, the [club] table, TLS with a private CA,
accounts and an ACL that lets a board write only its own topics (a real Mosquitto)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from club_broker import CLUB_KEY, MOSQUITTO, Mosquitto
from prerequisites import require

from companion.club.config import Broker, ClubConfigError, parse_club
from companion.club.link import ClubLink
from companion.club.publisher import changes
from companion.config import ConfigError, parse_config


def test_broker_urls() -> None:
    b = Broker.parse("mqtt://club.local")
    assert (b.host, b.port, b.tls, b.protocol) == ("club.local", 1883, False, "5")
    b = Broker.parse("mqtts://u%40x:p%3Aw@club.example.org?protocol=3.1.1")
    assert (b.port, b.tls, b.user, b.password, b.protocol) == (8883, True, "u@x", "p:w",
                                                                "3.1.1")
    assert "p:w" not in repr(b) and b.url == "mqtts://club.example.org:8883"
    assert Broker.parse("[::1]:1884").url == "mqtt://[::1]:1884"
    for bad, part in [("http://x", "scheme"), ("mqtt://", "no host"), ("mqtt://x/y", "path"),
                      ("mqtt://x?protocol=4", "protocol"), ("mqtt://x?qos=2", "unknown"),
                      ("mqtt://x:99999", "Port"), ("", "URL")]:
        with pytest.raises(ClubConfigError, match=part):
            Broker.parse(bad)


def test_the_club_table() -> None:
    cfg = parse_config({"club": {"broker": "mqtt://b:1883", "name": "oslo", "board": "table-3",
                                 "broker_user": "table-3", "broker_password": "s3cret",
                                 "accept": ["table-2"]}})
    assert cfg.club.club == "oslo" and cfg.club.board == "table-3"
    assert cfg.club.broker.password == "s3cret" and cfg.club.accept == ("table-2",)
    for table, part in [({"name": "oslo", "board": "t"}, "broker is required"),
                        ({"broker": "mqtt://b", "name": "Oslo!", "board": "t"}, "name must"),
                        ({"broker": "mqtt://b", "name": "o", "board": "a/b"}, "board must"),
                        ({"broker": "mqtt://b", "name": "o", "board": "t", "port": 1},
                         "unknown key"),
                        ({"broker": "mqtt://b", "name": "o", "board": "t", "accept": "x"},
                         "accept must")]:
        with pytest.raises(ConfigError, match=part):
            parse_config({"club": table})
    with pytest.raises(ClubConfigError):
        parse_club({"broker": "mqtt://b", "name": "o", "board": "#"})


def test_changes_turn_snapshots_into_ordered_messages() -> None:
    state = {"game": 4, "first": "attackers", "moves": ["a", "b"], "result": "ongoing"}
    out, rec = changes({}, state)
    assert [m["kind"] for m in out] == ["start", "move", "move"]
    assert [m.get("side") for m in out[1:]] == ["attackers", "defenders"]
    # nothing new: nothing; a takeback and a new move coalesced: the takeback, then the move
    assert changes(rec, state)[0] == []
    out, rec = changes(rec, {**state, "moves": ["a", "c"]})
    assert [(m["kind"], m.get("ply")) for m in out] == [("takeback", 1), ("move", 1)]
    out, rec = changes(rec, {**state, "moves": ["a", "c", "d"], "result": "attackers",
                             "reason": "king_captured"})
    assert [m["kind"] for m in out] == ["move", "end"]
    assert changes(rec, {**state, "moves": ["a", "c", "d"], "result": "attackers"})[0] == []


def _tls_files(folder: Path) -> tuple[Path, Path, Path]:
    ca_key, ca, key, csr, crt = (folder / n for n in ("ca.key", "ca.pem", "srv.key",
                                                      "srv.csr", "srv.pem"))
    run = lambda *a: subprocess.run(["openssl", *a], check=True,  # noqa: E731
                                    capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out",
        str(ca), "-days", "2", "-subj", "/CN=tafl test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj",
        "/CN=localhost")
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-out", str(crt), "-days", "2", "-extfile", str(ext))
    return ca, crt, key


def test_tls_accounts_and_the_acl(tmp_path: Path) -> None:
    require(MOSQUITTO is not None and shutil.which("openssl") is not None
            and shutil.which("mosquitto_passwd") is not None,
            "mosquitto, mosquitto_passwd and openssl")
    ca, crt, key = _tls_files(tmp_path)
    passwd, acl = tmp_path / "passwd", tmp_path / "acl"
    passwd.write_text("table-1:pw1\ntable-2:pw2\n")
    subprocess.run(["mosquitto_passwd", "-U", str(passwd)], check=True)
    acl.write_text("pattern read tafl/oslo/#\npattern write tafl/oslo/%u/#\n")
    broker = Mosquitto(tmp_path / "b", extra=(
        f"password_file {passwd}\nacl_file {acl}\n"))
    # the same broker, TLS only: rewrite the listener
    conf = broker.conf.read_text().replace("allow_anonymous true", "allow_anonymous false")
    conf = conf.replace(f"listener {broker.port} 127.0.0.1",
                        f"listener {broker.port} 127.0.0.1\ncafile {ca}\ncertfile {crt}\n"
                        f"keyfile {key}")
    broker.stop()
    broker.conf.write_text(conf)
    broker.start()
    links: list[ClubLink] = []
    try:
        def link(user: str, pw: str, tls: bool = True) -> ClubLink:
            scheme = "mqtts" if tls else "mqtt"
            lk = ClubLink(Broker.parse(f"{scheme}://127.0.0.1:{broker.port}", user=user,
                                       password=pw, ca_file=str(ca)), f"c-{user}-{len(links)}",
                          key=CLUB_KEY.encode(), board=user, persistent=False)
            links.append(lk)
            lk.start()
            return lk

        reader = link("table-2", "pw2")
        got: list[tuple[str, bytes]] = []
        reader.subscribe("tafl/oslo/#", lambda t, p: got.append((t, p)))
        assert reader.connected.wait(10)
        writer = link("table-1", "pw1")
        assert writer.connected.wait(10)
        writer.publish("tafl/oslo/table-1/state", json.dumps({"x": 1}).encode())
        # (the link signs only its own board's topics: the forgery goes round it)
        writer._client.publish("tafl/oslo/table-2/state", json.dumps({"forged": 1}).encode())
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        assert [t for t, _ in got] == ["tafl/oslo/table-1/state"]  # the forgery was dropped
        wrong = link("table-1", "nope")
        time.sleep(1.5)
        assert not wrong.connected.is_set() and wrong.state == "error"
        plain = link("table-1", "pw1", tls=False)  # no TLS to a TLS listener: no connection
        time.sleep(1.5)
        assert not plain.connected.is_set()
    finally:
        for lk in links:
            lk.close()
        broker.stop()


def test_a_club_needs_a_key_and_a_broker_login_unless_it_says_so(tmp_path: Path) -> None:
    base = {"broker": "mqtt://b:1883", "name": "oslo", "board": "table-3"}
    with pytest.raises(ConfigError, match="without an account.*allow_anonymous_broker = true"):
        parse_config({"club": base})
    cfg = parse_club({**base, "allow_anonymous_broker": True})
    with pytest.raises(ClubConfigError, match="has no key.*club.key.*tafl-companion club-key"):
        cfg.club_key(tmp_path)
    (tmp_path / "club.key").write_text("k" * 64 + "\n")
    assert cfg.club_key(tmp_path) == b"k" * 64  # the key file in the data dir
    assert parse_club({**base, "broker_user": "t3", "key": "x" * 20}).club_key(tmp_path) == (
        b"x" * 20)
    with pytest.raises(ClubConfigError, match="at least 16"):
        parse_club({**base, "broker_user": "t3", "key": "short"})
    with pytest.raises(ClubConfigError, match="must be true or false"):
        parse_club({**base, "allow_anonymous_broker": "yes"})
    # a TLS client certificate is a login too
    parse_club({**base, "broker": "mqtts://b", "client_cert": "c.pem", "client_key": "c.key"})
    with pytest.raises(ClubConfigError, match="go together"):
        parse_club({**base, "broker": "mqtts://b", "client_cert": "c.pem"})
