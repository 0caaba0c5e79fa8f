"""The board's "Check records" window, in Chromium: records of a match played in
Python, opened with the picker or dropped on the page, are verified with the same
text ``gin audit`` prints, a tampered one fails, and a verified hand replays move by
move, forward and back, with both hands changing; axe-core finds no serious or
critical violation, on a desktop and a phone.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.records.records import HandRecord
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session, play_local
from relay import static


@pytest.fixture(scope="module")
def hands() -> list[HandRecord]:
    """The first two hands of a match two Python sessions play (made fresh each run:
    a checked-in file would go stale when the record format changes)."""
    host = Session("host", bytes(32), STANDARD.with_options(target=60), random.Random(3).randbytes,
                   b"h" * 32)  # each player's identity seed
    guest = Session("guest", bytes(32), None, random.Random(4).randbytes, b"g" * 32)
    play_local(host, guest, [get("easy"), get("easy")])
    found = [e.record for e in host.events() if isinstance(e, HandVerified)]
    assert len(found) >= 2
    return found[:2]


def gin_audit(tmp_path: Path, files: dict[str, str], capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """What `gin audit NAME...` prints, the files named as the page names them."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    status = main(["audit", *files])
    return status, capsys.readouterr().out


def payload(name: str, text: str) -> dict[str, Any]:
    return {"name": name, "mimeType": "application/json", "buffer": text.encode()}


def shown_report(page: Any) -> str:
    """The window's report, as gin audit prints it: each file's lines."""
    page.wait_for_selector("#audit-verdict")
    return str(page.evaluate("[...document.querySelectorAll('#dialog-body pre.audit-lines')]"
                             ".map((p) => p.textContent).join('')"))


def drop(page: Any, name: str, text: str) -> None:
    """Drop a file on the page as a file manager would: a drop event with a DataTransfer."""
    data = page.evaluate_handle("""([name, text]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], name, {type: 'application/json'}));
        return dt; }""", [name, text])
    page.dispatch_event("#table", "dragover", {"dataTransfer": data})
    page.dispatch_event("#table", "drop", {"dataTransfer": data})


def table_cards(page: Any) -> list[list[str]]:
    return list(page.evaluate("""[...document.querySelectorAll('#replay-table .side')].map(
        (s) => [...s.querySelectorAll('.card')].map((c) => c.dataset.card))"""))


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (360, 640)])
def test_records_dropped_on_the_page_are_verified_and_replay(
    open_board: Any, axe: Any, artifacts: Path, hands: list[HandRecord], tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int, height: int,
) -> None:
    first, second = hands
    files = {"gin-hand-02.json": second.to_json(), "gin-hand-01.json": first.to_json()}
    status, printed = gin_audit(tmp_path, files, capsys, monkeypatch)
    assert status == 0 and printed.endswith("verified\n")

    board = open_board("?seed=3&delay=5000", width=width, height=height)
    page = board.page
    page.set_input_files("#audit-files", [payload(n, t) for n, t in files.items()])
    assert shown_report(page) == printed
    verdict = page.inner_text("#audit-verdict")
    assert verdict.startswith("Verified: every record verified") and "exit status 0" in verdict
    axe(page, f"the report, {width}x{height}")
    page.screenshot(path=str(artifacts / f"audit-report-{width}x{height}.png"))

    # The second file is hand 1: its replay, move by move.
    page.click("#btn-replay-1")
    page.wait_for_selector("#replay")
    assert page.evaluate("document.activeElement.id") == "replay"
    assert page.inner_text("#replay-step").startswith("The deal (")
    dealt = table_cards(page)
    assert [len(h) for h in dealt] == [10, 10]
    moves = [line for line in printed.split("gin-hand-01.json:\n")[1].splitlines()
             if line[5:7] == ". "]
    for n in range(1, 5):
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#replay-step") == f"Move {n} of {len(moves)}"
        assert moves[n - 1][7:] in page.inner_text("#replay-said")
    moved = table_cards(page)
    assert moved != dealt  # a draw and a discard changed the hands
    axe(page, f"the replay, {width}x{height}")
    page.screenshot(path=str(artifacts / f"audit-replay-{width}x{height}.png"))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#replay-step").startswith("The deal (")
    assert table_cards(page) == dealt
    page.keyboard.press("End")
    assert page.inner_text("#replay-step") == f"Move {len(moves)} of {len(moves)}"
    page.keyboard.press("Home")
    page.click("#replay-last")  # Forward and Last are disabled at the end: the keys still work
    # Let the browser's focus fix-up run (a disabled button loses the focus then, not at
    # once): the key must still reach the replay afterwards.
    page.wait_for_timeout(100)
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#replay-step") == f"Move {len(moves) - 1} of {len(moves)}"
    page.keyboard.press("ArrowRight")
    said = page.inner_text("#replay-said")
    assert "result: " in said and "match scores after the hand: " in said
    page.screenshot(path=str(artifacts / f"audit-replay-end-{width}x{height}.png"))
    page.click("#replay-first")
    assert table_cards(page) == dealt
    page.click("#btn-replay-report")
    assert shown_report(page) == printed


def test_a_tampered_record_dropped_on_the_page_fails(
    open_board: Any, artifacts: Path, hands: list[HandRecord], tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = hands[0].to_dict()
    m3 = data["messages"]["message3"]
    m3[30], m3[31] = m3[31], m3[30]
    # A file's name is hostile text too: a right-to-left override would reorder the line.
    name = "\u202ebad.json"
    files = {name: json.dumps(data)}
    status, printed = gin_audit(tmp_path, files, capsys, monkeypatch)
    # Neither player signed the swap: the file is at fault, not the dealer (issue 26).
    assert status == 1 and "(at fault: record)" in printed and printed.startswith("bad.json:\n")
    assert "FAILED message3" not in printed

    page = open_board("?seed=3&delay=5000").page
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.on("websocket", lambda ws: asked.append(ws.url))
    drop(page, name, files[name])
    assert shown_report(page) == printed  # the override stripped, as gin audit strips it
    assert "\u202e" not in page.inner_text("#dialog")
    assert page.inner_text("#audit-verdict").startswith("Failed: a record failed its audit")
    failed = page.eval_on_selector_all("pre.audit-lines .failed",
                                       "ls => ls.map((l) => l.textContent)")
    assert failed == [line for line in printed.splitlines() if line.startswith("FAILED ")] != []
    assert page.locator("#dialog-body button", has_text="Replay").count() == 0  # nothing to replay
    page.screenshot(path=str(artifacts / "audit-failed-1280x800.png"))

    # What is no record is gin audit's error line.
    page.keyboard.press("Escape")
    drop(page, "hands.json", '{"format": "gin-hand-record"}')
    page.wait_for_selector("#audit-verdict")
    assert page.text_content("pre.audit-errors") == (
        "gin audit: hands.json: hand record: record.version: missing\n")
    assert "exit status 2" in page.inner_text("#audit-verdict")
    # Nothing left the page: the only request is for the worker's own script.
    # Only this build's worker, asked for by its digest (the service worker may fetch it too).
    worker = f"worker.js?sha256={static.load_board().digests()['worker.js']}"
    assert {url.rsplit("/", 1)[1] for url in asked} == {worker}, asked
