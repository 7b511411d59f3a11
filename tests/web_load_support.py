"""Helpers shared by the web's load tests and the bench scripts that load the daemon
(bench/load.py, bench/flood.py): a request from a chosen loopback address (each address stands
for one device), and long games of quiet moves to store, review and export."""

from __future__ import annotations

import http.client
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.rules.game import Game


def request(port: int, path: str, src: str = "127.0.0.1", method: str = "GET",
            body: bytes | None = None, headers: dict[str, str] | None = None,
            timeout: float = 30.0) -> tuple[int, dict[str, str], bytes]:
    """``method path`` to the daemon's web on loopback ``port``, from the address ``src``, on a
    connection of its own: the status, the headers and the body of the answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(src, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def quiet_game(plies: int, seed: int) -> Game:
    """A Copenhagen game of ``plies`` moves (the same for the same ``seed``) that capture
    nothing and do not end it. (companion is imported here, not above: bench/flood.py's
    ``--root`` chooses the checkout first.)"""
    from companion.rules import get_variant
    from companion.rules.game import Game

    rng = random.Random(seed)
    game = Game(get_variant("copenhagen"))
    while len(game.played) < plies:
        options = game.board.legal_moves()
        rng.shuffle(options)
        for move in options:
            played = game.play(move)
            if played.captures or game.is_over():
                game.undo()
                continue
            break
        else:
            raise RuntimeError("no quiet move")
    return game
