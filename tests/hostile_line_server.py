"""A hostile hnefatafl.org server on loopback, as a program of its own (so that its work is
not counted in the process it attacks): it logs in anyone, then floods the connection with
``games_updated`` lines of ``--mib`` MiB back to back, as fast as the socket takes them
(issue 25, attack 1). Reads and drops what the client says meanwhile.

    python tests/hostile_line_server.py --mib 3.2 --port-file PATH

Writes its port to PATH once listening; runs until killed. Loopback only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import threading


def flood_line(i: int, size: int) -> bytes:
    """A ``games_updated`` creating one game, padded to about ``size`` bytes by a "removed"
    list (the real server repeats every removed game's id in every update)."""
    game = {"id": 5000 + i % 1500, "attacker": f"h{i}", "defender": None, "challenger": None,
            "rated": "Yes", "timed": "UnTimed", "spectators": {}, "challenge_accepted": False,
            "game_over": False, "board_size": "_11", "turn": "Roleless"}
    head = json.dumps({"created": [[i, None, game]], "updated": {}}, separators=(",", ":"))
    pad = ",".join(str(1000000 + k) for k in range(size // 8))
    return f'= games_updated {head[:-1]},"removed":[{pad}]}}\n'.encode()


def serve(conn: socket.socket, size: int) -> None:
    def drain() -> None:
        with contextlib.suppress(OSError):
            while conn.recv(65536):
                pass

    with contextlib.suppress(OSError):
        first = b""
        while b"\n" not in first:
            chunk = conn.recv(4096)
            if not chunk:
                return
            first += chunk
        threading.Thread(target=drain, daemon=True).start()
        conn.sendall(b"= login\n= initialize_display ([],Users(({})),false,false)\n")
        lines = [flood_line(i, size) for i in range(8)]
        i = 0
        while True:
            conn.sendall(lines[i % len(lines)])
            i += 1
    conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=3.2)
    ap.add_argument("--port-file", required=True)
    a = ap.parse_args()
    listener = socket.create_server(("127.0.0.1", 0))
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(listener.getsockname()[1]))
    os.replace(tmp, a.port_file)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, int(a.mib * 2**20)), daemon=True).start()


if __name__ == "__main__":
    main()
