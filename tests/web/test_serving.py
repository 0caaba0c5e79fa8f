"""The relay serves the board's built files, and only those, with strict headers;
`gin web` serves it on 127.0.0.1 and prints the address."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from relay import static
from relay.server import serve
from tests.support.relay import TEST_CONFIG, http_get

SOURCE_PAGE = Path(__file__).parents[2] / "client" / "web" / "src" / "board" / "index.html"


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A board folder with the three built files and one that is not on the list."""
    (tmp_path / "index.html").write_text("<!doctype html><title>board</title>")
    (tmp_path / "board.js").write_text("console.log('board')")
    (tmp_path / "board.css").write_text("body{}")
    (tmp_path / "notes.txt").write_text("private")
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)
    return tmp_path


async def test_board_files_are_served_with_their_types_and_a_strict_policy(built: Path) -> None:
    relay = await serve(TEST_CONFIG)
    try:
        expected = {
            "/": ("text/html; charset=utf-8", b"<!doctype html><title>board</title>"),
            "/index.html": ("text/html; charset=utf-8", b"<!doctype html><title>board</title>"),
            "/board.js": ("text/javascript; charset=utf-8", b"console.log('board')"),
            "/board.css": ("text/css; charset=utf-8", b"body{}"),
        }
        for path, (content_type, body) in expected.items():
            status, headers, got = await http_get(relay, path)
            assert (status, got) == (200, body), path
            assert headers["content-type"] == content_type
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["content-security-policy"].startswith(
                "default-src 'none'; script-src 'self'; style-src 'self'; "
                "connect-src 'self'; worker-src 'self'; img-src 'self' data:")
            assert "unsafe-inline" not in headers["content-security-policy"]
    finally:
        await relay.close()


async def test_only_the_worker_may_compile_webassembly(built: Path) -> None:
    # Issue 30: the online worker multiplies the fair deal's points with libsodium's
    # WebAssembly; a worker follows its own script's policy, and the page needs none.
    (built / "worker.js").write_text("self.onmessage = () => {};")
    relay = await serve(TEST_CONFIG)
    try:
        _, headers, _ = await http_get(relay, "/worker.js")
        assert "script-src 'self' 'wasm-unsafe-eval';" in headers["content-security-policy"]
        assert headers["content-security-policy"] == static.WORKER_CSP
        for path in ("/", "/board.js", "/j/board.js", "/?relay=http://x.org"):
            _, headers, _ = await http_get(relay, path)
            assert "wasm" not in headers["content-security-policy"], path
    finally:
        await relay.close()


async def test_the_board_travels_gzipped_to_a_client_that_accepts_it(built: Path) -> None:
    # Issue 21 item 8: the relay served 145 KB of board.js uncompressed.
    script = "".join(f"console.log('board', {n});\n" for n in range(500)).encode()
    (built / "board.js").write_bytes(script)
    relay = await serve(TEST_CONFIG)
    try:
        for accept in ("gzip", "gzip, deflate, br, zstd", "br;q=1.0, gzip;q=0.5", "*"):
            status, headers, body = await http_get(relay, "/board.js",
                                                   [("Accept-Encoding", accept)])
            assert (status, headers["content-encoding"]) == (200, "gzip"), accept
            assert headers["vary"] == "Accept-Encoding"
            assert headers["content-type"] == "text/javascript; charset=utf-8"
            assert int(headers["content-length"]) == len(body) < len(script) // 4
            assert gzip.decompress(body) == script  # byte for byte the file
        for accept in (None, "identity", "br", "gzip;q=0", "*;q=0", "*, gzip;q=0"):
            extra = [] if accept is None else [("Accept-Encoding", accept)]
            status, headers, body = await http_get(relay, "/j/board.js", extra)
            assert (status, body) == (200, script), accept
            assert "content-encoding" not in headers
            assert headers["vary"] == "Accept-Encoding"
        # /version gives the digests of the files as built, not as they travel.
        _, _, version = await http_get(relay, "/version", [("Accept-Encoding", "gzip")])
        assert json.loads(version)["board"]["board.js"] == hashlib.sha256(script).hexdigest()
    finally:
        await relay.close()


def test_gzip_is_accepted_only_where_the_header_allows_it() -> None:
    yes = ("gzip", "GZIP", "deflate, gzip;q=0.1", "x-gzip", "*", "br, *;q=0.2")
    no = ("", "identity", "br, deflate", "gzip;q=0", "gzip;q=0.000", "*;q=0", "*, gzip;q=0",
          "gzip;q=nonsense")
    assert [static.accepts_gzip(a) for a in yes] == [True] * len(yes)
    assert [static.accepts_gzip(a) for a in no] == [False] * len(no)


async def test_nothing_off_the_list_is_served(built: Path) -> None:
    relay = await serve(TEST_CONFIG)
    try:
        for path in ("/notes.txt", "/../notes.txt", "/board.js/", "/dist/board.js", "/BOARD.JS"):
            status, _, body = await http_get(relay, path)
            assert (status, body) == (404, b"not found\n"), path
    finally:
        await relay.close()


async def test_version_gives_the_sha256_of_each_served_file(built: Path) -> None:
    relay = await serve(TEST_CONFIG)
    try:
        status, headers, body = await http_get(relay, "/version")
        assert (status, headers["content-type"]) == (200, "application/json")
        assert json.loads(body) == {"board": {
            name: hashlib.sha256((built / name).read_bytes()).hexdigest()
            for name in ("index.html", "board.js", "board.css")}}
    finally:
        await relay.close()


async def test_without_a_built_board_the_relay_keeps_its_home_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)
    relay = await serve(TEST_CONFIG)
    try:
        status, _, body = await http_get(relay, "/")
        assert status == 200 and b"gin host --relay" in body
        assert (await http_get(relay, "/board.js"))[0] == 404
        assert json.loads((await http_get(relay, "/version"))[2]) == {"board": None}
    finally:
        await relay.close()


async def test_the_websocket_routes_still_work_beside_the_board(built: Path) -> None:
    from tests.support.relay import assert_forwarding, pair

    relay = await serve(replace(TEST_CONFIG))
    try:
        await assert_forwarding(*await pair(relay))
    finally:
        await relay.close()


class _PageCheck(HTMLParser):
    """Collects what a strict CSP would block, and every URL the page loads."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "style" or "style" in found:
            self.inline.append(f"<{tag}> style")
        if tag == "script" and not found.get("src"):
            self.inline.append("inline <script>")
        self.inline += [f"{name} on <{tag}>" for name in found if name.startswith("on")]
        for name in ("src", "href"):
            value = found.get(name)
            if value is not None and tag in ("script", "link", "img"):
                self.urls.append(value)


def test_the_page_has_no_inline_code_and_loads_its_files_by_relative_urls() -> None:
    check = _PageCheck()
    check.feed(SOURCE_PAGE.read_text())
    assert check.inline == []
    assert sorted(u for u in check.urls if not u.startswith("data:")) == ["board.css", "board.js"]
    # Relative URLs: behind a path prefix (https://host/gin/) the page finds its files.
    assert set(check.urls) - {"data:,"} <= set(name for name in static.FILES)


def test_gin_web_without_a_built_board_says_how_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)
    assert main(["web", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "not built" in err and "npm" in err


def test_gin_web_refuses_a_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["web", "--port", "70000"])
    assert exc.value.code == 2
    assert "port must be 0-65535" in capsys.readouterr().err


def test_gin_web_serves_the_board_on_localhost_and_prints_the_address(board_built: None) -> None:
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "client.cli", "web", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("The board is at http://127.0.0.1:"), line
        url = line.split()[4]
        with urllib.request.urlopen(url, timeout=5) as response:
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert b'src="board.js"' in response.read()
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_chromium_gets_the_built_board_gzipped(open_board: Any) -> None:
    # The browser's own account (Resource Timing): what came over the wire, and its size
    # once decoded.
    board = open_board("?delay=0")
    sizes = board.page.evaluate("""() => Object.fromEntries(
        [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
        .filter((e) => /\\/(board\\.js|board\\.css)?(\\?.*)?$/.test(e.name))
        .map((e) => [e.name.split('?')[0].split('/').pop() || 'index.html',
                     [e.encodedBodySize, e.decodedBodySize]]))""")
    assert set(sizes) == {"index.html", "board.js", "board.css"}
    for name, (wire, decoded) in sizes.items():
        assert 0 < wire < decoded / 2, (name, wire, decoded)


WASM_MODULE = "new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])"  # an empty module


def test_a_hosts_worker_multiplies_with_libsodium_and_the_page_compiles_no_webassembly(
        browser: Any, relay_url: str) -> None:
    # Issue 30: under the relay's policies the online worker loads libsodium's
    # WebAssembly (it marks "gin:libsodium" in its timeline, src/protocol/deal/sodium.ts).
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(relay_url + "?delay=0")
        page.check("input[name=mode][value=online]")
        with page.expect_worker() as started:
            page.click("#btn-host")
        page.wait_for_selector("#invite-link")
        loaded = ("new Promise((done) => { let n = 0; const t = setInterval(() => {"
                  " const m = performance.getEntriesByName('gin:libsodium').length;"
                  " if (m || ++n > 200) { clearInterval(t); done(m); } }, 50); })")
        assert started.value.evaluate(loaded) == 1
        compile_ = (f"WebAssembly.compile({WASM_MODULE})"
                    ".then(() => 'compiled', (e) => 'refused: ' + e.message)")
        assert page.evaluate(compile_).startswith("refused: ")
    finally:
        context.close()
