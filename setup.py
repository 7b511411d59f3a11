"""The build step pyproject.toml cannot say: the engine's native core (docs/engine.md).

``companion/engine/native/tafl.c`` (with the parts it includes) is plain C (no Python headers,
so it builds where ``python3-dev`` is missing, as on Raspberry Pi OS) built into a shared library
that ``companion/engine/native.py`` loads with ctypes. The extension is optional: without a C
compiler the install still succeeds and the engine plays in pure Python.
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "companion/engine/native/tafl.c"  # includes the other parts of native/
# the library says which sources it was built from, so a stale one is rebuilt (native.py)
PARTS = sorted((Path(__file__).parent / SOURCE).parent.glob("*.[ch]"))
DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in PARTS)).hexdigest()[:16]

setup(
    ext_modules=[
        Extension(
            "companion.engine._tafl_native",
            sources=[SOURCE],
            define_macros=[("TAFL_SOURCE_HASH", f'"{DIGEST}"')],
            extra_compile_args=["-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L"],
            optional=True,
        )
    ]
)
