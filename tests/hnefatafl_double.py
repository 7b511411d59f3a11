"""A test double of the hnefatafl.org game server (``hnefatafl-server-full`` 6.x), written from
../shared/spec/HNEFATAFL-ORG.md with its quirks: captures are never announced; the lobby is
pushed every 250 ms to everyone, mixed with answers; the login burst carries RON; the join
handshake; refused moves credit the side to move with the increment; ``draw ID decline``
kills the game; the 133rd move draws, announced as ``= draw accept``; one connection
per account and ``logged_in_already``; the login back-off (1, 2, 4, 8, 16 s, then 30 min);
resuming re-attaches a connection; watchers (``watch_game_json``) get the moves, clocks, chat
and the end on the connection that asked (a watcher that logs in again must ask again), but
nothing of a draw agreed or declined by the players. It judges moves with the project's server
rule sets.

Test hooks: ``freeze()`` (stop answering), ``inject(user, line)`` (raw lines, hostile ones
too), ``drop(user, clean=False)`` (an unclean drop: the account stays "logged in").
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from companion.online.protocol import parse_square, square_name
from companion.rules import Board, Move, other
from companion.rules.hnefatafl_org import BY_SIZE, MOVE_LIMIT, ServerHistory

VERSION_ID = "32d9a140"
WAITS = (1.0, 2.0, 4.0, 8.0, 16.0, 1800.0)
ROLE = {"attackers": "attacker", "defenders": "defender"}
SIDE = {v: k for k, v in ROLE.items()}


def stamp() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}123Z"


def ron_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@dataclass
class SGame:
    id: int
    size: int
    rated: bool
    main_ms: int | None
    inc_s: int
    attacker: str | None = None
    defender: str | None = None
    challenger: str | None = None
    started: bool = False
    over: bool = False
    dead: bool = False
    board: Board = field(init=False)
    history: ServerHistory = field(init=False)
    texts: list[str] = field(default_factory=list)   # record texts with captures
    clocks: dict[str, float] = field(default_factory=dict)
    last: float = 0.0
    draw_requested: str | None = None
    watchers: dict[str, Client] = field(default_factory=dict)  # name -> the asking connection
    tx: dict[str, Client | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.board = Board(BY_SIZE[self.size])
        self.history = ServerHistory(self.board)

    def light(self) -> dict[str, object]:
        timed: object = "UnTimed"
        if self.main_ms is not None:
            timed = {"Timed": {"add_seconds": self.inc_s,
                               "milliseconds_left": self.main_ms}}
        turn = "Roleless" if not self.started else (
            "Attacker" if self.board.turn == "attackers" else "Defender")
        spectators = {name: c.index for name, c in self.watchers.items()}
        for role, conn in self.tx.items():   # the players once started
            name = self.attacker if role == "attacker" else self.defender
            if conn is not None and name is not None:
                spectators[name] = conn.index
        return {"id": self.id, "attacker": self.attacker, "defender": self.defender,
                "challenger": self.challenger, "rated": "Yes" if self.rated else "No",
                "timed": timed, "spectators": spectators, "challenge_accepted": self.started,
                "game_over": self.over, "board_size": f"_{self.size}", "turn": turn}

    def ron_light(self) -> str:
        def opt(v: str | None) -> str:
            return "None" if v is None else f"Some({ron_str(v)})"
        timed = "UnTimed" if self.main_ms is None else (
            f"Timed((add_seconds:{self.inc_s},milliseconds_left:{self.main_ms}))")
        turn = "Roleless" if not self.started else (
            "Attacker" if self.board.turn == "attackers" else "Defender")
        return (f"(id:{self.id},attacker:{opt(self.attacker)},defender:{opt(self.defender)},"
                f"challenger:({opt(self.challenger)}),rated:{'Yes' if self.rated else 'No'},"
                f"timed:{timed},spectators:{{}},challenge_accepted:false,"
                f"game_over:{'true' if self.over else 'false'},board_size:_{self.size},"
                f"turn:{turn})")


class Client:
    count = 0

    def __init__(self, server: HnefataflDouble, sock: socket.socket, addr: str) -> None:
        self.server, self.sock, self.addr = server, sock, addr
        Client.count += 1
        self.index = Client.count   # the server's connection number
        self.user: str | None = None
        self.lock = threading.Lock()
        self.alive = True
        self.zombie = False    # dropped uncleanly: the server has not noticed

    def send(self, line: str) -> None:
        if not self.alive or self.server.frozen:
            return
        with self.lock:
            try:
                self.sock.sendall(line.encode() + b"\n")
            except OSError:
                self.alive = False

    def close(self) -> None:
        self.alive = False
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


class HnefataflDouble:
    """The server on 127.0.0.1, a free port; ``start()`` / ``stop()``."""

    def __init__(self, waits: tuple[float, ...] = WAITS) -> None:
        self.waits = waits
        self.accounts: dict[str, str] = {}
        self.ratings: dict[str, float] = {}
        self.online: dict[str, Client] = {}
        self.games: dict[int, SGame] = {}
        self.next_id = 0
        self.delays: dict[tuple[str, str], tuple[float, int]] = {}  # (ip, user) -> until, fails
        self.lock = threading.RLock()
        self.frozen = False
        self.log: list[tuple[str, str]] = []       # (user or addr, line) as received
        self.changed = False
        self.lsock = socket.create_server(("127.0.0.1", 0))
        self.port = self.lsock.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self._stop = threading.Event()
        self.clients: list[Client] = []

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> HnefataflDouble:
        threading.Thread(target=self._accept, daemon=True).start()
        threading.Thread(target=self._ticker, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.lsock.close()
        for c in list(self.clients):
            c.close()

    def add_account(self, user: str, password: str, rating: float = 1500.0) -> None:
        self.accounts[user] = password
        self.ratings[user] = rating

    # -- hooks ------------------------------------------------------------------------------
    def freeze(self, on: bool = True) -> None:
        self.frozen = on

    def inject(self, user: str, line: str) -> None:
        conn = self.online[user]
        with conn.lock:
            conn.sock.sendall(line.encode() + b"\n")

    def drop(self, user: str, clean: bool = True) -> None:
        """Close a user's connection; unclean: the server does not notice (still logged in)."""
        conn = self.online[user]
        conn.zombie = not clean
        if clean:
            with self.lock:
                self._logout(conn)
        conn.close()

    def forget(self, user: str) -> None:
        """The server notices the dead connection at last."""
        conn = self.online.get(user)
        if conn is not None:
            with self.lock:
                self._logout(conn)

    def received(self, user: str) -> list[str]:
        return [line for who, line in self.log if who == user]

    # -- network ------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, addr = self.lsock.accept()
            except OSError:
                return
            client = Client(self, sock, addr[0])
            self.clients.append(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, c: Client) -> None:
        buf = b""
        tries = 0
        try:
            while True:
                chunk = c.sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    line = raw.decode(errors="replace")
                    if not line or any(ord(ch) < 32 for ch in line):
                        raise ConnectionError("control character or empty line")
                    self.log.append((c.user or c.addr, line))
                    if self.frozen:
                        continue
                    with self.lock:
                        if c.user is None:
                            tries += 1
                            if tries > 100:
                                raise ConnectionError("too many tries")
                            self._login(c, line)
                        else:
                            self._command(c, line)
        except (OSError, ConnectionError):
            pass
        with self.lock:
            if c.user is not None and self.online.get(c.user) is c and not c.zombie:
                self._logout(c)
        c.close()

    def _logout(self, c: Client) -> None:
        user = c.user
        if user is None or self.online.get(user) is not c:
            return
        del self.online[user]
        for game in list(self.games.values()):
            if not game.started and user in (game.attacker, game.defender) and (
                    game.main_ms is not None and game.main_ms < 86400000):
                del self.games[game.id]
            for role, conn in game.tx.items():
                if conn is c:
                    game.tx[role] = None
        self.changed = True

    # -- login ------------------------------------------------------------------------------
    def _login(self, c: Client, line: str) -> None:
        words = line.split(" ")
        if len(words) < 3 or words[1] not in ("login", "create_account", "reset_password"):
            c.send("? login unknown error")
            return
        if words[0] != VERSION_ID:
            c.send("? login wrong_version")
            return
        user, password = words[2], " ".join(words[3:])
        if len(user.encode()) > 16:
            c.send("? login _ username is more than 16 characters")
            return
        key = (c.addr, user)
        until, fails = self.delays.get(key, (0.0, 0))
        now = time.time()
        if now < until:
            when = datetime.fromtimestamp(until, UTC)
            c.send("? login multiple_possible_errors retried_too_soon "
                   + when.strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z")
            return
        if words[1] == "create_account":
            if user in self.accounts:
                c.send("? create_account already_exists unknown error")
                return
            self.add_account(user, password)
        elif user not in self.accounts:
            self._failed(key, fails)
            c.send("? login multiple_possible_errors account_not_in_database")
            return
        elif self.accounts[user] != password:
            self._failed(key, fails)
            c.send("? login multiple_possible_errors wrong_password")
            return
        elif user in self.online:
            self._failed(key, fails)
            c.send("? login multiple_possible_errors logged_in_already")
            return
        self.delays.pop(key, None)
        c.user = user
        self.online[user] = c
        self.changed = True
        c.send("= login")
        games = ",".join(g.ron_light() for g in self.games.values() if not g.over)
        c.send(f"= initialize_display ([{games}],Users(({self._users_ron()})),false,false)")
        c.send('= tournament_status {"players":[],"board_size":"_11","time_setting":"UnTimed",'
               '"date":null,"group_size":{"size":4},"number_of_games":{"number":1},'
               '"tournament":null}')
        c.send("version 6.2.3")
        for game in self.games.values():
            if game.started and not game.over and not game.dead:
                for role, name in (("attacker", game.attacker), ("defender", game.defender)):
                    if name == user:
                        c.send(f"game {game.id} generate_move {role}")

    def _failed(self, key: tuple[str, str], fails: int) -> None:
        wait = self.waits[min(fails, len(self.waits) - 1)]
        self.delays[key] = (time.time() + wait, fails + 1)

    def _users_ron(self) -> str:
        parts = []
        for name, rating in self.ratings.items():
            parts.append(f'{ron_str(name)}:(username:{ron_str(name)},wins:0,losses:0,draws:0,'
                         f'rating:(rating:{rating},rd:350.0),'
                         f'logged_in:{"true" if name in self.online else "false"})')
        return "{" + ",".join(parts) + "}"

    # -- the lobby pushes -------------------------------------------------------------------
    def _ticker(self) -> None:
        """Every 250 ms the lobby's changes to everyone: a game that ended in the last 250 ms
        is sent once with ``game_over: true`` (it may be "created" so), and from then on listed
        in "removed" in every update, like deleted games (the real server's quirk)."""
        sent: dict[int, dict[str, object]] = {}
        gone: set[int] = set()
        while not self._stop.wait(0.25):
            with self.lock:
                self._clocks()
                now = {g.id: g.light() for g in self.games.values() if g.id not in gone}
                created = [[i, None, now[i]] for i in now if i not in sent]
                left = {i for i in sent if i not in now} - gone
                gone |= left
                removed = sorted(gone)
                updated = {str(i): now[i] for i in now if i in sent and sent[i] != now[i]}
                gone |= {g.id for g in self.games.values() if g.over}
                if created or left or updated or self.changed:
                    delta = json.dumps({"created": created, "removed": removed,
                                        "updated": updated}, separators=(",", ":"))
                    users = f"= users_updated (removed:[],updated:({self._users_ron()}))"
                    for c in list(self.online.values()):
                        c.send(f"= games_updated {delta}")
                        c.send(users)
                    self.changed = False
                sent = now

    def _clocks(self) -> None:
        for game in self.games.values():
            if not game.started or game.over or game.dead or game.main_ms is None:
                continue
            side = game.board.turn
            left = game.clocks[side] - (time.monotonic() - game.last) * 1000
            if left <= 0:
                game.clocks[side] = 0
                self._broadcast(game, f"game {game.id} play {ROLE[side]} resigns ")
                self._end(game, other(side))

    # -- commands ---------------------------------------------------------------------------
    def _command(self, c: Client, line: str) -> None:
        words = line.split(" ")
        cmd, rest = words[0], words[1:]
        user = c.user
        assert user is not None
        if cmd == "ping":
            c.send("= ping")
        elif cmd == "version":
            c.send("version 6.2.3")
        elif cmd == "new_game":
            try:
                spec = json.loads(line[len("new_game "):])
                role, rated, ts, size = (spec["role"], spec["rated"], spec["time_settings"],
                                         spec["board_size"])
            except (ValueError, KeyError, TypeError):
                return  # bad JSON: no answer
            main = inc = None
            if isinstance(ts, dict):
                main, inc = ts["Timed"]["milliseconds_left"], ts["Timed"]["add_seconds"]
            game = SGame(self.next_id, int(size), bool(rated), main, inc or 0)
            self.next_id += 1
            if role == "Attacker":
                game.attacker = user
            else:
                game.defender = user
            self.games[game.id] = game
            self.changed = True
            c.send(f"= new_game {game.id}")
        elif cmd == "join_game_pending" and rest and rest[0].isdigit():
            game = self.games.get(int(rest[0]))
            if game is None or game.started:
                return
            game.challenger = user
            self.changed = True
            c.send(f"= join_game_pending {game.id}")
            creator = self.online.get(game.attacker or game.defender or "")
            if creator is not None:
                creator.send(f"= challenge_requested {game.id}")
        elif cmd == "join_game" and rest and rest[0].isdigit():
            self._start(int(rest[0]))
        elif cmd == "leave_game" and rest and rest[0].isdigit():
            game = self.games.get(int(rest[0]))
            c.send(f"= leave_game {rest[0]}")
            if game is not None and not game.started:
                if game.challenger == user:
                    game.challenger = None
                else:
                    del self.games[game.id]
                self.changed = True
            elif game is not None:
                game.watchers.pop(user, None)
        elif cmd == "game":
            self._play(c, words)
        elif cmd in ("resume_game_json", "watch_game_json") and rest and rest[0].isdigit():
            self._resume(c, cmd, int(rest[0]))
        elif cmd == "request_draw" and len(rest) == 2 and rest[0].isdigit():
            game = self.games.get(int(rest[0]))
            if game is None or not game.started or game.over or game.dead:
                return
            game.draw_requested = rest[1]
            c.send("= request_draw")
            opp = "defender" if rest[1] == "attacker" else "attacker"
            conn = game.tx.get(opp)
            if conn is not None:
                conn.send(f"request_draw {game.id} {rest[1]}")
        elif cmd == "draw" and len(rest) == 2 and rest[0].isdigit():
            game = self.games.get(int(rest[0]))
            if game is None or game.dead or game.over:
                return
            for conn in game.tx.values():
                if conn is not None:
                    conn.send(f"= draw {rest[1]}")
            game.dead = True          # either answer ends the game, without a record
            if rest[1] == "accept":
                game.over = True
            self.changed = True
        elif cmd == "text_game" and rest and rest[0].isdigit():
            game = self.games.get(int(rest[0]))
            if game is not None:
                text = " ".join(rest[1:])
                self._broadcast(game, f"= text_game (username:{ron_str(user)},"
                                      f"timestamp:{ron_str(stamp())},content:{ron_str(text)})",
                                players=True)
        else:
            c.send(f"? {cmd} unknown error")

    def _start(self, game_id: int) -> None:
        game = self.games.get(game_id)
        if game is None or game.started or game.challenger is None:
            return
        if game.attacker is None:
            game.attacker = game.challenger
        else:
            game.defender = game.challenger
        game.challenger = None
        game.started = True
        game.tx = {"attacker": self.online.get(game.attacker or ""),
                   "defender": self.online.get(game.defender or "")}
        if game.main_ms is not None:
            game.clocks = {"attackers": float(game.main_ms), "defenders": float(game.main_ms)}
        game.last = time.monotonic()
        timed = (f"fischer {game.main_ms} {game.inc_s}" if game.main_ms is not None
                 else "un-timed _ _")
        line = (f"= join_game {game.attacker} {game.defender} "
                f"{'rated' if game.rated else 'unrated'} {timed} {game.size}")
        for conn in game.tx.values():
            if conn is not None:
                conn.send(line)
        first = ROLE[game.board.turn]
        conn = game.tx[first]
        if conn is not None:
            conn.send(f"game {game.id} generate_move {first}")
        self.changed = True

    def _broadcast(self, game: SGame, line: str, players: bool = True,
                   skip: Client | None = None) -> None:
        targets = [c for c in game.tx.values() if c is not None] if players else []
        targets += [c for c in game.watchers.values() if c not in targets]
        for conn in targets:
            if conn is not skip:
                conn.send(line)

    def _end(self, game: SGame, winner: str) -> None:
        game.over = True
        word = "attacker_wins" if winner == "attackers" else "defender_wins"
        self._broadcast(game, f"= game_over {game.id} {word}")
        self._broadcast(game, f'= text_game (username:"\U000131f3",timestamp:"{stamp()}",'
                              'content:"")')
        self.changed = True

    def _charge(self, game: SGame) -> None:
        if game.main_ms is None:
            return
        side = game.board.turn
        now = time.monotonic()
        game.clocks[side] -= (now - game.last) * 1000
        game.last = now
        game.clocks[side] += game.inc_s * 1000   # before the move is checked: the quirk

    def _play(self, c: Client, words: list[str]) -> None:
        if len(words) < 6 or not words[1].isdigit() or words[3] not in SIDE:
            c.send("? game unknown error")
            return
        game = self.games.get(int(words[1]))
        if game is None or game.dead or not game.started:
            c.send("? game unknown error")
            return
        if game.over:
            c.send("? game play: the game is already over")
            return
        side = SIDE[words[3]]
        user = c.user
        if (game.attacker if side == "attackers" else game.defender) != user:
            c.send("? game play: it isn't your turn")
            return
        game.draw_requested = None
        self._charge(game)
        if words[4] == "resigns":
            if game.board.turn != side:
                c.send("? game play: you can't resign for the other player")
                return
            self._broadcast(game, f"game {game.id} play {words[3]} resigns ", skip=c)
            self._end(game, other(side))
            return
        try:
            move = Move(parse_square(words[4], game.size), parse_square(words[5], game.size))
        except ValueError:
            c.send("? game message: play: invalid coordinate")
            return
        board = game.board
        if board.turn != side:
            c.send("? game play: it isn't your turn")
            return
        if board.side_of(move.frm) != side:
            c.send("? game play: it isn't your turn")
            return
        refusal = game.history.refusal(board, move)
        why = board.illegal_code(move)
        if why is not None:
            text = {"jump": "you have to play through empty locations",
                    "diagonal": "you can only play in a straight line",
                    "did_not_move": "you have to change location",
                    "corner_stop": "only the king may move to a restricted square",
                    "throne_stop": "only the king may move to a restricted square",
                    "occupied": "you have to play through empty locations"}.get(
                        why.code, "you have to play through empty locations")
            c.send(f"? game play: {text}")
            return
        if refusal is not None:
            c.send("? game play: you already reached that position")
            return
        plies_before = len(board.move_stack)
        king = board.king
        captured = board.push(move)
        game.history.add(board)
        caps = [square_name(s, game.size) for s in board.geo.iter_bits(captured) if s != king]
        game.texts.append(f"{words[4]}-{words[5]}" + "".join("x" + s for s in caps))
        mover_line = f"game {game.id} play {words[3]} {words[4]} {words[5]}"
        self._broadcast(game, mover_line, skip=c)
        outcome = board.outcome()
        if outcome is not None and outcome.winner is not None:
            self._end(game, outcome.winner)
            return
        if plies_before + 1 >= MOVE_LIMIT:      # the 133rd move draws (unless it won)
            self._broadcast(game, "= draw accept")
            game.over = True
            self.changed = True
            return
        nxt = ROLE[board.turn]
        conn = game.tx.get(nxt)
        if conn is not None:
            conn.send(f"game {game.id} generate_move {nxt}")
        if game.main_ms is not None:
            times = {"id": game.id, "attacker_ms_left": int(game.clocks["attackers"]),
                     "defender_ms_left": int(game.clocks["defenders"])}
            self._broadcast(game, "= game_time " + json.dumps(times, separators=(",", ":")))
        c.send("= game")
        self.changed = True

    def _resume(self, c: Client, cmd: str, game_id: int) -> None:
        game = self.games.get(game_id)
        if game is None or game.over or game.dead:
            return
        user = c.user
        if cmd == "resume_game_json":
            if user == game.attacker:
                game.tx["attacker"] = c
            elif user == game.defender:
                game.tx["defender"] = c
        elif user is not None:
            game.watchers[user] = c
        start = BY_SIZE[game.size].start.replace("t", "A").replace("T", "D")
        doc: dict[str, object] = {
            "id": game.id, "attackers": game.attacker, "defenders": game.defender,
            "dim": game.size, "start": start, "moves": " ".join(game.texts),
            "rated": game.rated, "messages": [],
            "time_control": None, "time_remaining_ms": None,
        }
        if game.main_ms is not None:
            side = game.board.turn
            doc["time_control"] = {"main_time_seconds": game.main_ms // 1000,
                                   "increment_length": game.inc_s}
            doc["time_remaining_ms"] = {
                "attackers": int(game.clocks["attackers"]),
                "defenders": int(game.clocks["defenders"]),
                "last_move": datetime.fromtimestamp(
                    time.time() - (time.monotonic() - game.last), UTC
                ).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"}
            del side
        c.send(f"= {cmd} " + json.dumps(doc, separators=(",", ":"), ensure_ascii=False))
        if cmd == "resume_game_json" and game.draw_requested is not None:
            c.send(f"request_draw {game.id} {game.draw_requested}")
