"""Hard's decision time in Chromium: prints figures, asserts nothing.

Bundles benchmarks/hard_timing.ts with esbuild (from client/web's packages), runs
it in Debian's Chromium through Playwright, and prints the median, 95th and 99th
percentiles and the maximum of every Hard decision and hint over fixed hands
(the budget is 50 ms at the 95th percentile).

    python benchmarks/players_browser.py [--hands 300]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "client" / "web"


def bundle(out: Path) -> str:
    """The timing module as one script defining the global ``hardTiming``."""
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        sys.exit("players_browser: run `npm ci` in client/web first (esbuild is missing)")
    subprocess.run([str(esbuild), str(ROOT / "benchmarks" / "hard_timing.ts"), "--bundle",
                    "--format=iife", "--global-name=hardTiming", "--target=es2022",
                    f"--outfile={out}", "--log-level=warning"], check=True, cwd=WEB)
    return out.read_text(encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("players_browser: Chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        script = bundle(Path(tmp) / "hard_timing.js")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.add_script_tag(content=script)
        version = browser.version
        lines = page.evaluate(
            f"(() => {{ const t = hardTiming.measure({args.hands}); return ["
            "hardTiming.summary('hard decisions', t.hard), "
            "hardTiming.summary('hints', t.hints)]; })()")
        browser.close()
    print(f"Chromium {version}: {args.hands} hands, Hard against Normal and itself")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
