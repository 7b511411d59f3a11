"""What the server's lines mean for this board: the login answers, the lobby, seeks and the
join handshake, and the board's game (moves both ways, clocks, draws, resignation, the end,
chat, resuming after a reconnect). Runs on the network thread of
:class:`~companion.online.service.OnlineService` (its ``link``).

Every line is checked; one that does not fit (garbage, a JSON or RON that does not parse, a
move for a game this board does not play, an illegal move) is dropped with a status for the
page, and never changes the game.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from companion.rules import Move, MoveError
from companion.session.remote import (
    RemoteChat,
    RemoteEvent,
    RemoteRefused,
    RemoteStatus,
    RemoteTerms,
)

from . import ron
from .game import OnlineGame
from .lobby import Lobby
from .protocol import (
    ROLES,
    ProtocolError,
    ServerTime,
    new_game_line,
    parse_join,
    parse_opentafl,
    parse_square,
    play_line,
    resign_line,
)

log = logging.getLogger("companion.online")

END_MARKER = "\U000131f3"       # the server's "game over" chat line comes from this name
RESUME_TIMEOUT = 15.0
LOGIN_ERRORS = {
    "wrong_version": ("the server speaks another protocol version: set [online] version to "
                      "the server's version id", False),
    "wrong_password": ("the server refused the password", False),
    "account_not_in_database": ("the server has no such account (create it on the page)",
                                False),
    "logged_in_already": ("the server still holds this account's previous connection (after "
                          "a crash it keeps it until it notices, up to ~15 minutes)", True),
    "already_exists": ("an account of that name exists already", False),
    "profane_or_sexual": ("the server refused that user name", False),
    "is_not_alphanumeric": ("a user name may have letters, digits and single - or _ only",
                            False),
}


class Link(Protocol):
    """What the table needs of the service that owns the connection."""

    lobby: Lobby
    server: str
    lag: float
    state: str
    logged_in: bool

    @property
    def user(self) -> str | None: ...
    def send(self, line: str) -> None: ...
    def emit(self, event: RemoteEvent) -> None: ...
    def note(self, message: str) -> None: ...
    def publish(self) -> None: ...
    def logged_in_ok(self) -> None: ...
    def pong(self) -> None: ...
    def login_failed(self, code: str, message: str, retry: bool,
                     until: float | None = None) -> None: ...


def _wall(text: str) -> float | None:
    """Seconds since the epoch of the server's RFC 3339 time (nanoseconds allowed)."""
    head, dot, frac = text.rstrip("Z").partition(".")
    try:
        stamp = datetime.fromisoformat(head + "+00:00").timestamp()
    except ValueError:
        return None
    return stamp + (float("0." + frac[:9]) if dot and frac.isdigit() else 0.0)


class GameTable:
    """The lobby and the board's game on one server connection."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.game: OnlineGame | None = None
        self.seek_id: int | None = None
        self.seek_pending: tuple[str, int, bool, ServerTime | None] | None = None
        self.join_id: int | None = None
        self.resume_sent: float | None = None
        self.chat: list[dict[str, object]] = []
        self.ignored = 0
        self.pending_at = 0.0
        self.resume_tries = 0

    # -- the page's and the session's requests (network thread) -------------------------------
    def seek(self, side: str, size: int, rated: bool, control: ServerTime | None) -> None:
        if self.game is not None and not self.game.over:
            self.link.note("a game is being played: finish it before opening another")
            return
        self.leave()
        self.seek_pending = (side, size, rated, control)
        self.link.send(new_game_line(side, rated, control, size))
        self.link.state = "seeking"
        self.link.publish()

    def join(self, game_id: int) -> None:
        if self.game is not None and not self.game.over:
            self.link.note("a game is being played: finish it before joining another")
            return
        self.leave()
        self.join_id = game_id
        self.link.send(f"join_game_pending {game_id}")
        self.link.state = "seeking"
        self.link.publish()

    def leave(self) -> None:
        for game_id in (self.seek_id, self.join_id):
            if game_id is not None:
                self.link.send(f"leave_game {game_id}")
        self.seek_id = self.join_id = None
        self.seek_pending = None
        if self.link.state == "seeking":
            self.link.state = "lobby"
        self.link.publish()

    def started(self, terms: RemoteTerms, moves: tuple[Move, ...]) -> None:
        """The session plays ``terms`` now: adopt it (after a restart: resume it)."""
        server, _, game_id = terms.ref.rpartition("/")
        if server != self.link.server or not game_id.isdigit():
            return
        current = self.game
        if current is not None and current.id == int(game_id) and current.moves() == list(moves):
            return
        time_ = None
        if terms.time_control is not None:
            time_ = ServerTime(int(terms.time_control.main * 1000),
                               int(terms.time_control.increment))
        size = terms.settings.rules().size
        game = OnlineGame(int(game_id), size, terms.local_side, terms.opponent,
                          bool(terms.rated), time_, self.link.server, terms.rating)
        for move in moves:
            try:
                game.apply(move)
            except MoveError:
                break
        if len(moves) > game.plies:  # the board's last move was never answered: resend it
            game.unsent = (game.plies, moves[game.plies])
        self.game = game
        if self.link.logged_in:
            self.link.state = "playing"
        self.resume()   # or at the login

    def stopped(self) -> None:
        self.game = None
        if self.link.state == "playing":
            self.link.state = "lobby"
        self.link.publish()

    def send_move(self, ply: int, move: Move) -> None:
        game = self.game
        if game is None or game.over:
            return
        if ply < game.plies:
            return  # already on the server (e.g. a move the server sent us)
        if ply != game.plies or game.turn != game.side or game.pending is not None:
            self.link.note(f"the board's move of ply {ply} does not follow the server's game")
            return
        why = game.refusal(move)
        if why is not None:
            self.link.emit(RemoteRefused(ply, why))
            return
        if self.resume_sent is not None or not self.link.logged_in:
            game.unsent = (ply, move)   # sent once the server's record is known
            return
        game.pending = (ply, move)
        self.pending_at = time.monotonic()
        self.link.send(play_line(game.id, game.side, move, game.size))

    def send_draw(self, action: str) -> None:
        game = self.game
        if game is None or game.over:
            return
        if action == "offer":
            self.link.send(f"request_draw {game.id} {game.side[:-1]}")
        elif action == "accept" and game.draw_offered_by is not None:
            self.link.send(f"draw {game.id} accept")
        # "decline": never sent (the server would drop the game): playing on declines

    def send_resign(self) -> None:
        """Resign; the server takes a resignation only on one's own turn, so one made during
        the opponent's turn is sent when the turn comes."""
        game = self.game
        if game is None or game.over:
            return
        if game.turn == game.side and game.pending is None and self.link.logged_in:
            game.resigned = game.side   # the server does not echo it to the resigning side
            game.resign_sent = True
            self.link.send(resign_line(game.id, game.side))
        else:
            game.resign_wanted = True

    def send_chat(self, text: str) -> None:
        if self.game is not None and text:
            self.link.send(f"text_game {self.game.id} {text}")

    # -- the connection ---------------------------------------------------------------------
    def resume(self) -> None:
        """Ask for the board's game (re-attaches this connection to it): after every login,
        and whenever the board and the server may disagree."""
        game = self.game
        if game is not None and self.link.logged_in and self.resume_sent is None:
            self.resume_sent = time.monotonic()
            self.link.send(f"resume_game_json {game.id}")

    def link_lost(self) -> None:
        self.resume_sent = None
        self.seek_id = self.join_id = None
        self.seek_pending = None
        if self.game is not None and self.game.pending is not None:
            self.game.unsent, self.game.pending = self.game.pending, None

    def logged_in(self) -> None:
        """A (new) connection is logged in: the game goes on with it."""
        self.resume_sent = None
        self.resume_tries = 0
        self.link.state = "playing" if self.game is not None and not self.game.over else "lobby"
        self.resume()

    def timers(self, now: float) -> None:
        game = self.game
        if game is not None and game.pending is not None and self.resume_sent is None and \
                now - self.pending_at > RESUME_TIMEOUT:
            # the server answers some malformed moves with nothing at all: ask for the game
            self.link.note("the server did not answer the board's move; asking for the game")
            self.resume()
        if self.resume_sent is not None and now - self.resume_sent > RESUME_TIMEOUT:
            self.resume_sent = None
            self.resume_tries += 1
            if self.resume_tries < 3:   # the server answers nothing for a game it no longer has
                self.resume()
            elif self.game is not None:
                self.game.over = True
                self.link.emit(RemoteStatus(
                    "error", "the server no longer has this game (it ended while the board "
                    "was away); its result is on the server", "game_gone"))
                self.link.state = "lobby"
                self.link.publish()

    # -- lines --------------------------------------------------------------------------------
    def handle_line(self, line: str) -> None:
        words = line.split(" ")
        try:
            if words[0] == "=" and len(words) > 1:
                self._answer(words[1], line, words[2:])
            elif words[0] == "?" and len(words) > 1:
                self._failure(words[1], words[2:])
            elif words[0] == "game" and len(words) >= 4:
                self._game_line(words)
            elif words[0] == "request_draw" and len(words) == 3:
                self._for_game(words[1], lambda game: game.draw_offer())
            elif words[0] == "version":
                pass
            else:
                self._ignore(f"ignored a line the client does not know: {line[:60]!r}")
        except (ProtocolError, ron.RonError, ValueError) as exc:
            self._ignore(f"ignored a line from the server that does not fit: {exc}")

    def _ignore(self, message: str) -> None:
        self.ignored += 1
        self.link.note(message)

    def _payload(self, line: str, command: str) -> str:
        return line[len("= ") + len(command):].strip()

    def _answer(self, command: str, line: str, rest: list[str]) -> None:
        link = self.link
        if command == "login":
            link.logged_in_ok()
            self.logged_in()
            link.publish()
        elif command == "initialize_display":
            link.lobby.initialize(ron.loads(self._payload(line, command)))
            link.publish()
        elif command == "games_updated":
            link.lobby.update(json.loads(self._payload(line, command)))
            link.publish()
        elif command == "users_updated":
            link.lobby.users(ron.loads(self._payload(line, command)))
        elif command == "ping":
            link.pong()
            link.publish()
        elif command == "new_game" and rest and rest[0].isdigit():
            self.seek_id, self.seek_pending = int(rest[0]), None
            link.publish()
        elif command == "challenge_requested" and rest and rest[0].isdigit():
            if int(rest[0]) == self.seek_id:
                link.send(f"join_game {self.seek_id}")   # the creator accepts the challenger
        elif command == "join_game" and len(rest) == 7:
            self._joined(rest)
        elif command == "game":
            if self.game is not None:
                self.game.accepted()
        elif command == "game_time":
            self._clock(json.loads(self._payload(line, command)))
        elif command == "game_over" and len(rest) == 2:
            self._for_game(rest[0], lambda game: game.game_over(rest[1]))
            self._after_end()
        elif command == "draw" and rest:
            self._draw_answer(rest[0])
        elif command == "resume_game_json":
            self._resumed(self._payload(line, command))
        elif command == "text_game":
            self._chat(ron.loads(self._payload(line, command)))
        elif command in ("join_game_pending", "leave_game", "decline_game", "request_draw",
                         "text", "texts", "email", "tournament_status", "logout",
                         "accounts_updated", "change_password"):
            pass
        else:
            self._ignore(f"ignored an answer the client does not know: = {command}")

    def _failure(self, command: str, rest: list[str]) -> None:
        if command in ("login", "create_account"):
            detail = rest[-1] if rest else "unknown"
            if len(rest) >= 2 and rest[-2] == "retried_too_soon":
                self.link.login_failed("retried_too_soon", "the server asks to wait before "
                                       "the next login", True, _wall(rest[-1]))
                return
            if rest and rest[0] == "_":      # "? login _ username is more than 16 characters"
                self.link.login_failed("bad_account", " ".join(rest[1:]), False)
                return
            key = next((w for w in rest if w in LOGIN_ERRORS), detail)
            message, retry = LOGIN_ERRORS.get(key, (f"the server refused the login ({key})",
                                                    False))
            self.link.login_failed(key, message, retry)
        elif command == "game":
            error = " ".join(rest)
            if self.game is not None and self.game.pending is not None:
                for event in self.game.refused(error):
                    self.link.emit(event)
            else:
                self._ignore(f"the server answered: {error}")
        else:
            self._ignore(f"the server refused {command}: {' '.join(rest)[:80]}")

    def _for_game(self, game_id: str,
                  act: Callable[[OnlineGame], list[RemoteEvent]]) -> None:
        game = self.game
        if game is None or not game_id.isdigit() or int(game_id) != game.id:
            self._ignore(f"ignored a message for game {game_id[:20]}, which this board does "
                         "not play")
            return
        for event in act(game):
            self.link.emit(event)
        self.link.publish()

    def _game_line(self, words: list[str]) -> None:
        """``game ID play ROLE FROM TO`` / ``game ID play ROLE resigns`` /
        ``game ID generate_move ROLE``."""
        game_id, kind, role = words[1], words[2], words[3]
        game = self.game
        if kind == "generate_move":
            if game is None and self.join_id is None and self.seek_id is None:
                self._adopt(game_id)
            return
        if kind != "play" or role not in ROLES:
            raise ProtocolError(f"game line {' '.join(words)[:60]!r} is not play/generate_move")
        if game is None or not game_id.isdigit() or int(game_id) != game.id:
            self._ignore(f"ignored a move for game {game_id[:20]}, which this board does not "
                         "play")
            return
        side = ROLES[role]
        if len(words) >= 5 and words[4] == "resigns":
            game.resigned = side
            return
        if len(words) != 6:
            raise ProtocolError(f"a move line has {len(words)} words, 6 expected")
        move = Move(parse_square(words[4], game.size), parse_square(words[5], game.size))
        if side == game.side:
            return  # our own move, as the server echoes it to watchers
        try:
            events = game.opponent_move(side, move)
        except MoveError as exc:
            self._ignore(f"the server's move {words[4]}-{words[5]} does not fit the board's "
                         f"game ({exc}); asking the server for the whole game")
            self.resume_sent = None
            self.resume()
            return
        for event in events:
            self.link.emit(event)
        if game.resign_wanted:
            game.resign_wanted = False
            self.send_resign()
        self.link.publish()

    def _joined(self, words: list[str]) -> None:
        joined = parse_join(words)
        game_id = self.seek_id if self.seek_id is not None else self.join_id
        me = self.link.user
        if game_id is None or me not in (joined.attacker, joined.defender):
            self._ignore("ignored a game start for a game this board did not ask for")
            return
        side = "attackers" if joined.attacker == me else "defenders"
        opponent = joined.defender if side == "attackers" else joined.attacker
        self.seek_id = self.join_id = None
        self.game = OnlineGame(game_id, joined.size, side, opponent, joined.rated, joined.time,
                               self.link.server, self.link.lobby.ratings.get(opponent))
        self.chat = []
        self.link.state = "playing"
        self.link.emit(self.game.start_event())
        self.link.publish()

    def _adopt(self, game_id: str) -> None:
        """A game of this account that the board does not know (e.g. a tournament game, or
        one started while the board's store lost it): resume it and start it on the board."""
        if game_id.isdigit() and self.resume_sent is None:
            self.resume_sent = time.monotonic()
            self.link.send(f"resume_game_json {game_id}")

    def _resumed(self, text: str) -> None:
        doc = parse_opentafl(text)
        self.resume_sent = None
        self.resume_tries = 0
        game = self.game
        me = self.link.user
        if game is None:
            if me not in (doc.attackers, doc.defenders):
                return
            side = "attackers" if doc.attackers == me else "defenders"
            opponent = doc.defenders if side == "attackers" else doc.attackers
            game = OnlineGame(doc.id, doc.size, side, opponent, doc.rated, doc.time,
                              self.link.server, self.link.lobby.ratings.get(opponent))
            self.game = game
            self.link.state = "playing"
            events, to_send = game.reconcile(doc, [])
            self.link.emit(game.start_event() if not events else events[0])
        else:
            if doc.id != game.id:
                self._ignore(f"ignored the record of game {doc.id}, which this board does "
                             "not play")
                return
            extra = game.unsent or game.pending
            stored = game.moves() + ([extra[1]] if extra else [])
            game.unsent = game.pending = None
            events, to_send = game.reconcile(doc, stored)
            for event in events:
                self.link.emit(event)
        if to_send is not None:
            game.pending = (game.plies, to_send)
            self.link.send(play_line(game.id, game.side, to_send, game.size))
        if doc.attackers_ms is not None and doc.defenders_ms is not None:
            self.link.emit(game.clock(doc.attackers_ms, doc.defenders_ms, self.link.lag))
        self.link.publish()

    def _clock(self, data: object) -> None:
        if not isinstance(data, dict):
            raise ProtocolError("game_time is not a JSON object")
        att, dfn, game_id = (data.get("attacker_ms_left"), data.get("defender_ms_left"),
                             data.get("id"))
        if not isinstance(att, int) or not isinstance(dfn, int):
            raise ProtocolError("game_time needs attacker_ms_left and defender_ms_left")
        self._for_game(str(game_id), lambda game: [game.clock(att, dfn, self.link.lag)])

    def _draw_answer(self, word: str) -> None:
        game = self.game
        if game is None or game.over:
            return
        if word == "accept":
            for event in game.draw_agreed():
                self.link.emit(event)
            self._after_end()
        elif word == "decline":
            game.over = True
            self.link.emit(RemoteStatus(
                "error", "the opponent declined the draw offer, and this server then drops "
                "the game without a result", "draw_declined"))
            self._after_end()

    def _after_end(self) -> None:
        if self.game is not None and self.game.over:
            self.link.state = "lobby"
        self.link.publish()

    def _chat(self, data: object) -> None:
        if not isinstance(data, dict):
            raise ProtocolError("text_game is not a (username, timestamp, content) struct")
        by, content = data.get("username"), data.get("content")
        if not isinstance(by, str) or not isinstance(content, str):
            raise ProtocolError("text_game needs a username and content")
        if by == END_MARKER and not content:
            return
        stamp = data.get("timestamp")
        wall = _wall(stamp) if isinstance(stamp, str) else None
        when = wall or time.time()
        self.chat = (self.chat + [{"by": by[:40], "text": content[:1024], "wall": when}])[-50:]
        self.link.emit(RemoteChat(by[:40], content[:1024], when))
        self.link.publish()

    # -- for the page -------------------------------------------------------------------------
    def game_status(self) -> dict[str, object] | None:
        game = self.game
        if game is None:
            return None
        return {"id": game.id, "side": game.side, "opponent": game.opponent,
                "rating": game.rating, "rated": game.rated, "variant": game.rules.id,
                "size": game.size, "time_control": game.time.text if game.time else "none",
                "plies": game.plies, "over": game.over, "draw_offer": game.draw_offered_by}

    def extra_status(self) -> dict[str, object]:
        return {"seek": self.seek_id, "join": self.join_id, "chat": list(self.chat[-20:]),
                "ignored": self.ignored}
