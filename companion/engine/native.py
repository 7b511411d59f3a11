"""The native core (``native/tafl.c`` and the parts it includes) loaded with ctypes: the same
search as the pure-Python engine, about 10-20 times faster.

The C library is built when the package is installed (``setup.py``: an optional extension, so
an install without a C compiler still succeeds) and needs no Python headers. Where it is
missing, or older than its source (a checkout that changed since it was installed), it is
built on first use into ``~/.cache/tafl-companion`` when a C compiler is there; failing that,
the pure-Python engine plays (:func:`available` says which, and why). ``TAFL_NATIVE=0`` in the
environment turns the native core off.

:class:`NativeSearcher` has the interface of :class:`~.search.Searcher` (``search``,
``new_game``, ``principal_variation`` and the same switches) and plays exactly the same
moves at a fixed depth: ``tests/test_engine_native.py`` compares the two move by move.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.machinery
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.rules import core
from companion.rules.ruleset import ATTACKERS, DEFENDERS, KING, RuleSet

from .evaluate import ZONE_MID, ZONE_NEAR, Evaluator, Weights, corner_zones
from .network import Network
from .position import ATT, DEF, Position
from .search import INF, MATE_BOUND, Info, Limits, Result

ABI_VERSION = 8
SOURCE = Path(__file__).with_name("native") / "tafl.c"
MAXMOVES = 2048
REASONS = {
    0: None, 1: core.KING_CAPTURED, 2: core.ENCIRCLEMENT, 3: core.ESCAPE, 4: core.EXIT_FORT,
    5: "repetition", 6: "no_moves",
}
REASON_CODES = {str(v): k for k, v in REASONS.items() if v is not None}
WEIGHT_NAMES = (
    "attacker", "defender", "king_mobility", "king_threats", "king_lines", "king_distance",
    "king_adjacent", "king_guards", "corner_guard", "corner_trap", "edge", "sealed", "tempo",
    "open_lines", "king_corners", "def_edge", "def_space", "sealed_off",
)
UNSUPPORTED_WEIGHTS = ("king_reach2", "open_lines2", "king_threats2")

INFO_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_double,
                           ctypes.POINTER(ctypes.c_int32), ctypes.c_int)
POLL_FN = ctypes.CFUNCTYPE(ctypes.c_int)


class SearchParams(ctypes.Structure):
    _fields_ = [
        ("depth", ctypes.c_int), ("exact_all", ctypes.c_int), ("multipv", ctypes.c_int),
        ("null_move", ctypes.c_int), ("lmr", ctypes.c_int), ("lmp", ctypes.c_int),
        ("futility", ctypes.c_int), ("tt_cutoffs", ctypes.c_int), ("qdepth", ctypes.c_int),
        ("clock_cpu", ctypes.c_int), ("nodes", ctypes.c_int64), ("seconds", ctypes.c_double),
        ("soft", ctypes.c_double), ("time_scale", ctypes.c_double), ("on_info", INFO_FN),
        ("poll", POLL_FN),
    ]


class SearchOut(ctypes.Structure):
    _fields_ = [
        ("best_move", ctypes.c_int32), ("best_score", ctypes.c_int32), ("depth", ctypes.c_int32),
        ("pvlen", ctypes.c_int32), ("nroot", ctypes.c_int32), ("nodes", ctypes.c_int64),
        ("seconds", ctypes.c_double), ("pv", ctypes.c_int32 * 64),
        ("root_moves", ctypes.c_int32 * MAXMOVES), ("root_scores", ctypes.c_int32 * MAXMOVES),
    ]


_lib: ctypes.CDLL | None = None
_why = ""
_load_lock = threading.Lock()
_loaded = False


def _candidates() -> list[Path]:
    """Where an installed library may be: beside this module (the setuptools extension)."""
    here = Path(__file__).parent
    return [here / f"_tafl_native{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]


def source_digest() -> str:
    """The hash a library built from the current sources reports (as setup.py computes it)."""
    files = sorted(SOURCE.parent.glob("*.[ch]"))
    if not files:
        return ""
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:16]


def _cache_path() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "tafl-companion" / f"tafl-{source_digest()}.so"


def compile_library(target: Path) -> str | None:
    """Build the library into ``target`` with the system's C compiler; None, or why not."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return "no C compiler"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        out = Path(tmp) / target.name
        try:
            proc = subprocess.run(
                [cc, "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L",
                 f'-DTAFL_SOURCE_HASH="{source_digest()}"', "-shared", "-fPIC", "-o",
                 str(out), str(SOURCE)], capture_output=True, text=True, check=False)
        except OSError as exc:  # CC names no program, or one that cannot run
            return f"the C compiler {cc!r} could not run: {exc.strerror or exc}"
        if proc.returncode != 0:
            return f"the C compiler failed: {proc.stderr.strip()[:300]}"
        out.replace(target)
    return None


def _open(path: Path) -> ctypes.CDLL | None:
    """The library at ``path`` if it was built from the current source (or, where the source
    is not shipped, has the right interface)."""
    try:
        lib = ctypes.CDLL(str(path))
        if lib.tafl_abi() != ABI_VERSION:
            return None
        lib.tafl_source_hash.restype = ctypes.c_char_p
        digest = source_digest()
        if digest and lib.tafl_source_hash().decode() != digest:
            return None  # stale: built from an older source
    except (OSError, AttributeError):
        return None
    return lib


def library() -> ctypes.CDLL | None:
    """The loaded native library, or None (see :func:`available`)."""
    global _lib, _why, _loaded
    with _load_lock:
        if _loaded:
            return _lib
        _loaded = True
        if os.environ.get("TAFL_NATIVE", "1") in ("0", "no", "off"):
            _why = "turned off (TAFL_NATIVE=0)"
            return None
        lib = None
        for path in _candidates():
            if path.exists() and (lib := _open(path)) is not None:
                break
        if lib is None and SOURCE.exists():
            cached = _cache_path()
            if not cached.exists():
                why = compile_library(cached)
                if why:
                    _why = why
            if cached.exists():
                lib = _open(cached)
        if lib is None:
            _why = _why or "the library could not be loaded"
            return None
        _declare(lib)
        _lib = lib
        return lib


def available() -> tuple[bool, str]:
    """Whether the native core can be used, and if not why."""
    lib = library()
    return lib is not None, "" if lib is not None else _why


def _declare(lib: ctypes.CDLL) -> None:
    p, i32p, u64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(
        ctypes.c_uint64)
    sig: dict[str, tuple[object, list[object]]] = {
        "tafl_new": (p, [i32p, ctypes.c_int, i32p, ctypes.c_int, u64p, ctypes.c_int]),
        "tafl_free": (None, [p]),
        "tafl_set_zone": (ctypes.c_int, [p, i32p, ctypes.c_int]),
        "tafl_set_network": (ctypes.c_int, [p, i32p, ctypes.c_int]),
        "tafl_new_game": (None, [p]),
        "tafl_set_position": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                             u64p, ctypes.c_int, ctypes.c_int, ctypes.c_int]),
        "tafl_key": (ctypes.c_uint64, [p]),
        "tafl_moves": (ctypes.c_int, [p, i32p]),
        "tafl_evaluate": (ctypes.c_int, [p]),
        "tafl_make": (ctypes.c_int, [p, ctypes.c_int, i32p]),
        "tafl_unmake": (None, [p]),
        "tafl_result": (ctypes.c_int, [p, i32p]),
        "tafl_side": (ctypes.c_int, [p]),
        "tafl_pv": (ctypes.c_int, [p, ctypes.c_int, i32p]),
        "tafl_search": (ctypes.c_int, [p, ctypes.POINTER(SearchParams),
                                       ctypes.POINTER(SearchOut)]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def supported(rules: RuleSet, weights: Weights | None = None) -> str | None:
    """None when the native core plays ``rules`` (and ``weights``), else what it lacks."""
    if rules.chain_capture or rules.linnaean_capture or rules.sheltered_king:
        return "chain, Linnaean and sheltered-king captures are not in the native core"
    if weights is not None:
        for name in UNSUPPORTED_WEIGHTS:
            if getattr(weights, name):
                return f"the evaluation term {name} is not in the native core"
    return None


def _config(rules: RuleSet, ev: Evaluator) -> tuple[list[int], list[int], list[int]]:
    """The scalar settings, the per-square rows and the Zobrist keys for tafl_new."""
    t = ev.t
    geo = t.geo
    w = ev.w
    kinds = (core.Mover(geo, rules, False, False), core.Mover(geo, rules, True, True),
             core.Mover(geo, rules, True, False))
    rows: list[int] = []
    for s in range(geo.count):
        b = 1 << s
        flags = []
        for m in kinds:
            flags.append((1 if m.blocked & b else 0) | (2 if m.no_stop & b else 0)
                         | (4 if m.last & b else 0))
        rows += flags + [
            1 if t.escape_mask & b else 0, 1 if geo.corner & b else 0, 1 if geo.edge & b else 0,
            geo.inward[s], ev.distance[s], 1 if ev.guard & b else 0, 1 if ev.trap & b else 0,
            1 if ev.lines.king_pass & b else 0, 1 if ev.lines.king_stop & b else 0,
            1 if ev.lines.king_stop_closed & b else 0, ev.pst_att[s], ev.pst_dfn[s], ev.pst_king[s],
        ]
    strength = {"strong": 0, "strong_by_throne": 1, "weak": 2,
                "strong_on_throne": 3}[rules.king_strength]
    cfg = [
        geo.n, geo.throne if rules.has_throne else -1,
        int(DEFENDERS in rules.hostile_corners), int(ATTACKERS in rules.hostile_corners),
        int(KING in rules.hostile_corners),
        int(DEFENDERS in rules.hostile_throne_empty and geo.throne >= 0),
        int(ATTACKERS in rules.hostile_throne_empty and geo.throne >= 0),
        int(KING in rules.hostile_throne_empty and geo.throne >= 0),
        int(rules.king_armed), strength, {"off": 0, "on": 1, "corners": 2}[rules.shieldwall],
        int(rules.exit_fort), int(rules.encirclement),
        {"off": 0, "draw": 1, "defenders_lose": 2}[rules.repetition],
        int(rules.no_moves == "loss"), int(t.may_throne),
        int(core.king_may_stop_on_throne(rules, True)),
        int(core.king_may_stop_on_throne(rules, False)),
    ] + [int(getattr(w, name)) for name in WEIGHT_NAMES] + [int(bool(w.pst))]
    zob = list(t.z_att) + list(t.z_dfn) + list(t.z_king) + [t.z_side]
    return cfg, rows, zob


def _i32(values: list[int]) -> ctypes.Array[ctypes.c_int32]:
    return (ctypes.c_int32 * len(values))(*values)


def _u64(values: list[int]) -> ctypes.Array[ctypes.c_uint64]:
    return (ctypes.c_uint64 * len(values))(*values)


class NativeCore:
    """One C engine instance of a rule set: a position, its TT and history; with ``network``,
    the learned network added to the evaluation (:mod:`.network`)."""

    def __init__(self, rules: RuleSet, weights: Weights | None = None, tt_bits: int = 20,
                 network: Network | None = None) -> None:
        lib = library()
        if lib is None:
            raise RuntimeError(f"the native core is not available: {_why}")
        why = supported(rules, weights)
        if why:
            raise ValueError(why)
        self.lib = lib
        self.rules = rules
        self.evaluator = Evaluator(rules, weights)
        self.t = self.evaluator.t
        cfg, rows, zob = _config(rules, self.evaluator)
        handle = lib.tafl_new(_i32(cfg), len(cfg),
                              _i32(rows), self.t.count,
                              _u64(zob), tt_bits)
        if not handle:
            raise RuntimeError("tafl_new refused the configuration")
        self.handle = ctypes.c_void_p(handle)
        if self.evaluator.w.zone:
            data = [*self.evaluator.w.zone, ZONE_NEAR, ZONE_MID]
            for corner, squares, seals in corner_zones(self.t.n):
                data.append(corner)
                for sq, cls in squares:
                    data += [sq, cls]
                for seal in seals:
                    data += seal
            if not lib.tafl_set_zone(self.handle, _i32(data), len(data)):
                raise RuntimeError("tafl_set_zone refused the corner zones")
        self.network = network
        if network is not None:
            if network.count != self.t.count:
                raise ValueError(f"a network for {network.count} squares cannot play a board "
                                 f"of {self.t.count}")
            data = network.native_data()
            if not lib.tafl_set_network(self.handle, _i32(data), len(data)):
                raise RuntimeError("tafl_set_network refused the network")
        self._moves = (ctypes.c_int32 * MAXMOVES)()
        self._caps = (ctypes.c_int32 * 64)()

    def __del__(self) -> None:
        handle = getattr(self, "handle", None)
        if handle is not None and handle.value:
            self.lib.tafl_free(handle)
            handle.value = None

    def set_position(self, pos: Position) -> None:
        """Load ``pos`` (its repetition history and result included)."""
        count = self.t.count
        board = bytearray(count)
        for s in self.t.geo.iter_bits(pos.att):
            board[s] = 1
        for s in self.t.geo.iter_bits(pos.dfn):
            board[s] = 2
        if pos.king >= 0:
            board[pos.king] = 3
        hist = pos.hist
        winner, reason = -1, 0
        if pos.result is not None:
            winner = -1 if pos.result[0] is None else pos.result[0]
            reason = REASON_CODES.get(str(pos.result[1]), 0)
        self.lib.tafl_set_position(self.handle, bytes(board), pos.side, int(pos.king_left),
                                   _u64(list(hist)), len(hist), winner,
                                   reason)

    def new_game(self) -> None:
        self.lib.tafl_new_game(self.handle)

    # the move-by-move interface (tests, perft)
    def moves(self) -> list[int]:
        n = self.lib.tafl_moves(self.handle, self._moves)
        return list(self._moves[:n])

    def make(self, move: int) -> list[int]:
        n = self.lib.tafl_make(self.handle, move, self._caps)
        if n < 0:
            raise RuntimeError("the native position's move stack is full")
        return sorted(self._caps[:n])

    def unmake(self) -> None:
        self.lib.tafl_unmake(self.handle)

    @property
    def key(self) -> int:
        return int(self.lib.tafl_key(self.handle))

    def result(self) -> tuple[int | None, str] | None:
        winner = ctypes.c_int32()
        reason = self.lib.tafl_result(self.handle, ctypes.byref(winner))
        if not reason:
            return None
        return (None if winner.value < 0 else winner.value, str(REASONS[reason]))

    def evaluate(self) -> int:
        return int(self.lib.tafl_evaluate(self.handle))

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for m in self.moves():
            self.make(m)
            total += 1 if depth == 1 else (0 if self.result() else self.perft(depth - 1))
            self.unmake()
        return total


class NativeSearcher:
    """:class:`~.search.Searcher`'s interface on the native core; with ``network``, the
    learned network in its evaluation (then it no longer plays the Python engine's moves)."""

    def __init__(self, rules: RuleSet, weights: Weights | None = None,
                 tt_entries: int = 400_000, qdepth: int = 6,
                 network: Network | None = None) -> None:
        bits = max(16, min(24, (max(tt_entries, 1) * 2).bit_length()))
        self.core = NativeCore(rules, weights, tt_bits=bits, network=network)
        self.rules = rules
        self.evaluator = self.core.evaluator
        self.t = self.core.t
        self.qdepth = qdepth
        self.lmp: tuple[int, ...] | bool = True
        self.futility: tuple[int, ...] | bool = True
        self.null_move = True
        self.lmr = True
        self.tt_cutoffs = True
        self.guard_moves = False  # not in the native core (off by default in Python too)
        self.qthreat = 0
        self.aspiration = 0
        self.clock: Callable[[], float] = time.monotonic
        self.time_scale = 1.0
        self.nodes = 0

    def new_game(self) -> None:
        self.core.new_game()

    def use_cpu_clock(self, scale: float = 1.0) -> None:
        """Measure the time limit in CPU seconds times ``scale`` (benchmarks)."""
        self.clock = time.process_time
        self.time_scale = scale

    def search(
        self, pos: Position, limits: Limits, on_info: Callable[[Info], None] | None = None,
        rng: random.Random | None = None, noise: int = 0,
    ) -> Result:
        if self.guard_moves or self.qthreat or self.aspiration:
            raise ValueError("guard moves, qthreat and aspiration are not in the native core")
        self.core.set_position(pos)
        geo = self.t.geo
        stop = limits.stop

        def info(depth: int, score: int, nodes: int, seconds: float,
                 pv: ctypes._Pointer[ctypes.c_int32], pvlen: int) -> None:
            if on_info is not None:
                line = [pv[i] for i in range(pvlen)]
                on_info(Info(depth, score, line, nodes, seconds,
                             [f"{geo.names[m >> 9]}-{geo.names[m & 511]}" for m in line]))

        def poll() -> int:
            return 1 if stop is not None and stop.is_set() else 0

        info_cb, poll_cb = INFO_FN(info), POLL_FN(poll)
        cpu = self.clock is time.process_time
        params = SearchParams(
            depth=limits.depth or 0, exact_all=2 if noise > 0 else (1 if limits.multipv > 1
                                                                     else 0),
            multipv=max(1, limits.multipv), null_move=int(bool(self.null_move)),
            lmr=int(bool(self.lmr)), lmp=int(bool(self.lmp)), futility=int(bool(self.futility)),
            tt_cutoffs=int(self.tt_cutoffs), qdepth=self.qdepth, clock_cpu=int(cpu),
            nodes=limits.nodes or 0, seconds=limits.seconds or 0.0, soft=limits.soft or 0.0,
            time_scale=self.time_scale, on_info=info_cb, poll=poll_cb,
        )
        if stop is not None and stop.is_set():
            params.nodes = 1
        out = SearchOut()
        self.core.lib.tafl_search(self.core.handle, ctypes.byref(params), ctypes.byref(out))
        self.nodes = out.nodes
        if not out.best_move and not self.core.moves():
            return Result(None, 0, 0, 0, 0.0, [], {})
        root = {out.root_moves[i]: out.root_scores[i] for i in range(out.nroot)}
        move, score = out.best_move, out.best_score
        pv = [out.pv[i] for i in range(out.pvlen)]
        if noise and rng is not None and root:
            move = max(root, key=lambda m: root[m] + (0 if abs(root[m]) >= MATE_BOUND
                                                      else rng.gauss(0, noise)))
            score = root[move]
            pv = [move]
        if score == -INF:
            score = 0
        return Result(move, score, out.depth, out.nodes, out.seconds, pv, root)

    def principal_variation(self, pos: Position, first: int) -> list[int]:
        self.core.set_position(pos)
        buf = (ctypes.c_int32 * 64)()
        n = self.core.lib.tafl_pv(self.core.handle, first, buf)
        return list(buf[:n])

    def evaluate(self, pos: Position) -> int:
        self.core.set_position(pos)
        return self.core.evaluate()


__all__ = ["NativeCore", "NativeSearcher", "available", "compile_library", "library",
           "supported", "ATT", "DEF"]
