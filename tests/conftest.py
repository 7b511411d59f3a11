"""The suite runs in parallel (pytest-xdist, two workers per core unless ``-n`` says otherwise):
every test starts its own daemons, servers, brokers and browsers on free ports in its own
temporary folder, so any two can run at once. ``-n 0`` runs it in one process (e.g. to debug one
test), and so does ``-p no:xdist`` (or a machine without pytest-xdist): the parallel defaults
are set here, only when xdist is there, not in pyproject.toml's addopts (which would name
options that do not exist without it)."""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest


def _workers() -> int:
    """Two workers per core: about half of the suite's time is spent waiting (for a daemon to
    start, a page to load, a broker to answer), which another worker's test fills."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(2, 2 * (cores or 1))


class _XdistDefaults:
    """The hook xdist asks for ``-n auto``; registered only when xdist is loaded (a conftest
    that defines an xdist hook itself fails with "unknown hook" under ``-p no:xdist``)."""

    @staticmethod
    def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
        return _workers()


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, object, object]:
    """Before xdist reads its options: ``-n auto --dist worksteal`` unless the command line
    chose (``-n``, ``--dist``, ``--pdb``)."""
    # not in xdist's own workers (they have ``workerinput``): a worker told "-n auto" again
    # starts workers of its own, and those theirs (a fork bomb that took a busy machine to a
    # load of 1,000)
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_XdistDefaults(), "tafl-xdist-defaults")
        opt = config.option
        if opt.numprocesses is None and not opt.tx and not config.getoption("usepdb", False):
            opt.numprocesses = "auto"
        if opt.dist == "no" and opt.numprocesses not in (None, 0):
            opt.dist = "worksteal"
    return (yield)
