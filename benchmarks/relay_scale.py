"""Relay scaling: one relay against two behind HAProxy (deploy/haproxy.cfg), on this
machine; prints figures, asserts nothing.

Relays are ``python -m relay`` processes sharing one key, HAProxy runs the shipped
configuration with its addresses changed (tests/support/cluster.py, as tests/deploy does).
The load is a separate pool of processes (``--workers``) of raw WebSocket clients:
asyncio protocols with hand-made frames, a few µs of CPU a frame, where the
websockets library costs tens. Each room is a host and a guest bouncing frames of
300 bytes (a sealed move's size), ``--window`` of them in flight per room; rooms get
their ids from ``GET /new`` and their seats at ``/j/ROOM``, as players do, so behind
HAProxy they spread over the relays by the hash of their path.

For each set-up (one relay direct, one behind HAProxy, two behind HAProxy) and run:

- frames per second forwarded (all relays), within the measuring window;
- CPU per forwarded frame of each relay, of HAProxy and of the load generator,
  and the CPU each used, in cores, so it shows which one was the bottleneck;
- how busy the machine was (all processes, from /proc/stat);
- with one room and one frame in flight, the one-way latency, direct and through
  HAProxy: the latency the balancer adds.

Figures are medians over ``--runs`` runs; set-ups alternate within a run, so other
load on the machine weighs on all alike.

    python benchmarks/relay_scale.py [--runs 5] [--seconds 5] [--rooms 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import secrets
import shutil
import statistics
import struct
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.cluster import Cluster, RelayProcess, free_port  # noqa: E402

FRAME_SIZE = 300
TICK = os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------ raw clients


class Seat(asyncio.Protocol):
    """One WebSocket client speaking just enough of RFC 6455: it sends binary frames
    (masked with a zero key, which leaves the payload as it is) and bounces every
    binary frame it receives."""

    def __init__(self, path: str, host: str) -> None:
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(secrets.token_bytes(16)).decode()}\r\n\r\n"
        ).encode()
        self.buffer = b""
        self.upgraded = False
        self.ready = asyncio.get_running_loop().create_future()
        self.texts: list[str] = []
        self.frames = 0
        self.bounce = True
        self.latencies: list[float] = []
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data
        if not self.upgraded:
            head, sep, buffer = buffer.partition(b"\r\n\r\n")
            if not sep:
                self.buffer = head
                return
            if not head.startswith(b"HTTP/1.1 101"):
                self.ready.set_exception(RuntimeError(head.split(b"\r\n")[0].decode()))
                return
            self.upgraded = True
        at = 0
        while len(buffer) - at >= 2:
            opcode, size = buffer[at] & 0x0F, buffer[at + 1] & 0x7F
            start = at + 2
            if size == 126:
                if len(buffer) - at < 4:
                    break
                size, start = struct.unpack_from("!H", buffer, at + 2)[0], at + 4
            elif size == 127:
                if len(buffer) - at < 10:
                    break
                size, start = struct.unpack_from("!Q", buffer, at + 2)[0], at + 10
            if len(buffer) < start + size:
                break
            at = start + size
            if opcode == 2:
                self.frames += 1
                if self.bounce:
                    assert self.transport is not None
                    self.transport.write(FRAME)
                else:
                    sent = struct.unpack_from("!q", buffer, start)[0]
                    self.latencies.append((time.perf_counter_ns() - sent) / 1e9)
            elif opcode == 1:
                self.texts.append(buffer[start:at].decode())
                if not self.ready.done():
                    self.ready.set_result(None)
        self.buffer = buffer[at:]

    def send(self, payload: bytes) -> None:
        assert self.transport is not None
        self.transport.write(frame(payload))


def frame(payload: bytes) -> bytes:
    """A client's binary frame, masked with the key 0 (so the payload is unchanged)."""
    size = len(payload)
    head = bytes([0x82, 0x80 | size]) if size < 126 else struct.pack("!BBH", 0x82, 0xFE, size)
    return head + b"\0\0\0\0" + payload


FRAME = frame(bytes(FRAME_SIZE))


async def open_seat(port: int, path: str) -> Seat:
    loop = asyncio.get_running_loop()
    _, seat = await loop.create_connection(lambda: Seat(path, f"127.0.0.1:{port}"),
                                           "127.0.0.1", port)
    await asyncio.wait_for(seat.ready, 30)
    return seat


async def open_room(port: int) -> tuple[Seat, Seat]:
    """A room as players make one: ``GET /new``, then both seats at /j/ROOM."""
    host_token, guest_token = secrets.token_hex(16), secrets.token_hex(16)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /new?token={host_token} HTTP/1.1\r\nHost: x\r\n"
                 f"Connection: close\r\n\r\n".encode())
    answer = json.loads((await reader.read()).partition(b"\r\n\r\n")[2])
    writer.close()
    room, ticket = answer["room"], answer["ticket"]
    host = await open_seat(port, f"/j/{room}?seat=0&token={host_token}&ticket={ticket}")
    guest = await open_seat(port, f"/j/{room}?seat=1&token={guest_token}")
    return host, guest


async def load(port: int, rooms: int, window: int, start: float, seconds: float,
               ) -> dict[str, float]:
    """This worker's rooms bounce frames from ``start`` for ``seconds`` (wall clock)."""
    pairs = []
    for first in range(0, rooms, 50):
        pairs += await asyncio.gather(*(open_room(port) for _ in range(min(50, rooms - first))))
    seats = [seat for pair in pairs for seat in pair]
    for host, _ in pairs:
        for _ in range(window):
            host.transport.write(FRAME)  # type: ignore[union-attr]
    await asyncio.sleep(max(0.0, start - time.time()))
    frames, cpu = sum(s.frames for s in seats), time.process_time()
    await asyncio.sleep(max(0.0, start + seconds - time.time()))
    result = {"frames": sum(s.frames for s in seats) - frames, "cpu": time.process_time() - cpu}
    for seat in seats:
        assert seat.transport is not None
        seat.transport.abort()
    return result


async def latency(port: int, seconds: float) -> list[float]:
    """One room, one frame in flight: one-way times of frames stamped when sent."""
    host, guest = await open_room(port)
    padding = bytes(FRAME_SIZE - 8)
    for seat in (host, guest):
        seat.bounce = False
    end = time.monotonic() + seconds
    sender, receiver = host, guest
    while time.monotonic() < end:
        count = len(receiver.latencies)
        sender.send(struct.pack("!q", time.perf_counter_ns()) + padding)
        while len(receiver.latencies) == count:
            await asyncio.sleep(0)
        sender, receiver = receiver, sender
    for seat in (host, guest):
        assert seat.transport is not None
        seat.transport.abort()
    return host.latencies + guest.latencies


def worker(port: int, rooms: int, window: int, start: float, seconds: float,
           out: Connection, nice: int) -> None:
    os.setpriority(os.PRIO_PROCESS, 0, nice)
    out.send(asyncio.run(load(port, rooms, window, start, seconds)))


# ------------------------------------------------------------ measuring


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_busy() -> tuple[float, float]:
    """CPU time all processes used, and the time elapsed times the cores (s)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / TICK, sum(values) / TICK


def delivered(relay: RelayProcess) -> float:
    with urllib.request.urlopen(f"http://{relay.metrics}/metrics", timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("gin_relay_frames_delivered_total "):
                return float(line.split()[1])
    raise RuntimeError("no gin_relay_frames_delivered_total")


@dataclass
class Setup:
    name: str
    relays: int
    balanced: bool
    results: list[dict[str, Any]] = field(default_factory=list)


def start_relays(count: int, key: Path) -> list[RelayProcess]:
    env = {
        "GIN_RELAY_KEY_FILE": str(key),
        "GIN_RELAY_MAX_CONNS_PER_IP": "1000000",
        "GIN_RELAY_MAX_ROOMS": "1000000",
        "GIN_RELAY_NEW_ROOMS_BURST": "1000000",  # every room comes from 127.0.0.1
        "GIN_RELAY_RATE": "1000000",
        "GIN_RELAY_BURST": "1000000",
        "GIN_RELAY_PING_INTERVAL": "off",
        "GIN_RELAY_LOG_LEVEL": "info",  # relay_started says the port; no line per frame
    }
    relays = []
    for _ in range(count):
        argv = [sys.executable, "-m", "relay", "--port", str(free_port()),
                "--metrics-listen", f"127.0.0.1:{free_port()}"]
        relays.append(RelayProcess(argv, env, cwd=ROOT))
    return relays


def measure(setup: Setup, haproxy: str, args: argparse.Namespace, folder: Path) -> None:
    key = folder / "relay.key"
    relays = start_relays(setup.relays, key)
    cluster = Cluster.start(haproxy, relays, folder) if setup.balanced else None
    for pid in [r.pid for r in relays] + ([cluster.balancer.proc.pid] if cluster else []):
        os.setpriority(os.PRIO_PROCESS, pid, args.nice)
    try:
        port = cluster.port if cluster is not None else relays[0].port
        quiet = asyncio.run(latency(port, args.seconds / 2))
        start = time.time() + 3 + args.rooms / 100  # time to open every room first
        context = multiprocessing.get_context("fork")
        pipes, procs = [], []
        share = [args.rooms // args.workers + (i < args.rooms % args.workers)
                 for i in range(args.workers)]
        for rooms in share:
            ours, theirs = context.Pipe(duplex=False)
            proc = context.Process(target=worker, args=(port, rooms, args.window, start,
                                                        args.seconds, theirs, args.nice))
            proc.start()
            pipes.append(ours)
            procs.append(proc)
        time.sleep(max(0.0, start - time.time()))
        frames0 = [delivered(r) for r in relays]
        cpu0 = [cpu_seconds(r.pid) for r in relays]
        balancer0 = cpu_seconds(cluster.balancer.proc.pid) if cluster is not None else 0.0
        busy0, total0 = machine_busy()
        time.sleep(args.seconds)
        frames = [delivered(r) - f for r, f in zip(relays, frames0, strict=True)]
        cpu = [cpu_seconds(r.pid) - c for r, c in zip(relays, cpu0, strict=True)]
        balancer = (cpu_seconds(cluster.balancer.proc.pid) - balancer0
                    if cluster is not None else 0.0)
        busy1, total1 = machine_busy()
        loads = [pipe.recv() for pipe in pipes]
        for proc in procs:
            proc.join()
        total = sum(frames)
        cores = (total1 - total0) / args.seconds
        setup.results.append({
            "rate": total / args.seconds,
            "relay_cpu": [c / f * 1e6 if f else float("nan") for c, f in zip(cpu, frames,
                                                                            strict=True)],
            "relay_cores": [c / args.seconds for c in cpu],
            "balancer_cpu": balancer / total * 1e6,
            "balancer_cores": balancer / args.seconds,
            "load_cpu": sum(x["cpu"] for x in loads) / total * 1e6,
            "load_cores": sum(x["cpu"] for x in loads) / args.seconds,
            "machine_busy": (busy1 - busy0) / args.seconds,
            # Everything else this machine ran meanwhile (other work shares it).
            "other_cores": (busy1 - busy0 - sum(cpu) - balancer
                            - sum(x["cpu"] for x in loads)) / args.seconds,
            "machine_cores": cores,
            "p50": statistics.median(quiet) * 1e6,
            "p99": sorted(quiet)[int(0.99 * len(quiet))] * 1e6,
        })
    finally:
        if cluster is not None:
            cluster.stop()
        else:
            for relay in relays:
                relay.kill()


def median(results: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in results)


def report(setups: list[Setup], args: argparse.Namespace) -> None:
    print(f"{args.rooms} rooms, {args.window} frames in flight each, frames of {FRAME_SIZE} "
          f"bytes, load from {args.workers} processes; median of {args.runs} runs of "
          f"{args.seconds:g} s; {os.cpu_count()} cores; nice {args.nice}")
    print(f"{'':22} {'frames/s':>9} {'relay µs/frame':>16} {'HAProxy':>8} {'load':>6} "
          f"{'relay cores':>14} {'HAProxy':>8} {'load':>6} {'others':>7} {'machine':>8} "
          f"{'p50 µs':>7} {'p99 µs':>7}")
    for s in setups:
        r = s.results
        per_relay = [statistics.median(x["relay_cpu"][i] for x in r) for i in range(s.relays)]
        cores = [statistics.median(x["relay_cores"][i] for x in r) for i in range(s.relays)]
        print(f"{s.name:22} {median(r, 'rate'):9.0f} "
              f"{' + '.join(f'{c:.1f}' for c in per_relay):>16} "
              f"{median(r, 'balancer_cpu'):8.1f} {median(r, 'load_cpu'):6.1f} "
              f"{' + '.join(f'{c:.2f}' for c in cores):>14} "
              f"{median(r, 'balancer_cores'):8.2f} {median(r, 'load_cores'):6.2f} "
              f"{median(r, 'other_cores'):7.2f} "
              f"{median(r, 'machine_busy'):5.2f}/{median(r, 'machine_cores'):.0f} "
              f"{median(r, 'p50'):7.0f} {median(r, 'p99'):7.0f}")
    direct, one, two = setups
    gain = median(two.results, "rate") / median(one.results, "rate")
    print(f"two relays / one, both behind HAProxy: {gain:.2f}x the frames per second")
    print(f"latency HAProxy adds (one room, p50): "
          f"{median(one.results, 'p50') - median(direct.results, 'p50'):+.0f} µs")
    relay = statistics.median(x for r in one.results + two.results for x in r["relay_cpu"])
    other = median(two.results, "balancer_cpu") + median(two.results, "load_cpu")
    print("(relay µs/frame: each relay's CPU per frame it forwarded; HAProxy and load: their "
          "CPU per frame forwarded; cores: CPU seconds a second; others: every other process; "
          "machine: cores busy, of the cores there are; p50, p99: one-way latency, one room)")
    if max(median(s.results, "other_cores") for s in setups) > 0.25:
        print("note: other work used this machine meanwhile, so frames per second measure "
              "the share of it the relays got; CPU per frame is the figure to compare")
    print(f"projection: a relay needs {relay:.1f} µs of a core per frame, so N relays on N "
          f"cores of their own forward about N x {1e6 / relay:,.0f} frames/s, if HAProxy "
          f"and the load ({other:.1f} µs a frame here) have cores of their own too")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200, help="busy rooms (default 200)")
    parser.add_argument("--window", type=int, default=2, help="frames in flight per room")
    parser.add_argument("--workers", type=int, default=2, help="load processes (default 2)")
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--nice", type=int, default=0,
                        help="priority of the relays, HAProxy and the load (-20 to 19; below "
                             "0, as root, they take the cores from other work on the machine)")
    args = parser.parse_args()
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(haproxy).exists():
        sys.exit("relay_scale: HAProxy is needed (apt-get install haproxy)")
    setups = [Setup("1 relay, direct", 1, False), Setup("1 relay, HAProxy", 1, True),
              Setup("2 relays, HAProxy", 2, True)]
    with tempfile.TemporaryDirectory(prefix="gin-relay-scale-") as folder:
        (Path(folder) / "relay.key").write_text(secrets.token_hex(32) + "\n")
        for _ in range(args.runs):
            for setup in setups:
                measure(setup, haproxy, args, Path(folder))
    report(setups, args)


if __name__ == "__main__":
    main()
