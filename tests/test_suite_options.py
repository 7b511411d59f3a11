"""The suite's own options (tests/conftest.py): ``-p no:xdist`` runs it in one process, and the
parallel defaults are set in the controlling process only, never in an xdist worker (a worker
given ``-n auto`` started workers of its own, recursively: a fork bomb)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import conftest
from test_daemon_support import PATIENCE

ROOT = Path(__file__).resolve().parent.parent


class _Plugins:
    def __init__(self) -> None:
        self.registered: list[object] = []

    def hasplugin(self, name: str) -> bool:
        return name == "xdist"

    def register(self, plugin: object, name: str) -> None:
        self.registered.append(plugin)


def _config(**extra: object) -> SimpleNamespace:
    option = SimpleNamespace(numprocesses=None, tx=[], dist="no")
    return SimpleNamespace(option=option, pluginmanager=_Plugins(),
                           getoption=lambda name, default=None: default, **extra)


def _run_hook(config: SimpleNamespace) -> None:
    hook = conftest.pytest_cmdline_main(config)
    next(hook)  # the part before xdist's own hook
    hook.close()


def test_the_controlling_process_gets_the_parallel_defaults(monkeypatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    config = _config()
    _run_hook(config)
    assert (config.option.numprocesses, config.option.dist) == ("auto", "worksteal")
    assert config.pluginmanager.registered  # the auto-workers hook, only with xdist


def test_a_worker_never_gets_workers_of_its_own(monkeypatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    config = _config(workerinput={"workerid": "gw0"})
    _run_hook(config)
    assert (config.option.numprocesses, config.option.dist) == (None, "no")
    assert not config.pluginmanager.registered


def test_the_command_line_chooses(monkeypatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    config = _config()
    config.option.numprocesses = 0
    _run_hook(config)
    assert (config.option.numprocesses, config.option.dist) == (0, "no")


def test_without_xdist_the_suite_runs_in_one_process() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "-p", "no:cacheprovider",
         "tests/test_squares.py", "-k", "round_trip or names"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=PATIENCE)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "unrecognized arguments" not in out.stderr
