"""The club's settings: the broker's address and credentials, the club's and this board's names.

Config (``[club]``, docs/club.md)::

    [club]
    broker = "mqtt://broker.local:1883"    # mqtts://host:8883 for TLS; ?protocol=3.1.1 or 5
    name = "oslo"                          # the club
    board = "table-3"                      # this board's name in the club
    broker_user = "table-3"                # optional: the broker account of this board
    broker_password = "..."                # optional (kept out of every log and the page)
    ca_file = "/etc/ssl/club-ca.pem"       # optional: the CA of a private broker (mqtts)
    accept = ["table-2"]                   # optional: boards whose game proposals are
                                           # accepted without asking the owner

Names of clubs and boards are 1-32 characters of ``a-z``, ``0-9``, ``-`` and ``_`` (they are
MQTT topic levels: no ``/``, ``+`` or ``#``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

CLUB_KEYS = ("broker", "name", "board", "broker_user", "broker_password", "ca_file", "accept")
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

    @classmethod
    def parse(cls, url: object, where: str = "broker", *, user: str | None = None,
              password: str | None = None, ca_file: str | None = None) -> Broker:
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
                   protocol, ca_file)

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


def parse_club(table: Mapping[str, Any], where: str = "[club] ") -> ClubConfig:
    """A checked ClubConfig from the config's ``[club]`` table."""
    for key in table:
        if key not in CLUB_KEYS:
            raise ClubConfigError(f"{where}unknown key {key!r} (known: {', '.join(CLUB_KEYS)})")
    for key in ("broker", "name", "board"):
        if key not in table:
            raise ClubConfigError(f"{where}{key} is required (broker, name and board)")
    creds: dict[str, str] = {}
    for key in ("broker_user", "broker_password", "ca_file"):
        if key in table:
            value = table[key]
            if not isinstance(value, str) or not value or "\n" in value:
                raise ClubConfigError(f"{where}{key} must be a non-empty string")
            creds[key] = value
    broker = Broker.parse(table["broker"], f"{where}broker", user=creds.get("broker_user"),
                          password=creds.get("broker_password"), ca_file=creds.get("ca_file"))
    accept = table.get("accept", [])
    if not isinstance(accept, list):
        raise ClubConfigError(f"{where}accept must be a list of board names")
    return ClubConfig(broker, check_name(table["name"], f"{where}name"),
                      check_name(table["board"], f"{where}board"),
                      tuple(check_name(b, f"{where}accept") for b in accept))
