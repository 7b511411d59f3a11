"""``[voice]`` of the config file and ``run --voice`` (docs/voice.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The voices: Debian's synthesiser on the board, the page's speech synthesis, or none.
ENGINES = ("espeak-ng", "page", "none")
VOICE_KEYS = ("engine", "language")


class VoiceConfigError(ValueError):
    """A bad ``[voice]`` table or ``--voice`` value (the message names the field)."""


@dataclass(frozen=True)
class VoiceConfig:
    """``engine``: espeak-ng | page | none (the default); ``language``: en | de (None: the
    display's)."""

    engine: str = "none"
    language: str | None = None

    @property
    def on(self) -> bool:
        return self.engine != "none"


def check_engine(value: object, where: str = "[voice] engine") -> str:
    if value not in ENGINES:
        raise VoiceConfigError(f"{where}: expected one of {', '.join(ENGINES)}, not {value!r}")
    return str(value)


def parse_voice(table: Mapping[str, Any]) -> VoiceConfig:
    """A checked VoiceConfig from the ``[voice]`` table."""
    if not isinstance(table, Mapping):
        raise VoiceConfigError(f"[voice] must be a table, not {type(table).__name__}")
    for key in table:
        if key not in VOICE_KEYS:
            raise VoiceConfigError(f"[voice] {key}: unknown key (known: {', '.join(VOICE_KEYS)})")
    engine = check_engine(table.get("engine", "none"))
    language = table.get("language")
    if language is not None and language not in ("en", "de"):
        raise VoiceConfigError(f"[voice] language: expected en or de, not {language!r}")
    return VoiceConfig(engine, language)
