"""The talking board for real: espeak-ng renders the sentences (English and German) to WAV
files that last and are not silent, and a game against the computer on the simulated board can
be followed by ear: the state's ``voice.said`` lists what was said (docs/voice.md)."""

from __future__ import annotations

import array
import shutil
import wave
from dataclasses import replace
from pathlib import Path

import pytest
from prerequisites import require
from test_daemon_support import control, state, test_config, wait_for

from companion.voice import VoiceConfig
from companion.voice.names import spoken_text
from companion.voice.speaker import EspeakNg


def loudness(path: Path) -> tuple[float, float]:
    """(seconds, RMS of the samples) of a 16-bit mono WAV file."""
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    samples = array.array("h", frames)
    rms = (sum(s * s for s in samples) / max(1, len(samples))) ** 0.5
    return seconds, rms


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Computer: e7 to c7, captures d7."),
    ("de", "Computer: e7 nach c7, schlägt d7."),
    ("en", "Illegal: only the king may stop on the throne. Put it back on e5."),
    ("de", "Nimm den geschlagenen Verteidiger auf h10 vom Brett."),
])
def test_espeak_ng_says_the_sentences_aloud(tmp_path: Path, lang: str, text: str) -> None:
    require(shutil.which("espeak-ng") is not None, "espeak-ng (apt-get install espeak-ng)")
    wav = tmp_path / "said.wav"
    EspeakNg().render(spoken_text(text, lang), lang, str(wav))
    seconds, rms = loudness(wav)
    words = len(text.split())
    assert seconds > 0.25 * words, (seconds, words)  # every word said, none skipped
    assert rms > 500, rms  # speech, not silence (16-bit samples)


def test_without_espeak_ng_or_a_sound_device_the_voice_says_why(tmp_path: Path) -> None:
    missing = EspeakNg(command="no-such-espeak-ng")
    assert "espeak-ng is not installed" in str(missing.problem())
    no_device = EspeakNg(devices=lambda: [])
    if no_device.command:
        assert "no sound device" in str(no_device.problem())


def said(base: str) -> list[str]:
    return [str(s["text"]) for s in (state(base).get("voice") or {}).get("said") or []]


def test_a_game_against_the_computer_followed_by_ear(tmp_path: Path) -> None:
    """Eyes closed: the page's address at start, the computer's move, an illegal move and its
    remedy, both clocks on request, the position described, and the result."""
    from companion.daemon import Daemon

    cfg = test_config(tmp_path, defenders="computer:1", time_control="5+3")
    d = Daemon(replace(cfg, voice=VoiceConfig("page")))
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        wait_for(lambda: any(t.startswith("The board's page is at http://") for t in said(base)),
                 what="the page's address said")
        assert state(base)["voice"]["engine"] == "page"
        for square in ("d1", "d4"):
            assert control(base, "api/click", {"square": square})[0] == 200
        wait_for(lambda: "d1 to d4." in said(base), what="the move confirmed")
        mtm = wait_for(lambda: state(base)["move_to_make"], what="the computer's move")
        wait_for(lambda: any(t.startswith(f"Computer: {mtm['from']} to {mtm['to']}")
                             for t in said(base)), what="the computer's move said")
        # the computer's move made at the board
        for square in (mtm["from"], mtm["to"]):
            control(base, "api/click", {"square": square})
        wait_for(lambda: state(base)["turn"] == "attackers" and not state(base)["move_to_make"],
                 what="the computer's move made")
        # an illegal move: e1 to d2 is diagonal
        for square in ("e1", "d2"):
            control(base, "api/click", {"square": square})
        wait_for(lambda: "Illegal: pieces move in straight lines. Put it back on e1." in
                 said(base), what="the illegal move and its remedy")
        for square in ("d2", "e1"):  # put back
            control(base, "api/click", {"square": square})
        status, answer = control(base, "api/voice", {"action": "clocks"})
        assert status == 200 and answer["text"].startswith("Attackers ")
        wait_for(lambda: answer["text"] in said(base), what="both clocks said")
        status, answer = control(base, "api/voice", {"action": "describe"})
        assert status == 200 and "The king on f6" in answer["text"]
        status, answer = control(base, "api/voice", {"action": "repeat"})
        assert status == 200 and answer["text"].startswith("Attackers: ")
        assert control(base, "api/voice", {"action": "shout"})[0] == 400
        assert control(base, "api/resign", {"side": "attackers"})[0] == 200
        wait_for(lambda: "Defenders win: the other side resigned." in said(base),
                 what="the result and why")
        assert len(said(base)) <= 20
    finally:
        d.stop()


def test_the_voice_is_off_by_default(tmp_path: Path) -> None:
    from test_daemon_support import running_daemon

    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        assert state(base)["voice"] is None
        assert control(base, "api/voice", {"action": "repeat"})[0] == 404
