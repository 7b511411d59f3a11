"""Which sentences a change of the session's state calls for (see :mod:`.sentences`).

>>> n = Narrator("en")
>>> before = {"game": 1, "moves": ["d1-d4"], "result": "ongoing", "turn": "defenders",
...           "players": {"defenders": {"name": "Computer", "kind": "computer"}}}
>>> now = dict(before, move_to_make={"move": "h6-h4", "from": "h6", "to": "h4",
...                                  "by": "computer", "side": "defenders", "captures": []})
>>> [u.text for u in n.changes(before, now)]
['Computer: h6 to h4.']
>>> [u.text for u in n.changes(now, now)]  # nothing changed: nothing to say
[]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .sentences import (
    ILLEGAL_WHY,
    LOW_TIME,
    WHY,
    State,
    Utterance,
    clock_text,
    join,
    pieces_text,
    who_word,
    words,
)

#: Guidance kinds said as they come (the others are said through other fields or not at all).
SPOKEN_GUIDANCE = ("lift_captured", "takeback", "illegal", "warning", "setup", "make_move")


class Narrator:
    """Sentences for what changed between two published states, in ``lang``."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in ("en", "de") else "en"
        self._warned: set[tuple[object, str, float]] = set()  # (game, side, threshold)

    # -- the state's changes -------------------------------------------------------------------
    def changes(self, before: State | None, now: State) -> list[Utterance]:
        """What to say about ``now``, given the state said before it (None: the first)."""
        if before is None:  # the voice just started: the move to make, if there is one
            mtm = now.get("move_to_make")
            return [self.make(mtm, now)] if mtm else []
        out: list[Utterance] = []
        same_game = before.get("game") == now.get("game")
        mtm = now.get("move_to_make")
        make = self.make(mtm, now) if mtm and mtm != before.get("move_to_make") else None
        # a move made at the board (a move to make was said when it was chosen)
        more = len(now.get("moves") or []) > len(before.get("moves") or [])
        played = (self.played(str((now.get("moves") or [""])[-1]))
                  if same_game and more and not before.get("move_to_make") else None)
        verdict = self.puzzle(before.get("puzzle"), now.get("puzzle"), mtm) if same_game \
            else None
        if verdict is not None:  # the solver's move, its verdict, then the puzzle's answer
            out += [u for u in (played, verdict[0]) if u is not None]
            if make is not None and not verdict[1]:
                out.append(make)
        else:
            out += [u for u in (make, played) if u is not None]
        guidance = now.get("guidance") or {}
        if guidance != (before.get("guidance") or {}):
            said = self.guidance(guidance)
            if said is not None:
                out.append(said)
        warning = (now.get("coach") or {}).get("warning")
        if warning and warning != (before.get("coach") or {}).get("warning"):
            out.append(self.coach(warning))
        hint = now.get("hint")
        if hint and hint.get("from") and hint != before.get("hint"):
            out.append(Utterance("hint", words(self.lang)["hint"].format(
                frm=hint["from"], to=hint["to"])))
        if now.get("result", "ongoing") != "ongoing" and (
                before.get("result", "ongoing") == "ongoing" or not same_game):
            out.append(self.result(now))
        return out

    def clock_warnings(self, now: State, wall: float) -> list[Utterance]:
        """A minute and ten seconds left on the running clock (called every half second)."""
        clock = now.get("clock") or {}
        side = clock.get("running")
        if not side or clock.get("paused") or now.get("result", "ongoing") != "ongoing":
            return []
        left = float(clock.get(side, 0.0)) - max(0.0, wall - float(clock.get("at") or wall))
        out = []
        w = words(self.lang)
        for threshold, key in zip(LOW_TIME, ("minute", "seconds"), strict=True):
            mark = (now.get("game"), str(side), threshold)
            if left <= threshold and mark not in self._warned:
                self._warned.add(mark)
                if left > threshold - 5:  # (not when a game is resumed far below it)
                    out.append(Utterance("clock", w[key].format(side=w[str(side).title()])))
        return out

    # -- sentences -----------------------------------------------------------------------------
    def make(self, mtm: Mapping[str, Any], st: State) -> Utterance:
        w = words(self.lang)
        caps = list(mtm.get("captures") or [])
        key = "make_captures" if caps else "make"
        return Utterance("make", w[key].format(who=who_word(mtm, st, self.lang),
                                              frm=mtm["from"], to=mtm["to"],
                                              caps=join(caps, self.lang)))

    def played(self, record: str) -> Utterance:
        """A move accepted at the board: ``d1-d4xd5`` -> "d1 to d4, captures d5."."""
        w = words(self.lang)
        move, *caps = record.split("x")
        frm, _, to = move.partition("-")
        key = "played_captures" if caps else "played"
        return Utterance("played", w[key].format(frm=frm, to=to, caps=join(caps, self.lang)))

    def guidance(self, g: Mapping[str, Any]) -> Utterance | None:
        w = words(self.lang)
        kind = g.get("kind")
        if kind not in SPOKEN_GUIDANCE:
            return None
        if kind == "lift_captured":
            pieces = pieces_text(g.get("squares") or [], g.get("pieces") or [], self.lang)
            return Utterance("lift", w["lift"].format(pieces=pieces))
        if kind == "takeback":
            pieces = pieces_text(g.get("squares") or [], g.get("pieces") or [], self.lang)
            return Utterance("setup", w["put_back"].format(pieces=pieces))
        if kind == "make_move":
            if not g.get("wrong"):
                return None  # said as the move to make
            return Utterance("illegal", w["wrong_piece"].format(
                piece=w.get(str(g.get("wrong_piece")), ""), wrong=g["wrong"],
                frm=g.get("from"), to=g.get("to")))
        if kind == "setup":
            return self.setup(g)
        back = g.get("from") or g.get("square")
        why = ILLEGAL_WHY[self.lang].get(str(g.get("code")))
        if kind == "illegal" and back and why:
            data = {k: g.get(k, "") for k in ("square", "turn", "side")}
            data["turn"] = w.get(str(data["turn"]), data["turn"])
            return Utterance("illegal", w["illegal"].format(why=why.format(**data), back=back))
        if kind == "illegal" and back:
            return Utterance("illegal", w["illegal_short"].format(back=back))
        return None  # a warning without a square: the LEDs and the page show it

    def coach(self, warning: Mapping[str, Any]) -> Utterance:
        """The coach's warning of the move just made, and the takeback it offers."""
        w = words(self.lang)
        frm, _, to = str(warning.get("move", "")).partition("-")
        kind, n = str(warning.get("kind")), int(warning.get("moves") or 0)
        drop = f"{float(warning.get('drop') or 0):.1f}"
        if kind == "escape" and not warning.get("target"):
            kind = "loss"
        key = f"coach_{kind}" if kind in ("escape", "capture", "loss") else "coach_drop"
        if n == 1 and kind in ("escape", "capture"):
            key += "_1"
        text = w[key].format(frm=frm, to=to, square=warning.get("target"), n=n,
                             drop=drop if self.lang == "en" else drop.replace(".", ","))
        return Utterance("coach", f"{text} {w['coach_back']}")

    def puzzle(self, before: Mapping[str, Any] | None, now: Mapping[str, Any] | None,
               mtm: Mapping[str, Any] | None) -> tuple[Utterance, bool] | None:
        """The verdict on the solver's move just judged (``puzzle`` of the state), and whether
        it named the move to make (the refutation of a wrong move: not said twice)."""
        last = (now or {}).get("last")
        if not last or ((now or {}).get("played"), last) == (
                (before or {}).get("played"), (before or {}).get("last")):
            return None
        w = words(self.lang)
        kind = str(last.get("kind"))
        if kind != "wrong":
            return Utterance("puzzle", w["pz_solved" if kind == "solved" else "pz_right"]), False
        texts = [w["pz_wrong"]]
        answer = str(last.get("answer") or "").split("x")[0]
        frm, _, to = answer.partition("-")
        named = bool(answer) and last.get("why") in ("escape", "capture", "win", "holds")
        if named:
            texts.append(w["pz_answer"].format(frm=frm, to=to, why=w[f"pz_{last['why']}"]))
        solution = str(last.get("solution") or "").split("x")[0]
        if solution:
            sfrm, _, sto = solution.partition("-")
            texts.append(w["pz_solution"].format(frm=sfrm, to=sto))
        folded = named and bool(mtm) and (mtm or {}).get("from") == frm \
            and (mtm or {}).get("to") == to
        return Utterance("puzzle", " ".join(texts)), folded

    def setup(self, g: Mapping[str, Any]) -> Utterance:
        """Pieces to put right: one piece off its square and one square to fill is a piece to
        move back (a takeback's guidance); else what to place and what to clear."""
        w = words(self.lang)
        fill: dict[str, str] = dict(g.get("fill") or {})
        clear = sorted(g.get("clear") or [])
        if len(fill) + len(clear) > 4:
            return Utterance("setup", w["setup_many"].format(n=len(fill) + len(clear)))
        if len(fill) == 1 and len(clear) == 1:
            ((to, piece),) = fill.items()
            return Utterance("setup", w["setup_move"].format(piece=w.get(piece, piece),
                                                             frm=clear[0], to=to))
        texts = [w["setup_place"].format(piece=w.get(p, p), square=s)
                 for s, p in sorted(fill.items())]
        texts += [w["setup_clear"].format(square=s) for s in clear]
        return Utterance("setup", " ".join(texts))

    def result(self, st: State) -> Utterance:
        w = words(self.lang)
        why = WHY[self.lang].get(str(st.get("reason") or ""), str(st.get("reason_text") or ""))
        result = st.get("result")
        text = (w["draw"].format(why=why) if result == "draw"
                else w["win"].format(side=w[str(result).title()], why=why))
        match = st.get("match") or {}
        score = match.get("score") if isinstance(match, Mapping) else None
        if score:
            text += " " + w["match"].format(score=", ".join(
                f"{name} {points:g}" for name, points in score.items()))
        return Utterance("result", text)

    def clocks(self, st: State, wall: float) -> Utterance:
        """Both clocks now (the clock button's long press, the page's request)."""
        clock = st.get("clock") or {}
        if not clock:
            return Utterance("clock", words(self.lang)["to_move"].format(
                side=words(self.lang)[str(st.get("turn", "attackers")).title()]))
        left = {}
        for side in ("attackers", "defenders"):
            t = float(clock.get(side, 0.0))
            if clock.get("running") == side and not clock.get("paused"):
                t -= max(0.0, wall - float(clock.get("at") or wall))
            left[side] = clock_text(t)
        return Utterance("clock", words(self.lang)["clocks"].format(
            a=left["attackers"], d=left["defenders"]))
