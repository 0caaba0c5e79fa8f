"""The browser board's speed: its size and its first paint in Chromium. Prints
figures; asserts nothing. (Hard's decisions in Chromium: benchmarks/players_browser.py.)

* Size: each built file and the whole board, plain and gzipped as the relay serves
  it (level 9).
* First paint: `gin web` on 127.0.0.1, a fresh Chromium page each run; the
  browser's own first-contentful-paint time and the time the board has put the
  dealt hand on the table (its `gin-table` mark), both from the start of the
  navigation. Median of several runs.
Needs the built board (`pip install -e .` with npm present) and Debian's Chromium.

    python benchmarks/board.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

# This folder's relay.py (the relay's benchmark) would hide the relay package.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
from relay import static  # noqa: E402

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def sizes() -> None:
    total = gz_total = 0
    for name in static.FILES:
        body = (static.BOARD_DIR / name).read_bytes()
        packed = len(static.compressed(body))  # as the relay serves it
        total, gz_total = total + len(body), gz_total + packed
        print(f"  {name:<11} {len(body) / 1024:7.1f} KB  gzipped {packed / 1024:6.1f} KB")
    print(f"  {'the board':<11} {total / 1024:7.1f} KB  gzipped {gz_total / 1024:6.1f} KB "
          "(budget 150 KB gzipped)")


def serve() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "client.cli", "web", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("The board is at "):
        proc.kill()
        raise SystemExit(f"gin web did not start: {line!r}")
    return proc, line.split()[4]


def first_paint(browser: Any, url: str, runs: int) -> None:
    paints, dealt = [], []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(url + "?delay=0")
        page.wait_for_selector("#hand .card")
        timing = page.evaluate(
            "() => ({paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,"
            " table: performance.getEntriesByName('gin-table')[0]?.startTime})")
        paints.append(timing["paint"])
        dealt.append(timing["table"])
        context.close()
    print(f"  first contentful paint: median {statistics.median(paints):.0f} ms "
          f"(runs: {', '.join(f'{p:.0f}' for p in paints)}; budget 1000 ms)")
    print(f"  the dealt hand on the table: median {statistics.median(dealt):.0f} ms "
          f"(runs: {', '.join(f'{p:.0f}' for p in dealt)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="page loads for the first paint")
    args = parser.parse_args()
    if not static.load_board().built:
        raise SystemExit(f"the board is not built ({static.BOARD_DIR})")
    from playwright.sync_api import sync_playwright

    print("Size:")
    sizes()
    proc, url = serve()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            print(f"Chromium {browser.version}, the board from {url}:")
            first_paint(browser, url, args.runs)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
