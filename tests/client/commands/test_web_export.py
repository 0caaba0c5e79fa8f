"""`gin web --export DIR` writes the board as a static site with a SHA-256 manifest, and
`gin host --board` takes only a web address (issue 27): bad input is said, nothing lost."""

from __future__ import annotations

import errno
import hashlib
from pathlib import Path

import pytest

from client.cli import main
from relay import static


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    for name in static.FILES:
        (folder / name).write_text(f"<!-- {name} -->")
    monkeypatch.setattr(static, "BOARD_DIR", folder)
    return folder


def test_the_export_is_the_build_byte_for_byte_with_its_digests(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    assert main(["web", "--export", str(site)]) == 0
    assert sorted(p.name for p in site.iterdir()) == sorted([*static.FILES, "SHA256SUMS"])
    lines = (site / "SHA256SUMS").read_text().splitlines()
    for line, name in zip(lines, static.FILES, strict=True):
        body = (built / name).read_bytes()
        assert (site / name).read_bytes() == body
        assert line == f"{hashlib.sha256(body).hexdigest()}  {name}"  # as sha256sum -c reads it
    assert "gin host --board URL" in capsys.readouterr().out
    # Again into the same folder: an earlier export is replaced.
    (built / "board.js").write_text("changed")
    assert main(["web", "--export", str(site)]) == 0
    assert (site / "board.js").read_text() == "changed"


def test_a_folder_of_other_files_or_one_that_cannot_be_written_is_refused(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("my own page")
    (site / "notes.txt").write_text("mine")
    assert main(["web", "--export", str(site)]) == 1
    assert "holds other files (notes.txt)" in capsys.readouterr().err
    assert (site / "index.html").read_text() == "my own page"  # nothing lost
    # A path through a file: no folder can be made there.
    file = tmp_path / "a-file"
    file.write_text("x")
    assert main(["web", "--export", str(file / "sub")]) == 1
    assert "cannot write the board into" in capsys.readouterr().err
    assert file.read_text() == "x"


@pytest.mark.parametrize(("fails_at", "error", "says"), [
    (1, PermissionError(errno.EACCES, "Permission denied"), "Nothing was written."),
    (3, OSError(errno.ENOSPC, "No space left on device"),
     "Of the board's 10 files, 2 (index.html, board.js) were written whole"),
])
def test_a_folder_that_cannot_be_written_or_a_full_disk_is_said_and_leaves_no_half_file(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, fails_at: int, error: OSError, says: str) -> None:
    # Made to fail here, as root can write into any folder a test could lock.
    write = Path.write_bytes
    calls: list[Path] = []

    def failing(path: Path, data: bytes) -> int:
        calls.append(path)
        if len(calls) == fails_at:
            write(path, data[: len(data) // 2])  # a disk that fills half-way through a file
            error.filename = str(path)
            raise error
        return write(path, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    site = tmp_path / "site"
    assert main(["web", "--export", str(site)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write the board into {site}: {error.strerror} ({calls[-1]})" in err, err
    assert says in err and "Traceback" not in err
    assert sorted(p.name for p in site.iterdir()) == sorted(list(static.FILES)[: fails_at - 1])


@pytest.mark.parametrize("board", ["ftp://board.example.org/", "javascript:alert(1)",
                                   "https://board.example.org/#x"])
def test_gin_host_takes_only_a_web_address_for_the_board(
        board: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    args = ["host", "--bot", "easy", "--relay", "http://127.0.0.1:1", "--data-dir", str(tmp_path)]
    assert main([*args, "--board", board]) == 2
    assert "gin host: --board: " in capsys.readouterr().err
    monkeypatch.setenv("GIN_BOARD", board)
    assert main(args) == 2
    assert "gin host: GIN_BOARD: " in capsys.readouterr().err
