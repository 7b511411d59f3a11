"""Exports of stored games and matches: CSV records and OpenTafl ``.otg`` files.

CSV: the corpus form (``moves,attacker_captures,defender_captures,status``, one line a game)
after ``#`` header lines that carry what the record line cannot: game id, date, variant and
house rules (with the OpenTafl rules string), players, result and reason, time control, the
hints each side used (and before which moves), both clocks at the end of a finished game, and
each move's wall time and both clock readings. ``tafl-companion rules replay`` skips the ``#``
lines, so an export replays as it is.

``.otg``: OpenTafl's tags (``attackers``, ``defenders``, ``date``, ``result``,
``termination``, ``rules`` with the game's own rule set) plus ``time-control`` and
``time-remaining`` (as OpenTafl's own serializer writes them: the clocks when the game ended, so
a loss on time shows the loser's at zero), ``companion-hints`` (hints used:
``attackers 1 defenders 0``) and, per move, a comment with the wall time and both clocks after it
(``[12:00:03 a=4:51.0 d=5:00.0|...]``; ``hint`` when a hint was given for that move).
"""

from __future__ import annotations

import datetime as _dt
import json

from companion.rules.otg import RESULT_TAG, export_otg, rules_string
from companion.rules.records import game_to_record_line
from companion.session.clock import GameClock
from companion.store_reads import StoreReader
from companion.store_rows import GameRow


def _clock_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = max(0.0, seconds)
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def _wall(t: float | None) -> str:
    return _dt.datetime.fromtimestamp(t).strftime("%H:%M:%S") if t else "-"


def _hint_plies(store: StoreReader, gid: int) -> dict[int, str]:
    """Ply -> the side a hint was given to before that move."""
    return {int(e["ply"]): str(e.get("side", "")) for e in store.events(gid, 5000)
            if e["kind"] == "hint" and isinstance(e.get("ply"), int)}


def _hints_text(row: GameRow) -> str:
    hints = row.hints()
    return f"attackers {hints['attackers']} defenders {hints['defenders']}"


def _final_left(row: GameRow) -> dict[str, float] | None:
    """Both clocks when a finished game ended (a flag fall: the loser's at zero), or None."""
    if not row.finished or not row.clock:
        return None
    data = json.loads(row.clock)
    if not isinstance(data, dict) or not isinstance(data.get("times"), dict):
        return None
    clock = GameClock.restore(data)
    return {s: clock.left(s, 0.0) for s in ("attackers", "defenders")}


def _date_line(row: GameRow) -> str:
    """When the game was played: the time it started, or for an imported game the day its file
    gives (a file has no time of day: none is made up) and where it came from."""
    imported = row.imported()
    if imported is None:
        return f"# date: {_dt.datetime.fromtimestamp(row.started).isoformat(timespec='seconds')}"
    origin = f"imported from {imported['name'] or 'a file'}"
    return f"# date: {imported['date']} ({origin})" if imported["date"] else \
        f"# date: none ({origin}, which gives no date)"


def _header(store: StoreReader, row: GameRow) -> list[str]:
    game_rules = store.load_game(row.id).rules
    settings = row.settings_json()
    opts = " ".join(f"{k}={str(v).lower()}" for k, v in settings["options"].items())
    players = row.players()
    lines = [
        f"# tafl-companion game {row.id}" + (f" (match {row.match_id}, game {row.match_game})"
                                             if row.match_id else ""),
        _date_line(row),
        f"# variant: {row.variant}" + (f" with {opts}" if opts else ""),
        f"# rules: {rules_string(game_rules)}",
    ]
    for side in ("attackers", "defenders"):
        p = players[side]
        lines.append(f"# {side}: {p['name']} ({p['kind']})")
    lines.append(f"# result: {row.result}" + (f" ({row.reason})" if row.reason else ""))
    if row.time_control:
        lines.append(f"# time control: {row.time_control}")
        final = _final_left(row)
        if final:
            lines.append(f"# time left at the end: attackers {_clock_text(final['attackers'])}"
                         f", defenders {_clock_text(final['defenders'])}")
    if any(row.hints().values()):
        plies = _hint_plies(store, row.id)
        where = f" (before plies {', '.join(str(p) for p in sorted(plies))})" if plies else ""
        lines.append(f"# hints: {_hints_text(row)}{where}")
    moves = store.moves(row.id)
    if row.imported() is not None:  # a file's moves carry no times: none are made up
        moves = [{**m, "t": None} for m in moves]
    if moves:
        lines.append("# moves: " + " ".join(
            f"{m['ply']}:{m['text']}@{_wall(m['t'])}"
            + (f"/a={_clock_text(m['left']['attackers'])},d={_clock_text(m['left']['defenders'])}"
               if m["left"] else "") for m in moves))
    return lines


def game_csv(store: StoreReader, gid: int) -> str:
    row = store.game(gid)
    game = store.load_game(gid)
    # a result stored without a reason (an imported record said who won, not how)
    return "\n".join([*_header(store, row), game_to_record_line(game, row.result)]) + "\n"


def game_otg(store: StoreReader, gid: int) -> str:
    row = store.game(gid)
    game = store.load_game(gid)
    players = row.players()
    tags = {"attackers": players["attackers"]["name"],
            "defenders": players["defenders"]["name"]}
    if row.match_id:
        tags["event"] = f"tafl-companion match {row.match_id}, game {row.match_game}"
    moves = store.moves(gid)
    if row.time_control:
        tags["time-control"] = row.time_control
        # the clocks when the game ended (after a flag fall the loser's reads 0:00.0), else
        # as they stood after the last move
        last = _final_left(row) or next((m["left"] for m in reversed(moves) if m["left"]),
                                        None)
        if last:
            tags["time-remaining"] = (f"{_clock_text(last['attackers'])} "
                                      f"{_clock_text(last['defenders'])}")
    if any(row.hints().values()):
        tags["companion-hints"] = _hints_text(row)
    if not game.is_over() and row.result != "ongoing":  # decided, how not known: no reason
        tags["result"] = RESULT_TAG[row.result]
    hinted = _hint_plies(store, gid)
    imported = row.imported()
    comments = []
    for m in moves:
        text = "" if imported is not None else _wall(m["t"])
        if m["left"]:
            text += (f" a={_clock_text(m['left']['attackers'])}"
                     f" d={_clock_text(m['left']['defenders'])}")
        if m["ply"] in hinted:
            text += " hint"
        comments.append(text)
    day = _dt.date.fromisoformat(imported["date"]) if imported and imported["date"] else \
        _dt.date.fromtimestamp(row.started)
    return export_otg(game, tags=tags, date=day, comments=comments)


def match_csv(store: StoreReader, mid: int) -> str:
    m = store.match(mid)
    out = [f"# tafl-companion match {mid}: {m.players[0]} v {m.players[1]}"]
    if m.result:
        out.append(f"# match result: {m.result}")
    for row in store.match_games(mid):
        out.append(game_csv(store, row.id).rstrip("\n"))
    return "\n".join(out) + "\n"


def match_otg(store: StoreReader, mid: int) -> str:
    """Both games of a match, one ``.otg`` game after the other (a blank line between)."""
    return "\n".join(game_otg(store, row.id) for row in store.match_games(mid))
