"""The online configuration (``[online]``) and the account kept in the data directory.

The password is stored in ``online-account.json`` in the data directory, created with mode
0600 (readable by the daemon's user only), written atomically; it is never logged and never
sent to the page (the page sees the user name only).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .connection import split_address
from .protocol import VERSION_ID, check_account

log = logging.getLogger("companion.online")

ACCOUNT_FILE = "online-account.json"
DEFAULT_SERVER = "hnefatafl.org:49152"
ONLINE_KEYS = ("server", "version", "user", "password")


@dataclass(frozen=True)
class OnlineConfig:
    """``[online]``: the server (host:port), the protocol's version id, and optionally an
    account (the page's login overrides it and keeps it in the data directory)."""

    server: str = DEFAULT_SERVER
    version: str = VERSION_ID
    user: str | None = None
    password: str | None = None

    def __repr__(self) -> str:  # never show the password
        return f"OnlineConfig(server={self.server!r}, version={self.version!r}, user={self.user!r})"


def parse_online(table: Mapping[str, object], where: str = "[online] ") -> OnlineConfig:
    """``[online]`` from the config file; ValueError naming the bad key."""
    for key in table:
        if key not in ONLINE_KEYS:
            raise ValueError(f"{where}{key}: unknown key; known: {', '.join(ONLINE_KEYS)}")
    server = table.get("server", DEFAULT_SERVER)
    if not isinstance(server, str):
        raise ValueError(f"{where}server must be text like hnefatafl.org:49152")
    try:
        split_address(server)
    except ValueError as exc:
        raise ValueError(f"{where}{exc}") from None
    version = table.get("version", VERSION_ID)
    if not isinstance(version, str) or not version.isalnum() or len(version) > 32:
        raise ValueError(f"{where}version must be the protocol's version id, e.g. {VERSION_ID}")
    user, password = table.get("user"), table.get("password", "")
    if user is not None:
        try:
            check_account(user, password)
        except ValueError as exc:
            raise ValueError(f"{where}{exc}") from None
        return OnlineConfig(server, version, str(user), str(password))
    return OnlineConfig(server, version)


@dataclass(frozen=True)
class Account:
    user: str
    password: str

    def __repr__(self) -> str:
        return f"Account(user={self.user!r})"


class AccountFile:
    """The account in ``DATA_DIR/online-account.json`` (mode 0600)."""

    def __init__(self, data_dir: Path | None) -> None:
        self.path = Path(data_dir) / ACCOUNT_FILE if data_dir is not None else None

    def load(self) -> Account | None:
        if self.path is None or not self.path.exists():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return Account(*check_account(data.get("user"), data.get("password", "")))
        except (OSError, ValueError, AttributeError) as exc:
            log.warning("online: ignoring %s: %s", self.path, type(exc).__name__)
            return None

    def save(self, account: Account) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, json.dumps({"user": account.user,
                                     "password": account.password}).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)

    def forget(self) -> None:
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
