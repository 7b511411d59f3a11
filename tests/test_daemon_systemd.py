"""The systemd unit (``systemd-analyze verify``, required settings) and the avahi service file.

``verify`` insists that ExecStart's program exists. The unit points at the virtualenv of the Pi
install (/opt/tafl-companion/bin/tafl-companion), which a CI machine does not have; so the test
verifies a copy whose ExecStart names the ``tafl-companion`` script installed here, every other
line unchanged (creating /opt paths from a test would touch the machine outside the repo).
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from prerequisites import require

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
UNIT = SYSTEMD / "tafl-companion.service"
INSTALLED = "/opt/tafl-companion/bin/tafl-companion"


def unit_lines() -> list[str]:
    return UNIT.read_text().splitlines()


def settings(section: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in unit_lines():
        line = line.strip()
        if line.startswith("["):
            current = line.strip("[]")
        elif current == section and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            out.setdefault(key, []).append(value)
    return out


def installed_script() -> str | None:
    """The ``tafl-companion`` script of the Python running the tests (a venv's bin, as the
    README runs them: ``.venv/bin/python -m pytest``, no activated venv), else one on PATH."""
    beside = Path(sys.executable).parent / "tafl-companion"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("tafl-companion")


def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    require(shutil.which("systemd-analyze") is not None,
            "systemd-analyze (apt-get install systemd)")
    script = installed_script()
    assert script, "the package must be installed: .venv/bin/pip install -e '.[test]'"
    text = UNIT.read_text()
    assert f"ExecStart={INSTALLED} " in text
    copy = tmp_path / "tafl-companion.service"
    copy.write_text(text.replace(f"ExecStart={INSTALLED} ", f"ExecStart={script} "))
    res = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                         text=True, timeout=60)
    problems = [line for line in (res.stderr + res.stdout).splitlines()
                if "tafl-companion" in line]
    assert res.returncode == 0 and not problems, res.stderr


def test_unit_settings() -> None:
    s = settings("Service")
    assert s["Type"] == ["notify"] and s["WatchdogSec"] and s["Restart"] == ["on-failure"]
    assert s["User"] == ["tafl"] and s["StateDirectory"] == ["tafl-companion"]
    assert set(s["SupplementaryGroups"][0].split()) >= {"gpio", "dialout", "spi"}
    assert "PrivateDevices" not in s
    allowed = " ".join(s["DeviceAllow"])
    for group in ("char-gpiochip", "char-spi", "char-ttyACM"):
        assert group in allowed
    assert s["NoNewPrivileges"] == ["yes"] and s["ProtectSystem"] == ["strict"]
    assert " run --config " in s["ExecStart"][0]


def test_avahi_service_advertises_http() -> None:
    root = ET.parse(SYSTEMD / "tafl-companion-avahi.service").getroot()
    assert root.tag == "service-group"
    service = root.find("service")
    assert service.findtext("type") == "_http._tcp"
    assert 0 < int(service.findtext("port")) < 65536
    assert root.find("name").get("replace-wildcards") == "yes"


def test_unit_parses_as_ini() -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read_string("\n".join(x for x in unit_lines() if not x.startswith("DeviceAllow")))
    assert parser["Install"]["WantedBy"] == "multi-user.target"
