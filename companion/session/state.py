"""``/api/state``: the page state as data (docs/http-api.md lists every field).

Two parts: the *game* part is rebuilt only after the store has written (so nothing unsaved is
ever shown), the *live* part (LEDs, guidance, board, storage) on every publish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.rules.board import REASON_TEXT
from companion.rules.threats import threat_json
from companion.session.advice import current_hint, public_hint

if TYPE_CHECKING:
    from companion.session.core import SessionCore

SIDES = ("attackers", "defenders")


def game_state(s: SessionCore) -> dict:
    """The stored game's part of the state."""
    game = s.game
    board = game.board
    outcome = game.outcome()
    geo = board.geo
    last = game.played[-1] if game.played else None
    reason = str(outcome.reason) if outcome else None
    result = outcome.result if outcome else "ongoing"
    if s.remote.ending is not None:  # the other end's word
        result, reason = s.remote.ending
    clock = None
    if s.clock is not None:
        clock = s.clock.to_json(s.board_time())
        clock["at"] = round(s.wall(), 3)
    return {
        "game": s.gid,
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
        "last": {"from": board.name(last.move.frm), "to": board.name(last.move.to),
                 "captured": sorted(board.name(s) for s in last.captures),
                 "side": last.side, "text": last.text} if last else None,
        "captures": {side: game.captures(side) for side in SIDES},
        "players": {side: p.to_json() for side, p in s.players.items()},
        "next_players": ({side: p.to_json() for side, p in s.next_players.items()}
                         if s.next_players else None),
        "draw_offer": s.draw_offer,
        "throne": geo.names[geo.throne] if geo.throne >= 0 else None,
        "corners": [geo.names[q] for q in geo.iter_bits(geo.corner)],
        "settings": s.settings.to_json(),
        "clock": clock,
        "match": s.match.to_json() if s.match else None,
        "times": [(c or {}).get("left") for c in s.move_clocks],
        "accepted_at": s.accepted_at,
        "threat": threat_json(board),
    }


def _message(s: SessionCore) -> str:
    if not s.storage["ok"]:
        return ("Moves are not being saved: the store cannot write "
                f"({s.storage.get('detail', 'error')}). The board waits until it can.")
    tracking = s.tracker.state
    if s.refused and tracking == "setup":
        return f"{s.refused['message'].capitalize()}: put the pieces back as the lights show."
    m = s.move_to_make
    err = s.player_error
    if err and not m and tracking == "ready" and err["side"] == s.game.turn:
        return (f"The computer playing the {err['side']} failed: {err['message']}. It is asked "
                "again in a few seconds; meanwhile its move can be made by hand.")
    if m and tracking in ("ready", "lifted"):
        caps = f", then lift the captured {', '.join(m['captures'])}" if m["captures"] else ""
        name = s.players[m["side"]].name
        who = {"page": f"{name}, on the phone", "computer": "the computer",
               "engine": "the engine", "online": f"{name}, online",
               "club": f"{name}, at another board"}.get(m["by"], m["by"])
        return (f"{m['side'].capitalize()} ({who}) play {m['from']} to {m['to']}: make the move "
                f"on the board{caps}.")
    far = s.remote.remote_side
    b = s.remote.binding
    if b is not None and not s.remote.agreed and not s.game.played:
        return (f"Waiting for {s.players[b.remote_side].name or b.terms.opponent} to agree on "
                "the game.")
    if (far is not None and not m and tracking == "ready" and s.game.turn == far
            and not s.game.is_over()):
        return (f"{far.capitalize()} ({s.players[far].name}, at a distance) to move: waiting "
                "for their move.")
    text = s.tracker.message
    g = s._game_json  # the stored game's outcome (computed once per store, not per scan)
    reason, result = g.get("reason"), g.get("result", "ongoing")
    if reason and (reason in ("agreement", "resignation", "time") or not text):
        why = REASON_TEXT.get(reason, reason)
        head = "Draw" if result == "draw" else f"{str(result).capitalize()} win"
        return f"{head}: {why}."
    if text:
        return text
    return f"{s.game.turn.capitalize()} to move."


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


def live_state(s: SessionCore) -> dict:
    """The part that changes between stores: LEDs, guidance, the board, storage."""
    status = s._status
    return {
        "leds": s.leds,
        "message": _message(s),
        "tracking": s.tracker.state,
        "guidance": s.tracker.guidance,
        "move_to_make": dict(s.move_to_make) if s.move_to_make else None,
        "occupied": _sorted(s._occupied),
        "board": {k: status.get(k) for k in ("kind", "connected", "detail")},
        "storage": dict(s.storage),
        "events": list(s.recent),
        "player_error": dict(s.player_error) if s.player_error else None,
        "thinking": dict(s.thinking) if s.thinking else None,
        "hint": public_hint(current_hint(s)),
        "hint_pending": public_hint(s.hint_pending),
        "hints": dict(s.hints),
        "remote": s.remote.to_json(),
        "note": "",
        "display": dict(s.display) if s.display else None,
    }
