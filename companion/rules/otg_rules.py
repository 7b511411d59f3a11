"""OpenTafl rules strings (``dim:11 name:... start:/.../``, the ``rules`` tag of a game file)
and this project's extension tag ``[companion-rules:...]``: write a :class:`RuleSet` as one,
read one back. See :mod:`companion.rules.otg` for the format's sources and what each key means.
"""

from __future__ import annotations

import dataclasses
import re

from ..squares import coords_name, parse_square
from .board import Board
from .geometry import geometry_for
from .ruleset import ATTACKERS, DEFENDERS, KING, MAX_SIZE, MIN_SIZE, PRESETS, RuleSet


class OtgError(ValueError):
    """A malformed or inconsistent game file; the message names the line when it can."""


class RuleNotSupported(OtgError):
    """A rules string asking for a rule the rules core cannot play; ``rule`` is the OTR entry
    that asks for it (``ks:m``, ``ber:c``, ...)."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


_LETTER = {ATTACKERS: "t", DEFENDERS: "T", KING: "K"}
# OpenTafl's tfr:w is "the player who makes the third repetition loses" (its code; the spec text
# has it the other way round); tfr:l, written by this project's earlier exports, is read the same.
_TFR = {"off": "i", "draw": "d", "defenders_lose": "w"}
# OpenTafl has no "strong on the throne only" (hnefatafl.org's brandubh): "c" is the nearest
_KS = {"strong": "s", "strong_by_throne": "c", "strong_on_throne": "c", "weak": "w"}
_SW = {"off": "n", "on": "w", "corners": "s"}
#: The id of a rule set read from a file that names no preset (and the variant such a game is
#: stored under, with its whole rule set: companion.store_rows.imported_settings).
OWN_RULES = "opentafl"
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
    elif rules.corners in ("block", "custom"):
        parts.append("cor:" + "".join(s + "," for s in _block_squares(rules)))
    if rules.has_throne and rules.throne_square:
        parts.append(f"cen:{rules.throne_square},")
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
    """``key:value`` entries as OpenTafl reads them (``RulesSerializer.getRulesMap``): split at
    spaces, the value is what follows the first ``:`` (``key`` alone: empty)."""
    out: dict[str, str] = {}
    for part in text.split():
        key, _, value = part.partition(":")
        out[key] = value
    return out


def _hostile(letters: str, key: str, by_side: bool) -> frozenset[str]:
    """Who a hostility list (``corh``, ``cenhe``) is hostile to. OpenTafl looks hostility up by
    side (``GenericRules.isSpaceHostileToSide``: the ``t`` or the ``T`` entry), so in its files
    the king goes with the defenders' ``T`` (``by_side``); this project's own exports (those
    with the ``companion-rules`` tag) list the king on his own, ``K``."""
    sides = _sides(letters, key)
    if by_side:
        sides = sides - {KING} | ({KING} if DEFENDERS in sides else set())
    return frozenset(sides)


def _sides(letters: str, key: str) -> frozenset[str]:
    out: set[str] = set()
    for ch in letters:
        if ch == "t":
            out.add(ATTACKERS)
        elif ch == "T":
            out.add(DEFENDERS)
        elif ch == "K":
            out.add(KING)
        elif ch not in "cnkmgCNMG":  # commanders, knights, ...: pieces this project lacks
            raise OtgError(f"rules tag: {key}: unknown piece letter {ch!r}")
    return frozenset(out)


def _refuse(rule: str, what: str) -> RuleNotSupported:
    return RuleNotSupported(f"rules tag: {rule} ({what}) cannot be played here", rule)


#: Keys whose value only matters for pieces other than soldiers and the king (jumps of
#: knights, commanders, mercenaries, guards): refused with those pieces, ignored without.
_OTHER_PIECE_KEYS = ("nj", "cj", "mj", "gj")
#: OTR keys that switch on what the rules core does not have, with their "off" values.
_NOT_PLAYED = {
    "kj": (("", "n"), "the king jumps"),
    "ber": (("", "n"), "berserk moves"),
    "spd": (("", "-1"), "speed limits"),
    "afor": (("",), "attacker fortresses"),
    "dfor": (("",), "defender fortresses"),
}


def parse_rules_string(text: str, extension: str | None = None, *,
                       by_side: bool = False) -> RuleSet:
    """A RuleSet from an OpenTafl rules string (and the optional ``companion-rules`` tag value),
    every key OpenTafl's ``RulesSerializer`` reads taken with OpenTafl's defaults; unknown keys
    are ignored, as OpenTafl ignores them. A rule the core cannot play raises
    :class:`RuleNotSupported` naming it. ``by_side``: hostility lists read as OpenTafl reads
    them (the king with the defenders' ``T``: files OpenTafl wrote); else with the king's own
    ``K`` (this project's exports and the engine protocol's records, docs/engine.md).

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
    other_pieces = sorted(set(start) & set("cnkmgCNMG"))
    if other_pieces:
        raise _refuse("start", f"pieces {', '.join(other_pieces)}: commanders, knights and the "
                      "like; only soldiers and the king are played here")
    for key, (off, what) in _NOT_PLAYED.items():
        if m.get(key, off[-1]) not in off:
            raise _refuse(f"{key}:{m[key][:20]}", what)
    fields: dict[str, object] = {
        "escape": {"c": "corners", "e": "edge"}.get(m.get("esc", "c"), "edge"),
        "encirclement": m.get("surf", "y") == "y",
        "first": ATTACKERS if m.get("atkf", "y") == "y" else DEFENDERS,
        "repetition": {"i": "off", "d": "draw", "w": "defenders_lose", "l": "defenders_lose"}.get(
            m.get("tfr", "d"), "draw"),
        "king_armed": {"y": True, "n": False}.get(m.get("ka", "y")),
        "king_strength": {"s": "strong", "y": "strong", "c": "strong_by_throne", "w": "weak",
                          "n": "weak"}.get(m.get("ks", "s"), "strong"),
        "shieldwall": {"n": "off", "w": "on", "s": "corners"}.get(m.get("sw", "n"), "off"),
        "exit_fort": m.get("efe", "n") == "y",
        "linnaean_capture": m.get("linc", "n") == "y",
    }
    if fields["king_armed"] is None:
        raise _refuse(f"ka:{m['ka'][:20]}", "a king armed as hammer or as anvil only")
    if m.get("ks") == "m":
        raise _refuse("ks:m", "a middleweight king")
    if fields["shieldwall"] != "off" and m.get("swf", "y") != "y":
        raise _refuse("swf:n", "shieldwalls captured without flanking pieces")
    fields.update(_corner_fields(m, size, by_side))
    fields.update(_centre_fields(m, size, bool(fields["king_armed"]), by_side))
    rule_id, name = OWN_RULES, m.get("name", "").replace("_", " ") or "OpenTafl rules"
    if extension is not None:
        rule_id = _extension(extension, fields, rule_id)
    try:
        rules = RuleSet(id=rule_id, name=name, size=size, start=start, **fields)  # type: ignore[arg-type]
        Board(rules)
    except (ValueError, TypeError) as exc:
        raise OtgError(f"rules tag: {exc}") from None
    preset = PRESETS.get(rule_id)
    if preset is not None and dataclasses.replace(rules, name=preset.name) == preset:
        return preset
    return rules


def _extension(extension: str, fields: dict[str, object], rule_id: str) -> str:
    """Apply the ``companion-rules`` tag's values to ``fields``; the rule set id it names."""
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
    return rule_id


def _squares(value: str, size: int, key: str) -> list[str]:
    """The squares of a ``cor:``/``cen:`` list (``a1,k11,``), checked to be on the board."""
    out = []
    for name in (s for s in value.split(",") if s):
        try:
            parse_square(name, size)
        except ValueError as exc:
            raise OtgError(f"rules tag: {key}:{value[:40]}: {exc}") from None
        out.append(name)
    return out


def _corner_fields(m: dict[str, str], size: int, by_side: bool) -> dict[str, object]:
    out: dict[str, object] = {"hostile_corners": _hostile(m.get("corh", "tTK"), "corh", by_side)}
    value = m.get("cor", "default")
    out.update(_corners(value, size))
    if out["corners"] != "none":
        stop = _sides(m.get("cors", "K"), "cors")
        passing = _sides(m.get("corp", "K"), "corp")
        if (stop | passing) & {ATTACKERS, DEFENDERS}:
            key = "cors" if stop & {ATTACKERS, DEFENDERS} else "corp"
            raise _refuse(f"{key}:{m[key][:20]}", "soldiers on or through the corners")
        if KING not in stop:
            raise _refuse(f"cors:{m['cors'][:20]}", "corners the king may not stop on")
    return out


def _centre_fields(m: dict[str, str], size: int, king_armed: bool,
                   by_side: bool) -> dict[str, object]:
    centre = m.get("cen", "default")
    out: dict[str, object] = {
        "hostile_throne_empty": _hostile(m.get("cenhe", "tTK"), "cenhe", by_side)}
    if centre == "":
        out.update(throne_stop="anyone", throne_pass="all")
        return out
    # OpenTafl's default centre is ((dim - 1) / 2, (dim - 1) / 2): the middle of an odd board,
    # the square below and left of the middle of an even one (RulesSerializer.getDefaultCenter)
    near = (size - 1) // 2
    squares = ([coords_name(near, near, size)] if centre == "default"
               else _squares(centre, size, "cen"))
    if len(squares) != 1:
        raise _refuse(f"cen:{centre[:40]}", "more than one centre square")
    if squares[0] != coords_name(size // 2, size // 2, size) or size % 2 == 0:
        out["throne_square"] = squares[0]
    stop = _sides(m.get("cens", "K"), "cens")
    again = _sides(m.get("cenre", "tTK"), "cenre")
    passing = _sides(m.get("cenp", "tTK"), "cenp")
    hostile = _sides(m.get("cenh", "t"), "cenh")
    if stop - {KING}:
        raise _refuse(f"cens:{m['cens'][:20]}", "soldiers stopping on the throne")
    if KING not in stop:
        out["throne_stop"] = "nobody"
    else:
        out["throne_stop"] = "king" if KING in again else "king_once"
    if {ATTACKERS, DEFENDERS} <= passing:
        out["throne_pass"] = "all"
    elif passing & {ATTACKERS, DEFENDERS}:
        raise _refuse(f"cenp:{m['cenp'][:20]}", "one side only passing the throne")
    else:
        out["throne_pass"] = "king" if KING in passing else "nobody"
    # the occupied throne (only the king stops there): hostile to attackers is what an armed
    # king is anyway; hostile to attackers beside an unarmed king, or to defenders, is not
    # played (Linnaean capture, linc, is the one case of the latter the core has)
    if DEFENDERS in hostile:
        raise _refuse(f"cenh:{m['cenh'][:20]}", "the occupied throne hostile to defenders")
    if ATTACKERS in hostile and not king_armed:
        raise _refuse(f"cenh:{m['cenh'][:20]}",
                      "the occupied throne hostile to attackers beside an unarmed king")
    return out


def _corners(value: str, size: int) -> dict[str, object]:
    if value == "default":
        return {"corners": "single"}
    squares = set(_squares(value, size, "cor"))
    if not squares:
        return {"corners": "none"}
    last = size - 1
    ends, near = (0, last), (0, 1, last - 1, last)
    single = {coords_name(f, r, size) for f in ends for r in ends}
    block = {coords_name(f, r, size) for f in near for r in near}
    if squares == single:
        return {"corners": "single"}
    if squares == block and size >= 7:
        return {"corners": "block"}
    return {"corners": "custom", "corner_squares": frozenset(squares)}


#: What makes a board a variant's board: a rule set of another size, setup, corners or throne
#: square is never a preset with house rules.
_LAYOUT = ("size", "start", "corners", "corner_squares", "throne_square")
_NOT_RULES = ("id", "name", "source")


def _relevant(rules: RuleSet) -> RuleSet:
    """``rules`` with the values that cannot matter made equal: the hostility of corners that
    do not exist, of a throne that does not exist, who may pass it."""
    out = rules
    if rules.corners == "none":
        out = dataclasses.replace(out, hostile_corners=frozenset())
    if not rules.has_throne:
        out = dataclasses.replace(out, hostile_throne_empty=frozenset(), throne_pass="all")
    return out


def house_rules(rules: RuleSet, preset: RuleSet) -> dict[str, object] | None:
    """The fields in which ``rules`` differs from ``preset`` (values that cannot matter on
    their board left out), or None when the two are not the same board (size, setup, corners,
    throne square)."""
    if any(getattr(rules, k) != getattr(preset, k) for k in _LAYOUT):
        return None
    mine, theirs = _relevant(rules), _relevant(preset)
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(RuleSet)
            if f.name not in _LAYOUT + _NOT_RULES
            and getattr(mine, f.name) != getattr(theirs, f.name)}


def as_preset(rules: RuleSet) -> tuple[RuleSet, dict[str, object]]:
    """The preset ``rules`` plays as, with the house rules that differ: the preset of the same
    board (size, setup, corners, throne square) that differs in the fewest rules (the first of
    :data:`PRESETS` on a tie), as ``(preset with those house rules, the house rules)``; a rule
    set of no preset's board comes back as it is, with no house rules."""
    best: tuple[RuleSet, dict[str, object]] | None = None
    for preset in PRESETS.values():
        diff = house_rules(rules, preset)
        if diff is not None and (best is None or len(diff) < len(best[1])):
            best = (preset, diff)
    if best is None:
        return rules, {}
    preset, diff = best
    return (preset.with_options(**diff) if diff else preset), diff
