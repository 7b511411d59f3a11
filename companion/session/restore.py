"""Bringing a session back from the store at start: the current game (or the match waiting for
its second game), its settings, players, clocks as stored at the last move, and its match.

After a crash or a power cut the clocks read what they read when the last move was stored (or
the owner's pause or resume after it); the side to move's clock runs again once the board is set
up (the time the daemon was down is nobody's).
"""

from __future__ import annotations

import json
import logging
from typing import cast

from companion.rules.game import Game
from companion.session.clock import SIDES, GameClock, TimeControl, TimeControlError
from companion.session.context import Context
from companion.session.match import GameResult, Match
from companion.session.move_clocks import Before, ClockRecord
from companion.session.players import PlayerKind, PlayerSpec
from companion.session.record import Opened
from companion.session.remote_terms import terms_from_json
from companion.session.settings import GameSettings, SettingsError
from companion.session.state_document import MoveToMake
from companion.store import GameRow, StoreError
from companion.store_rows import rules_of
from companion.store_types import NewMatch

log = logging.getLogger("companion.session")


def _players(row: GameRow) -> dict[str, PlayerSpec]:
    return {side: PlayerSpec.from_stored(data, side) for side, data in row.players().items()}


def _fits(session: Context, row: GameRow) -> bool:
    """Whether the stored game can be played on this board: always on a board that takes any
    size (the simulator), else when its size is the board's. The new-game defaults (``run
    --variant``, ``--attackers``/``--defenders``, the config) are not asked: they choose the
    NEXT game and never end one in progress (a restart with the same command line, e.g. by
    systemd after a crash, goes on with the online game of variant ``hnefatafl-org`` started
    as ``run --variant copenhagen --defenders online``)."""
    if session.caps.clickable is not None:
        return True
    try:
        size = rules_of(row).size
    except (KeyError, ValueError):
        return True  # not known here: resuming it says why it cannot go on
    if size != session.board.size:
        log.warning("game %d (%s) is played on %dx%d, this board is %dx%d: it cannot go on "
                    "here", row.id, row.variant, size, size, session.board.size,
                    session.board.size)
        return False
    return True


def _current_row(session: Context) -> GameRow | None:
    """The game to resume: the latest unfinished one, or the finished first game of a match
    that waits for its second."""
    store = session.store
    row = store.unfinished()
    latest = store.latest_match_game()  # (a game imported meanwhile is not the live one)
    if latest is not None and latest.match_id and (row is None or row.id < latest.id):
        m = store.match(latest.match_id)
        if m.ended is None and latest.finished and latest.reason != "abandoned":
            return latest
    return row


def restore_session(session: Context) -> None:
    """Resume or start (see the module docstring), before the loop runs."""
    store = session.store
    row = _current_row(session)
    if row is not None and _fits(session, row):
        try:
            _resume(session, row)
            return
        except (StoreError, SettingsError, TimeControlError, ValueError) as exc:
            log.warning("cannot resume game %d (%s); starting a new one", row.id, exc)
    if row is not None and not row.finished:
        store.abandon(row.id)
    latest = store.latest_played()
    players = dict(session.defaults.players)
    if latest is not None:  # the names of the last game's players stay (not an import's)
        prev = _players(latest)
        players = {s: players[s].named(prev[s].name) if not players[s].name or
                   players[s].name.startswith("Player ") else players[s] for s in SIDES}
    d = session.defaults
    game = Game(d.settings.rules())
    clock = GameClock(d.time_control) if d.time_control else None
    new_match: NewMatch | None = None
    names = (players["attackers"].name, players["defenders"].name)
    if d.match and names[0] != names[1]:
        new_match = {"players": names,
                     "tie_break": d.tie_break, "settings": {
                         **d.settings.to_json(),
                         "seats": [players[s].to_json() for s in SIDES]}}
    gid = store.new_game(game, {s: p.to_json() for s, p in players.items()},
                         settings=d.settings.to_json(),
                         time_control=d.time_control.text if d.time_control else None,
                         clock=clock.snapshot() if clock else None, new_match=new_match)
    match = None
    if new_match is not None:
        mid = store.game(gid).match_id
        assert mid is not None
        match = Match(mid, names, d.tie_break, [gid])
    session.record.open(Opened(gid, game, d.settings, players, match))
    session.clocks.new_game(d.time_control)  # the clock runs once the board is set up
    log.info("new game %d: %s", gid, game.rules.name)
    _resize(session)


def _resume(session: Context, row: GameRow) -> None:
    store = session.store
    game = store.load_game(row.id)
    settings = GameSettings.from_json(row.settings_json())
    tc = TimeControl.parse(row.time_control) if row.time_control else None
    moves = store.moves(row.id)
    move_clocks: list[ClockRecord | None] = [m["clock"] for m in moves]
    before: list[Before] = []
    initial = GameClock(tc).snapshot() if tc else None
    for i in range(len(moves)):
        prev = move_clocks[i - 1] if i else None
        before.append(((prev or {}).get("state") or initial, None))
    clock = None
    if tc is not None:
        data = json.loads(row.clock) if row.clock else None
        last = (move_clocks[-1] or {}).get("state") if move_clocks else None
        # the clocks as stored at the last move, or as the owner's pause or resume after it
        # stored them (the game row's clock then holds the time charged up to the pause)
        latest = store.last_event_kind(row.id, ("move", "revised", "takeback", "clock"))
        state = data if data and latest == "clock" else last or data or initial
        clock = GameClock.restore(state) if state else GameClock(tc)
        clock.running = None  # it runs again once the board matches the game (``ready``)
        clock.paused = bool(data and data.get("paused"))
    players = _players(row)
    pending = _pending(row, game, players)
    session.record.open(Opened(row.id, game, settings, players, _match(session, row), pending))
    session.advisor.new_game(row.hints())
    session.clocks.restore(tc, clock, move_clocks, before)
    if pending is not None:  # its clocks as at the choice
        session.clocks.restore_choice((row.pending() or {}).get("choice"))
    stored = row.remote()
    terms = terms_from_json(stored, settings, tc) if stored else None
    if terms is not None:  # a game at a distance: it goes on once its player is attached
        session.remote.bind(*terms)
    log.info("resuming game %d (%s) after %d moves", row.id, row.variant, len(game.played))
    _resize(session)


def _pending(row: GameRow, game: Game, players: dict[str, PlayerSpec]) -> MoveToMake | None:
    """The move to make stored with the game, if it is still the one to make: for this very
    position (its ply), the side to move, a legal move, and that side still plays off the
    board. The board shows it again, exactly as before the restart."""
    data = row.pending()
    if data is None or game.is_over():
        return None
    move, side = data.get("move"), data.get("side")
    if data.get("ply") != len(game.played) or side != game.turn or not isinstance(move, str):
        return None
    if players[side].kind is PlayerKind.BOARD:
        return None  # (a player at a distance: shown again too, until its end resends it)
    try:
        parsed, _ = game.board.parse_move(move)
        if not game.board.is_legal(parsed):
            return None
    except ValueError:
        return None
    log.info("game %d: the move to make %s (%s) is shown again", row.id, move, data.get("by"))
    return cast(MoveToMake, {k: v for k, v in data.items() if k not in ("ply", "choice")})


def _match(session: Context, row: GameRow) -> Match | None:
    if not row.match_id:
        return None
    store = session.store
    m = store.match(row.match_id)
    match = Match(m.id, m.players, m.tie_break)
    for g in store.match_games(m.id):
        if g.reason == "abandoned":
            continue
        match.game_ids.append(g.id)
        if g.finished:
            left = None
            if g.clock:
                c = GameClock.restore(json.loads(g.clock))
                left = {s: c.left(s, 0.0) for s in SIDES}
            match.results.append(GameResult(g.result, g.plies, left))
    return match


def _resize(session: Context) -> None:
    board = session.caps.clickable
    if board is not None:
        board.resize(session.game.rules.size, session.game.board.occupied_names())
