"""Watching a game of two other players on the server, on the board: the page's requests (watch a
game in progress, stop watching) and the server's record of the game (``= watch_game_json``).

The watched game then lives in :class:`~companion.online.play.GamePlay` like the board's own
(its moves, clocks, end and chat come in the same lines), as an
:class:`~companion.online.server_game.OnlineGame` without a side of its own: both sides' moves go to
the session as moves to make. Runs on the network thread.
"""

from __future__ import annotations

import time

from companion.rules import MoveError
from companion.rules.game import Game
from companion.session.remote import RemoteLeave, RemoteTerms

from .play import GamePlay, clock_age
from .protocol import ResumedGame, ServerTime, parse_opentafl
from .server_game import OnlineGame, resumed_moves

#: How long the server may take to answer ``watch_game_json`` (it answers nothing for a game
#: that is over or unknown).
ASK_TIMEOUT = 15.0
#: A watched game that left the lobby is asked for again after this (its ``game_over``, when
#: the server sends one, comes first).
WATCH_RECHECK = 3.0


def legal_plies(game: OnlineGame, doc: ResumedGame) -> int:
    """How many moves of the record ``doc`` the rules of ``game`` allow from the start."""
    probe = Game(game.rules)
    moves = [m.move for m in resumed_moves(doc) if m.move is not None]
    for ply, move in enumerate(moves):
        try:
            probe.play(move)
        except MoveError:
            return ply
    return len(moves)


class GameWatch:
    """The page's watching of a game on the server (see the module docstring)."""

    def __init__(self, play: GamePlay) -> None:
        self.play = play
        self.link = play.link
        self.asked: int | None = None       # a game asked for, not answered yet
        self.asked_at = 0.0

    def start(self, game_id: int) -> None:
        """Watch game ``game_id`` (instead of the one watched now)."""
        play = self.play
        if play.busy and not play.watching:
            self.link.note("a game is being played: finish it before watching another", "busy")
            return
        current = play.game if play.watching else None
        if current is not None and current.id == game_id:
            return
        listed = self.link.lobby.games.get(game_id)
        if listed is not None and self.link.user in (listed.attacker, listed.defender):
            self.link.note(f"game {game_id} is a game of this account: it is played on the "
                           "board, not watched", "watch_own_game")
            return
        self.asked, self.asked_at = game_id, time.monotonic()
        self.link.send(f"watch_game_json {game_id}")
        self.link.note(f"asking the server for game {game_id}", "watch_asked")

    def again(self, terms: RemoteTerms) -> None:
        """The session follows the watched game of ``terms`` (after a restart, or to resync):
        ask the server for its record (the answer starts it again with every move; the
        session keeps what the board made of it)."""
        server, _, game_id = terms.ref.rpartition("/")
        if server != self.link.server or not game_id.isdigit() or terms.watched is None:
            return
        play, seats = self.play, terms.watched
        current = play.game
        if current is None or current.id != int(game_id) or not current.watching:
            time_ = None if terms.time_control is None else ServerTime(
                int(terms.time_control.main * 1000), int(terms.time_control.increment))
            play.game = OnlineGame(int(game_id), terms.settings.rules().size, "",
                                   terms.opponent, bool(terms.rated), time_, self.link.server,
                                   watched=(seats[0].name, seats[1].name),
                                   ratings=(seats[0].rating, seats[1].rating))
        if self.link.logged_in:
            self.link.state = "watching"
        play.resume.ask_again()   # (or at the login)

    def stop(self) -> None:
        """Stop watching: the server stops sending the game; the board lets it go."""
        self.asked = None
        play = self.play
        game = play.game
        if game is None or not game.watching:
            return
        if not game.over:
            self.link.send(f"leave_game {game.id}")
            self.link.emit(RemoteLeave(f"stopped watching game {game.id}", "stopped_watching"))
        play.game = None
        play.resume.forget()
        if self.link.state == "watching":
            self.link.state = "lobby"
        self.link.publish()

    def answer(self, text: str) -> None:
        """``= watch_game_json {OPENTAFL}``: the record of a game asked for, or of the game
        watched (asked for again after a login, a resync, or a long silence)."""
        doc = parse_opentafl(text)
        play = self.play
        current = play.game if play.game is not None and play.game.watching else None
        asked = doc.id == self.asked
        if not asked and (current is None or current.id != doc.id):
            play.ignore(f"ignored the record of game {doc.id}, which this board does not "
                        "watch")
            return
        if asked:
            self.asked = None
            if self.link.user in (doc.attackers, doc.defenders):
                self.link.note(f"game {doc.id} is a game of this account: it is played on the "
                               "board, not watched", "watch_own_game")
                return
        else:
            play.resume.answered()
            play.resume.heard(time.monotonic())
        ratings = self.link.lobby.ratings
        game = OnlineGame(doc.id, doc.size, "", f"{doc.attackers} – {doc.defenders}", doc.rated,
                          doc.time, self.link.server, watched=(doc.attackers, doc.defenders),
                          ratings=(ratings.get(doc.attackers), ratings.get(doc.defenders)))
        game.reconcile(doc, [])          # the mirror takes the server's record
        problem = None
        if current is not None and current.id == doc.id and doc.size != current.size:
            problem = "is for another board size"
        elif game.plies != len(resumed_moves(doc)):
            problem = f"has a move the rules do not allow (move {legal_plies(game, doc) + 1})"
        if problem is not None:   # nothing changes: the board keeps what it shows
            self.link.note(f"the server's record of game {doc.id} {problem}: ignored",
                           "watch_bad_record")
            return
        if current is not None and current.id != doc.id:
            if not current.over:
                self.link.send(f"leave_game {current.id}")   # the one watched before
            current = None
        if asked:
            play.resume.answered()
            play.resume.heard(time.monotonic())
        if current is None:
            play.chat = []
        play.game = game
        self.link.state = "watching"
        self.link.emit(game.start_event())  # the session keeps what the board made of it
        if doc.attackers_ms is not None and doc.defenders_ms is not None:
            self.link.emit(game.clock(doc.attackers_ms, doc.defenders_ms,
                                      clock_age(doc, self.link.lag)))
        if asked:   # (asked again, the message of why stays on the page)
            self.link.note(f"watching game {doc.id}: {doc.attackers} against {doc.defenders}",
                           "watching")
        else:
            self.link.publish()

    def lobby_changed(self, listed_before: bool) -> None:
        """The lobby changed: a watched game that left it ended (or was dropped): ask for it
        soon (a finished game gets no answer: it is then let go)."""
        play = self.play
        if play.watching and play.game is not None and listed_before and \
                play.game.id not in self.link.lobby.games:
            play.resume.recheck_by(time.monotonic() + WATCH_RECHECK)

    def timers(self, now: float) -> None:
        self.play.resume.recheck_watched(now)
        if self.asked is not None and now - self.asked_at > ASK_TIMEOUT:
            game_id, self.asked = self.asked, None
            self.link.note(f"the server did not answer for game {game_id}: it is over, or "
                           "there is no such game", "watch_unanswered")

