"""The credentials half of issue 12 (items 5 and 6) as units: the PIN guard's per-address and
network-wide budgets (on a fake clock), no eviction that unlocks an address, owner session
tokens, the generated owner code kept on disk, and what gets printed or logged at start."""

from __future__ import annotations

import io
import logging
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from werkzeug.exceptions import Forbidden, TooManyRequests

from companion.web import auth
from companion.web.auth import Credentials, OwnerTokens, PinGuard


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def status(guard: PinGuard, addr: str, pin: str) -> int:
    try:
        guard.check(addr, pin)
    except TooManyRequests:
        return 429
    except Forbidden:
        return 403
    return 200


def test_five_wrong_pins_lock_an_address_and_the_lock_doubles() -> None:
    clock = Clock()
    guard = PinGuard("2468135790", clock=clock)
    assert [status(guard, "10.0.0.5", f"{i:010d}") for i in range(6)] == [403] * 5 + [429]
    assert status(guard, "10.0.0.5", "2468135790") == 429  # even the right PIN waits
    assert status(guard, "10.0.0.6", "2468135790") == 200  # another device is not locked
    clock.t += 31
    assert status(guard, "10.0.0.5", "0") == 403  # the 6th wrong PIN: locked for 60 s now
    clock.t += 59
    assert status(guard, "10.0.0.5", "2468135790") == 429
    clock.t += 2
    assert status(guard, "10.0.0.5", "2468135790") == 200


def test_rotating_addresses_run_into_the_network_budget() -> None:
    clock = Clock()
    guard = PinGuard("2468135790", clock=clock)
    codes = [status(guard, f"10.0.{i // 250}.{i % 250}", f"{i:010d}") for i in range(40)]
    assert codes[:auth.BUDGET] == [403] * auth.BUDGET
    assert codes[auth.BUDGET:] == [429] * (40 - auth.BUDGET)  # fresh addresses, paused
    assert status(guard, "10.9.9.9", "2468135790") == 429  # PIN entry is paused for all
    clock.t += auth.REFILL_S
    assert status(guard, "10.9.9.9", "2468135790") == 200
    assert status(guard, "10.9.9.8", "1") == 403
    assert status(guard, "10.9.9.7", "1") == 429
    assert guard.wrong == auth.BUDGET + 1


def test_rotating_ipv6_addresses_in_one_64_count_as_one_device() -> None:
    guard = PinGuard("2468135790", clock=Clock())
    codes = [status(guard, f"fd00:1:2:3::{i:x}", "1") for i in range(7)]
    assert codes == [403] * 5 + [429] * 2


def test_a_full_table_never_forgets_a_locked_address() -> None:
    clock = Clock()
    guard = PinGuard("2468135790", clock=clock, table=10, budget=10**6)
    for _ in range(5):
        status(guard, "10.0.0.1", "1")
    assert status(guard, "10.0.0.1", "1") == 429
    for i in range(2, 200):  # many other addresses, one wrong PIN each
        status(guard, f"10.0.{i // 250}.{i % 250}", "1")
    assert status(guard, "10.0.0.1", "2468135790") == 429  # still locked
    # the addresses that found no room share one entry, and it locks like one address
    assert status(guard, "10.7.7.7", "1") == 429
    clock.t += 2 * auth.FORGET_S  # long quiet entries make room again
    assert status(guard, "10.7.7.7", "1") == 403


def test_a_generated_code_may_be_typed_in_groups() -> None:
    guard = PinGuard("1234567890", clock=Clock())
    for given in ("12345 67890", "12345-67890", " 1234567890 "):
        assert status(guard, "10.0.0.1", given) == 200
    assert status(PinGuard("ab-cd", clock=Clock()), "10.0.0.1", "abcd") == 403


def test_owner_tokens_are_signed_expire_and_end_with_a_new_pin() -> None:
    clock = Clock()
    secret = b"s" * 32
    tokens = OwnerTokens("2468135790", secret, ttl=100, clock=clock)
    token, expires = tokens.issue()
    assert tokens.valid(token) and expires == clock.t + 100
    assert "2468135790" not in token
    head, mac = token.rsplit(".", 1)
    # one character of the MAC changed: its first (every bit of it is the MAC's; the last one's
    # low bits are base64 padding, so changing B to A there can leave the same bytes)
    assert not tokens.valid(f"{head}.{'A' if mac[0] != 'A' else 'B'}{mac[1:]}")
    issued = head.split(".")[1]
    assert not tokens.valid(token.replace(f".{issued}.", f".{int(issued) + 50}."))
    assert not OwnerTokens("1357924680", secret, clock=clock).valid(token)
    assert not OwnerTokens("2468135790", b"t" * 32, clock=clock).valid(token)
    for junk in ("", "o1", "o1.x.y.z", "x" * 500, "o1.1.2.3.4"):
        assert not tokens.valid(junk)
    clock.t += 101
    assert not tokens.valid(token)


def test_the_owner_code_is_ten_digits_kept_private_across_restarts(tmp_path: Path) -> None:
    code, path = auth.owner_code(tmp_path / "data")
    assert len(code) == 10 and code.isdigit() and path == tmp_path / "data" / "owner-code"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert auth.owner_code(tmp_path / "data") == (code, path)
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    other, where = auth.owner_code(blocked)
    assert where is None and len(other) == 10
    secret = auth.token_secret(tmp_path / "data")
    assert len(secret) == 32 and auth.token_secret(tmp_path / "data") == secret
    assert stat.S_IMODE((tmp_path / "data" / "web-secret").stat().st_mode) == 0o600


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_code_goes_to_a_terminal_only_never_to_a_log(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO)
    code, path = auth.owner_code(tmp_path)
    tty = Terminal()
    auth.announce("http://localhost:8080/", code, path, generated=True, out=tty, journal=False)
    assert f"http://localhost:8080/#pin={code}" in tty.getvalue()
    assert code not in caplog.text
    for out, journal in ((io.StringIO(), False), (Terminal(), True)):  # a pipe; the journal
        caplog.clear()
        auth.announce("http://localhost:8080/", code, path, generated=True, out=out,
                      journal=journal)
        assert out.getvalue() == "" and code not in caplog.text
        assert str(path) in caplog.text and "10-digit" in caplog.text
        assert "type it under Controls on http://localhost:8080/" in caplog.text
        # sudo only for the service's file (issue 21, defect 8): started by hand, it is yours
        assert (f"`sudo cat {path}`" in caplog.text) == journal
        assert f"`cat {path}`" in caplog.text or journal


def test_a_short_configured_pin_is_warned_about_without_showing_it(caplog) -> None:
    caplog.set_level(logging.INFO)
    auth.announce("http://x/", "2468", None, generated=False, out=Terminal(), journal=False)
    assert "short" in caplog.text and "2468" not in caplog.text
    assert auth.guess_time_s("2468") > 7 * 86400  # a week or more even for 4 digits
    assert auth.guess_time_s("1234567890") > 1000 * 365 * 86400


def request(headers: dict[str, str], cookies: dict[str, str] | None = None,
            addr: str = "10.0.0.1") -> SimpleNamespace:
    return SimpleNamespace(headers=headers, cookies=cookies or {}, remote_addr=addr)


def test_credentials_resolve_owner_player_and_spectator() -> None:
    links = {"tok-att": "player:attackers"}
    creds: Credentials[str] = Credentials("2468135790", b"k" * 32, owner="owner",
                                          spectator="spectator",
                                          player_for_token=links.get)
    assert creds.resolve_actor(request({})) == "spectator"
    assert creds.resolve_actor(request({"X-Tafl-Pin": "2468135790"})) == "owner"
    with pytest.raises(Forbidden):
        creds.resolve_actor(request({"X-Tafl-Pin": "0000000000"}))
    session = creds.session_for(request({"X-Tafl-Pin": "2468135790"}))
    assert creds.resolve_actor(request({"X-Tafl-Token": session["token"]})) == "owner"
    assert creds.session_for(request({"X-Tafl-Token": session["token"]})) == {}
    with pytest.raises(Forbidden, match="enter the PIN again"):
        creds.resolve_actor(request({"X-Tafl-Token": "o1.1.2.3"}))
    assert creds.resolve_actor(request({"X-Tafl-Player": "tok-att"})) == "player:attackers"
    assert creds.resolve_actor(request({}, {"tafl_player": "tok-att"})) == "player:attackers"
    with pytest.raises(Forbidden, match="player link"):
        creds.resolve_actor(request({"X-Tafl-Player": "tok-old"}))


# -- the daemon at start: where the code goes ----------------------------------------------------


def test_a_daemon_under_systemd_or_a_pipe_never_logs_the_code(tmp_path: Path) -> None:
    from test_daemon_support import spawn_daemon

    config = tmp_path / "c.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n')
    for env in ({}, {"JOURNAL_STREAM": "8:1234"}):
        proc, url = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "d")],
                                 env=env)
        out = proc.stop()
        code = (tmp_path / "d" / "owner-code").read_text().strip()
        assert len(code) == 10 and code.isdigit()
        assert code not in out and "#pin=" not in out
        assert f"kept in {tmp_path / 'd' / 'owner-code'}" in out
    # the same code after the restarts, and it unlocks the controls
    proc, url = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "d")])
    try:
        from test_daemon_support import control

        assert control(url, "api/auth", {}, pin=code)[0] == 200
        assert control(url, "api/auth", {}, pin=f"{code[:5]} {code[5:]}")[0] == 200
    finally:
        proc.stop()


def test_a_daemon_on_a_terminal_prints_the_unlock_link_there(tmp_path: Path) -> None:
    import os
    import pty
    import re
    import select
    import subprocess
    import sys
    import time

    from test_daemon_support import PATIENCE

    config = tmp_path / "c.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n')
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config", str(config),
                             "--data-dir", str(tmp_path / "d")], stdin=subprocess.DEVNULL,
                            stdout=follower, stderr=follower, env=env)
    os.close(follower)
    out = b""
    try:
        end = time.monotonic() + PATIENCE
        while b"to unlock the controls" not in out and time.monotonic() < end:
            try:
                out += os.read(leader, 65536)
            except OSError:
                break
    finally:
        proc.terminate()
        # keep draining the terminal: a daemon blocked writing to a full pty never exits
        end = time.monotonic() + PATIENCE
        while proc.poll() is None and time.monotonic() < end:
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                try:
                    out += os.read(leader, 65536)
                except OSError:
                    break
        proc.wait(PATIENCE)
        os.close(leader)
    code = (tmp_path / "d" / "owner-code").read_text().strip()
    text = out.decode(errors="replace")
    assert re.search(rf"http://\S+/#pin={code} to unlock the controls", text), text[-2000:]
    assert f"{code[:5]} {code[5:]}" in text
