"""Issue 21, defect 6: reinstalling the package under a running daemon (``pip install -e .`` for the
tests, an upgrade) broke its open page: 404s, and a style sheet answered as JSON. The daemon
now serves the page's files as they were when it started. A real daemon process runs from a
copy of the package, which is then removed and replaced while it runs."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

from test_daemon_support import PIN, http, spawn_daemon

import companion

MARK = b".the-copy-the-daemon-started-with { color: inherit; }\n"  # a rule: comments are not served


def test_a_reinstall_under_the_running_daemon_changes_nothing_it_serves(tmp_path: Path) -> None:
    site = tmp_path / "site"
    package = site / "companion"
    shutil.copytree(Path(companion.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    css = package / "web" / "static" / "app.css"
    css.write_bytes(css.read_bytes() + MARK)  # proves the daemon runs from the copy
    d, base = spawn_daemon(["--board", "sim", "--host", "127.0.0.1", "--port", "0", "--data-dir",
                            str(tmp_path / "data"), "--pin", PIN],
                           env={"PYTHONPATH": str(site), "PYTHONSAFEPATH": "1"})
    try:
        paths = ["static/app.css", "static/app.js", "static/review.js", "i18n/de.js",
                 "?lang=de"]
        before = {p: http(base + p) for p in paths}
        assert before["static/app.css"][2].endswith(MARK)
        assert before["static/app.css"][1]["Content-Type"].startswith("text/css")
        assert "Einstellungen" in before["?lang=de"][2].decode() or \
            'lang="de"' in before["?lang=de"][2].decode()

        shutil.rmtree(package)  # the old install goes ...
        assert http(base + "static/app.css")[2] == before["static/app.css"][2]
        shutil.copytree(Path(companion.__file__).parent, package,  # ... and a new one comes
                        ignore=shutil.ignore_patterns("__pycache__"))
        (package / "web" / "static" / "app.css").write_bytes(b"body{color:red}")
        (package / "i18n" / "locales" / "de").rename(package / "i18n" / "locales" / "xx")

        for p in paths:
            status, headers, body = http(base + p)
            assert status == 200 and body == before[p][2], p
            assert headers["Content-Type"] == before[p][1]["Content-Type"], p
        etag = before["static/app.css"][1]["ETag"]
        status, _, body = http(base + "static/app.css", headers={"If-None-Match": etag})
        assert status == 304 and body == b""
        assert http(base + "static/nothing.css")[0] == 404
        for p in ("api/state", "api/games", "api/rules", "api/variants"):
            assert http(base + p)[0] == 200, p
    finally:
        d.stop(signal.SIGTERM)
