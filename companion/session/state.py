"""``/api/state``: the page state as data (docs/http-api.md lists every field).

Two parts: the *game* part (:func:`game_state`) is rebuilt only after the store has written (so
nothing unsaved is ever shown), the *live* part (:func:`live_state`: LEDs, guidance, board,
storage, ...) at every publication (:func:`publish`).
"""

from __future__ import annotations

from companion.feedback import with_role
from companion.rules.board import REASON_TEXT
from companion.rules.game import Game
from companion.rules.threats import threat_json
from companion.session.advice import PositionKey
from companion.session.context import Context
from companion.session.state_document import GameState, LastMove, LiveState

SIDES = ("attackers", "defenders")


def position_key(ctx: Context) -> PositionKey:
    """What a hint belongs to: the game, its ply count, its last move and its result."""
    played = ctx.game.played
    return (ctx.gid, len(played), played[-1].text if played else "", ctx.game.result)


def game_state(ctx: Context) -> GameState:
    """The stored game's part of the state."""
    game = ctx.game
    board = game.board
    outcome = game.outcome()
    geo = board.geo
    reason = str(outcome.reason) if outcome else None
    result = outcome.result if outcome else "ongoing"
    if ctx.remote.ending is not None:  # the other end's word
        result, reason = ctx.remote.ending
    return {
        "game": ctx.gid,
        "variant": game.rules.id,
        "variant_name": game.rules.name,
        "size": game.rules.size,
        "first": game.start_turn,
        "turn": game.turn,
        "moves": game.moves,
        "result": result,
        "reason": reason,
        "reason_text": REASON_TEXT.get(reason, reason) if reason else "",
        "position": board.otn(),
        "last": _last(game),
        "captures": {side: game.captures(side) for side in SIDES},
        "players": {side: p.to_json() for side, p in ctx.players.items()},
        "next_players": ({side: p.to_json() for side, p in ctx.next_players.items()}
                         if ctx.next_players else None),
        "draw_offer": ctx.draw_offer,
        "throne": geo.names[geo.throne] if geo.throne >= 0 else None,
        "corners": [geo.names[q] for q in geo.iter_bits(geo.corner)],
        "settings": ctx.settings.to_json(),
        # (the board's time is read only with a clock: a replayed trace's starts at its first
        # reading, never earlier)
        "clock": ctx.clocks.to_json(ctx.board_time(), ctx.wall()) if ctx.clocks.clock else None,
        "match": ctx.match.to_json() if ctx.match else None,
        "times": ctx.clocks.times(),
        "accepted_at": ctx.accepted_at,
        "threat": threat_json(board),
    }


def _last(game: Game) -> LastMove | None:
    if not game.played:
        return None
    last, board = game.played[-1], game.board
    return {"from": board.name(last.move.frm), "to": board.name(last.move.to),
            "captured": sorted(board.name(s) for s in last.captures), "side": last.side,
            "text": last.text}


def leds(ctx: Context) -> dict[str, str]:
    """The LED frame: the tracker's, or board-wide ``storage`` while the store fails."""
    if not ctx.outbox.ok:
        return {name: "storage" for name in ctx.game.board.geo.names}
    frame = ctx.tracker.leds
    threat = ctx.game_json["threat"] if ctx.game_json and ctx.defaults.raichi else None
    if threat:
        frame = with_role(frame, threat["squares"], "raichi")
    key = position_key(ctx)
    warning = ctx.coach.current(key)
    if warning is not None:
        frame = with_role(frame, warning.threat, "warning")
    hint = ctx.advisor.current(key)
    if hint is not None and ctx.move_to_make is None:
        frame = with_role(with_role(frame, [hint["from"]], "hint_from"), [hint["to"]],
                          "hint_to")
    return frame


def message(ctx: Context) -> str:
    """The English guidance for the people at the board and on the page."""
    storage = ctx.outbox.state
    if not storage["ok"]:
        return ("Moves are not being saved: the store cannot write "
                f"({storage.get('detail', 'error')}). The board waits until it can.")
    tracking = ctx.tracker.state
    if ctx.refused and tracking == "setup":
        return f"{ctx.refused['message'].capitalize()}: put the pieces back as the lights show."
    m = ctx.move_to_make
    err = ctx.seats.error
    if err and not m and tracking == "ready" and err["side"] == ctx.game.turn:
        return (f"The computer playing the {err['side']} failed: {err['message']}. It is asked "
                "again in a few seconds; meanwhile its move can be made by hand.")
    if m and tracking in ("ready", "lifted"):
        caps = f", then lift the captured {', '.join(m['captures'])}" if m["captures"] else ""
        name = ctx.players[m["side"]].name
        who = {"page": f"{name}, on the phone", "computer": "the computer", "puzzle": "the puzzle",
               "engine": "the engine", "online": f"{name}, online",
               "club": f"{name}, at another board"}.get(m["by"], m["by"])
        return (f"{m['side'].capitalize()} ({who}) play {m['from']} to {m['to']}: make the move "
                f"on the board{caps}.")
    b = ctx.remote.binding
    far = ctx.game.turn if ctx.remote.is_remote_side(ctx.game.turn) else None
    if b is not None and not ctx.remote.agreed and not ctx.game.played:
        return (f"Waiting for {ctx.players[b.remote_side].name or b.terms.opponent} to agree "
                "on the game.")
    if (far is not None and not m and tracking == "ready" and ctx.game.turn == far
            and not ctx.game.is_over()):
        return (f"{far.capitalize()} ({ctx.players[far].name}, at a distance) to move: waiting "
                "for their move.")
    text = ctx.tracker.message
    g = ctx.game_json  # the stored game's outcome (computed once per store, not per scan)
    reason, result = (g["reason"], g["result"]) if g else (None, "ongoing")
    if reason and (reason in ("agreement", "resignation", "time") or not text):
        why = REASON_TEXT.get(reason, reason)
        head = "Draw" if result == "draw" else f"{str(result).capitalize()} win"
        return f"{head}: {why}."
    if text:
        return text
    return f"{ctx.game.turn.capitalize()} to move."


_SORTED: dict[int, tuple[frozenset[str], list[str]]] = {}


def _sorted(occupied: frozenset[str] | None) -> list[str]:
    """``sorted(occupied)``, cached for the last reading (the loop asks at every scan)."""
    if not occupied:
        return []
    hit = _SORTED.get(0)
    if hit is None or hit[0] is not occupied:
        hit = (occupied, sorted(occupied))
        _SORTED[0] = hit
    return hit[1]


def live_state(ctx: Context) -> LiveState:
    """The part that changes between stores: LEDs, guidance, the board, storage."""
    hint, hint_pending = ctx.advisor.to_json(position_key(ctx))
    return {
        "leds": leds(ctx),
        "message": message(ctx),
        "tracking": ctx.tracker.state,
        "guidance": ctx.tracker.guidance,
        "move_to_make": ctx.move_to_make.copy() if ctx.move_to_make else None,
        "occupied": _sorted(ctx.occupied),
        "board": ctx.announcer.status.copy(),
        "storage": ctx.outbox.state.copy(),
        "events": list(ctx.announcer.recent),
        "player_error": ctx.seats.error.copy() if ctx.seats.error else None,
        "thinking": thinking.copy() if (thinking := ctx.seats.thinking) else None,
        "hint": hint,
        "hint_pending": hint_pending,
        "hints": dict(ctx.advisor.counts),
        "remote": ctx.remote.to_json(),
        "note": "",
        "display": ctx.display.copy() if ctx.display else None,
        "voice": ctx.voice.copy() if ctx.voice else None,
        "puzzle": ctx.puzzle.copy() if ctx.puzzle else None,
        "coach": ctx.coach.to_json(position_key(ctx)),
        "evaluation": ctx.coach.eval_json(position_key(ctx), str(ctx.game.turn)),
        "book": ctx.opening.to_json(),
    }


def publish(ctx: Context, now: float | None = None, force: bool = False) -> None:
    """Announce the state if anything in it changed (cheap when nothing did)."""
    ctx.announcer.read_status(ctx.board, ctx.monotonic() if now is None else now, force)
    if ctx.game_json is None:  # (never stored yet: a session not opened)
        refresh(ctx)
        assert ctx.game_json is not None
    ctx.announcer.publish(ctx.game_json, lambda: live_state(ctx), ctx.game, ctx.gid,
                          ctx.match_ref, force)


def refresh(ctx: Context) -> None:
    """Rebuild the game part (after the store wrote)."""
    ctx.game_json = game_state(ctx)
