"""The stored games as the page reads them: lists, details, reviews, exports, matches, player
results and player links, on read-only connections (:class:`~companion.store.ReadOnlyStore`).

Any thread may call it; nothing here waits for the session's loop or writes the store. A game
or match that does not exist is ``ControlError(404, "not_found")``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from companion.rules.game import Game
from companion.rules.threats import threat_json
from companion.session.actors import ControlError
from companion.session.export import game_csv, game_otg, match_csv, match_otg
from companion.session.stored_documents import (
    GameDetail,
    MatchDetail,
    MatchReview,
    Review,
    ReviewMove,
)
from companion.squares import parse_square
from companion.store_reads import StoreReader
from companion.store_rows import StoreError, rules_of
from companion.store_types import GameJSON, LinkJSON

#: Event kinds a review lists (the rest are the tracker's board-level details).
REVIEW_EVENTS = ("takeback", "draw", "resign", "swap", "imported", "remote_end", "remote_sync")
EXPORTS = ("csv", "otg")


def not_found(exc: StoreError) -> ControlError:
    return ControlError(404, "not_found", str(exc).strip("'\""))


class Library:
    """Reading stored games for the page (see the module docstring)."""

    def __init__(self, reader: StoreReader) -> None:
        self.reader = reader

    def games(self, limit: int = 50, offset: int = 0) -> list[GameJSON]:
        """Games, newest first."""
        return [g.to_json() for g in self.reader.list_games(limit, offset)]

    def game(self, gid: int) -> GameDetail:
        """One game with its players, moves, positions and (up to 500) events."""
        r = self.reader
        try:
            row = r.game(gid)
            return {**row.to_json(), "player_details": row.players(), "moves": r.moves(gid),
                    "positions": r.positions(gid), "events": r.events(gid, 500)}
        except StoreError as exc:
            raise not_found(exc) from None

    def has_game(self, gid: int) -> bool:
        try:
            self.reader.game(gid)
        except StoreError:
            return False
        return True

    def export(self, gid: int, kind: str, match: bool = False) -> str:
        """Game (or match) ``gid`` as a CSV record (``kind`` ``csv``) or OpenTafl ``.otg``."""
        if kind not in EXPORTS:
            raise ControlError(400, "bad_request", f"exports are {' or '.join(EXPORTS)}")
        try:
            if match:
                return (match_csv if kind == "csv" else match_otg)(self.reader, gid)
            return (game_csv if kind == "csv" else game_otg)(self.reader, gid)
        except StoreError as exc:
            raise not_found(exc) from None

    def matches(self, limit: int = 50, offset: int = 0) -> list[MatchDetail]:
        r = self.reader
        return [{**m.to_json(), "games": [g.to_json() for g in r.match_games(m.id)]}
                for m in r.list_matches(limit, offset)]

    def match(self, mid: int) -> MatchDetail:
        try:
            m = self.reader.match(mid)
        except StoreError as exc:
            raise not_found(exc) from None
        return {**m.to_json(), "games": [g.to_json() for g in self.reader.match_games(mid)]}

    def version(self, gid: int, match: bool = False) -> Hashable | None:
        """What a finished game's (``match``: match's) review and files depend on — its rows,
        and its match's — to key a cache of renders; None while it is played, or for none."""
        r = self.reader
        try:
            if match:
                m = r.match(gid)
                games = tuple(r.match_games(gid))
                if m.ended is None or any(g.ended is None for g in games):
                    return None
                return ("match", repr(m), games)
            row = r.game(gid)
            if row.ended is None:
                return None
            if row.match_id is None:
                return (row,)
            of_match = self.version(row.match_id, match=True)  # a match played changes it
            return None if of_match is None else (row, of_match)
        except StoreError:
            return None

    def player_results(self) -> dict[str, dict[str, int]]:
        return self.reader.player_results()

    def imported_ids(self, fingerprints: Sequence[str]) -> dict[str, int]:
        return self.reader.imported_ids(fingerprints)

    def link(self, token: str) -> LinkJSON | None:
        return self.reader.link(token)

    # -- the review ------------------------------------------------------------------------
    def review(self, gid: int) -> Review:
        """Everything the review of stored game ``gid`` shows: players, date, variant and its
        rules, result and reason, the start position and the position after every move, each
        move with the pieces it captured (kind and square), escape threats, the times stored
        with the moves, and notable events."""
        r = self.reader
        try:
            row = r.game(gid)
            moves = r.moves(gid)
            events = r.events(gid, 2000)
        except StoreError as exc:
            raise not_found(exc) from None
        rules = rules_of(row)  # the variant with the game's own house rules
        game = Game(rules, row.start_position, row.start_turn)
        geo = game.board.geo
        positions = [game.board.otn()]
        threats = [threat_json(game.board)]
        out_moves: list[ReviewMove] = []
        for m in moves:
            board = game.board
            pieces = {sq: board.piece_at(parse_square(sq, board.size)) for sq in m["captured"]}
            game.play_text(f"{m['from']}-{m['to']}")
            out_moves.append({
                "ply": m["ply"], "side": m["side"], "from": m["from"], "to": m["to"],
                "text": m["text"], "t": m["t"], "left": m.get("left"),
                "captured": [{"square": sq, "piece": pieces[sq]} for sq in m["captured"]],
            })
            positions.append(game.board.otn())
            threats.append(threat_json(game.board))
        players = row.players()
        origin = next((e for e in events if e["kind"] == "imported"), None)
        return {
            "id": row.id,
            "variant": row.variant,
            "rules": rules.shown_json(),
            "size": rules.size,
            "throne": geo.names[geo.throne] if geo.throne >= 0 else None,
            "corners": [geo.names[s] for s in geo.iter_bits(geo.corner)],
            "first": row.start_turn,
            "players": {"attackers": row.attackers, "defenders": row.defenders},
            "player_kinds": {side: p.get("kind", "board") for side, p in players.items()},
            "player_levels": {side: p["level"] for side, p in players.items() if "level" in p},
            "settings": row.settings_json(),
            "time_control": row.time_control,
            "match": self._match_review(row.match_id) if row.match_id is not None else None,
            "match_game": row.match_game,
            "started": row.started,
            "ended": row.ended,
            "result": row.result,
            "reason": row.reason,
            "imported": {**origin, **(row.imported() or {})} if origin else None,
            "moves": out_moves,
            "positions": positions,
            "threats": threats,
            "events": [e for e in events if e["kind"] in REVIEW_EVENTS],
        }

    def _match_review(self, mid: int) -> MatchReview | None:
        """A match for the review: its score and result, and both games."""
        try:
            m = self.reader.match(mid)
            games = self.reader.match_games(mid)
        except StoreError:
            return None
        result = m.result
        score: dict[str, float] = {name: 0.0 for name in m.players}
        for g in games:
            if g.result in ("attackers", "defenders"):
                winner = g.attackers if g.result == "attackers" else g.defenders
                score[winner] = score.get(winner, 0.0) + 1.0
            elif g.result == "draw":
                for name in (g.attackers, g.defenders):
                    score[name] = score.get(name, 0.0) + 0.5
        return {**m.to_json(), "score": result["score"] if result else score,
                "winner": result["winner"] if result else None,
                "decided_by": result["decided_by"] if result else None,
                "finished": m.ended is not None, "games": [g.to_json() for g in games]}
