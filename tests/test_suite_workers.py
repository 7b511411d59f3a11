"""The suite's own parallel defaults (tests/conftest.py) never reach xdist's workers: a worker
that is told ``-n auto`` again starts workers of its own, and each of those theirs (this fork
bomb took the development machine to 1,095 nested workers and a load of 1,000)."""

from __future__ import annotations

import pytest


def test_an_xdist_worker_starts_no_workers_of_its_own(request: pytest.FixtureRequest) -> None:
    config = request.config
    if not hasattr(config, "workerinput"):
        pytest.skip("runs inside an xdist worker (the README's command runs the suite so)")
    assert config.pluginmanager.get_plugin("dsession") is None
    assert not config.pluginmanager.has_plugin("tafl-xdist-defaults")
