"""The talking board's words (docs/voice.md): spoken square names per language, the sentences a
change of the state calls for in English and German, and the speaker's queue."""

from __future__ import annotations

import doctest
import re

import pytest

import companion.voice.names
import companion.voice.narrator
from companion.voice.names import LETTER_NAMES, spoken_square, spoken_text
from companion.voice.narrator import Narrator
from companion.voice.sentences import Utterance
from companion.voice.service import describe
from companion.voice.speaker import MAX_WAITING, PageVoice, Speaker

START = {"game": 1, "variant": "copenhagen", "moves": [], "result": "ongoing",
         "turn": "attackers", "guidance": {"kind": "to_move", "side": "attackers"},
         "players": {"attackers": {"name": "Ann", "kind": "board"},
                     "defenders": {"name": "Computer", "kind": "computer"}}}


def test_the_modules_doctests_pass() -> None:
    for module in (companion.voice.names, companion.voice.narrator):
        assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_file_up_to_s_has_its_own_spoken_name(lang: str) -> None:
    names = LETTER_NAMES[lang]
    assert sorted(names) == [chr(c) for c in range(ord("a"), ord("s") + 1)]
    assert len(set(names.values())) == len(names)  # no two files sound alike on paper
    for letter, said in names.items():
        assert said != letter or len(said) > 1  # never the bare letter ("a" reads as an article)
    for rank in range(1, 20):
        assert spoken_square(f"s{rank}", lang) == f"{names['s']} {rank}"


def test_squares_are_spelled_only_where_they_are_squares() -> None:
    assert spoken_text("Computer: e7 to c7, captures d7.", "en") == \
        "Computer: ee 7 to see 7, captures dee 7."
    assert spoken_text("level 10, a1-a11", "en") == "level 10, ay 1 to ay 11"
    assert spoken_text("Tipp: d1 nach d4.", "de") == "Tipp: deh 1 nach deh 4."
    with pytest.raises(ValueError, match="not a square name"):
        spoken_square("t1")


def said(before: dict, now: dict, lang: str = "en") -> list[str]:
    return [u.text for u in Narrator(lang).changes(before, now)]


def test_the_computers_move_with_its_captures_in_both_languages() -> None:
    mtm = {"move": "e7-c7", "from": "e7", "to": "c7", "by": "computer", "side": "defenders",
           "captures": ["d7"]}
    now = dict(START, turn="defenders", move_to_make=mtm)
    assert said(START, now) == ["Computer: e7 to c7, captures d7."]
    assert said(START, now, "de") == ["Computer: e7 nach c7, schlägt d7."]
    online = dict(now, move_to_make=dict(mtm, by="online", captures=[]),
                  players={"defenders": {"name": "bob", "kind": "online"}})
    assert said(START, online) == ["bob: e7 to c7."]


def test_a_move_made_at_the_board_is_confirmed_once() -> None:
    now = dict(START, moves=["d1-d4xd5"], turn="defenders")
    assert said(START, now) == ["d1 to d4, captures d5."]
    # the computer's move made at the board was said when it was chosen: not again
    waiting = dict(START, move_to_make={"from": "h6", "to": "h4", "by": "computer"})
    assert said(waiting, dict(START, moves=["h6-h4"])) == []


def test_each_piece_to_lift_and_to_put_back() -> None:
    lift = dict(START, guidance={"kind": "lift_captured", "squares": ["h10"], "pieces": ["T"]})
    assert said(START, lift) == ["Lift the captured defender on h10."]
    assert said(START, lift, "de") == ["Nimm den geschlagenen Verteidiger auf h10 vom Brett."]
    two = dict(START, guidance={"kind": "lift_captured", "squares": ["c3", "e3"],
                                "pieces": ["t", "t"]})
    assert said(START, two) == ["Lift the captured attackers on c3 and e3."]
    back = dict(START, guidance={"kind": "setup", "fill": {"h7": "t"}, "clear": ["h9"],
                                 "recolour": {}})
    assert said(START, back) == ["Move the attacker from h9 back to h7."]
    assert said(START, back, "de") == ["Ziehe den Angreifer von h9 zurück nach h7."]


def test_an_illegal_move_in_short_with_its_remedy() -> None:
    throne = dict(START, guidance={"kind": "illegal", "code": "throne_stop", "from": "e5",
                                   "square": "f6"})
    assert said(START, throne) == [
        "Illegal: only the king may stop on the throne. Put it back on e5."]
    assert said(START, throne, "de") == [
        "Ungültig: nur der König darf auf dem Thron stehen. Stelle den Stein zurück auf e5."]
    odd = dict(START, guidance={"kind": "illegal", "code": "something_new", "from": "a4"})
    assert said(START, odd) == ["Illegal move. Put it back on a4."]


def test_the_result_and_why_and_the_match_score() -> None:
    over = dict(START, result="defenders", reason="escape",
                match={"game": 1, "games": 2, "score": {"Ann": 0.0, "Computer": 1.0}})
    assert said(START, over) == [
        "Defenders win: the king escaped. Match score: Ann 0, Computer 1."]
    assert said(START, dict(START, result="draw", reason="repetition"), "de") == [
        "Remis: die Stellung kam zum dritten Mal vor."]
    assert said(over, over) == []  # said once


def test_low_time_is_said_once_at_a_minute_and_ten_seconds() -> None:
    n = Narrator("en")
    st = dict(START, clock={"attackers": 75.0, "defenders": 300.0, "running": "attackers",
                            "paused": False, "at": 1000.0})
    assert n.clock_warnings(st, 1010.0) == []
    assert [u.text for u in n.clock_warnings(st, 1015.5)] == ["Attackers: one minute left."]
    assert n.clock_warnings(st, 1016.0) == []  # once
    assert [u.text for u in n.clock_warnings(st, 1065.5)] == ["Attackers: ten seconds left."]
    assert n.clocks(st, 1015.0).text == "Attackers 1:00. Defenders 5:00."


def test_the_position_described_for_a_player_who_cannot_see_it() -> None:
    st = {"variant": "brandubh", "position": "3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3",
          "turn": "attackers"}
    text = describe(st)
    assert text.startswith("Attackers: a4, b4, d1, d2, d6, d7, f4 and g4. "
                           "Defenders: c4, d3, d5 and e4.")
    assert "The king on d4 has no free line to an edge." in text
    assert text.endswith("Attackers to move.")
    open_king = dict(st, position="7/7/7/3K3/7/7/1t5")
    assert "free lines to d7, d1, g4 and a4" in describe(open_king)
    assert describe(open_king, "de").startswith("Angreifer: b7. Verteidiger: -.")


class Recorder(PageVoice):
    def __init__(self) -> None:
        self.heard: list[str] = []

    def say(self, text: str, lang: str) -> None:
        self.heard.append(text)


def test_a_newer_move_to_make_replaces_an_unsaid_older_one() -> None:
    engine = Recorder()
    published: list[list[dict[str, object]]] = []
    clock = iter(range(100, 200))
    speaker = Speaker(engine, "en", on_said=published.append, wall=lambda: float(next(clock)))
    speaker.say(Utterance("make", "Computer: e7 to c7."))
    speaker.say(Utterance("lift", "Lift the captured defender on h10."))
    speaker.say(Utterance("make", "Computer: e7 to e2."))  # takes the older one's place
    assert [u.text for u in speaker.waiting()] == ["Lift the captured defender on h10.",
                                                   "Computer: e7 to e2."]
    while speaker.speak_next():
        pass
    assert engine.heard == ["Lift the captured defender on aitch 10.", "Computer: ee 7 to ee 2."]
    assert published[-1] == [{"t": 100.0, "text": "Lift the captured defender on h10."},
                             {"t": 101.0, "text": "Computer: e7 to e2."}]
    assert speaker.repeat() == Utterance("make", "Computer: e7 to e2.")
    speaker.speak_next()
    assert engine.heard[-1] == "Computer: ee 7 to ee 2."
    assert speaker.dropped == 1


def test_the_queue_is_bounded_and_keeps_the_newest() -> None:
    speaker = Speaker(Recorder(), "en")
    for i in range(MAX_WAITING + 5):
        speaker.say(Utterance("played", f"move {i}"))
    texts = [u.text for u in speaker.waiting()]
    assert len(texts) == MAX_WAITING and texts[-1] == f"move {MAX_WAITING + 4}"


def test_a_silent_engine_still_lists_what_it_would_say() -> None:
    class Mute(Recorder):
        def problem(self) -> str | None:
            return "no sound device"

    engine = Mute()
    speaker = Speaker(engine, "de")
    speaker.say(Utterance("make", "Computer: e7 nach c7."))
    speaker.speak_next()
    assert engine.heard == [] and speaker.problem == "no sound device"
    assert [s["text"] for s in speaker.said()] == ["Computer: e7 nach c7."]
    assert re.fullmatch(r"\d+\.\d+", str(speaker.said()[0]["t"])) or speaker.said()[0]["t"]


def test_the_coachs_warning_is_said_once_with_the_takeback_it_offers() -> None:
    warning = {"move": "b4-b3", "kind": "escape", "target": "g1", "moves": 2, "side": "attackers"}
    now = dict(START, moves=["b4-b3"], turn="defenders",
               coach={"side": "attackers", "warning": warning})
    before = dict(now, coach={"side": "attackers", "warning": None})
    assert said(before, now) == ["Careful: b4 to b3 lets the king reach g1 in 2 moves. "
                                 "You can take it back."]
    assert said(before, now, "de") == ["Vorsicht: Nach b4 nach b3 erreicht der König g1 in 2 "
                                       "Zügen. Du kannst den Zug zurücknehmen."]
    assert said(now, now) == []  # the same warning: not again
    capture = dict(now, coach={"warning": dict(warning, kind="capture", moves=1)})
    assert said(before, capture) == ["Careful: b4 to b3 lets the attackers capture the king "
                                     "at once. You can take it back."]
    drop = dict(now, coach={"warning": dict(warning, kind="drop", drop=2.5, moves=None)})
    assert said(before, drop, "de")[0].startswith("Vorsicht: Mit b4 nach b3 steht deine "
                                                  "Partei um etwa 2,5 Steine schlechter.")


def test_a_puzzles_verdict_is_said_with_the_refutation_and_the_right_move() -> None:
    """Issue 28: right, solved and wrong, in both languages; a wrong move's refutation is the
    move to make, named once."""
    listing = {"id": "brandubh-1", "goal": "escape", "moves": 2, "side": "defenders"}
    playing = dict(START, variant="brandubh", turn="defenders",
                   puzzle=dict(listing, status="playing", played=0, last=None))
    answer = {"move": "e5-e3", "from": "e5", "to": "e3", "by": "puzzle", "side": "attackers",
              "captures": []}
    right = dict(playing, moves=["d4-d2"], turn="attackers", move_to_make=answer,
                 puzzle=dict(listing, status="playing", played=1, last={
                     "move": "d4-d2", "kind": "right", "answer": "e5-e3", "why": None,
                     "solution": None}))
    assert said(playing, right) == ["d4 to d2.", "Right.", "Puzzle: e5 to e3."]
    assert said(playing, right, "de") == ["d4 nach d2.", "Richtig.", "Rätsel: e5 nach e3."]
    assert said(right, right) == []  # the same verdict: not again
    solved = dict(right, moves=["d4-d2", "e5-e3", "d2-a2"], move_to_make=None, turn="attackers",
                  puzzle=dict(listing, status="solved", played=2, last={
                      "move": "d2-a2", "kind": "solved", "answer": None, "why": None,
                      "solution": None}))
    assert said(dict(right, moves=["d4-d2", "e5-e3"], move_to_make=None), solved, "de") == [
        "d2 nach a2.", "Gelöst!"]
    wrong = dict(playing, moves=["d4-c4"], turn="attackers", move_to_make=answer,
                 puzzle=dict(listing, status="failed", played=1, last={
                     "move": "d4-c4", "kind": "wrong", "answer": "e5-e3xd3", "why": "capture",
                     "solution": "d4-d2"}))
    assert said(playing, wrong) == [
        "d4 to c4.", "Wrong. The puzzle answers e5 to e3: the king is captured. The right move "
        "was d4 to d2."]
    assert said(playing, wrong, "de") == [
        "d4 nach c4.", "Falsch. Das Rätsel antwortet e5 nach e3: der König wird gefangen. "
        "Richtig war d4 nach d2."]
    # an imported puzzle has no refutation: only the right move is named
    bare = dict(wrong, move_to_make=None, puzzle=dict(wrong["puzzle"], last=dict(
        wrong["puzzle"]["last"], answer=None, why=None)))
    assert said(playing, bare) == ["d4 to c4.", "Wrong. The right move was d4 to d2."]
