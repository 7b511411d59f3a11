"""Run a command on a busy machine: ``--procs`` busy loops at the command's own priority (not
niced) for as long as the command runs. How the tests' independence of the machine's load is
checked (issue 17): a test that passes alone must pass here too.

    python bench/busy.py --procs 4 -- python -m pytest tests/test_crash.py -n 0 -q

Prints the load average before and after, the command's wall and CPU time, and exits with the
command's exit code.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time


def spin() -> None:
    while True:
        pass


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--procs", type=int, default=2 * (os.cpu_count() or 1),
                   help="busy loops (default: two per core)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    a = p.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command:
        p.error("no command given (put it after --)")
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(a.procs)]
    for s in spinners:
        s.start()
    print(f"busy.py: {a.procs} busy loops; load {os.getloadavg()}", file=sys.stderr)
    t0 = time.monotonic()
    proc = subprocess.Popen(command)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
    finally:
        for s in spinners:
            s.kill()
        for s in spinners:
            s.join()
    print(f"busy.py: wall {time.monotonic() - t0:.1f} s, the command's CPU "
          f"{usage.ru_utime + usage.ru_stime:.1f} s; load {os.getloadavg()}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
