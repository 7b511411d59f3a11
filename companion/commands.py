"""What every ``tafl-companion`` command shares: the one-line usage error, JSON output, and
the parser type subsystems add their commands to (``register(subcommands)``).

It imports nothing of the project, so any command module can use it without importing
:mod:`companion.cli` (which imports every command module).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn, TypeAlias


class UsageError(Exception):
    """Bad input: reported on stderr as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2 (a :class:`UsageError`),
    without the usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


#: What a subsystem's ``register`` adds its commands to (its parsers are :class:`Parser`\s).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def emit(doc: object) -> None:
    """Print one JSON document on stdout."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    sys.stdout.flush()
