"""The page's words about imports (issue 30 defects 3 and 4), in headless Chromium at phone size
against the real daemon, in English and German: a file already stored, an empty file, a rule
the companion cannot play named in words, an OpenTafl puzzle opened where it starts, and the
file's own comment on a move."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PIN
from test_e2e_polish import phone, start, wait_text
from test_imports_web import PUZZLE
from test_rules_otg_opentafl import ANNOTATED, COPENHAGEN_START

browser = e2e.browser  # one Chromium for the module

WORDS = {
    "en": {"already": "Already stored, not imported again: game ",
           "empty": "The file was not imported, nothing was stored: it is empty.",
           "rule": "a middleweight king (ks:m)",
           "puzzle": "The puzzle starts here: the attackers to move."},
    "de": {"already": "Schon gespeichert, nicht noch einmal importiert: Partie ",
           "empty": "Die Datei wurde nicht importiert, nichts wurde gespeichert: Sie ist leer.",
           "rule": "einen mittelstarken König (ks:m)",
           "puzzle": "Hier beginnt das Rätsel: Die Angreifer sind am Zug."},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_says_what_an_import_did(browser, tmp_path: Path, lang: str) -> None:
    w = WORDS[lang]
    files = {"annotated.otg": ANNOTATED, "empty.csv": "", "puzzle.otg": PUZZLE,
             "middle.otg": f"[rules:dim:11 ks:m start:{COPENHAGEN_START}]\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc, base = start(tmp_path)
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        page.click("#games summary")
        page.set_input_files("#importfile", str(tmp_path / "annotated.otg"))
        page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
        page.click("[data-rv=first]")
        wait_text(page, "#rvnote", "These notes were written for this test.")
        page.click("[data-rv=next]")
        wait_text(page, "#rvnote", "Black opens on the k-file.")
        page.click("#rvclose")
        page.set_input_files("#importfile", str(tmp_path / "annotated.otg"))  # once more
        wait_text(page, "#importmsg", w["already"])
        page.click("#rvclose")
        page.set_input_files("#importfile", str(tmp_path / "empty.csv"))
        wait_text(page, "#importmsg", w["empty"])
        page.set_input_files("#importfile", str(tmp_path / "middle.otg"))
        wait_text(page, "#importmsg", w["rule"])
        page.set_input_files("#importfile", str(tmp_path / "puzzle.otg"))
        wait_text(page, "#rvmsg", w["puzzle"])  # opened where the puzzle starts
        assert page.errors == []
    finally:
        proc.stop()
