"""What the server's lines mean for this board: the login answers, the lobby, seeks and the
join handshake; lines about the board's game go to :class:`~companion.online.play.GamePlay`,
watching a game to :class:`~companion.online.watch.GameWatch`.
Runs on the network thread of :class:`~companion.online.service.OnlineService` (its ``link``).

Every line is checked; one that does not fit (garbage, a JSON or RON that does not parse, a
move for a game this board does not play, an illegal move) is dropped with a status for the
page, and never changes the game.
"""

from __future__ import annotations

import logging

from . import ron
from .link import Link
from .play import GamePlay, wall_time
from .protocol import ProtocolError, ServerTime, new_game_line, parse_join, parse_json
from .watch import GameWatch

log = logging.getLogger("companion.online")

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
#: Answers that need nothing of this client.
QUIET = ("join_game_pending", "leave_game", "decline_game", "request_draw", "text", "texts",
         "email", "tournament_status", "logout", "accounts_updated", "change_password")

__all__ = ["GameTable", "Link"]


class GameTable:
    """The lobby, the board's seek or join, and the dispatch of every line."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.play = GamePlay(link, self._ignore)
        self.watch = GameWatch(self.play)
        self.seek_id: int | None = None
        self.join_id: int | None = None
        self.ignored = 0

    # -- the page's requests (network thread) ---------------------------------------------------
    def _busy(self, what: str) -> bool:
        if self.play.watching:
            self.link.note(f"a game is being watched: stop watching it before {what}", "busy")
        elif self.play.busy:
            self.link.note(f"a game is being played: finish it before {what}", "busy")
        return self.play.busy

    def seek(self, side: str, size: int, rated: bool, control: ServerTime | None) -> None:
        if self._busy("opening another"):
            return
        self.leave()
        self.link.send(new_game_line(side, rated, control, size))
        self.link.state = "seeking"
        self.link.publish()

    def join(self, game_id: int) -> None:
        if self._busy("joining another"):
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
        if self.link.state == "seeking":
            self.link.state = "lobby"
        self.link.publish()

    def watch_game(self, game_id: int) -> None:
        """Watch a game in progress on the board (a seek or join of the board's is withdrawn)."""
        if not self.play.watching:
            self.leave()
        self.watch.start(game_id)

    # -- the connection -----------------------------------------------------------------------
    def link_lost(self) -> None:
        self.seek_id = self.join_id = None   # the server drops a pending game with the link
        self.play.link_lost()

    def timers(self, now: float) -> None:
        self.play.resume.timers(now)
        self.watch.timers(now)

    # -- lines --------------------------------------------------------------------------------
    def handle_line(self, line: str) -> None:
        # a long line is a payload (JSON or RON): its words are not needed, and splitting a
        # hostile megabyte of spaces would make a million strings
        words = line.split(" ") if len(line) <= 1024 else line.split(" ", 2)
        try:
            if words[0] == "=" and len(words) > 1:
                self._answer(words[1], line[len("= ") + len(words[1]):].strip(), words[2:])
            elif words[0] == "?" and len(words) > 1:
                self._failure(words[1], words[2:])
            elif words[0] == "game" and len(words) >= 4 and words[2] == "generate_move":
                if not self.play.busy and self.join_id is None and self.seek_id is None:
                    self.play.resume.adopt(words[1])
            elif words[0] == "game" and len(words) >= 4 and words[2] == "play":
                self.play.play_line(words)
            elif words[0] == "request_draw" and len(words) == 3:
                self.play.for_game(words[1], lambda game: game.draw_offer())
            elif words[0] != "version":
                self._ignore(f"ignored a line the client does not know: {line[:60]!r}")
        except (ProtocolError, ron.RonError, ValueError) as exc:
            self._ignore(f"ignored a line from the server that does not fit: {exc}")

    def _ignore(self, message: str) -> None:
        self.ignored += 1
        self.link.note(message)

    def _answer(self, command: str, payload: str, rest: list[str]) -> None:
        link, play = self.link, self.play
        if command == "login":
            link.logged_in_ok()
            play.logged_in()
            link.publish()
        elif command == "initialize_display":
            link.lobby.initialize(ron.loads(payload))
            link.publish()
        elif command == "games_updated":
            game = play.game
            listed = game is not None and game.id in link.lobby.games
            link.lobby.update(parse_json(payload))
            self.watch.lobby_changed(listed)
            link.publish()
        elif command == "users_updated":
            link.lobby.users(ron.loads(payload))
        elif command == "ping":
            link.pong()
            link.publish()
        elif command == "new_game" and rest and rest[0].isdigit():
            self.seek_id = int(rest[0])
            link.publish()
        elif command == "challenge_requested" and rest and rest[0].isdigit():
            if int(rest[0]) == self.seek_id:
                link.send(f"join_game {self.seek_id}")   # the creator accepts the challenger
        elif command == "join_game" and len(rest) == 7:
            self._joined(rest)
        elif command == "game":
            play.accepted()
        elif command == "game_time":
            play.clock(parse_json(payload))
        elif command == "game_over" and len(rest) == 2:
            play.for_game(rest[0], lambda game: game.game_over(rest[1]))
        elif command == "draw" and rest:
            play.draw_answer(rest[0])
        elif command == "resume_game_json":
            play.resumed(payload)
        elif command == "watch_game_json":
            self.watch.answer(payload)
        elif command == "text_game":
            play.chat_line(ron.loads(payload))
        elif command not in QUIET:
            self._ignore(f"ignored an answer the client does not know: = {command}")

    def _failure(self, command: str, rest: list[str]) -> None:
        if command in ("login", "create_account") and self.link.logged_in:
            # an answer to no login of this connection (it is logged in: the server sends these
            # only to a login line): a stray or forged line must not end the session for good
            self._ignore(f"ignored a login refusal while logged in: {' '.join(rest)[:80]}")
            return
        if command in ("login", "create_account"):
            detail = rest[-1] if rest else "unknown"
            if len(rest) >= 2 and rest[-2] == "retried_too_soon":
                self.link.login_failed("retried_too_soon", "the server asks to wait before "
                                       "the next login", True, wall_time(rest[-1]))
                return
            if rest and rest[0] == "_":      # "? login _ username is more than 16 characters"
                self.link.login_failed("bad_account", " ".join(rest[1:]), False)
                return
            key = next((w for w in rest if w in LOGIN_ERRORS), detail)
            message, retry = LOGIN_ERRORS.get(key, (f"the server refused the login ({key})",
                                                    False))
            self.link.login_failed(key, message, retry)
        elif command == "game":
            self.play.refused(" ".join(rest))
        else:
            self._ignore(f"the server refused {command}: {' '.join(rest)[:80]}")

    def _joined(self, words: list[str]) -> None:
        joined = parse_join(words)
        game_id = self.seek_id if self.seek_id is not None else self.join_id
        if game_id is None or self.link.user not in (joined.attacker, joined.defender):
            self._ignore("ignored a game start for a game this board did not ask for")
            return
        self.seek_id = self.join_id = None
        self.play.begin(game_id, joined)

    # -- for the page -------------------------------------------------------------------------
    def game_status(self) -> dict[str, object] | None:
        return self.play.status()

    def extra_status(self) -> dict[str, object]:
        return {"seek": self.seek_id, "join": self.join_id, "chat": list(self.play.chat[-20:]),
                "ignored": self.ignored, "asked_to_watch": self.watch.asked}
