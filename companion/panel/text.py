"""What the board's display says, composed from a published state snapshot (``/api/state``'s
JSON as a dict): four short lines, pure functions, no session.

Line 1 is what matters now (whose move, the computer's move to make, the result, a fault);
line 2 the clocks (attackers first, the running one marked) or the move number; lines 3 and 4
what goes with it (captures to lift, a hint, the match score, a note after a press).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from companion.panel.words import words

ARROW = " → "
RUNNING = "▶"


def clock_text(seconds: float) -> str:
    """``4:52``, ``1:02:05`` above an hour, ``0:09.4`` under ten seconds."""
    seconds = max(0.0, seconds)
    if seconds < 10:
        return f"0:{seconds:04.1f}"
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def clocks_line(clock: Mapping[str, Any], now: float) -> str:
    """Both clocks as they stand at wall time ``now`` (the snapshot's ``at`` is when they were
    read; the running one has gone on since)."""
    running = clock.get("running")
    at = clock.get("at")
    parts = []
    for side in ("attackers", "defenders"):
        left = float(clock.get(side) or 0.0)
        if side == running and isinstance(at, int | float):
            left -= max(0.0, now - at)
        mark = RUNNING if side == running else " "
        parts.append(f"{mark}{clock_text(left)}")
    return "  ".join(parts)


def move_words(frm: str, to: str) -> str:
    return f"{frm}{ARROW}{to}"


def _squares(squares: list[str], limit: int = 3) -> str:
    return " ".join(squares[:limit]) + (" …" if len(squares) > limit else "")


#: Why a game ended (the state's ``reason``) -> the key of its words; ``{side}`` is the loser.
ENDING = {"king_captured": "end_king_captured", "escape": "escaped", "exit_fort": "exit_fort",
          "encirclement": "encircled", "repetition": "end_repetition", "no_moves": "no_move",
          "agreement": "end_agreement", "resignation": "end_resignation", "time": "end_time"}


def ending_words(st: Mapping[str, Any], w: Mapping[str, str]) -> str:
    """Why the game ended, in a few words (``King escaped``, ``Defenders resigned``); "" for a
    reason without words."""
    key = ENDING.get(str(st.get("reason")))
    if key is None:
        return ""
    result = st.get("result")
    loser = {"attackers": "defenders", "defenders": "attackers"}.get(str(result))
    return w[key].format(side=w[loser] if loser else "")


def setup_lines(guidance: Mapping[str, Any], w: Mapping[str, str]) -> tuple[str, str]:
    """The board does not match the game: after a takeback, the pieces to carry home as
    moves (``h9 → h7``, the LEDs show them as a move to make) and what else is left; else how
    many squares to fix."""
    back = list(guidance.get("back") or [])
    fill, clear = guidance.get("fill") or {}, guidance.get("clear") or []
    if back:
        moves = " ".join(move_words(b["from"], b["to"]) for b in back[:2])
        homes, stands = {b["to"] for b in back}, {b["from"] for b in back}
        rest = [s for s in fill if s not in homes] + [s for s in clear if s not in stands]
        return w["carry_back"], moves + (f" +{len(rest)}" if rest or len(back) > 2 else "")
    n = len(fill) + len(clear)
    return w["setup"], (w["setup_1"] if n == 1 else w["setup_n"].format(n=n))


def headline(st: Mapping[str, Any], w: Mapping[str, str]) -> tuple[str, str]:
    """Line 1 and the detail line that goes with it."""
    side_word = {"attackers": w["attackers"], "defenders": w["defenders"]}
    if not (st.get("storage") or {}).get("ok", True):
        return w["storage"], w["not_saving"]
    result = st.get("result", "ongoing")
    if result == "draw":
        return w["draw"], ending_words(st, w)
    if result in side_word:
        return w["win"].format(side=side_word[result]), ending_words(st, w)
    m = st.get("move_to_make")
    if m:
        who = w.get(str(m.get("by")), str(m.get("by")))
        caps = list(m.get("captures") or [])
        detail = w["captures"].format(squares=_squares(caps)) if caps else ""
        return w["make"].format(who=who, move=move_words(m["from"], m["to"])), detail
    guidance = st.get("guidance") or {}
    kind = guidance.get("kind")
    if kind == "illegal":
        back = guidance.get("from")
        return w["illegal"], w["back_to"].format(square=back) if back else ""
    if kind == "warning":
        return w["warning"], str(guidance.get("from") or "")
    if kind == "setup":
        return setup_lines(guidance, w)
    if kind == "lift_captured":
        return w["lift"].format(squares=_squares(list(guidance.get("squares") or []))), ""
    if kind == "reading":  # a position of one's own is set up (the page's editor)
        return w["reading"], w["n_read"].format(n=len(guidance.get("squares") or []))
    if kind == "takeback":
        return w["takeback_put"].format(squares=_squares(list(guidance.get("squares") or []))), ""
    coach = (st.get("coach") or {}).get("warning")
    if coach:
        return coach_lines(coach, w)
    thinking = st.get("thinking")
    if thinking:
        return w["thinks"], ""
    turn = str(st.get("turn", "attackers"))
    line = w["to_move"].format(side=side_word.get(turn, turn))
    hint = st.get("hint")
    if hint and hint.get("side") == turn and hint.get("from"):
        return line, w["hint"].format(move=move_words(hint["from"], hint["to"]))
    if st.get("hint_pending"):
        return line, w["hint_wait"]
    return line, ""


def coach_lines(warning: Mapping[str, Any], w: Mapping[str, str]) -> tuple[str, str]:
    """The coach's warning: the move, and what it allows (``coach.warning`` of the state)."""
    frm, _, to = str(warning.get("move", "")).partition("-")
    head = w["careful"].format(move=move_words(frm, to))
    kind, n = warning.get("kind"), warning.get("moves") or 1
    if kind == "escape" and warning.get("target"):
        return head, w["coach_escape"].format(square=warning["target"], n=n)
    if kind in ("escape", "capture", "loss"):
        return head, w["coach_" + ("loss" if kind == "escape" else str(kind))].format(n=n)
    drop = f"{float(warning.get('drop') or 0):.1f}"
    return head, w["coach_drop"].format(drop=drop.replace(".", w["decimal"]))


def eval_words(ev: Mapping[str, Any], w: Mapping[str, str]) -> str:
    """The score asked for (``evaluation`` of the state): the side better off and by how much
    (``Attackers +1.5``), or who can force a win."""
    score, side = float(ev["score"]), str(ev.get("side"))
    other = "defenders" if side == "attackers" else "attackers"
    better = w[side if score >= 0 else other]
    if abs(score) >= 900:
        return w["eval_forced"].format(side=better)
    return w["eval"].format(side=better, score=f"{abs(score):.1f}".replace(".", w["decimal"]))


def footer(st: Mapping[str, Any], w: Mapping[str, str]) -> str:
    """The match score, or what a finished game waits for (the coach's takeback offer while
    it warns)."""
    if (st.get("coach") or {}).get("warning") and st.get("result", "ongoing") == "ongoing":
        return w["coach_back"]
    match = st.get("match")
    over = st.get("result", "ongoing") != "ongoing"
    if match and over and match.get("next"):
        return w["next_game"]
    if match:
        score = match.get("score") or {}
        names = list(match.get("players") or score)
        vals = [score.get(n, 0) for n in names[:2]]
        if len(vals) == 2:
            return w["match"].format(a=f"{vals[0]:g}", b=f"{vals[1]:g}")
    if over:
        return w["new_game"]
    return ""


def game_lines(st: Mapping[str, Any], lang: str = "en", note: str = "",
               now: float | None = None) -> list[str]:
    """The four lines for a game in progress or just finished."""
    w = words(lang)
    now = time.time() if now is None else now
    head, detail = headline(st, w)
    clock = st.get("clock")
    if clock:
        second = clocks_line(clock, now)
        if clock.get("paused") and st.get("result", "ongoing") == "ongoing":
            detail = detail or w["paused"]
    else:
        second = w["move_n"].format(n=len(st.get("moves") or []) // 2 + 1)
    if not detail and st.get("evaluation") and st["evaluation"].get("score") is not None:
        detail = eval_words(st["evaluation"], w)
    if not detail and (st.get("guidance") or {}).get("kind") == "check_pieces":
        detail = w["check_pieces"]  # a reed board: the LEDs show where the defenders should be
    return [head, second, detail, note or footer(st, w)]


def book_words(book: Mapping[str, Any], w: Mapping[str, str]) -> str:
    """The opening explorer's line (``book`` of the state): the most played move here and the
    games that went on from this position (``Book d1 → d3 (12)``), ``Out of book`` where none
    did, ``No book`` for a variant without any games yet."""
    move = book.get("move")
    if move:
        frm, _, to = str(move).partition("-")
        return w["book"].format(move=move_words(frm, to), n=int(book.get("games") or 0))
    return w["book_out" if book.get("known") else "book_none"]


def with_book(lines: list[str], st: Mapping[str, Any], w: Mapping[str, str]) -> list[str]:
    """``lines`` with the explorer's line on the last one free (line 4, else line 3) while
    the game is played; where neither is free it is not shown."""
    book = st.get("book")
    if not book or st.get("result", "ongoing") != "ongoing":
        return lines
    for i in (3, 2):
        if not lines[i]:
            return lines[:i] + [book_words(book, w)] + lines[i + 1:]
    return lines


def address_lines(url: str, lang: str = "en") -> list[str]:
    """At start-up: where the page is (the host and the port on lines of their own)."""
    w = words(lang)
    rest = url.split("://", 1)[-1].rstrip("/")
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        host, port = rest, ""
    return [w["page_at"], host, f":{port}" if port else "", ""]


def puzzle_line(puzzle: Mapping[str, Any], w: Mapping[str, str]) -> str:
    """What the board says of the puzzle being played (``puzzle`` of the state)."""
    status, last = puzzle.get("status"), puzzle.get("last") or {}
    if status == "solved":
        return w["pz_solved"]
    if status == "failed":
        return w["pz_wrong"].format(move=str(last.get("answer") or "").split("x")[0])
    if status == "left":
        return w["pz_left"]
    if last.get("kind") == "right":
        return w["pz_right"]
    return w["pz_goal"].format(goal=w["goal_" + str(puzzle.get("goal", "win"))],
                               n=puzzle.get("moves", 1))
