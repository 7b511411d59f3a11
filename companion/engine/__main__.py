"""``python -m companion.engine``: the OTEP engine without the rest of the command line.

The same as ``tafl-companion engine`` (same options): both import only the rules core and the
engine's playing side (not the host side, the analysis, the daemon, Flask or the drivers), so
it says ``hello`` quickly even on a Raspberry Pi Zero. The daemon's computer player runs this.
"""

from __future__ import annotations

import argparse
import sys

from .otep import register


def main(argv: list[str] | None = None) -> int:
    """Parse the options and serve OTEP on stdin/stdout."""
    parser = argparse.ArgumentParser(prog="python -m companion.engine")
    sub = parser.add_subparsers(dest="cmd")
    register(sub)
    args = parser.parse_args(["engine", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:
        print(f"tafl-companion engine: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
