"""OpenTafl rules records (OTR) as OTEP hosts send them, and back.

A host sends ``rules <OTR>`` where ``start:`` is the *current* position and ``atkf:`` names the
side to move. For the presets of this project ``name:`` carries the preset id and only the keys
that differ from OpenTafl's defaults are written (the table below, from the project's OTEP
notes); other rule sets are written in full (:func:`companion.rules.otg.rules_string`).

Reading: the record is parsed key by key (:func:`companion.rules.otg.parse_rules_string`); when
``name:`` is a preset id and the keys agree with that preset on everything OTR can express, the
preset itself is used — so the rules OTR cannot say (Copenhagen's "only the defenders lose by
repetition", "no moves" loses or draws) are the preset's. When the keys contradict the named
preset, the keys win (the record describes the game actually played).
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules import PRESETS, Board, RuleSet
from companion.rules.otg import OtgError, parse_rules_string, rules_string
from companion.rules.ruleset import ATTACKERS, DEFENDERS, NONE_HOSTILE

# the keys a host sends for each preset (besides dim, name, atkf and start)
PRESET_KEYS: dict[str, str] = {
    "copenhagen": "tfr:w sw:s efe:y",
    "copenhagen-13": "tfr:w sw:s efe:y",
    "fetlar": "surf:n nj:n cj:n",
    "koenigszabel": "surf:n cenhe:K nj:n cj:n",
    "helmfrid-11": "surf:n tfr:i ks:c",
    "helmfrid-9": "surf:n tfr:i ks:c",
    "tablut": "esc:e surf:n tfr:i cenre: cenhe:K",
    "tablut-linnaeus": "esc:e surf:n ks:c cor: cens: cenhe:tcnkTCNK linc:y",
    "brandubh": "tfr:w ks:c",
    "ard-ri": "esc:e surf:n cor:",
    "tawlbwrdd": "esc:e surf:n ks:w cor: cen:",
}

# fields OTR cannot express: taken from the preset
_UNSAID = ("id", "name", "start", "first", "no_moves", "sheltered_king", "chain_capture", "source")


class RulesError(ValueError):
    """A rules record this engine cannot play; the message says why."""


def otr_for(rules: RuleSet, position: str | None = None, turn: str | None = None) -> str:
    """The OTR a host sends for ``rules`` with ``position`` (default: the start) and ``turn``
    (default: who moves first) to move."""
    position = position or rules.start
    turn = turn or rules.first
    atkf = "y" if turn == ATTACKERS else "n"
    keys = PRESET_KEYS.get(rules.id)
    if keys is not None and PRESETS.get(rules.id) == rules:
        return f"dim:{rules.size} name:{rules.id} atkf:{atkf} {keys} start:{position}"
    parts = []
    for part in rules_string(rules).split():
        key = part.partition(":")[0]
        if key == "atkf":
            part = f"atkf:{atkf}"
        elif key == "start":
            part = f"start:{position}"
        elif key == "name":
            part = f"name:{rules.id.replace(' ', '_')}"
        parts.append(part)
    return " ".join(parts)


def _normal(rules: RuleSet) -> RuleSet:
    """``rules`` without what OTR cannot say and what does not matter (hostility of corners
    that do not exist, of a throne that does not exist)."""
    blank = {name: getattr(PRESETS["copenhagen"], name) for name in _UNSAID}
    out = replace(rules, **blank)
    if out.corners == "none":
        out = replace(out, hostile_corners=NONE_HOSTILE)
    if not out.has_throne:
        out = replace(out, hostile_throne_empty=NONE_HOSTILE, throne_pass="all")
    return out


def parse_otr(text: str) -> tuple[RuleSet, str, str]:
    """``(rule set, current position, side to move)`` from an OTR record. RulesError when the
    record is malformed or asks for rules this engine cannot play."""
    try:
        parsed = parse_rules_string(text)
    except (OtgError, ValueError) as exc:
        raise RulesError(str(exc).replace("rules tag: ", "rules: ")) from None
    position, turn = parsed.start, parsed.first
    name = ""
    for part in text.split():
        if part.startswith("name:"):
            name = part[5:]
    preset = PRESETS.get(name) or PRESETS.get(name.lower().replace("_", "-"))
    rules = parsed
    if preset is not None and _normal(parsed) == _normal(preset):
        rules = preset
    else:
        rules = replace(parsed, start=position, first=turn)
    try:
        Board(rules, position, turn)
    except ValueError as exc:
        raise RulesError(f"rules: {exc}") from None
    return rules, position, turn


def side_word(turn: str) -> str:
    """Validate a side word of the protocol."""
    if turn not in (ATTACKERS, DEFENDERS):
        raise RulesError(f"side must be attackers or defenders, not {turn!r}")
    return turn
