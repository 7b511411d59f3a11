"""A real Mosquitto for the club tests: its own port, config and persistence folder.

``.ci/run`` starts one and exports its address as ``TAFL_TEST_BROKER`` (mqtt://127.0.0.1:PORT);
without it the tests start their own. Tests that stop and restart a broker always start their
own (:class:`Mosquitto`).
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                          if os.path.exists("/usr/sbin/mosquitto") else None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """One broker process on a free port with persistence in ``folder``."""

    def __init__(self, folder: Path, port: int | None = None, extra: str = "") -> None:
        if MOSQUITTO is None:
            raise RuntimeError("mosquitto is not installed (apt-get install mosquitto)")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {folder}/\n"
            "autosave_interval 1\n"
            # started as root, mosquitto would drop to the user "mosquitto", who cannot read
            # this folder: stay who we are
            f"user {getpass.getuser()}\n"
            "max_queued_messages 100000\n"
            "log_dest stderr\n"
            "log_type error\n" + extra)
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.folder / "mosquitto.log", "ab")  # noqa: SIM115 (kept by the process)
        self.proc = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)],
                                     stdout=log, stderr=log)
        deadline = time.monotonic() + 60  # ends once it listens (a busy machine is slow)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {(self.folder / 'mosquitto.log')}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the broker (SIGTERM: it saves its persistence first)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


def shared_broker_url() -> str | None:
    """The broker ``.ci/run`` started, if any."""
    return os.environ.get("TAFL_TEST_BROKER") or None


def module_broker(folder: Path) -> Iterator[str]:
    """For a module's fixture to ``yield from``: the URL of the shared broker, or else of one
    started in ``folder`` for the module, stopped when the fixture ends."""
    url = shared_broker_url()
    if url:
        yield url
        return
    broker = Mosquitto(folder)
    try:
        yield broker.url
    finally:
        broker.stop()


#: the club key of the tests' clubs (every board and room of a test is given it)
CLUB_KEY = "tests-club-key-0123456789abcdef"
#: the ``[club]`` lines that go with it (the tests' brokers have no accounts)
CLUB_TOML = f'key = "{CLUB_KEY}"\nallow_anonymous_broker = true\n'
