"""The browser as an online peer: how long its page's main thread is ever busy at a
time during a whole match (issue 13 asks for never more than 50 ms), and how much
its Web Worker works per hand. Prints figures; asserts nothing.

Each run: `gin relay` on 127.0.0.1, `gin host --bot hard` (no pauses), and a fresh
Chromium page opened on the invite link with `?bot=LEVEL&delay=0`, traced from the
navigation to the end of the match. From Chromium's trace (devtools.timeline): every
task of the page's main thread (CrRendererMain) after the page's start — the
longest, the 99th percentile, how many took over 50 ms — and, apart, the start
itself (the tasks that evaluate the page's script, before any play); and the CPU
time of the worker's thread per verified hand (the session's crypto and checks).
Wall time is what a player waits; the thread's CPU time (the trace's `tdur`)
leaves out time the thread waited for a core on a busy machine, so both are
printed, with the load average. The page also counts the Long Tasks API's entries
(tasks over 50 ms of wall time) as a cross-check.
Median over the runs.
Needs the built board (`pip install -e .` with npm present) and Debian's Chromium.

    python benchmarks/online_browser.py [--runs 3] [--bot normal]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel"]
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longtasks.push(entry.duration);
}).observe({ type: 'longtask', buffered: true });
"""


def gin(*args: str) -> list[str]:
    return [sys.executable, "-m", "client.cli", *args]


def start_relay(folder: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        gin("relay", "--host", "127.0.0.1", "--port", "0", "--key-file", str(folder / "key"),
            "--rate", "1000", "--burst", "10000", "--log-level", "info"),
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        entry = json.loads(line)
        if entry.get("event") == "relay_started":
            if not entry.get("board") or "worker.js" not in entry["board"]:
                proc.kill()
                raise SystemExit("the relay serves no built board with its worker: build it first")
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, f"http://127.0.0.1:{entry['port']}"
    raise SystemExit("the relay did not start")


def thread_tasks(trace: dict[str, Any], name: str) -> tuple[list[tuple[float, float]],
                                                               list[tuple[float, float]]]:
    """(wall, CPU) durations in ms of the top-level tasks of every thread called
    ``name``: those that evaluate the page's script (its start), and all others.

    Wall time is what a player waits; on a shared machine it includes time the
    thread was runnable but not running, so the thread's CPU time is given too."""
    events = trace["traceEvents"]
    threads = {(e["pid"], e["tid"]) for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"
               and e.get("args", {}).get("name") == name}
    mine = [e for e in events if (e.get("pid"), e.get("tid")) in threads and e.get("ph") == "X"]
    starts = [e["ts"] for e in mine if e.get("name") == "v8.evaluateModule"]
    start: list[tuple[float, float]] = []
    rest: list[tuple[float, float]] = []
    for e in mine:
        if e.get("name") == "RunTask" and "dur" in e:
            begin, end = e["ts"], e["ts"] + e["dur"]
            into = start if any(begin <= ts < end for ts in starts) else rest
            into.append((e["dur"] / 1000, e.get("tdur", e["dur"]) / 1000))
    return start, rest


def one_match(browser: Any, relay: str, bot: str, folder: Path) -> dict[str, float]:
    host = subprocess.Popen(
        gin("host", "--relay", relay, "--bot", "hard", "--bot-delay", "0",
            "--data-dir", str(folder / "host")),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert host.stdout is not None
    link = host.stdout.readline().strip()
    head, _, secret = link.partition("#")
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(LONGTASKS)
    browser.start_tracing(page=page, categories=CATEGORIES)
    started = time.perf_counter()
    page.goto(f"{head}?bot={bot}&delay=0#{secret}")
    page.wait_for_function(
        "() => ['match-over', 'failed'].includes(document.body.dataset.state)", timeout=600_000)
    seconds = time.perf_counter() - started
    state = page.evaluate("document.body.dataset.state")
    hands = page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('gin-online-records:'))"
        ".map(k => JSON.parse(localStorage.getItem(k)).length).reduce((a, b) => a + b, 0)")
    longtasks = page.evaluate("window.__longtasks")
    trace = json.loads(browser.stop_tracing())
    context.close()
    host.wait(timeout=60)
    if state != "match-over" or not hands:
        raise SystemExit(f"the match did not finish ({state}, {hands} hands verified)")
    start, main = thread_tasks(trace, "CrRendererMain")
    wall, cpu = sorted(w for w, _ in main), sorted(c for _, c in main)
    worker = [task for tasks in thread_tasks(trace, "DedicatedWorker thread") for task in tasks]
    return {
        "longest": wall[-1], "longest_cpu": cpu[-1], "p99": wall[int(0.99 * (len(wall) - 1))],
        "over50": sum(1 for d in wall if d > 50), "over50_cpu": sum(1 for d in cpu if d > 50),
        "start": max((w for w, _ in start), default=0.0),
        "start_cpu": max((c for _, c in start), default=0.0),
        "longtasks": len(longtasks), "hands": hands, "seconds": seconds,
        "worker_per_hand": sum(c for _, c in worker) / hands / 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bot", default="normal", help="the page's player (easy, normal, hard)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        relay, url = start_relay(Path(tmp))
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            runs = [one_match(browser, url, args.bot, Path(tmp) / f"run{i}")
                    for i in range(args.runs)]
        finally:
            browser.close()
            relay.terminate()
            relay.wait()
    for i, run in enumerate(runs, 1):
        print(f"  run {i}: {run['hands']:.0f} hands in {run['seconds']:.1f} s; main thread "
              f"after the page's start: longest task {run['longest']:.1f} ms "
              f"({run['longest_cpu']:.1f} ms of CPU), p99 {run['p99']:.1f} ms, "
              f"{run['over50']:.0f} over 50 ms ({run['over50_cpu']:.0f} by CPU); the start "
              f"(evaluating the page's script) {run['start']:.1f} ms ({run['start_cpu']:.1f} ms "
              f"of CPU); Long Tasks API: {run['longtasks']:.0f} over 50 ms in all; worker CPU "
              f"{run['worker_per_hand']:.2f} s per hand")

    def median(key: str) -> float:
        return statistics.median(run[key] for run in runs)

    load = os.getloadavg()[0]
    print(f"Chromium guest (?bot={args.bot}) vs gin host --bot hard, median of {len(runs)} "
          f"matches (load average {load:.1f} on {os.cpu_count()} cores): during the match the "
          f"page's main thread was busy at most {median('longest'):.1f} ms at a time "
          f"({median('longest_cpu'):.1f} ms of its CPU; p99 of its tasks {median('p99'):.1f} ms; "
          f"{median('over50'):.0f} tasks over 50 ms, {median('over50_cpu'):.0f} by CPU time); "
          f"the page's start {median('start'):.1f} ms ({median('start_cpu'):.1f} ms of CPU); "
          f"the worker used {median('worker_per_hand'):.2f} s of CPU per hand")


if __name__ == "__main__":
    main()
