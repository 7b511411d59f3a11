"""A scripted OTEP engine for the tests of engine hosts (``tests/test_otep_host.py``,
``tests/test_session_computer.py``): run as ``python scripted_engine.py MODE``, the mode picks
how it misbehaves. "proxy-*" modes run the real built-in engine behind it and change what it
says."""

import subprocess
import sys
import threading
import time


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def proxy(mode: str) -> None:
    """The built-in engine at level 1, its lines changed: "proxy-hopeless" reports every
    position as lost, "proxy-slow" keeps thinking for 30 s before it moves."""
    child = subprocess.Popen([sys.executable, "-m", "companion.engine", "--level", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert child.stdin is not None and child.stdout is not None
    out = child.stdout

    def pump() -> None:
        for line in out:
            line = line.strip()
            if mode == "proxy-hopeless" and line.startswith("status depth"):
                words = line.split()
                words[4:6] = ["cp", "-900"]
                line = " ".join(words)
            if mode == "proxy-slow" and line.startswith("move "):
                for i in range(600):
                    say(f"status depth {i + 2} score cp 15 nodes {i} time 0.1 pv d4-d5")
                    time.sleep(0.05)
            say(line)

    threading.Thread(target=pump, daemon=True).start()
    for line in sys.stdin:
        child.stdin.write(line)
        child.stdin.flush()


def scripted(mode: str) -> None:
    """``mute`` never says hello (``late``: not before the file named after it exists);
    ``chatty`` prints a banner first and, like ``silent``, only
    thinks aloud when asked to play; ``garbage``, ``illegal``, ``crash`` (``crash_late``: its
    last words after its exit), ``resign`` and ``slow`` answer ``play`` as named."""
    if mode == "mute":
        time.sleep(60)
    if mode == "late":  # says hello once the file named next exists, then as "silent"
        import os
        while not os.path.exists(sys.argv[2]):
            time.sleep(0.02)
        mode = "silent"
    if mode == "chatty":
        say("OpenTafl-like banner, not a command")
    say("hello")
    for line in sys.stdin:
        word = line.split(" ", 1)[0].strip()
        if word == "goodbye":
            break
        if word == "play":
            if mode == "garbage":
                say("move banana")
            elif mode == "illegal":
                say("move a1-a2")
            elif mode == "crash_late":
                # its last words reach the pipe after its exit (as when the host's threads are
                # scheduled late): a helper holding stderr writes them 0.3 s later
                import subprocess
                subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(0.3); "
                                  "sys.stderr.write('Traceback: the engine broke\\n')"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
                sys.exit(3)
            elif mode == "crash":
                sys.stderr.write("Traceback: the engine broke\n")
                sys.stderr.flush()
                sys.exit(3)
            elif mode in ("silent", "chatty"):
                say("thinking very hard")
            elif mode == "resign":
                say("error -1 I resign")
            elif mode == "slow":
                say("status depth 3 score cp -40 nodes 10 time 0.1 pv d2-e2")
                time.sleep(0.3)
                say("move d2-e2")
        if word == "analyze":
            say("analysis 1 d2-e2|d3-e3 0.25" if mode != "garbage" else "analysis 2 d2-e2")


if __name__ == "__main__":
    if sys.argv[1].startswith("proxy"):
        proxy(sys.argv[1])
    else:
        scripted(sys.argv[1])
