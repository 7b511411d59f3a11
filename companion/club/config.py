"""The club's settings: the broker's address and credentials, the club's and this board's names.

Config (``[club]``, docs/club.md)::

    [club]
    broker = "mqtt://broker.local:1883"    # mqtts://host:8883 for TLS; ?protocol=3.1.1 or 5
    name = "oslo"                          # the club
    board = "table-3"                      # this board's name in the club
    broker_user = "table-3"                # optional: the broker account of this board
    broker_password = "..."                # optional (kept out of every log and the page)
    ca_file = "/etc/ssl/club-ca.pem"       # optional: the CA of a private broker (mqtts)
    client_cert = "/etc/tafl/table-3.pem"  # optional: TLS client certificate (mqtts) ...
    client_key = "/etc/tafl/table-3.key"   # ... and its private key
    accept = ["table-2"]                   # optional: boards whose game proposals are
                                           # accepted without asking the owner
    key = "..."                            # the club's key (else the file club.key in the
    key_file = "/etc/tafl/club.key"        # data dir, or key_file): every message is signed
    allow_anonymous_broker = true          # only for a broker without accounts (refused else)

Names of clubs and boards are 1-32 characters of ``a-z``, ``0-9``, ``-`` and ``_`` (they are
MQTT topic levels: no ``/``, ``+`` or ``#``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from companion.club import seal

CLUB_KEYS = ("broker", "name", "board", "broker_user", "broker_password", "ca_file",
             "client_cert", "client_key", "accept", "key", "key_file",
             "allow_anonymous_broker")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
PROTOCOLS = ("5", "3.1.1")


class ClubConfigError(ValueError):
    """A bad ``[club]`` value or broker URL; the message names the field."""


def check_name(value: object, where: str) -> str:
    """A club or board name (an MQTT topic level of our own alphabet)."""
    if not isinstance(value, str) or not _NAME.match(value):
        raise ClubConfigError(f"{where} must be 1-32 characters a-z, 0-9, - and _ (starting "
                              f"with a letter or digit), not {value!r}")
    return value


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in: ``mqtt://[user[:password]@]host[:port]``,
    ``mqtts://`` for TLS; ``?protocol=3.1.1`` forces MQTT 3.1.1 (default: MQTT 5)."""

    host: str
    port: int
    tls: bool = False
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    protocol: str = "5"
    ca_file: str | None = None
    client_cert: str | None = None
    client_key: str | None = None

    @classmethod
    def parse(cls, url: object, where: str = "broker", *, user: str | None = None,
              password: str | None = None, ca_file: str | None = None,
              client_cert: str | None = None, client_key: str | None = None) -> Broker:
        if not isinstance(url, str) or not url.strip():
            raise ClubConfigError(f"{where} must be a URL such as mqtt://host:1883")
        text = url.strip()
        if "://" not in text:
            text = "mqtt://" + text
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as exc:
            raise ClubConfigError(f"{where} {url!r}: {exc}") from None
        if parts.scheme not in ("mqtt", "mqtts"):
            raise ClubConfigError(f"{where} {url!r}: the scheme must be mqtt:// or mqtts://")
        if not parts.hostname:
            raise ClubConfigError(f"{where} {url!r}: no host")
        if parts.path not in ("", "/"):
            raise ClubConfigError(f"{where} {url!r}: a broker URL has no path")
        query = parse_qs(parts.query)
        unknown = sorted(set(query) - {"protocol"})
        if unknown:
            raise ClubConfigError(f"{where} {url!r}: unknown parameter {unknown[0]!r} "
                                  "(known: protocol)")
        protocol = query.get("protocol", ["5"])[-1]
        if protocol not in PROTOCOLS:
            raise ClubConfigError(f"{where} {url!r}: protocol must be 5 or 3.1.1")
        tls = parts.scheme == "mqtts"
        return cls(parts.hostname, port or (8883 if tls else 1883), tls,
                   user if user is not None else (unquote(parts.username)
                                                   if parts.username else None),
                   password if password is not None else (unquote(parts.password)
                                                          if parts.password else None),
                   protocol, ca_file, client_cert, client_key)

    @property
    def anonymous(self) -> bool:
        """No account and no TLS client certificate: anybody reaching it may publish."""
        return self.user is None and not (self.tls and self.client_cert)

    def check_login(self, allowed: bool, where: str) -> None:
        """ClubConfigError for an anonymous broker unless ``allowed`` says so in words."""
        if self.anonymous and not allowed:
            raise ClubConfigError(
                f"{where}: the broker {self.url} is used without an account (broker_user and "
                f"broker_password) or a TLS client certificate; give one, or say "
                f"allow_anonymous_broker = true for a broker open to all (docs/club.md)")

    @property
    def url(self) -> str:
        """The address without credentials (for logs and the page)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"


@dataclass(frozen=True)
class ClubConfig:
    """A board's membership of a club."""

    broker: Broker
    club: str
    board: str
    accept: tuple[str, ...] = ()
    key: str | None = field(default=None, repr=False)
    key_file: str | None = None
    allow_anonymous_broker: bool = False

    def club_key(self, data_dir: Path) -> bytes:
        """The club's key: ``key``, else ``key_file``, else ``club.key`` in the data dir
        (ClubConfigError naming what to do when there is none)."""
        try:
            if self.key is not None:
                return seal.key_bytes(self.key, "[club] key")
            path = Path(self.key_file) if self.key_file else Path(data_dir) / seal.KEY_FILE
            if not self.key_file and not path.exists():
                raise ClubConfigError(
                    f"[club] has no key: every board of club {self.club} and its room need "
                    f"the same club key: put it in {path} (or [club] key = \"...\"); make "
                    f"one with `tafl-companion club-key` (docs/club.md)")
            return seal.read_key_file(path)
        except ClubConfigError:
            raise
        except ValueError as exc:
            raise ClubConfigError(str(exc)) from None


def parse_club(table: Mapping[str, Any], where: str = "[club] ") -> ClubConfig:
    """A checked ClubConfig from the config's ``[club]`` table."""
    for key in table:
        if key not in CLUB_KEYS:
            raise ClubConfigError(f"{where}unknown key {key!r} (known: {', '.join(CLUB_KEYS)})")
    for key in ("broker", "name", "board"):
        if key not in table:
            raise ClubConfigError(f"{where}{key} is required (broker, name and board)")
    creds: dict[str, str] = {}
    for key in ("broker_user", "broker_password", "ca_file", "client_cert", "client_key",
                "key", "key_file"):
        if key in table:
            value = table[key]
            if not isinstance(value, str) or not value or "\n" in value:
                raise ClubConfigError(f"{where}{key} must be a non-empty string")
            creds[key] = value
    broker = Broker.parse(table["broker"], f"{where}broker", user=creds.get("broker_user"),
                          password=creds.get("broker_password"), ca_file=creds.get("ca_file"),
                          client_cert=creds.get("client_cert"),
                          client_key=creds.get("client_key"))
    if ("client_cert" in creds) != ("client_key" in creds):
        raise ClubConfigError(f"{where}client_cert and client_key go together")
    accept = table.get("accept", [])
    if not isinstance(accept, list):
        raise ClubConfigError(f"{where}accept must be a list of board names")
    anonymous = table.get("allow_anonymous_broker", False)
    if not isinstance(anonymous, bool):
        raise ClubConfigError(f"{where}allow_anonymous_broker must be true or false")
    club = ClubConfig(broker, check_name(table["name"], f"{where}name"),
                      check_name(table["board"], f"{where}board"),
                      tuple(check_name(b, f"{where}accept") for b in accept),
                      creds.get("key"), creds.get("key_file"), anonymous)
    broker.check_login(anonymous, f"{where.strip()} broker")
    if "key" in creds:
        try:
            seal.key_bytes(creds["key"], f"{where}key")
        except ValueError as exc:
            raise ClubConfigError(str(exc)) from None
    return club
