"""The browser board's speed: its size, its first paint, and Hard's decisions in
Chromium. Prints figures; asserts nothing.

* Size: each built file and the whole board, plain and gzipped (level 9).
* First paint: `gin web` on 127.0.0.1, a fresh Chromium page each run; the
  browser's own first-contentful-paint time and the time the board has put the
  dealt hand on the table (its `gin-table` mark), both from the start of the
  navigation. Median of several runs.
* Hard: benchmarks/board_hard.ts bundled with esbuild and run in the page; Hard
  plays Hard over whole matches from a fixed seed and each decision is timed with
  performance.now() (Chromium rounds it to 0.1 ms). Median, 95th percentile, max.

Needs the built board (`pip install -e .` with npm present), client/web's
node_modules (esbuild) and Debian's Chromium.

    python benchmarks/board.py [--runs 7] [--hands 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# This folder's relay.py (the relay's benchmark) would hide the relay package.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
from relay import static  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "client" / "web"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def sizes() -> None:
    total = gz_total = 0
    for name in static.FILES:
        body = (static.BOARD_DIR / name).read_bytes()
        packed = len(gzip.compress(body, 9))
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


def hard_in_browser(browser: Any, hands: int, seed: int) -> None:
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        raise SystemExit(f"{esbuild} is missing: run `npm ci` in {WEB}")
    with tempfile.TemporaryDirectory() as tmp:
        bundle = Path(tmp) / "hard.js"
        subprocess.run([str(esbuild), str(ROOT / "benchmarks" / "board_hard.ts"), "--bundle",
                        "--minify", "--format=iife", "--target=es2022", f"--outfile={bundle}",
                        "--log-level=warning"], check=True)
        script = bundle.read_text()
    page = browser.new_page()
    page.add_script_tag(content=script)
    times = sorted(page.evaluate(f"timeHard({hands}, {seed})"))
    page.close()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"  Hard, {len(times)} decisions over {hands} hands: median "
          f"{statistics.median(times):.2f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms "
          "(budget p95 50 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="page loads for the first paint")
    parser.add_argument("--hands", type=int, default=300, help="hands of Hard against Hard")
    parser.add_argument("--seed", type=int, default=1)
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
            hard_in_browser(browser, args.hands, args.seed)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
