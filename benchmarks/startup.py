"""How long bare `gin` takes to show its first frame.

Runs `python -m client.cli` (what the `gin` script runs) in a pseudo-terminal of
100×30, times from the start of the process until the table's first frame (the
"Stock" label) has been written to the terminal, then stops it. Prints every run
and the median. Each run uses a fresh, empty data folder, so no saved match is
offered.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

MARKER = b"Stock"
TIMEOUT = 20.0


def first_frame_seconds() -> float:
    """One run: seconds from process start to the first frame on the terminal."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, GIN_DATA_DIR=data, TERM="xterm-256color", COLUMNS="100",
                   LINES="30")
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "client.cli"], stdin=child,
                                stdout=child, stderr=child, env=env, close_fds=True,
                                start_new_session=True)
        os.close(child)
        seen = b""
        try:
            while MARKER not in seen:
                if time.perf_counter() - start > TIMEOUT:
                    raise RuntimeError(f"no first frame within {TIMEOUT} s")
                ready, _, _ = select.select([main], [], [], 0.05)
                if ready:
                    seen = seen[-64:] + os.read(main, 65536)
            return time.perf_counter() - start
        finally:
            os.killpg(proc.pid, signal.SIGTERM)  # the process group we started
            proc.wait()
            os.close(main)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    times = []
    for i in range(args.runs):
        seconds = first_frame_seconds()
        times.append(seconds)
        print(f"run {i + 1}: {seconds * 1000:.0f} ms")
    print(f"first frame, median of {args.runs}: {statistics.median(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
