"""Saying sentences: a speech engine behind a small protocol, and the speaker's own thread with a
bounded queue (a newer move to make replaces an older one not yet said), so that speaking never
holds up the session's loop or the thread that chose the sentence.

Engines: ``espeak-ng`` (Debian's and Raspberry Pi OS's synthesiser, English and German voices,
through the default sound output: the headphone jack, HDMI, a USB speaker or an I2S amplifier)
and ``page`` (nothing is played on the board: the page speaks the same sentences with the
browser's speech synthesis). Without a sound device or without espeak-ng the voice still
composes and lists what it would say, says once why it is silent, and the board plays on.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypedDict

from .names import spoken_text
from .sentences import Utterance

log = logging.getLogger("companion.voice")

#: espeak-ng's voices for the page's languages.
ESPEAK_VOICES = {"en": "en-gb", "de": "de"}
#: Words a minute (espeak-ng's default is 175; a little slower is clearer over a small speaker).
ESPEAK_RATE = 160
#: At most this many sentences wait; the oldest goes when more come (the board moved on).
MAX_WAITING = 8
#: What ``said`` keeps (the state's ``voice.said``).
SAID_KEPT = 20
#: Kinds of sentence of which only the newest waiting one is said.
REPLACED = ("make", "clock", "setup")


class Said(TypedDict):
    """A sentence said, and when (wall time)."""

    t: float
    text: str


class SpeechEngine(Protocol):
    """What the speaker needs of a synthesiser."""

    name: str

    def problem(self) -> str | None:
        """Why nothing is heard (no synthesiser, no sound device), or None."""

    def say(self, text: str, lang: str) -> None:
        """Say ``text`` (squares already spelled) and return when it is said."""


def sound_devices(root: Path = Path("/dev/snd")) -> list[str]:
    """ALSA playback devices (``pcmC0D0p``): none in a container or on a Pi without audio."""
    try:
        return sorted(p.name for p in root.glob("pcmC*D*p"))
    except OSError:
        return []


class EspeakNg:
    """Debian's ``espeak-ng``, run once per sentence (``-w FILE`` renders instead)."""

    name = "espeak-ng"

    def __init__(self, command: str = "espeak-ng", rate: int = ESPEAK_RATE,
                 devices: Callable[[], list[str]] = sound_devices) -> None:
        self.command = shutil.which(command) or ""
        self.rate = rate
        self._devices = devices

    def problem(self) -> str | None:
        if not self.command:
            return ("espeak-ng is not installed (sudo apt-get install espeak-ng): the voice "
                    "is silent; the page can speak instead (--voice page)")
        if not self._devices():
            return ("no sound device (/dev/snd has no playback device): the voice is silent; "
                    "check the speaker with `aplay -l` and `speaker-test -t wav`")
        return None

    def argv(self, text: str, lang: str, wav: str | None = None) -> list[str]:
        out = ["-w", wav] if wav else []
        return [self.command or "espeak-ng", "-v", ESPEAK_VOICES.get(lang, "en-gb"),
                "-s", str(self.rate), *out, "--", text]

    def say(self, text: str, lang: str) -> None:
        subprocess.run(self.argv(text, lang), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60, check=True)

    def render(self, text: str, lang: str, wav: str) -> None:
        """Write ``text`` spoken to the WAV file ``wav`` (the tests and the install's check)."""
        subprocess.run(self.argv(text, lang, wav), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60, check=True)


class PageVoice:
    """Nothing is played on the board: the page's speech synthesis says the sentences."""

    name = "page"

    def problem(self) -> str | None:
        return None

    def say(self, text: str, lang: str) -> None:
        return None


class Speaker:
    """The sentences to say, in order, on the speaker's own thread (see the module docstring).
    ``on_said(said)`` is called after each sentence with the list of what was said (oldest
    first, at most :data:`SAID_KEPT`: ``{"t": wall time, "text": ...}``)."""

    def __init__(self, engine: SpeechEngine, lang: str = "en",
                 on_said: Callable[[list[Said]], None] | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.lang = lang
        self._on_said = on_said
        self._wall = wall
        self._cond = threading.Condition()
        self._waiting: deque[Utterance] = deque()
        self._said: deque[Said] = deque(maxlen=SAID_KEPT)
        self.last: Utterance | None = None
        self.dropped = 0
        self.failures = 0
        self._problem = engine.problem()
        self._told = False
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)

    @property
    def problem(self) -> str | None:
        return self._problem

    def start(self) -> None:
        if self._problem and not self._told:
            self._told = True
            log.warning("voice: %s", self._problem)
        self._thread.start()

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    # -- any thread ------------------------------------------------------------------------
    def say(self, utterance: Utterance) -> None:
        """Queue ``utterance``; never blocks. A newer sentence of a :data:`REPLACED` kind
        takes the place of a waiting one of the same kind."""
        with self._cond:
            if utterance.kind in REPLACED:
                for old in [u for u in self._waiting if u.kind == utterance.kind]:
                    self._waiting.remove(old)
                    self.dropped += 1
            self._waiting.append(utterance)
            while len(self._waiting) > MAX_WAITING:
                self._waiting.popleft()
                self.dropped += 1
            self._cond.notify()

    def repeat(self) -> Utterance | None:
        """Say the last sentence again (None when nothing was said yet)."""
        last = self.last
        if last is not None:
            self.say(Utterance("repeat", last.text))
        return last

    def waiting(self) -> list[Utterance]:
        with self._cond:
            return list(self._waiting)

    def said(self) -> list[Said]:
        with self._cond:
            return list(self._said)

    # -- the speaker's thread --------------------------------------------------------------
    def speak_next(self, block: bool = False, timeout: float | None = None) -> Utterance | None:
        """Say the next waiting sentence (the thread's step; tests call it directly)."""
        with self._cond:
            if block:
                self._cond.wait_for(lambda: self._waiting or self._stop, timeout)
            if not self._waiting:
                return None
            utterance = self._waiting.popleft()
            self._said.append({"t": round(self._wall(), 3), "text": utterance.text})
            said = list(self._said)
        if utterance.kind != "repeat":
            self.last = utterance
        if self._on_said is not None:
            try:
                self._on_said(said)
            except Exception as exc:  # noqa: BLE001 - the state is told next time
                log.debug("voice: what was said not published: %s", exc)
        if self._problem is None:
            try:
                self.engine.say(spoken_text(utterance.text, self.lang), self.lang)
            except (OSError, subprocess.SubprocessError) as exc:
                self.failures += 1
                if self.failures == 1 or self.failures % 100 == 0:
                    log.warning("voice: %s failed (%d times): %s", self.engine.name,
                                self.failures, exc)
        return utterance

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stop:
                    return
            try:
                self.speak_next(block=True, timeout=1.0)
            except Exception:  # the voice must never stop on a bad sentence
                log.exception("voice: speaking failed")
