"""The server's lobby as this client knows it: the games from ``initialize_display`` (RON)
kept up to date by the ``games_updated`` deltas (JSON), and the users' ratings
(``users_updated``, RON). Bounded: a hostile server cannot make it grow without end."""

from __future__ import annotations

import logging

from .protocol import (
    VARIANT_OF_SIZE,
    LobbyGame,
    ProtocolError,
    parse_lobby_game,
)

log = logging.getLogger("companion.online")

MAX_GAMES = 2000
MAX_USERS = 20000


class Lobby:
    def __init__(self) -> None:
        self.games: dict[int, LobbyGame] = {}
        self.ratings: dict[str, float] = {}
        self.bad = 0       # entries that did not parse (dropped)

    def clear(self) -> None:
        self.games.clear()
        self.ratings.clear()

    def _put(self, data: object) -> None:
        try:
            game = parse_lobby_game(data)
        except ProtocolError as exc:
            self.bad += 1
            log.info("online: dropped a lobby entry: %s", exc)
            return
        if game.game_over:
            self.games.pop(game.id, None)
        elif game.id in self.games or len(self.games) < MAX_GAMES:
            self.games[game.id] = game

    def initialize(self, display: object) -> None:
        """``= initialize_display (GAMES, USERS, is_admin, is_tournament_admin)``."""
        if not isinstance(display, list) or len(display) < 2:
            raise ProtocolError("initialize_display is not a (games, users, ...) tuple")
        games, users = display[0], display[1]
        self.clear()
        for data in games if isinstance(games, list) else [games]:
            self._put(data)
        self.users(users)

    def update(self, delta: object) -> None:
        """``= games_updated {"created":[[ID,null,GAME]...],"removed":[ID...],"updated":{}}``."""
        if not isinstance(delta, dict):
            raise ProtocolError("games_updated is not a JSON object")
        for entry in delta.get("created") or []:
            if isinstance(entry, list) and entry:
                self._put(entry[-1])
        for game_id in delta.get("removed") or []:
            if isinstance(game_id, int):
                self.games.pop(game_id, None)
        updated = delta.get("updated") or {}
        if isinstance(updated, dict):
            for data in updated.values():
                self._put(data)

    def users(self, data: object) -> None:
        """``Users(({NAME:(username,...,rating:(rating:R,rd:D))}))`` or the
        ``users_updated`` form ``(removed:[...], updated:({...}))``."""
        if isinstance(data, dict) and len(data) == 1:
            data = next(iter(data.values()))          # the Users(...) / Accounts(...) variant
        if isinstance(data, dict) and "updated" in data:
            for name in data.get("removed") or []:
                self.ratings.pop(str(name), None)
            data = data.get("updated")
        if not isinstance(data, dict):
            return
        for name, user in data.items():
            rating = user.get("rating") if isinstance(user, dict) else None
            value = rating.get("rating") if isinstance(rating, dict) else None
            known = name in self.ratings or len(self.ratings) < MAX_USERS
            if isinstance(value, (int, float)) and not isinstance(value, bool) and known:
                self.ratings[str(name)] = float(value)

    def open_games(self, me: str | None) -> list[dict[str, object]]:
        """The lobby for the page: pending games with a free seat (INTERFACES.md §3)."""
        out: list[dict[str, object]] = []
        for game in sorted(self.games.values(), key=lambda g: g.id):
            side = game.free_side
            if side is None or game.started:
                continue
            creator = game.creator or "?"
            out.append({
                "id": game.id, "by": creator, "rating": self.ratings.get(creator),
                "side": side, "variant": VARIANT_OF_SIZE[game.size], "size": game.size,
                "rated": game.rated, "time_control": game.time.text if game.time else "none",
                "mine": creator == me,
            })
        return out

    def live_games(self, me: str | None = None) -> list[dict[str, object]]:
        """The games in progress (both seats taken) of other accounts than ``me``, for the
        page: to watch on the board."""
        out: list[dict[str, object]] = []
        for game in sorted(self.games.values(), key=lambda g: g.id):
            if not game.started or game.attacker is None or game.defender is None or \
                    me in (game.attacker, game.defender):
                continue
            out.append({
                "id": game.id, "attackers": game.attacker, "defenders": game.defender,
                "ratings": {"attackers": self.ratings.get(game.attacker),
                            "defenders": self.ratings.get(game.defender)},
                "variant": VARIANT_OF_SIZE[game.size], "size": game.size, "rated": game.rated,
                "time_control": game.time.text if game.time else "none",
            })
        return out
