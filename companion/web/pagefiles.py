"""The page's own files, read once when the daemon starts and served from memory.

Reinstalling the package under a running daemon (``pip install -e .`` for the tests, an upgrade)
replaces or removes the files on disk; read from disk at each request, the open page got 404s
and a style sheet answered as JSON (issue 21, defect 6). So the static files and the templates
are read at start: the daemon serves exactly what it started with, each file with a strong ETag
(its SHA-1) and conditional answers (``304``), until it restarts. Scripts and style sheets are
served without their comments and indentation (:mod:`companion.web.compact`).
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from flask import Request, Response

from companion.web.compact import compact

HERE = Path(__file__).parent
TEXT_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
              ".svg": "image/svg+xml", ".json": "application/json"}
MAX_AGE = 3600  # seconds a browser may keep a file (the page asks for it with ?v=VERSION)


@dataclass(frozen=True)
class PageFile:
    data: bytes
    mimetype: str
    etag: str


class PageFiles:
    """The static files (by name) and templates (by name) under ``root`` as they were when
    this was made."""

    def __init__(self, root: Path = HERE) -> None:
        self.files: dict[str, PageFile] = {}
        version = hashlib.sha1()
        for path in sorted((root / "static").iterdir()):
            if not path.is_file():
                continue
            data = compact(path.name, path.read_bytes())  # scripts without comments, indents
            version.update(data)
            kind = TEXT_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] \
                or "application/octet-stream"
            self.files[path.name] = PageFile(data, kind, hashlib.sha1(data).hexdigest())
        self.version = version.hexdigest()[:10]
        self.templates = {path.name: path.read_text(encoding="utf-8")
                          for path in sorted((root / "templates").iterdir()) if path.is_file()}

    def response(self, name: str, request: Request) -> Response | None:
        """The answer for ``/static/NAME`` (a 304 when the browser has it), None if there is no
        such file."""
        found = self.files.get(name)
        if found is None:
            return None
        text = found.mimetype.startswith("text/") or found.mimetype.endswith(("json", "+xml"))
        resp = Response(found.data, mimetype=found.mimetype)
        if text:
            resp.headers["Content-Type"] = f"{found.mimetype}; charset=utf-8"
        resp.set_etag(found.etag)
        resp.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
        resp.make_conditional(request)  # a 304 without the body when the ETag matches
        return resp
