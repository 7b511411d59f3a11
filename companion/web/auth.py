"""Who may do what on the web: the Host check against DNS rebinding.

:class:`HostCheck` accepts a request only when its ``Host`` header names this daemon: ``localhost``,
the machine's host name and its mDNS name (``NAME.local``), any address of the machine's own
network interfaces (re-read when an unknown address shows up, so a new DHCP lease works), the
address it is bound to, and the names the config adds (``[web] allowed_hosts``; ``*.example.org``
allows the sub-domains). A DNS-rebinding page carries its own domain name in ``Host`` and is
refused before it can read the state or try a PIN.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

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
