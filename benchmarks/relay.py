"""Relay throughput, latency and idle memory, against a bare forwarder: prints figures.

One relay process on 127.0.0.1 (``python -m relay``) and, in the same run, a
bare websockets forwarder (pairs two connections by path, forwards binary
frames, nothing else) as the yardstick. This process is the load: N rooms, each
a host and a guest playing ping-pong with frames of ~300 bytes (the size of a
sealed move). Figures are medians over several runs; nothing is asserted.

- throughput: frames forwarded per second with all rooms busy, and the server
  process's CPU time per forwarded frame (steadier than throughput when other
  work shares the machine: this process is the load and competes for cores);
- latency: one-way send-to-receive time through the server, p50 and p99, with
  one room (what a player feels) and under full load;
- idle memory: growth of the server's RSS divided by the connections held,
  for 2,000 connections (1,000 rooms) and, with --big, 10,000 (5,000 rooms).

    python benchmarks/relay.py [--rooms 100] [--seconds 3] [--runs 3] [--big]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import struct
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

FRAME_SIZE = 300
ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------ bare forwarder


async def bare_forwarder(port: int) -> None:
    """The yardstick: pair two connections on the same path and forward frames."""
    waiting: dict[str, ServerConnection] = {}
    peers: dict[ServerConnection, ServerConnection] = {}

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        key = ws.request.path
        partner = waiting.pop(key, None)
        if partner is None:
            waiting[key] = ws
        else:
            peers[ws], peers[partner] = partner, ws
        try:
            async for message in ws:
                peer = peers.get(ws)
                if peer is not None:
                    with contextlib.suppress(ConnectionClosed):
                        await peer.send(message)
        finally:
            peers.pop(ws, None)
            if waiting.get(key) is ws:
                del waiting[key]

    async with serve(handler, "127.0.0.1", port, compression=None):
        await asyncio.Future()


# ---------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    port: int

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def start_server(kind: str, key_file: Path) -> Server:
    port = free_port()
    if kind == "relay":
        env = {
            **os.environ,
            "GIN_RELAY_PORT": str(port),
            "GIN_RELAY_KEY_FILE": str(key_file),
            "GIN_RELAY_MAX_CONNS_PER_IP": "1000000",
            "GIN_RELAY_MAX_ROOMS": "1000000",
            "GIN_RELAY_NEW_ROOMS_BURST": "1000000",  # every room comes from 127.0.0.1
            "GIN_RELAY_RATE": "1000000",
            "GIN_RELAY_BURST": "1000000",
            "GIN_RELAY_LOG_LEVEL": "warning",
        }
        command = [sys.executable, "-m", "relay"]
    else:
        env = dict(os.environ)
        command = [sys.executable, __file__, "--bare-server", str(port)]
    process = subprocess.Popen(command, env=env, cwd=ROOT, preexec_fn=raise_fd_limit)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                # A real request, so the relay does not count a probe as bad HTTP.
                probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                probe.recv(100)
            return Server(kind, process, port)
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{kind} server did not start")


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ------------------------------------------------------------------ rooms


async def open_ws(url: str) -> ClientConnection:
    return await connect(url, compression=None, ping_interval=None, open_timeout=60)


async def open_room(server: Server, index: int) -> tuple[ClientConnection, ClientConnection]:
    base = f"ws://127.0.0.1:{server.port}"
    if server.name == "bare":
        host = await open_ws(f"{base}/pair/{index}")
        guest = await open_ws(f"{base}/pair/{index}")
        return host, guest
    host = await open_ws(f"{base}/new?token={'a' * 32}")
    room = json.loads(await host.recv())["room"]
    guest = await open_ws(f"{base}/j/{room}?seat=1&token={'b' * 32}")
    await guest.recv()  # its welcome
    await host.recv()  # peer_joined
    return host, guest


async def open_rooms(
    server: Server, count: int, batch: int = 100
) -> list[tuple[ClientConnection, ClientConnection]]:
    rooms: list[tuple[ClientConnection, ClientConnection]] = []
    for start in range(0, count, batch):
        size = min(batch, count - start)
        rooms += await asyncio.gather(*(open_room(server, start + i) for i in range(size)))
    return rooms


async def close_rooms(rooms: list[tuple[ClientConnection, ClientConnection]]) -> None:
    for start in range(0, len(rooms), 500):
        chunk = rooms[start : start + 500]
        await asyncio.gather(*(ws.close() for pair in chunk for ws in pair))


# ------------------------------------------------------------- measurements


async def ping_pong(
    rooms: list[tuple[ClientConnection, ClientConnection]], seconds: float
) -> tuple[float, list[float]]:
    """Each room bounces one frame back and forth; returns frames/s and latencies (s)."""
    padding = bytes(FRAME_SIZE - 8)
    latencies: list[float] = []
    frames = 0

    async def bounce(receiver: ClientConnection, sender: ClientConnection) -> None:
        nonlocal frames
        while True:
            message = await receiver.recv()
            now = time.perf_counter_ns()
            (sent,) = struct.unpack_from("!q", message)
            latencies.append((now - sent) / 1e9)
            frames += 1
            await sender.send(struct.pack("!q", time.perf_counter_ns()) + padding)

    tasks = []
    for host, guest in rooms:
        tasks.append(asyncio.create_task(bounce(guest, host)))
        tasks.append(asyncio.create_task(bounce(host, guest)))
    for host, _ in rooms:
        await host.send(struct.pack("!q", time.perf_counter_ns()) + padding)
    # Count only what arrived within the window; one frame per room is left in
    # flight at the end, so the bouncers are cancelled rather than awaited.
    await asyncio.sleep(seconds)
    counted = frames
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return counted / seconds, latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure_traffic(server: Server, rooms: int, seconds: float) -> dict[str, float]:
    one = await open_rooms(server, 1)
    _, quiet = await ping_pong(one, seconds / 2)
    await close_rooms(one)
    busy_rooms = await open_rooms(server, rooms)
    cpu_before = server.cpu_seconds()
    rate, busy = await ping_pong(busy_rooms, seconds)
    cpu = server.cpu_seconds() - cpu_before
    await close_rooms(busy_rooms)
    return {
        "rate": rate,
        "cpu": cpu / (rate * seconds) * 1e6,
        "p50_1": percentile(quiet, 0.5) * 1e6,
        "p99_1": percentile(quiet, 0.99) * 1e6,
        "p50_n": percentile(busy, 0.5) * 1e6,
        "p99_n": percentile(busy, 0.99) * 1e6,
    }


async def measure_idle(server: Server, connections: int) -> float:
    """KiB of server RSS per idle connection (rooms of two)."""
    warm = await open_rooms(server, 10)  # pay for one-off imports and caches first
    await asyncio.sleep(0.5)
    before = server.rss_kib()
    rooms = await open_rooms(server, connections // 2)
    await asyncio.sleep(1.0)
    after = server.rss_kib()
    await close_rooms(rooms)
    await close_rooms(warm)
    return (after - before) / connections


# --------------------------------------------------------------------- main


def run_fresh(kind: str, key_file: Path, work: Callable[[Server], Awaitable[Any]]) -> Any:
    server = start_server(kind, key_file)
    try:
        return asyncio.run(work(server))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100, help="busy rooms (default 100)")
    parser.add_argument("--seconds", type=float, default=3.0, help="per traffic run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--idle", type=int, default=2000, help="idle connections to hold")
    parser.add_argument("--big", action="store_true", help="also hold 10,000 connections")
    parser.add_argument("--bare-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        asyncio.run(bare_forwarder(args.bare_server))
        return
    raise_fd_limit()
    key_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"gin-bench-relay-{os.getpid()}.key"
    try:
        report(args, key_file)
    finally:
        key_file.unlink(missing_ok=True)


def report(args: argparse.Namespace, key_file: Path) -> None:
    print(f"frames of {FRAME_SIZE} bytes; {args.rooms} busy rooms; median of {args.runs} runs")
    # Runs alternate between the two servers, so other load on the machine
    # weighs on both alike.
    runs: dict[str, list[dict[str, float]]] = {"bare": [], "relay": []}
    for _ in range(args.runs):
        for kind, results in runs.items():
            results.append(
                run_fresh(kind, key_file, lambda s: measure_traffic(s, args.rooms, args.seconds))
            )
    traffic = {
        kind: {key: statistics.median(run[key] for run in results) for key in results[0]}
        for kind, results in runs.items()
    }
    print(
        f"{'':8} {'frames/s':>10} {'CPU/frame':>10} {'p50 1 room':>11} {'p99 1 room':>11} "
        f"{'p50 busy':>10} {'p99 busy':>10}   (µs; latency one way)"
    )
    for kind, t in traffic.items():
        print(
            f"{kind:8} {t['rate']:10.0f} {t['cpu']:10.1f} {t['p50_1']:11.0f} {t['p99_1']:11.0f} "
            f"{t['p50_n']:10.0f} {t['p99_n']:10.0f}"
        )
    bare, relay = traffic["bare"], traffic["relay"]
    print(
        f"relay/bare: throughput {relay['rate'] / bare['rate']:.0%}, server CPU per frame "
        f"{relay['cpu'] / bare['cpu']:.0%}; latency added by the relay over bare (one room): "
        f"p50 {relay['p50_1'] - bare['p50_1']:+.0f} µs, "
        f"p99 {relay['p99_1'] - bare['p99_1']:+.0f} µs"
    )

    sizes = [args.idle] + ([10_000] if args.big else [])
    for size in sizes:
        repeat = args.runs if size <= 2000 else 1
        for kind in ("bare", "relay"):
            per = [
                run_fresh(kind, key_file, lambda s, n=size: measure_idle(s, n))
                for _ in range(repeat)
            ]
            print(
                f"idle {kind:5} {size:6} connections ({size // 2} rooms): "
                f"{statistics.median(per):5.1f} KiB per connection"
            )


if __name__ == "__main__":
    main()
