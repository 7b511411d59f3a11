"""The fixtures of the online page tests (tests/test_online_*_browser.py), imported by them:
the protocol-faithful test server with alice's and bob's accounts, and a daemon process
logged in there as alice at start (its base URL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hnefatafl_double import HnefataflDouble
from online_helpers import serving, spawn_online_daemon


@pytest.fixture
def server() -> Iterator[HnefataflDouble]:
    yield from serving(("alice", "pw alice"), ("bob", "pw", 1612.0))


@pytest.fixture
def daemon(tmp_path: Path, server: HnefataflDouble) -> Iterator[str]:
    proc, base = spawn_online_daemon(tmp_path, server, login=("alice", "pw alice"))
    yield base
    proc.stop()
