"""How long the command line takes to answer a rules query, and what it imports on the way.

    python bench/cli_startup.py                 # rules moves copenhagen, 15 runs
    python bench/cli_startup.py --runs 30 --tree /path/to/an/older/checkout

Each run starts a fresh interpreter (``python -m companion rules moves copenhagen``, what the
console script does) and the figures are medians: wall time, and CPU time (user + system of
the child), which a busy machine inflates far less than wall time. Then one run under
``python -X importtime`` gives the time spent importing (all of it, and the project's modules
with what they pull in) and whether the daemon, Flask or the drivers were imported at all.
``--tree`` measures another checkout the same way (before/after figures). Prints figures only;
this is not a timed test.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = ["-m", "companion", "rules", "moves", "copenhagen"]
HEAVY = ("companion.daemon", "flask", "paho", "luma", "gpiozero", "PIL", "serial", "h11")


def _env(tree: Path) -> dict[str, str]:
    # with cwd=tree too: `python -m` puts the working directory first on sys.path
    return {**os.environ, "PYTHONPATH": str(tree)}


def one_run(tree: Path, command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh interpreter answering ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *command], env=_env(tree), cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def import_figures(tree: Path, command: list[str]) -> tuple[float, float, list[str]]:
    """Seconds spent importing (everything, and the project's modules with what they import)
    and the heavy modules imported."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *command], env=_env(tree),
                          cwd=tree, check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    total_us = ours_us = 0
    heavy = set()
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| ( *)(\S+)", line)
        if not m:
            continue
        name = m.group(3)
        if not m.group(2):  # a top-level import: its cumulative time counts once
            total_us += int(m.group(1))
            if name.startswith("companion"):
                ours_us += int(m.group(1))
        if name.split(".")[0] in HEAVY or name in HEAVY:
            heavy.add(name.split(".")[0] if name != "companion.daemon" else name)
    return total_us / 1e6, ours_us / 1e6, sorted(heavy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tree", type=Path, action="append",
                        help="another checkout to measure too (repeatable)")
    parser.add_argument("--command", nargs="+", help="arguments after `python -m companion`")
    args = parser.parse_args()
    command = ["-m", "companion", *args.command] if args.command else COMMAND
    print(f"python {' '.join(command)}: median of {args.runs} fresh interpreters")
    for tree in [ROOT, *(args.tree or [])]:
        walls, cpus = zip(*(one_run(tree, command) for _ in range(args.runs)), strict=True)
        total, ours, heavy = import_figures(tree, command)
        print(f"  {tree}: wall {statistics.median(walls):.3f} s (min {min(walls):.3f}), "
              f"cpu {statistics.median(cpus):.3f} s (min {min(cpus):.3f}); imports "
              f"{total:.3f} s, {ours:.3f} s of them companion.*; heavy modules: "
              f"{', '.join(heavy) or 'none'}")
    idle = [one_run(ROOT, ["-c", "pass"]) for _ in range(args.runs)]
    print(f"  python -c pass: wall {statistics.median([w for w, _ in idle]):.3f} s, "
          f"cpu {statistics.median([c for _, c in idle]):.3f} s (the interpreter's own start)")


if __name__ == "__main__":
    main()
