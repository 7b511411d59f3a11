"""The board's game on the server connection: starting it (joined, adopted, or handed over by
the session after a restart), moves both ways, resuming it at every login, clocks, draws,
resignation, the end and the game's chat. Runs on the network thread, for
:class:`~companion.online.table.GameTable` (which reads the lines) and the session's
:class:`~companion.online.player.OnlinePlayer`.
"""

from __future__ import annotations

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

from .game import OnlineGame
from .lobby import Lobby
from .protocol import (
    ROLES,
    JoinedGame,
    ProtocolError,
    ServerTime,
    parse_opentafl,
    parse_square,
    play_line,
    resign_line,
)

END_MARKER = "\U000131f3"       # the server's "game over" chat line comes from this name
RESUME_TIMEOUT = 15.0


class Link(Protocol):
    """What the game needs of the service that owns the connection."""

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


def wall_time(text: str) -> float | None:
    """Seconds since the epoch of the server's RFC 3339 time (nanoseconds allowed)."""
    head, dot, frac = text.rstrip("Z").partition(".")
    try:
        stamp = datetime.fromisoformat(head + "+00:00").timestamp()
    except ValueError:
        return None
    return stamp + (float("0." + frac[:9]) if dot and frac.isdigit() else 0.0)


class GamePlay:
    """The board's game on one server (at most one at a time)."""

    def __init__(self, link: Link, ignore: Callable[[str], None]) -> None:
        self.link = link
        self.ignore = ignore            # a line that does not fit: counted and shown
        self.game: OnlineGame | None = None
        self.resume_sent: float | None = None
        self.resume_tries = 0
        self.pending_at = 0.0
        self.chat: list[dict[str, object]] = []

    @property
    def busy(self) -> bool:
        return self.game is not None and not self.game.over

    # -- the session's side (network thread) ---------------------------------------------------
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

    # -- the connection -----------------------------------------------------------------------
    def resume(self) -> None:
        """Ask for the board's game (re-attaches this connection to it): after every login,
        and whenever the board and the server may disagree."""
        game = self.game
        if game is not None and self.link.logged_in and self.resume_sent is None:
            self.resume_sent = time.monotonic()
            self.link.send(f"resume_game_json {game.id}")

    def logged_in(self) -> None:
        """A (new) connection is logged in: the game goes on with it."""
        self.resume_sent = None
        self.resume_tries = 0
        self.link.state = "playing" if self.busy else "lobby"
        self.resume()

    def link_lost(self) -> None:
        self.resume_sent = None
        if self.game is not None and self.game.pending is not None:
            self.game.unsent, self.game.pending = self.game.pending, None

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

    # -- the server's lines about the game ----------------------------------------------------
    def for_game(self, game_id: str, act: Callable[[OnlineGame], list[RemoteEvent]]) -> None:
        """Apply a line about game ``game_id`` (dropped when it is not the board's game)."""
        game = self.game
        if game is None or not game_id.isdigit() or int(game_id) != game.id:
            self.ignore(f"ignored a message for game {game_id[:20]}, which this board does "
                        "not play")
            return
        for event in act(game):
            self.link.emit(event)
        self.after_end()

    def play_line(self, words: list[str]) -> None:
        """``game ID play ROLE FROM TO`` / ``game ID play ROLE resigns``."""
        game_id, role = words[1], words[3]
        game = self.game
        if role not in ROLES:
            raise ProtocolError(f"game line {' '.join(words)[:60]!r}: unknown role")
        if game is None or not game_id.isdigit() or int(game_id) != game.id:
            self.ignore(f"ignored a move for game {game_id[:20]}, which this board does not "
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
            self.ignore(f"the server's move {words[4]}-{words[5]} does not fit the board's "
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

    def begin(self, game_id: int, joined: JoinedGame) -> None:
        """``= join_game …`` for the board's seek or join: the game starts on the board."""
        me = self.link.user
        side = "attackers" if joined.attacker == me else "defenders"
        opponent = joined.defender if side == "attackers" else joined.attacker
        self.game = OnlineGame(game_id, joined.size, side, opponent, joined.rated, joined.time,
                               self.link.server, self.link.lobby.ratings.get(opponent))
        self.chat = []
        self.link.state = "playing"
        self.link.emit(self.game.start_event())
        self.link.publish()

    def adopt(self, game_id: str) -> None:
        """A game of this account that the board does not know (e.g. a tournament game, or
        one started while the board's store lost it): resume it and start it on the board."""
        if game_id.isdigit() and self.resume_sent is None and self.game is None:
            self.resume_sent = time.monotonic()
            self.link.send(f"resume_game_json {game_id}")

    def resumed(self, text: str) -> None:
        """``= resume_game_json {OPENTAFL}``: the server's record of the game."""
        doc = parse_opentafl(text)
        self.resume_sent = None
        self.resume_tries = 0
        game = self.game
        me = self.link.user
        to_send: Move | None = None
        if game is None:
            if me not in (doc.attackers, doc.defenders):
                return
            side = "attackers" if doc.attackers == me else "defenders"
            opponent = doc.defenders if side == "attackers" else doc.attackers
            game = OnlineGame(doc.id, doc.size, side, opponent, doc.rated, doc.time,
                              self.link.server, self.link.lobby.ratings.get(opponent))
            game.reconcile(doc, [])          # the mirror takes the server's record
            self.game = game
            self.link.state = "playing"
            self.link.emit(game.start_event())
        else:
            if doc.id != game.id:
                self.ignore(f"ignored the record of game {doc.id}, which this board does "
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
            self.pending_at = time.monotonic()
            self.link.send(play_line(game.id, game.side, to_send, game.size))
        if doc.attackers_ms is not None and doc.defenders_ms is not None:
            self.link.emit(game.clock(doc.attackers_ms, doc.defenders_ms, self.link.lag))
        self.link.publish()

    def clock(self, data: object) -> None:
        """``= game_time {"id", "attacker_ms_left", "defender_ms_left"}``."""
        if not isinstance(data, dict):
            raise ProtocolError("game_time is not a JSON object")
        att, dfn, game_id = (data.get("attacker_ms_left"), data.get("defender_ms_left"),
                             data.get("id"))
        if not isinstance(att, int) or not isinstance(dfn, int):
            raise ProtocolError("game_time needs attacker_ms_left and defender_ms_left")
        self.for_game(str(game_id), lambda game: [game.clock(att, dfn, self.link.lag)])

    def draw_answer(self, word: str) -> None:
        """``= draw accept`` (agreement, or the move limit) / ``= draw decline``."""
        game = self.game
        if game is None or game.over:
            return
        if word == "accept":
            for event in game.draw_agreed():
                self.link.emit(event)
        elif word == "decline":
            game.over = True
            self.link.emit(RemoteStatus(
                "error", "the opponent declined the draw offer, and this server then drops "
                "the game without a result", "draw_declined"))
        self.after_end()

    def after_end(self) -> None:
        if self.game is not None and self.game.over and self.link.state == "playing":
            self.link.state = "lobby"
        self.link.publish()

    def chat_line(self, data: object) -> None:
        """``= text_game (username, timestamp, content)``."""
        if not isinstance(data, dict):
            raise ProtocolError("text_game is not a (username, timestamp, content) struct")
        by, content = data.get("username"), data.get("content")
        if not isinstance(by, str) or not isinstance(content, str):
            raise ProtocolError("text_game needs a username and content")
        if by == END_MARKER and not content:
            return
        stamp = data.get("timestamp")
        wall = wall_time(stamp) if isinstance(stamp, str) else None
        when = wall or time.time()
        self.chat = (self.chat + [{"by": by[:40], "text": content[:1024], "wall": when}])[-50:]
        self.link.emit(RemoteChat(by[:40], content[:1024], when))
        self.link.publish()

    def refused(self, error: str) -> None:
        """``? game ERROR``: the board's move in flight was refused (or an answer to nothing)."""
        if self.game is not None and self.game.pending is not None:
            for event in self.game.refused(error):
                self.link.emit(event)
        else:
            self.ignore(f"the server answered: {error}")

    def accepted(self) -> None:
        if self.game is not None:
            self.game.accepted()

    # -- for the page -------------------------------------------------------------------------
    def status(self) -> dict[str, object] | None:
        game = self.game
        if game is None:
            return None
        return {"id": game.id, "side": game.side, "opponent": game.opponent,
                "rating": game.rating, "rated": game.rated, "variant": game.rules.id,
                "size": game.size, "time_control": game.time.text if game.time else "none",
                "plies": game.plies, "over": game.over, "draw_offer": game.draw_offered_by}
