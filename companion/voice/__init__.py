"""The talking board (docs/voice.md): sentences chosen from the session's published state, said
by espeak-ng on the board or by the page's speech synthesis; nothing runs on the loop thread."""

from .config import ENGINES, VoiceConfig, VoiceConfigError, parse_voice
from .sentences import Utterance
from .service import Voice, describe, engine_for

__all__ = ["ENGINES", "Utterance", "Voice", "VoiceConfig", "VoiceConfigError", "describe",
           "engine_for", "parse_voice"]
