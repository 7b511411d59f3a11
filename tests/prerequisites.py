"""Tests that need something outside Python (a browser, systemd) skip on a developer's machine
that lacks it, but fail in CI (``CI`` set), where `.ci/run` installs it: a green CI never hides
a test that did not run."""

from __future__ import annotations

import os

import pytest


def require(present: bool, what: str, *, module_level: bool = False) -> None:
    """Skip (locally) or fail (in CI) unless ``present``."""
    if present:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must provide {what}: .ci/run installs it", pytrace=False)
    pytest.skip(f"needs {what}", allow_module_level=module_level)
