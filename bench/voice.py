"""The scan loop's rate while the voice speaks without a pause (issue 27): speaking never slows
the loop, since sentences are chosen and said on the voice's own threads.

    python bench/voice.py [--window 5]

Runs an in-process daemon (simulated board at 100 Hz, at its full rate throughout) with the
voice on (espeak-ng when installed: it renders every sentence to a WAV file in memory, which
costs what playing it costs, without a sound device) and prints the loop's rate and its
longest gap, quiet and while the voice is kept busy (a sentence queued every 50 ms).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from loop_timer import LoopTimer  # noqa: E402  (bench/loop_timer.py)


class Rendering:
    """espeak-ng writing each sentence to a file (its work, no sound device needed)."""

    name = "espeak-ng"

    def __init__(self, out: Path) -> None:
        from companion.voice.speaker import EspeakNg

        self.espeak = EspeakNg()
        self.out = out
        self.said = 0

    def problem(self) -> str | None:
        return None

    def say(self, text: str, lang: str) -> None:
        self.espeak.render(text, lang, str(self.out / "said.wav"))
        self.said += 1


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--window", type=float, default=5.0)
    args = p.parse_args()
    from companion.config import DaemonConfig, with_overrides
    from companion.daemon import Daemon
    from companion.voice import VoiceConfig
    from companion.voice.sentences import Utterance

    data = Path(tempfile.mkdtemp(prefix="tafl-voice-"))
    cfg = with_overrides(DaemonConfig(), data_dir=str(data), port=0, host="127.0.0.1",
                         pin="2468")
    cfg = replace(cfg, board=replace(cfg.board, idle_after=0.0), voice=VoiceConfig("page"))
    d = Daemon(cfg)
    timer = LoopTimer(d)
    d.start()
    assert d.voice is not None
    engine = Rendering(data) if shutil.which("espeak-ng") else None
    if engine is not None:
        d.voice.speaker.engine = engine  # type: ignore[assignment]

    try:
        report: dict[str, object] = {"engine": engine.name if engine else "page (no espeak-ng)"}
        report["quiet"] = timer.window(args.window)
        stop = threading.Event()

        def talk() -> None:
            i = 0
            while not stop.wait(0.05):
                i += 1
                d.voice.say(Utterance("played", f"d{1 + i % 9} to d{1 + (i + 3) % 9}."))  # type: ignore[union-attr]

        t = threading.Thread(target=talk, daemon=True)
        t.start()
        report["speaking"] = timer.window(args.window)
        stop.set()
        t.join()
        report["sentences_said"] = engine.said if engine else len(d.voice.speaker.said())
        print(json.dumps(report, indent=1))
    finally:
        d.stop()


if __name__ == "__main__":
    main()
