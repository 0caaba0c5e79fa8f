"""The fair deal's crypto per hand in Chromium, in Web Workers: prints figures, asserts nothing.

Bundles benchmarks/fairdeal_worker.ts and benchmarks/session_worker.ts with
esbuild (from client/web's packages), serves them on 127.0.0.1 and opens them in
Debian's Chromium through Playwright; the pure-JS path throughout, no WebCrypto.

1. The crypto alone: a first worker builds the hands (fixed seeds,
   benchmarks/fairdeal_hand.ts), a second times the kernels; then for each role a
   fresh worker plays every hand's crypto as that role does online.
2. The real session: whole matches (normal against normal, fixed seeds) between
   two client/web sessions, each in its own fresh worker, the page relaying their
   frames; each hand's CPU is split by role (the dealer shuffles first) and covers
   all the session does: sealing, the engine, records, signatures, the audit.

Each hand is timed by its worker thread's CPU time, read from /proc (10 ms ticks),
and by the worker's clock. A match's first hand compiles the code, so it is shown
apart and medians are over the rest; the worker's start (its script, libsodium, the
deal's tables: before the match, as the board's worker) is shown apart too. The
budget (issue 19): 300 ms of worker CPU per player per hand.

``--throttle N`` slows the workers' renderer N times, as a phone's CPU is (about 4×
slower than this machine's), by stopping the process for all but 1/N of every 40 ms
(see :class:`Throttle` for why not DevTools). The thread's CPU time stays the work
done; the worker clock grows about N times: it is what a phone's player waits.
Issue 30's budget at 4×: 250 ms a hand in either role, 500 ms a match's first hand.

    python benchmarks/fairdeal_browser.py [--runs 7] [--matches 3] [--throttle 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "client" / "web"
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
WORKER_THREAD = "DedicatedWorker"  # Chromium's name for a dedicated worker's thread
# Calls per timing of each kernel of benchmarks/fairdeal_hand.ts (a tenth of a second or more).
KERNEL_CALLS = {"constant": 104, "variable": 104, "pedersen": 520, "bytes": 104, "prove": 1,
                "verify": 2}

PAGE_SCRIPT = """
window.call = (worker, message) => new Promise((resolve, reject) => {
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => reject(new Error(event.message));
  worker.postMessage(message);
});

// Relay frames between the two session workers (window.peers: host, guest) until
// both are over; once both have verified a hand, wait for handDone (the script
// reads the threads' CPU while both workers are idle).
window.runMatch = async (seed) => {
  const [host, guest] = window.peers;
  const seat = new Map([[host, 'host'], [guest, 'guest']]);
  const other = new Map([[host, guest], [guest, host]]);
  const inbox = new Map([[host, []], [guest, []]]);
  const over = new Map();
  const verified = {};
  const handle = async (worker, reply) => {
    if (reply.failure) throw new Error(seat.get(worker) + ': ' + reply.failure);
    inbox.get(other.get(worker)).push(...reply.frames);
    over.set(worker, reply.over);
    for (const done of reply.verified) {
      const both = (verified[done.hand] ??= {});
      both[seat.get(worker)] = done;
      if (both.host && both.guest) await window.handDone(done.hand, both);
    }
  };
  await handle(host, await call(host, {kind: 'start', role: 'host', seed}));
  await handle(guest, await call(guest, {kind: 'start', role: 'guest', seed: seed + 1}));
  while (!(over.get(host) && over.get(guest))) {
    const worker = [host, guest].find((w) => inbox.get(w).length);
    if (worker === undefined) throw new Error('the match stalled');
    const frames = inbox.get(worker).splice(0);
    await handle(worker, await call(worker, {kind: 'frames', frames}));
  }
};
"""


def bundle(out: Path) -> None:
    """The two worker scripts and an empty page that loads nothing else."""
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        sys.exit("fairdeal_browser: run `npm ci` in client/web first (esbuild is missing)")
    for name, source in (("worker", "fairdeal_worker.ts"), ("session_worker", "session_worker.ts")):
        # The compile hint the board's worker.js carries (client/web/scripts/build-board.mjs).
        subprocess.run([str(esbuild), str(ROOT / "benchmarks" / source), "--bundle",
                        "--format=iife", "--target=es2022", f"--outfile={out / (name + '.js')}",
                        "--banner:js=//# allFunctionsCalledOnLoad", "--log-level=warning"],
                       check=True, cwd=WEB)
    (out / "index.html").write_text("<!doctype html><title>fair deal benchmark</title>\n",
                                    encoding="utf-8")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass


def serve(directory: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 partial(QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"


def _parent(pid: str) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()[1]


def worker_threads() -> set[tuple[str, str]]:
    """(pid, tid) of every Web Worker thread in this script's Chromium."""
    parents = {pid: _parent(pid) for pid in os.listdir("/proc") if pid.isdigit()}
    mine = {str(os.getpid())}
    grew = True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in mine} - mine
        mine |= more
        grew = bool(more)
    found = set()
    for pid in mine:
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                if Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip() == WORKER_THREAD:
                    found.add((pid, tid))
        except OSError:
            continue
    return found


def thread_cpu_ms(pid: str, tid: str) -> float:
    stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * TICK_MS  # utime, stime


class Throttle:
    """Slows the renderer that runs the workers ``rate`` times, as a phone's slower CPU
    would: it lets the process run 1/``rate`` of every 40 ms and stops it (SIGSTOP) for
    the rest; ``effective`` is the slowdown the cycle achieved (sleeps overshoot).
    Chromium's own throttling cannot do this: ``Emulation.setCPUThrottlingRate``
    on the page leaves a dedicated worker at full speed, and a worker's own target
    answers "Operation is only supported for pages, not workers"."""

    PERIOD = 0.04

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.ran = self.stopped = 0.0
        self.pid: int | None = None
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, pid: int) -> None:
        if self.rate <= 1 or self.pid == pid:
            return
        self.finish()
        self.pid, self.stop = pid, threading.Event()
        self.thread = threading.Thread(target=self._cycle, args=(pid,), daemon=True)
        self.thread.start()

    def _cycle(self, pid: int) -> None:
        run = self.PERIOD / self.rate
        while not self.stop.is_set():
            start = time.monotonic()
            time.sleep(run)
            os.kill(pid, signal.SIGSTOP)
            stopped = time.monotonic()
            time.sleep(self.PERIOD - run)
            os.kill(pid, signal.SIGCONT)
            self.ran += stopped - start
            self.stopped += time.monotonic() - stopped

    @property
    def effective(self) -> float:
        return (self.ran + self.stopped) / self.ran if self.ran else 1.0

    def finish(self) -> None:
        if self.thread is not None and self.pid is not None:
            self.stop.set()
            self.thread.join()
            os.kill(self.pid, signal.SIGCONT)
            self.thread = None


THROTTLE: Throttle | None = None


#: The multiplications the workers use: "sodium" (libsodium's WebAssembly, as the
#: board's worker) or "noble" (pure JS, ``--noble``); the worker's name tells it.
BACKEND = "sodium"


def start_worker(page: Any, script: str = "window.role = new Worker('worker.js', {name: BACKEND});"
                 " const got = await call(window.role, {kind: 'ping'});") -> tuple[str, str]:
    """A fresh worker, started by ``script`` (and throttled with ``--throttle``); its
    thread's (pid, tid)."""
    before = worker_threads()
    got = page.evaluate(f"async () => {{ const BACKEND = '{BACKEND}'; {script} return got; }}")
    if got != BACKEND:
        sys.exit(f"fairdeal_browser: the worker multiplies with {got}, not {BACKEND}")
    new = worker_threads() - before
    if len(new) != 1:
        sys.exit(f"fairdeal_browser: expected one new worker thread, found {len(new)}")
    pid, tid = new.pop()
    if THROTTLE is not None:
        THROTTLE.start(int(pid))
    return pid, tid


def kernels(page: Any, runs: int, calls: dict[str, int]) -> dict[str, float]:
    """Worker CPU ms per call of each kernel: the median of ``runs`` after a warm-up."""
    pid, tid = start_worker(page)
    page.evaluate("() => call(window.role, {kind: 'prepare'})")
    out = {}
    for name, count in calls.items():
        times = []
        for _ in range(runs + 1):
            start = thread_cpu_ms(pid, tid)
            page.evaluate("([name, calls]) => call(window.role, {kind: 'kernel', name, calls})",
                          [name, count])
            times.append((thread_cpu_ms(pid, tid) - start) / count)
        out[name] = statistics.median(times[1:])
    page.evaluate("() => window.role.terminate()")
    return out


def play_role(page: Any, role: str, hands: int) -> list[dict[str, Any]]:
    """Each hand played in turn as ``role`` by one fresh worker, with its thread's CPU."""
    pid, tid = start_worker(page)
    played = []
    for i in range(hands):
        start = thread_cpu_ms(pid, tid)
        ms = page.evaluate("([role, i]) => call(window.role,"
                           " {kind: 'play', role, hand: window.hands[i]})", [role, i])
        played.append({"ms": ms, "cpu": thread_cpu_ms(pid, tid) - start})
    page.evaluate("() => window.role.terminate()")
    return played


SESSION_WORKER = ("const t0 = performance.now(); const w = new Worker('session_worker.js',"
                  " {name: BACKEND}); const got = await call(w, {kind: 'ping'});"
                  " window.started = performance.now() - t0; window.peers.push(w);")


def play_matches(page: Any, matches: int) -> tuple[list[dict[str, Any]], list[tuple[float, float]]]:
    """Whole matches of two real sessions, each in a fresh worker: one row per hand and
    side, and each worker's start (CPU, clock: loading its script, and libsodium) before
    the match (a board's worker starts when its player goes online, before the friend
    joins)."""
    rows: list[dict[str, Any]] = []
    starts: list[tuple[float, float]] = []
    threads: dict[str, tuple[str, str]] = {}
    last: dict[str, float] = {}

    def hand_done(hand: int, both: dict[str, dict[str, Any]]) -> None:
        for side, done in both.items():
            cpu = thread_cpu_ms(*threads[side])
            role = "first" if done["dealer"] == ("host", "guest").index(side) else "second"
            rows.append({**done, "role": role, "side": side, "cpu": cpu - last[side]})
            last[side] = cpu

    page.expose_function("handDone", hand_done)
    for match in range(matches):
        page.evaluate("() => { window.peers = []; }")
        for side in ("host", "guest"):
            threads[side] = start_worker(page, SESSION_WORKER)
            last[side] = thread_cpu_ms(*threads[side])
            starts.append((last[side], page.evaluate("() => window.started")))
        page.evaluate("(seed) => runMatch(seed)", 1000 * (match + 1))
        page.evaluate("() => window.peers.forEach((w) => w.terminate())")
    return rows, starts


def session_line(role: str, rows: list[dict[str, Any]]) -> str:
    later = [r for r in rows if r["role"] == role and r["hand"] > 1]
    first = [r for r in rows if r["role"] == role and r["hand"] == 1]

    def med(key: str, of: list[dict[str, Any]]) -> float:
        return statistics.median(r[key] for r in of)

    def first_hand(side: str) -> str:
        mine = [r for r in first if r["side"] == side]
        return (f"{side} {med('cpu', mine):.0f} ms CPU, {med('sessionMs', mine):.0f} ms clock "
                f"({len(mine)})" if mine else f"{side} none")

    first_text = (f"; a match's first hand: {first_hand('host')}, {first_hand('guest')}"
                  if first else "")
    return (f"{role} shuffler, one hand of the session: worker CPU {med('cpu', later):.0f} ms "
            f"({min(r['cpu'] for r in later):.0f}–{max(r['cpu'] for r in later):.0f}, "
            f"{len(later)} hands; worker clock: session calls {med('sessionMs', later):.0f} ms, "
            f"player {med('playerMs', later):.0f} ms){first_text}")


def role_line(role: str, played: list[dict[str, Any]]) -> str:
    rest = played[1:]
    cpu = [p["cpu"] for p in rest]
    wall = [p["ms"] for p in rest]
    return (f"{role} shuffler, one hand: worker CPU {statistics.median(cpu):.0f} ms "
            f"({min(cpu):.0f}–{max(cpu):.0f}), worker clock {statistics.median(wall):.0f} ms; "
            f"the match's first hand {played[0]['cpu']:.0f} ms CPU (its code is compiled; the "
            "tables were built as the worker started)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="hands timed after the first")
    parser.add_argument("--matches", type=int, default=3,
                        help="whole matches of the real session (normal against normal)")
    parser.add_argument("--throttle", type=float, default=1,
                        help="slow each worker this many times (4: about a phone's CPU)")
    parser.add_argument("--noble", action="store_true",
                        help="multiply with noble (pure JS) instead of libsodium's WebAssembly")
    args = parser.parse_args()
    global THROTTLE, BACKEND
    BACKEND = "noble" if args.noble else "sodium"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("fairdeal_browser: Chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        bundle(Path(tmp))
        server, url = serve(Path(tmp))
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        THROTTLE = throttle = Throttle(args.throttle)
        try:
            page = browser.new_page()
            page.goto(url)
            page.add_script_tag(content=PAGE_SCRIPT)
            page.evaluate("async (count) => { const b = new Worker('worker.js', {name: 'noble'});"
                          " window.hands = await call(b, {kind: 'transcripts', count});"
                          " b.terminate(); }", args.runs + 1)
            per_call = kernels(page, args.runs, KERNEL_CALLS)
            lines = [role_line(role, play_role(page, role, args.runs + 1))
                     for role in ("first", "second")]
            rows, starts = play_matches(page, args.matches)
            lines += [session_line(role, rows) for role in ("first", "second")]
            lines.append(f"a session worker's start, before its match: worker CPU "
                         f"{statistics.median(c for c, _ in starts):.0f} ms, clock "
                         f"{statistics.median(w for _, w in starts):.0f} ms "
                         f"(median of {len(starts)})")
            version = browser.version
        finally:
            throttle.finish()
            browser.close()
            server.shutdown()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    slowed = (f", the workers' renderer slowed {throttle.effective:.1f}× (asked {args.throttle:g}×)"
              if args.throttle > 1 else "")
    means = ("pure JS (@noble/curves)" if BACKEND == "noble"
             else "libsodium's WebAssembly for the constant-time multiplications")
    print(f"Chromium {version}, one dedicated worker per role, {means}{slowed}; median of "
          f"{args.runs} hands after the first; load average {load} on {os.cpu_count()} cores")
    print(f"one multiplication (worker CPU): noble's constant-time multiply "
          f"{per_call['constant']:.2f} ms, variable-time {per_call['variable']:.2f} ms, "
          f"a Pedersen commitment (x·H + y·G) {per_call['pedersen']:.2f} ms; of an encoding, "
          f"as the deck messages ({BACKEND}) {per_call['bytes']:.2f} ms; the proof: prove "
          f"{per_call['prove']:.0f} ms, verify {per_call['verify']:.0f} ms")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
