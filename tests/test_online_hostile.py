"""The online client against hostile servers on loopback (issue 25, attacks 1 and 6): a server
that floods it with huge lines faster than it can handle them, error lines out of place, and a
game record that leaves out a move the server had acknowledged. The protocol-faithful double
(tests/hnefatafl_double.py) plays the server; its ``inject`` hook sends the hostile lines."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from online_helpers import serving, wait_until
from test_online_client import mv, start_client, start_game

from companion.online.connection import MAX_LINE, LineConnection
from companion.session.remote import RemoteMove, RemoteRefused, RemoteStart, RemoteStatus


@pytest.fixture
def server():
    yield from serving(("alice", "secret pw"), ("bob", "pw", 1723.5))


def flood_line(i: int, size: int) -> str:
    """A ``games_updated`` that creates game ``1000 + i``, padded to ``size`` bytes with a long
    "removed" list (the real server lists every game ever removed in every update)."""
    game = {"id": 1000 + i, "attacker": f"u{i}", "defender": None, "challenger": None,
            "rated": "Yes", "timed": "UnTimed", "spectators": {}, "challenge_accepted": False,
            "game_over": False, "board_size": "_11", "turn": "Roleless"}
    head = json.dumps({"created": [[i, None, game]], "updated": {}}, separators=(",", ":"))
    ids = ",".join(str(100000 + k) for k in range(size // 7))
    return f'= games_updated {head[:-1]},"removed":[{ids}]}}'


def kernel_lines(conn: LineConnection, size: int) -> int:
    """How many lines of ``size`` bytes the kernel may hold between the double and the client:
    the client's receive buffer (bounded by the client) and the double's send buffer (grown by
    Linux up to tcp_wmem's maximum)."""
    receive = conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    send = int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    return -(-(receive + send) // size)


def test_a_flooding_server_is_read_only_as_fast_as_the_client_handles_it(server, tmp_path):
    """400 lines of 60 KiB (24 MB) sent back to back, as fast as the socket takes them: the
    client reads only when it has handled what it read, so the server's writes wait in TCP (at
    most the kernel's buffers and one line ahead of the client), and every line is handled."""
    service, _player, _inbox = start_client(server, tmp_path, silence=600.0)
    try:
        wait_until(lambda: service.status()["status"] == "lobby", what="lobby")
        lines = [flood_line(i, 60 << 10) for i in range(400)]
        ahead: list[int] = []
        taken: list[int] = []
        conn = service.server_login.conn
        assert conn is not None

        def flood() -> None:
            for i, line in enumerate(lines):
                handled = len(service.lobby.games)
                ahead.append(i - handled)      # lines sent but not yet handled
                taken.append(getattr(conn, "buffered", 0))
                server.inject("alice", line)

        sender = threading.Thread(target=flood)
        sender.start()
        sender.join(timeout=300)
        assert not sender.is_alive()
        wait_until(lambda: len(service.lobby.games) == 400, what="every flood line handled")
        # the kernel's buffers, and in the client the line read, the one handled and a chunk
        assert max(ahead) <= kernel_lines(conn, 60 << 10) + 3, ahead
        assert max(taken) <= MAX_LINE + 65536
        assert service.status()["status"] == "lobby" and service.table.ignored == 0
    finally:
        service.close()


def test_a_line_over_the_cap_is_skipped_to_its_newline_and_the_link_goes_on(server, tmp_path):
    service, _player, _inbox = start_client(server, tmp_path)
    try:
        wait_until(lambda: service.status()["status"] == "lobby", what="lobby")
        conn = service.server_login.conn
        server.inject("alice", "= games_updated " + "y" * (MAX_LINE + 10))
        server.inject("alice", flood_line(1, 100))
        wait_until(lambda: 1001 in service.lobby.games, what="the line after the long one")
        assert service.server_login.conn is conn and conn is not None and conn.dropped == 1
        status = service.status()
        assert status["code"] == "line_too_long" and "4 MiB" in str(status["message"])
        assert status["status"] == "lobby"
    finally:
        service.close()


@pytest.mark.parametrize("line", ["? login wrong_version",
                                  "? login multiple_possible_errors wrong_password",
                                  "? login multiple_possible_errors account_not_in_database",
                                  "? create_account already_exists unknown error"])
def test_a_stray_login_refusal_mid_game_changes_nothing(server, tmp_path, line):
    """The server sends ``? login …`` only in answer to a login line: one that comes while the
    connection is logged in is ignored (it left the client in an error state for good, and the
    opponent's next move never arrived)."""
    service, player, inbox = start_client(server, tmp_path)
    try:
        bob, game_id, _start = start_game(server, service, inbox)
        server.inject("alice", line)
        wait_until(lambda: service.table.ignored >= 1, what="the stray line ignored")
        assert service.status()["status"] == "playing" and service.status()["error"] is None
        bob.send(f"game {game_id} play attacker e1 e4")
        assert inbox.wait_for(RemoteMove) == RemoteMove(0, mv(11, "e1", "e4"))
        player.send_move(1, mv(11, "h6", "h9"))
        bob.expect(lambda got: got == f"game {game_id} play defender h6 h9")
        assert service.status()["status"] == "playing"
        assert all(e.state != "error" for e in inbox.of(RemoteStatus))
    finally:
        service.close()


def test_a_record_lacking_an_acknowledged_move_is_never_resent_nor_dropped(server, tmp_path):
    """The server acknowledged the board's move (``= game``), then sends a record without it:
    the client neither resends the move (the server refused the resend and the board took its
    move back) nor drops it: it hands the session the server's record with the count of moves
    the server had confirmed, and says so."""
    service, player, inbox = start_client(server, tmp_path)
    try:
        bob, game_id, _start = start_game(server, service, inbox)
        bob.send(f"game {game_id} play attacker e1 e4")
        assert inbox.wait_for(RemoteMove) == RemoteMove(0, mv(11, "e1", "e4"))
        player.send_move(1, mv(11, "h6", "h9"))
        bob.expect(lambda got: got == f"game {game_id} play defender h6 h9")
        wait_until(lambda: service.table.play.game.plies == 2, what="the move acknowledged")
        pings = server.received("alice").count("ping")
        game = server.games[game_id]           # the double's record, one move short
        kept, game.texts = game.texts, game.texts[:1]
        with server.lock:
            server._resume(server.online["alice"], "resume_game_json", game_id)
        game.texts = kept
        start = inbox.wait_for(RemoteStart)
        assert start.moves == (mv(11, "e1", "e4"),) and start.confirmed == 2
        assert inbox.wait_for(RemoteStatus, lambda e: e.code == "record_contradicts")
        # a later ping shows that the client sent nothing else before it
        wait_until(lambda: server.received("alice").count("ping") > pings, what="a ping")
        sent = [line for line in server.received("alice") if " play defender " in line]
        assert sent == [f"game {game_id} play defender h6 h9"]
        assert not inbox.of(RemoteRefused)
    finally:
        service.close()
