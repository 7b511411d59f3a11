"""Getting a phone onto the page: the addresses the daemon can be reached at, and QR codes.

QR codes are made with `segno <https://segno.readthedocs.io>`_ (pure Python, no image
libraries): in the terminal at start-up (half-block characters), and as SVG for the page's
owner view. Addresses: the machine's own IPv4 addresses on its network interfaces (read from
the kernel, no packet sent), and ``http://<hostname>.local`` where avahi (mDNS) runs, which is
how Raspberry Pi OS makes ``tafl.local`` work when the Pi's hostname is ``tafl``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import struct
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import segno

#: Where avahi-daemon leaves its socket while it runs.
AVAHI_SOCKET = "/run/avahi-daemon/socket"
#: Longest text the page may ask a QR code for (a URL with a token fits easily).
MAX_TEXT = 400


def interface_addresses() -> list[str]:
    """IPv4 addresses of the network interfaces (loopback excluded), best first: private LAN
    addresses, then the others. Linux reads them with ioctl; elsewhere from the hostname."""
    found: list[str] = []
    with contextlib.suppress(Exception):
        found = _ioctl_addresses()
    if not found:
        with contextlib.suppress(OSError):
            found = [str(info[4][0]) for info in socket.getaddrinfo(
                socket.gethostname(), None, socket.AF_INET)]
    out = []
    for text in dict.fromkeys(found):
        addr = ipaddress.IPv4Address(text)
        if addr.is_loopback or addr.is_unspecified or addr.is_link_local:
            continue
        out.append(addr)
    return [str(a) for a in sorted(out, key=lambda a: (not a.is_private, a))]


def _ioctl_addresses() -> list[str]:
    import fcntl

    siocgifaddr = 0x8915
    out = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            packed = struct.pack("256s", name.encode()[:15])
            with contextlib.suppress(OSError):
                answer = fcntl.ioctl(s.fileno(), siocgifaddr, packed)
                out.append(socket.inet_ntoa(answer[20:24]))
    return out


def mdns_name() -> str | None:
    """``<hostname>.local`` when avahi runs here, else None."""
    if not os.path.exists(AVAHI_SOCKET):
        return None
    host = socket.gethostname().split(".")[0]
    return f"{host}.local" if host and host != "localhost" else None


def page_urls(host: str, port: int, addresses: Iterable[str] | None = None,
              mdns: str | None = None) -> list[str]:
    """Links a phone can open, best first. ``host`` is the address listened on: a wildcard
    (``0.0.0.0``, ``::``, empty) means every interface; a loopback address means only this
    machine can reach the page (then only the localhost link is given)."""
    suffix = "" if port == 80 else f":{port}"
    if host in ("", "0.0.0.0", "::"):
        names = list(addresses if addresses is not None else interface_addresses())
        name = mdns if mdns is not None else mdns_name()
        urls = ([f"http://{name}{suffix}/"] if name else []) + \
            [f"http://{a}{suffix}/" for a in names]
        return urls + [f"http://localhost{suffix}/"]
    if ":" in host:
        host = f"[{host}]"
    return [f"http://{host}{suffix}/"]


def matrix(text: str) -> segno.QRCode:
    """The QR code of ``text`` (segno's QRCode; error correction M, the smallest version)."""
    import segno

    return segno.make_qr(text, error="m", boost_error=False)


def svg(text: str) -> str:
    """A QR code as an SVG document (black on white, 4 modules of quiet zone, scalable)."""
    import io

    buf = io.BytesIO()
    matrix(text).save(buf, kind="svg", scale=1, border=4, dark="#000", light="#fff",
                      xmldecl=False, svgns=True, svgclass=None, lineclass=None,
                      omitsize=True)
    return buf.getvalue().decode()


def terminal(text: str, out: TextIO) -> None:
    """Print a QR code of ``text`` with half-block characters (two modules per line)."""
    matrix(text).terminal(out=out, compact=True, border=2)


def print_startup(host: str, port: int, out: TextIO | None = None,
                  with_qr: bool | None = None) -> list[str]:
    """Print where phones can open the page (every link, and a QR code of the best one) and
    return the links. The QR code is left out under systemd (``JOURNAL_STREAM`` set), where
    it would only clutter the journal; the links are always printed."""
    out = out or sys.stdout
    urls = page_urls(host, port)
    if with_qr is None:
        with_qr = not os.environ.get("JOURNAL_STREAM")
    lines = ["Open the page on a phone on the same network:"]
    lines += [f"  {u}" for u in urls]
    if urls[0].startswith("http://localhost") or urls[0].startswith("http://127."):
        lines.append("  (only this machine can reach it: set [web] host = \"0.0.0.0\" to "
                     "let phones in)")
    with contextlib.suppress(OSError, ValueError):
        out.write("\n".join(lines) + "\n")
        if with_qr:
            terminal(urls[0], out)
        out.flush()
    return urls
