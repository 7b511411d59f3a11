"""Who may do what on the web: credentials, the PIN guard, and the Host check.

:class:`Credentials` resolves a request's actor (:meth:`Credentials.resolve_actor`): the owner
when it carries the PIN (``X-Tafl-Pin``, what scripts send) or an owner session token
(``X-Tafl-Token``, what the page keeps instead of the PIN); a player when it carries a valid
player-link token (``X-Tafl-Player`` or the ``tafl_player`` cookie, checked by the session's
``actor_for_player_token``); a spectator otherwise.

:class:`PinGuard` makes guessing the PIN from the network infeasible: five wrong PINs lock an
address (an IPv6 /64) for 30 s, doubling to 15 minutes; besides, all addresses together have a
budget of ``BUDGET`` wrong PINs, refilled by one every ``REFILL_S`` seconds, after which PIN
entry pauses for everyone (devices already holding a session token keep working). The table of
addresses never drops a locked address to make room: when it is full, new addresses share one
entry. The default code (:func:`owner_code`) has 10 random digits.

:class:`HostCheck` accepts a request only when its ``Host`` header names this daemon: ``localhost``,
the machine's host name and its mDNS name (``NAME.local``), any address of the machine's own
network interfaces (re-read when an unknown address shows up, so a new DHCP lease works), the
address it is bound to, and the names the config adds (``[web] allowed_hosts``; ``*.example.org``
allows the sub-domains). A DNS-rebinding page carries its own domain name in ``Host`` and is
refused before it can read the state or try a PIN.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import logging
import os
import re
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TextIO, TypedDict, TypeVar

from itsdangerous import BadSignature, Signer
from werkzeug.exceptions import Forbidden, TooManyRequests

from companion.token_bucket import TokenBucket

log = logging.getLogger("companion.web")

PIN_HEADER = "X-Tafl-Pin"
TOKEN_HEADER = "X-Tafl-Token"
PLAYER_HEADER = "X-Tafl-Player"
PLAYER_COOKIE = "tafl_player"

CODE_DIGITS = 10  # the generated owner code
CODE_FILE = "owner-code"
SECRET_FILE = "web-secret"
LOCK_AFTER = 5  # wrong PINs in a row from one address before it waits
LOCK_S = 30.0  # the first wait, doubled by every further wrong PIN ...
LOCK_MAX_S = 900.0  # ... up to this
BUDGET = 20  # wrong PINs from all addresses together before PIN entry pauses
REFILL_S = 180.0  # one more wrong PIN allowed every this many seconds (20 an hour)
TABLE = 4096  # addresses remembered; beyond, new addresses share one entry
FORGET_S = 3600.0  # an address's wrong PINs are forgotten this long after its last one
TOKEN_TTL_S = 30 * 86400.0

A = TypeVar("A")
ErrorFactory = Callable[[int, str, str], Exception]


def http_error(status: int, message: str, code: str) -> Exception:
    """The default error: a werkzeug exception (answered as JSON by the app's handler)."""
    if status == 429:
        return TooManyRequests(message)
    return Forbidden(message)


def address_key(addr: str) -> str:
    """What per-address limits count by: the IPv4 address, or the /64 of an IPv6 one (a device
    picks any address in its /64 at will)."""
    try:
        ip = ipaddress.ip_address(addr.split("%")[0])
    except ValueError:
        return addr
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


# -- the owner code and the token key on disk ----------------------------------------------------


def _private_file(path: Path, make: Callable[[], str]) -> str:
    """The text of ``path``, created (mode 0600, atomically) with ``make()`` if missing."""
    try:
        text = path.read_text().strip()
        if text:
            return text
    except FileNotFoundError:
        pass
    text = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (text + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return text


def new_code() -> str:
    return f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"


def owner_code(data_dir: Path) -> tuple[str, Path | None]:
    """The generated owner code, kept in ``data_dir/owner-code`` (mode 0600) so that it stays
    the same across restarts; ``(code, path)``, or ``(fresh code, None)`` if the data dir
    cannot hold it (then it lasts until the daemon stops)."""
    path = Path(data_dir) / CODE_FILE
    try:
        code = _private_file(path, new_code)
    except OSError as exc:
        log.warning("cannot keep the owner code in %s (%s): a new one is made for this run",
                    path, exc.strerror or exc)
        return new_code(), None
    if not re.fullmatch(r"[0-9]{6,32}", code):
        log.warning("%s does not hold a code of digits: a new one is made for this run", path)
        return new_code(), None
    return code, path


def token_secret(data_dir: Path) -> bytes:
    """The key that signs owner session tokens, kept in ``data_dir/web-secret`` (mode 0600;
    deleting it signs every device out); a fresh one for this run if it cannot be kept."""
    try:
        text = _private_file(Path(data_dir) / SECRET_FILE, lambda: secrets.token_hex(32))
        return bytes.fromhex(text)
    except (OSError, ValueError) as exc:
        log.warning("cannot keep the session key in %s (%s): devices must enter the PIN again "
                    "after a restart", data_dir, exc)
        return secrets.token_bytes(32)


def guess_time_s(pin: str) -> float:
    """Expected seconds for a network attacker to guess ``pin`` within the failure budget."""
    alphabet = 10 if pin.isdigit() else 36 if pin.isalnum() and pin.lower() == pin else 62
    tries = float(alphabet ** len(pin)) / 2
    return max(0.0, tries - BUDGET) * REFILL_S


def announce(url: str, code: str, path: Path | None, *, generated: bool,
             out: TextIO | None = None, journal: bool | None = None) -> None:
    """Tell the owner how to unlock the controls, never writing the code to a log: the link
    with the code goes to an interactive terminal only; a log (the systemd journal, a pipe)
    gets where the code is kept."""
    out = out if out is not None else sys.stdout
    if journal is None:
        journal = bool(os.environ.get("JOURNAL_STREAM"))
    if not generated:
        years = guess_time_s(code) / (365 * 86400)
        if years < 1:
            log.warning("the configured PIN is short: from the network it can be guessed in "
                        "about %.0f days despite the failure budget; use 10 or more digits",
                        guess_time_s(code) / 86400)
        return
    if not journal and out.isatty():
        grouped = " ".join(code[i:i + 5] for i in range(0, len(code), 5))
        print(f"Controls code: {grouped}\nOpen {url}#pin={code} to unlock the controls "
              "(this line is shown on this terminal only, never logged).", file=out, flush=True)
        return
    if path is None:
        log.info("controls: unlocked by a generated %d-digit code, kept only in memory (the data "
                 "directory cannot hold it): set pin in the config file", len(code))
        return
    # under systemd the file belongs to the service's user; started by hand, to whoever did it
    read = f"sudo cat {path}" if journal else f"cat {path}"
    log.info("controls: unlocked by a %d-digit code made once and kept in %s (never logged; "
             "read it with `%s` and type it under Controls on %s); or set pin in the config "
             "file", len(code), path, read, url)


# -- wrong PINs ----------------------------------------------------------------------------------


@dataclass
class _Fails:
    fails: int = 0
    until: float = 0.0
    last: float = 0.0


class PinGuard:
    """Checks PINs; wrong ones are limited per address and for the whole network (see the
    module docstring). Raises ``error(status, message, code)`` exceptions: 403 for a missing or
    wrong PIN, 429 while locked."""

    def __init__(self, pin: str, *, budget: int = BUDGET, refill_s: float = REFILL_S,
                 table: int = TABLE, clock: Callable[[], float] = time.monotonic,
                 error: ErrorFactory = http_error) -> None:
        self.pin = pin.encode()
        self.digits_only = pin.isdigit()
        self.budget = budget
        self.refill_s = refill_s
        self.table = table
        self.clock = clock
        self.error = error
        self._lock = threading.Lock()
        self._fails: dict[str, _Fails] = {}
        self._overflow = _Fails()
        self._tokens = TokenBucket.full(float(budget), 1.0 / refill_s, clock())
        self._warned_at = -1e18
        self.wrong = 0  # wrong PINs so far (for tests and the bench)

    def _entry(self, key: str, now: float) -> _Fails:
        entry = self._fails.get(key)
        if entry is not None:
            return entry
        if len(self._fails) >= self.table:  # forget only addresses that are long quiet
            for k in [k for k, e in self._fails.items()
                      if now - max(e.last, e.until) > FORGET_S]:
                del self._fails[k]
        if len(self._fails) >= self.table:
            return self._overflow  # never evict a locked address: share one entry instead
        entry = self._fails[key] = _Fails()
        return entry

    def check(self, addr: str, given: str | None) -> None:
        """Return if ``given`` is the PIN; raise otherwise."""
        now = self.clock()
        key = address_key(addr)
        with self._lock:
            entry = self._fails.get(key, self._overflow if len(self._fails) >= self.table
                                    else None)
            if entry is not None and now < entry.until:
                raise self.error(429, f"too many wrong PINs from this device: wait "
                                      f"{int(entry.until - now) + 1} s", "pin_locked")
            if self._tokens.refill(now) < 1:
                wait = int(self._tokens.wait(1.0)) + 1
                raise self.error(429, f"too many wrong PINs on the network: PIN entry is paused "
                                      f"for {wait} s (unlocked devices keep working)",
                                 "pin_paused")
        if not given:
            raise self.error(403, "the controls need the PIN (it is in the config, or kept by "
                                  "the daemon: see docs/security.md)", "pin_required")
        text = given.strip()
        if self.digits_only:  # a code may be typed in groups: "12345 67890", "12345-67890"
            text = re.sub(r"[\s-]", "", text)
        if hmac.compare_digest(text.encode(), self.pin):
            with self._lock:
                self._fails.pop(key, None)
            return
        with self._lock:
            entry = self._entry(key, now)
            entry.fails += 1
            entry.last = now
            if entry.fails >= LOCK_AFTER:
                entry.until = now + min(LOCK_S * 2 ** (entry.fails - LOCK_AFTER), LOCK_MAX_S)
            self._tokens.take(1.0)
            self.wrong += 1
            paused = self._tokens.tokens < 1
            if paused and now - self._warned_at > 600:
                self._warned_at = now
                log.warning("many wrong PINs from the network: PIN entry pauses (a wrong PIN "
                            "is allowed every %g s); devices already unlocked keep working",
                            self.refill_s)
        raise self.error(403, "wrong PIN", "bad_pin")


# -- owner session tokens ------------------------------------------------------------------------


class OwnerTokens:
    """Owner session tokens: ``o1.ISSUED.NONCE.SIGNATURE``, signed by ``itsdangerous`` (HMAC
    SHA-256, as Flask's sessions are) with a key made from the token secret and the PIN (so a
    new PIN signs every device out), valid for ``ttl`` seconds from ISSUED (Unix time; up to
    five minutes ahead of this clock are allowed for a clock set meanwhile)."""

    def __init__(self, pin: str, secret: bytes, ttl: float = TOKEN_TTL_S,
                 clock: Callable[[], float] = time.time) -> None:
        self.signer = Signer(secret + b"\0" + pin.encode(), salt="owner-token",
                             digest_method=hashlib.sha256)
        self.ttl = ttl
        self.clock = clock

    def issue(self) -> tuple[str, float]:
        """A new token and when it expires (Unix time)."""
        issued = int(self.clock())
        body = f"o1.{issued}.{secrets.token_urlsafe(12)}"
        return self.signer.sign(body).decode(), issued + self.ttl

    def valid(self, token: str) -> bool:
        if len(token) > 200:
            return False
        try:
            body = self.signer.unsign(token).decode()
        except BadSignature:
            return False
        parts = body.split(".")
        if len(parts) != 3 or parts[0] != "o1" or not parts[1].isdigit():
            return False
        issued = int(parts[1])
        return issued - 300 <= self.clock() <= issued + self.ttl


# -- resolving the actor -------------------------------------------------------------------------


class Credentials(Generic[A]):
    """Turns a request's credentials into an actor of the session's type ``A``."""

    def __init__(self, pin: str, secret: bytes, *, owner: A, spectator: A,
                 player_for_token: Callable[[str], A | None] | None = None,
                 error: ErrorFactory = http_error, guard: PinGuard | None = None) -> None:
        self.owner = owner
        self.spectator = spectator
        self.player_for_token = player_for_token
        self.error = error
        self.guard = guard or PinGuard(pin, error=error)
        self.tokens = OwnerTokens(pin, secret)

    def resolve_actor(self, request: Any) -> A:
        """Owner (PIN or owner token), player (player-link token) or spectator; a wrong PIN,
        a stale token or link raises (403/429) rather than falling back to spectator."""
        headers = request.headers
        pin = headers.get(PIN_HEADER)
        if pin is not None:
            self.guard.check(request.remote_addr or "?", pin)
            return self.owner
        token = headers.get(TOKEN_HEADER)
        if token:
            if self.tokens.valid(token):
                return self.owner
            raise self.error(403, "this device's owner session has expired or was ended (a "
                                  "new PIN): enter the PIN again", "session_expired")
        link = headers.get(PLAYER_HEADER) or request.cookies.get(PLAYER_COOKIE)
        if link and self.player_for_token is not None:
            actor = self.player_for_token(link)
            if actor is None:
                raise self.error(403, "this player link has ended: its player does not play "
                                      "the current game (the owner has new links)", "bad_link")
            return actor
        return self.spectator

    def session_for(self, request: Any) -> OwnerToken:
        """For ``POST /api/auth``: a new owner token when the request proved the PIN
        (``{"token": ..., "expires": unix time}``), else nothing."""
        if request.headers.get(PIN_HEADER) is None:
            return {}  # (no token: nothing is added to the answer)
        token, expires = self.tokens.issue()
        return {"token": token, "expires": int(expires)}

class OwnerToken(TypedDict, total=False):
    """A new owner token and when it expires (unix time); empty without the PIN."""

    token: str
    expires: int


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def local_networks() -> set[Network]:
    """The addresses of this machine's interfaces (as networks: loopback is 127.0.0.0/8)."""
    nets: set[Network] = {ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")}
    try:  # Linux: every local IPv4 address, secondary ones included
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
    except OSError:
        lines = []
    last = ""
    for line in lines:
        text = line.strip()
        if text.startswith("|-- "):
            last = text[4:]
        elif text.endswith("host LOCAL") and last:
            with contextlib.suppress(ValueError):
                nets.add(ipaddress.ip_network(f"{last}{text.split()[0]}", strict=False))
    try:  # Linux: IPv6 addresses
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            hexa = line.split()[0]
            nets.add(ipaddress.ip_network(
                ":".join(hexa[i:i + 4] for i in range(0, 32, 4)) + "/128", strict=False))
    except (OSError, ValueError, IndexError):
        pass
    try:  # elsewhere (and as a fallback): what the resolver knows about our own name
        for info in socket.getaddrinfo(socket.gethostname(), None):
            nets.add(ipaddress.ip_network(str(info[4][0]).split("%")[0]))
    except (OSError, ValueError):
        pass
    return nets


def split_host(header: str) -> str:
    """The host part of a ``Host`` header value, lower-case, without port or trailing dot;
    IPv6 literals without brackets. Empty if it is malformed."""
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1:] and not value[end + 1:].startswith(":")):
            return ""
        return value[1:end]
    if value.count(":") == 1:
        value, port = value.split(":")
        if not port.isdigit() or not port.isascii():
            return ""
    elif ":" in value:
        return ""
    return value.rstrip(".")


class HostCheck:
    """Is a ``Host`` header one of this daemon's own names or addresses?"""

    def __init__(self, extra: Iterable[str] = (), bind: str | None = None,
                 hostname: str | None = None,
                 networks: Callable[[], set[Network]] = local_networks,
                 refresh_s: float = 5.0) -> None:
        name = (hostname if hostname is not None else socket.gethostname()).lower().rstrip(".")
        self.names = {"localhost"}
        if name:
            self.names |= {name, name.split(".")[0], name.split(".")[0] + ".local"}
        self.suffixes: set[str] = set()
        for raw in extra:
            host = raw.strip().lower().rstrip(".")
            if host.startswith("*."):
                self.suffixes.add(host[1:])
            elif host:
                self.names.add(split_host(host) or host)
        self._networks = networks
        self._refresh_s = refresh_s
        self._lock = threading.Lock()
        self._fixed: set[Network] = set()
        if bind and bind not in ("0.0.0.0", "::", ""):
            try:
                self._fixed.add(ipaddress.ip_network(bind))
            except ValueError:
                self.names.add(bind.lower())
        self._nets = self._fixed | networks()
        self._read_at = time.monotonic()

    def allows(self, header: str | None) -> bool:
        """True if ``header`` (a Host value, maybe with a port) names this daemon."""
        if not header:
            return False
        host = split_host(header)
        if not host:
            return False
        if host in self.names or any(host.endswith(s) for s in self.suffixes):
            return True
        try:
            addr = ipaddress.ip_address(host)
        except ValueError:
            return False
        if self._has(addr):
            return True
        with self._lock:  # maybe a new address (DHCP): re-read, at most every refresh_s
            now = time.monotonic()
            if now - self._read_at < self._refresh_s:
                return False
            self._read_at = now
            self._nets = self._fixed | self._networks()
        return self._has(addr)

    def _has(self, addr: Address) -> bool:
        return any(addr.version == net.version and addr in net for net in self._nets)
