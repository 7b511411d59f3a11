"""OpenTafl rules strings (``dim:11 name:... start:/.../``, the ``rules`` tag of a game file)
and this project's extension tag ``[companion-rules:...]``: write a :class:`RuleSet` as one,
read one back. See :mod:`companion.rules.otg` for the format's sources and what each key means.
"""

from __future__ import annotations

import dataclasses
import re

from ..squares import coords_name
from .board import Board
from .geometry import geometry_for
from .ruleset import ATTACKERS, DEFENDERS, KING, MAX_SIZE, MIN_SIZE, PRESETS, RuleSet


class OtgError(ValueError):
    """A malformed or inconsistent game file; the message names the line when it can."""


_LETTER = {ATTACKERS: "t", DEFENDERS: "T", KING: "K"}
# OpenTafl's tfr:w is "the player who makes the third repetition loses" (its code; the spec text
# has it the other way round); tfr:l, written by this project's earlier exports, is read the same.
_TFR = {"off": "i", "draw": "d", "defenders_lose": "w"}
# OpenTafl has no "strong on the throne only" (hnefatafl.org's brandubh): "c" is the nearest
_KS = {"strong": "s", "strong_by_throne": "c", "strong_on_throne": "c", "weak": "w"}
_SW = {"off": "n", "on": "w", "corners": "s"}
_EXTENSION_FIELDS = ("repetition", "no_moves", "sheltered_king", "chain_capture")
#: The board sizes a rule set may have (:class:`RuleSet`), as ``dim`` is written: 1-2 digits.
_DIM = re.compile(r"[0-9]{1,2}")


def _letters(sides: frozenset[str]) -> str:
    return "".join(_LETTER[s] for s in (ATTACKERS, DEFENDERS, KING) if s in sides)


def _yn(flag: bool) -> str:
    return "y" if flag else "n"


def _block_squares(rules: RuleSet) -> list[str]:
    geo = geometry_for(rules)
    return [geo.names[s] for s in geo.iter_bits(geo.corner)]


def rules_string(rules: RuleSet) -> str:
    """The OpenTafl rules string (``dim:11 name:... start:/.../``) of a rule set."""
    name = one_line(rules.name).replace(":", " ").replace(" ", "_")
    parts = [f"dim:{rules.size}", f"name:{name}"]
    parts += [
        f"esc:{'c' if rules.escape == 'corners' else 'e'}",
        f"surf:{_yn(rules.encirclement)}",
        f"atkf:{_yn(rules.first == ATTACKERS)}",
        f"tfr:{_TFR[rules.repetition]}",
        f"ka:{_yn(rules.king_armed)}",
        f"ks:{_KS[rules.king_strength]}",
    ]
    if rules.corners == "none":
        parts.append("cor:")
    elif rules.corners == "block":
        parts.append("cor:" + "".join(s + "," for s in _block_squares(rules)))
    if rules.has_throne:
        parts.append("cenp:" + {"all": "tTK", "king": "K", "nobody": ""}[rules.throne_pass])
        parts.append("cens:" + ("" if rules.throne_stop == "nobody" else "K"))
        parts.append("cenre:" + ("K" if rules.throne_stop == "king" else ""))
        parts.append(f"cenh:{'t' if rules.king_armed else ''}")
    else:
        parts.append("cen:")
    parts.append(f"cenhe:{_letters(rules.hostile_throne_empty)}")
    parts.append(f"corh:{_letters(rules.hostile_corners)}")
    parts.append(f"sw:{_SW[rules.shieldwall]}")
    parts.append(f"efe:{_yn(rules.exit_fort)}")
    if rules.linnaean_capture:
        parts.append("linc:y")
    parts.append(f"start:{rules.start}")
    return " ".join(parts)


def extension_string(rules: RuleSet) -> str:
    values = []
    for name in _EXTENSION_FIELDS:
        value = getattr(rules, name)
        values.append(f"{name}={('on' if value else 'off') if isinstance(value, bool) else value}")
    if rules.king_strength == "strong_on_throne":  # not in OpenTafl's ks: (hnefatafl.org's)
        values.append("king_strength=strong_on_throne")
    return f"id={one_line(rules.id).replace(' ', '_')} " + " ".join(values)


def one_line(text: str) -> str:
    """A tag value: one line, without the brackets that delimit tags and comments."""
    return " ".join(re.sub(r"[\[\]]", " ", text).split())


def _rules_map(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split():
        key, _, value = part.partition(":")
        out[key] = value
    return out


def _sides(letters: str, key: str) -> frozenset[str]:
    out: set[str] = set()
    for ch in letters:
        if ch == "t":
            out.add(ATTACKERS)
        elif ch == "T":
            out.add(DEFENDERS)
        elif ch == "K":
            out.add(KING)
        elif ch not in "cnkCN":  # commanders and knights: pieces this project does not have
            raise OtgError(f"rules tag: {key}: unknown piece letter {ch!r}")
    return frozenset(out)


def parse_rules_string(text: str, extension: str | None = None) -> RuleSet:
    """A RuleSet from an OpenTafl rules string (and the optional ``companion-rules`` tag value).

    The result is the matching preset when the extension names one and every rule agrees."""
    m = _rules_map(text)
    if "dim" not in m or ("start" not in m and "starti" not in m):
        raise OtgError("rules tag: needs dim: and start:")
    if not _DIM.fullmatch(m["dim"]):
        raise OtgError(f"rules tag: dim must be a number, not {m['dim'][:20]!r}")
    size = int(m["dim"])
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise OtgError(f"rules tag: dim:{size}: boards are {MIN_SIZE}x{MIN_SIZE} to "
                       f"{MAX_SIZE}x{MAX_SIZE}")
    if "start" in m:
        start = m["start"]
    else:  # starti: the same record written top row first
        start = "/" + "/".join(reversed(m["starti"].strip("/").split("/"))) + "/"
    for key, default in (("ber", "n"), ("kj", "n")):
        if m.get(key, default) not in ("", default):
            raise OtgError(f"rules tag: {key}:{m[key]} (berserk moves, jumps) is not supported")
    if m.get("spd", "-1") not in ("", "-1"):
        raise OtgError("rules tag: speed limits (spd) are not supported")
    fields: dict[str, object] = {
        "escape": {"c": "corners", "e": "edge"}.get(m.get("esc", "c")),
        "encirclement": m.get("surf", "y") == "y",
        "first": ATTACKERS if m.get("atkf", "y") == "y" else DEFENDERS,
        "repetition": {"i": "off", "d": "draw", "w": "defenders_lose", "l": "defenders_lose"}.get(
            m.get("tfr", "d")),
        "king_armed": {"y": True, "n": False}.get(m.get("ka", "y")),
        "king_strength": {"s": "strong", "y": "strong", "c": "strong_by_throne", "w": "weak",
                          "n": "weak"}.get(m.get("ks", "s")),
        "shieldwall": {"n": "off", "w": "on", "s": "corners"}.get(m.get("sw", "n")),
        "exit_fort": m.get("efe", "n") == "y",
        "linnaean_capture": m.get("linc", "n") == "y",
        "hostile_corners": _sides(m.get("corh", "tTK"), "corh"),
        "hostile_throne_empty": _sides(m.get("cenhe", "tTK"), "cenhe"),
    }
    for key, name in (("esc", "escape"), ("tfr", "repetition"), ("ka", "king_armed"),
                      ("ks", "king_strength"), ("sw", "shieldwall")):
        if fields[name] is None:
            raise OtgError(f"rules tag: {key}:{m[key]} is not supported")
    fields["corners"] = _corners(m.get("cor", "default"), size)
    centre = m.get("cen", "default")
    if centre == "":
        fields["throne_stop"] = "anyone"
        fields["throne_pass"] = "all"
    else:
        mid = coords_name(size // 2, size // 2, size)
        if centre not in ("default", mid, mid + ","):
            raise OtgError(f"rules tag: cen:{centre}: only the middle square can be the throne")
        stop = _sides(m.get("cens", "K"), "cens")
        again = _sides(m.get("cenre", "tTK"), "cenre")
        passing = _sides(m.get("cenp", "tTK"), "cenp")
        if stop - {KING}:
            raise OtgError("rules tag: cens: soldiers stopping on the throne is not supported")
        if KING not in stop:
            fields["throne_stop"] = "nobody"
        else:
            fields["throne_stop"] = "king" if KING in again else "king_once"
        if {ATTACKERS, DEFENDERS} <= passing:
            fields["throne_pass"] = "all"
        elif passing & {ATTACKERS, DEFENDERS}:
            raise OtgError("rules tag: cenp: one side only passing the throne is not supported")
        else:
            fields["throne_pass"] = "king" if KING in passing else "nobody"
    rule_id, name = "opentafl", m.get("name", "").replace("_", " ") or "OpenTafl rules"
    if extension is not None:
        for part in extension.split():
            key, eq, value = part.partition("=")
            if not eq:
                raise OtgError(f"companion-rules tag: expected key=value, not {part!r}")
            if key == "id":
                rule_id = value
            elif key in ("sheltered_king", "chain_capture"):
                if value not in ("on", "off"):
                    raise OtgError(f"companion-rules tag: {key} must be on or off")
                fields[key] = value == "on"
            elif key in ("repetition", "no_moves", "king_strength"):
                fields[key] = value
            else:
                raise OtgError(f"companion-rules tag: unknown key {key!r}")
    try:
        rules = RuleSet(id=rule_id, name=name, size=size, start=start, **fields)  # type: ignore[arg-type]
        Board(rules)
    except (ValueError, TypeError) as exc:
        raise OtgError(f"rules tag: {exc}") from None
    preset = PRESETS.get(rule_id)
    if preset is not None and dataclasses.replace(rules, name=preset.name) == preset:
        return preset
    return rules


def _corners(value: str, size: int) -> str:
    if value == "default":
        return "single"
    squares = {s for s in value.split(",") if s}
    if not squares:
        return "none"
    last = size - 1
    ends, near = (0, last), (0, 1, last - 1, last)
    single = {coords_name(f, r, size) for f in ends for r in ends}
    block = {coords_name(f, r, size) for f in near for r in near}
    if squares == single:
        return "single"
    if squares == block:
        return "block"
    raise OtgError(f"rules tag: cor:{value}: only the 4 corners or the 2x2 blocks are supported")
