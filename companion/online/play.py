"""The board's game on the server connection: starting it (joined, adopted, watched, or handed
over by the session after a restart), moves both ways, resuming it at every login, clocks,
draws, resignation, the end and the game's chat. Runs on the network thread, for
:class:`~companion.online.table.GameTable` (which reads the lines) and the session's
:class:`~companion.online.player.OnlinePlayer`. A watched game (``OnlineGame.watching``) is
asked for with ``watch_game_json`` instead of ``resume_game_json`` and sends nothing
(:mod:`companion.online.watch`). Asking the server for the game's record, and giving the game up
when the server no longer answers for it: :class:`~companion.online.resume.GameResume`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from companion.rules import Move, MoveError
from companion.session.remote import (
    RemoteChat,
    RemoteEvent,
    RemoteLeave,
    RemoteRefused,
    RemoteTerms,
)

from .link import Link
from .protocol import (
    ROLES,
    JoinedGame,
    ProtocolError,
    ResumedGame,
    ServerTime,
    parse_chat,
    parse_game_time,
    parse_opentafl,
    parse_square,
    play_line,
    resign_line,
)
from .resume import GameResume
from .server_game import OnlineGame

END_MARKER = "\U000131f3"       # the server's "game over" chat line comes from this name

__all__ = ["GamePlay", "Link", "clock_age", "wall_time"]


def clock_age(doc: ResumedGame, lag: float) -> float:
    """How long ago the clocks of a game document were read: they stand as at the game's last
    move (the side to move has thought since), by the server's wall clock; the link's lag when
    that time is missing or not believable (another machine's clock)."""
    when = wall_time(doc.last_move) if doc.last_move else None
    age = time.time() - when if when is not None else -1.0
    return max(age, lag) if 0.0 <= age < 86400.0 else lag


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
        self.resume = GameResume(link, lambda: self.game)
        self.chat: list[dict[str, object]] = []

    @property
    def busy(self) -> bool:
        return self.game is not None and not self.game.over

    @property
    def watching(self) -> bool:
        return self.busy and self.game is not None and self.game.watching

    @property
    def own_state(self) -> str:
        """The link's state while the game goes on: playing or watching."""
        return "watching" if self.watching else "playing"

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
                          bool(terms.rated), time_, self.link.server, terms.rating,
                          me=terms.local_name)
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
        self.resume.ask()   # or at the login

    def stopped(self) -> None:
        """The session no longer plays (or follows) the game."""
        if self.watching and self.game is not None and self.link.logged_in:
            self.link.send(f"leave_game {self.game.id}")
        self.game = None
        if self.link.state in ("playing", "watching"):
            self.link.state = "lobby"
        self.link.publish()

    def send_move(self, ply: int, move: Move) -> None:
        game = self.game
        if game is None or game.over or game.watching:  # (a watcher sends nothing)
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
        if self.resume.sent is not None or not self.link.logged_in:
            game.unsent = (ply, move)   # sent once the server's record is known
            return
        game.pending = (ply, move)
        self.resume.move_sent()
        self.link.send(play_line(game.id, game.side, move, game.size))

    def send_draw(self, action: str) -> None:
        game = self.game
        if game is None or game.over or game.watching:
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
        if game is None or game.over or game.watching:
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
    def logged_in(self) -> None:
        """A (new) connection is logged in: the game goes on with it."""
        self.link.state = self.own_state if self.busy else "lobby"
        self.resume.logged_in()

    def link_lost(self) -> None:
        self.resume.forget()
        if self.game is not None and self.game.pending is not None:
            self.game.unsent, self.game.pending = self.game.pending, None

    # -- the server's lines about the game ----------------------------------------------------
    def for_game(self, game_id: str, act: Callable[[OnlineGame], list[RemoteEvent]]) -> None:
        """Apply a line about game ``game_id`` (dropped when it is not the board's game)."""
        game = self.game
        if game is None or not game_id.isdigit() or int(game_id) != game.id:
            self.ignore(f"ignored a message for game {game_id[:20]}, which this board does "
                        "not play")
            return
        self.resume.heard(time.monotonic())
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
        self.resume.heard(time.monotonic())
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
            self.resume.ask_again()
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
                               self.link.server, self.link.lobby.ratings.get(opponent), me=me)
        self.chat = []
        self.link.state = "playing"
        self.link.emit(self.game.start_event())
        if joined.time is not None:   # the server's clocks run from join_game: the first side's
            main = joined.time.main_ms
            self.link.emit(self.game.clock(main, main, self.link.lag))
        self.link.publish()

    def resumed(self, text: str) -> None:
        """``= resume_game_json {OPENTAFL}``: the server's record of the game."""
        doc = parse_opentafl(text)
        self.resume.answered()
        game = self.game
        me = self.link.user
        to_send: Move | None = None
        if game is None:
            if me not in (doc.attackers, doc.defenders):
                return
            side = "attackers" if doc.attackers == me else "defenders"
            opponent = doc.defenders if side == "attackers" else doc.attackers
            game = OnlineGame(doc.id, doc.size, side, opponent, doc.rated, doc.time,
                              self.link.server, self.link.lobby.ratings.get(opponent), me=me)
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
            self.resume.move_sent()
            self.link.send(play_line(game.id, game.side, to_send, game.size))
        if doc.attackers_ms is not None and doc.defenders_ms is not None:
            self.link.emit(game.clock(doc.attackers_ms, doc.defenders_ms,
                                      clock_age(doc, self.link.lag)))
        self.link.publish()

    def clock(self, data: object) -> None:
        """``= game_time {"id", "attacker_ms_left", "defender_ms_left"}``."""
        game_id, att, dfn = parse_game_time(data)
        self.for_game(game_id, lambda game: [game.clock(att, dfn, self.link.lag)])

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
            self.link.emit(RemoteLeave(
                "the opponent declined the draw offer, and this server then drops the game "
                "without a result", "draw_declined"))
        self.after_end()

    def after_end(self) -> None:
        if self.game is not None and self.game.over and self.link.state in ("playing",
                                                                             "watching"):
            self.link.state = "lobby"
        self.link.publish()

    def chat_line(self, data: object) -> None:
        """``= text_game (username, timestamp, content)``."""
        by, content, stamp = parse_chat(data)
        if by == END_MARKER and not content:
            return
        when = (wall_time(stamp) if stamp else None) or time.time()
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
        return self.game.status() if self.game is not None else None
