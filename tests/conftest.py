"""The suite runs in parallel (pytest-xdist, ``-n auto`` in pyproject.toml's addopts): every test
starts its own daemons, servers, brokers and browsers on free ports in its own temporary folder,
so any two can run at once. ``-n 0`` runs it in one process (e.g. to debug one test)."""

from __future__ import annotations

import os

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Two workers per core: about half of the suite's time is spent waiting (for a daemon to
    start, a page to load, a broker to answer), which another worker's test fills."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(2, 2 * (cores or 1))
