"""Game settings: a variant plus house-rule options, as users choose them.

Options (config ``[rules]``, ``run --rule NAME=VALUE``, the API's ``options``)::

    sheltered_king  true | false             the board edge never encloses the king
    chain_capture   true | false             two or more enemy pieces alternating with the mover's
    king_armed      true | false             the king helps capture
    escape          corners | edge           where the king escapes
    repetition      off | draw | defenders_lose

Anything not given keeps the variant's own value. The settings are stored with every game; the
rule set is rebuilt from them (``rules()``), so a game is always replayed under its own rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.rules import PRESETS, RuleSet
from companion.store_types import SettingsJSON as SettingsJSON  # as stored with a game

#: option -> allowed values (booleans for the flags)
OPTIONS: dict[str, tuple[object, ...]] = {
    "sheltered_king": (True, False),
    "chain_capture": (True, False),
    "king_armed": (True, False),
    "escape": ("corners", "edge"),
    "repetition": ("off", "draw", "defenders_lose"),
}




class SettingsError(ValueError):
    """A bad variant or option; the message names it and the allowed values."""


@dataclass(frozen=True)
class GameSettings:
    """A variant id and the options that differ from it (sorted, JSON-ready)."""

    variant: str = "copenhagen"
    options: tuple[tuple[str, object], ...] = field(default=())

    @classmethod
    def make(cls, variant: object, options: Mapping[str, object] | None = None,
             where: str = "") -> GameSettings:
        """Checked settings; SettingsError naming the bad value."""
        if not isinstance(variant, str) or variant not in PRESETS:
            raise SettingsError(f"{where}variant must be one of {', '.join(sorted(PRESETS))}, "
                                f"not {variant!r}")
        base = PRESETS[variant]
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise SettingsError(f"{where}options must be an object of rule options")
        out: dict[str, object] = {}
        for key, value in options.items():
            value = parse_option(key, value, where)
            if getattr(base, key) != value:
                out[key] = value
        settings = cls(variant, tuple(sorted(out.items())))
        try:
            settings.rules()
        except ValueError as exc:
            raise SettingsError(f"{where}{exc}") from None
        return settings

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> GameSettings:
        opts = data.get("options") or {}
        return cls.make(data.get("variant"), opts if isinstance(opts, Mapping) else {})

    def rules(self) -> RuleSet:
        """The rule set: the variant with the options applied."""
        base = PRESETS[self.variant]
        return base.with_options(**dict(self.options)) if self.options else base

    def with_variant(self, variant: str) -> GameSettings:
        """The same options on another variant (those that no longer differ are dropped)."""
        return GameSettings.make(variant, dict(self.options))

    def to_json(self) -> SettingsJSON:
        rules = self.rules()
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "rules": {k: getattr(rules, k) for k in OPTIONS},
        }

    def summary(self) -> str:
        """One line for exports: ``copenhagen chain_capture=true``."""
        parts = [self.variant] + [f"{k}={_text(v)}" for k, v in self.options]
        return " ".join(parts)


def _text(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def parse_option(key: object, value: object, where: str = "") -> object:
    """One option's value, checked (``"true"``/``"false"`` text is accepted for flags)."""
    if not isinstance(key, str) or key not in OPTIONS:
        raise SettingsError(f"{where}unknown rule option {key!r}; known: {', '.join(OPTIONS)}")
    allowed = OPTIONS[key]
    if isinstance(value, str) and allowed == (True, False):
        low = value.strip().lower()
        if low in ("true", "yes", "on", "1"):
            value = True
        elif low in ("false", "no", "off", "0"):
            value = False
    if allowed == (True, False):
        if not isinstance(value, bool):
            raise SettingsError(f"{where}rule option {key} must be true or false, not {value!r}")
        return value
    if value not in allowed:
        raise SettingsError(f"{where}rule option {key} must be one of "
                            f"{', '.join(str(a) for a in allowed)}, not {value!r}")
    return value


def parse_option_arg(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` from the command line."""
    key, sep, value = text.partition("=")
    if not sep:
        raise SettingsError(f"--rule {text!r}: expected NAME=VALUE, e.g. chain_capture=true")
    return key.strip(), parse_option(key.strip(), value.strip(), "--rule ")
