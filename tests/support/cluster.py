"""Several relay processes sharing one key behind HAProxy on 127.0.0.1, configured
from the operator's files in deploy/ (a source checkout's): what tests/deploy and
benchmarks/relay_scale.py start. Nothing here is needed to run a relay.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
HAPROXY_CFG = DEPLOY / "haproxy.cfg"
UNIT = DEPLOY / "gin-relay@.service"


def free_port() -> int:
    """A port free on 127.0.0.1 now (another process may take it before it is used)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def haproxy_config(template: str, listen: int, relays: Sequence[int], admin: Path) -> str:
    """deploy/haproxy.cfg with only its addresses changed: the frontend on 127.0.0.1:
    ``listen``, one ``server`` line per relay port (with the template's server options),
    the admin socket at ``admin`` and no syslog. Everything else is the shipped file."""
    out: list[str] = []
    servers_at: int | None = None
    for line in template.splitlines():
        words = line.split()
        if words[:1] == ["bind"]:
            line = f"    bind 127.0.0.1:{listen}"
        elif words[:2] == ["stats", "socket"]:
            line = f"    stats socket {admin} mode 600 level admin"
        elif words[:1] == ["log"] and len(words) > 1 and words[1] != "global":
            continue
        elif words[:1] == ["server"]:
            servers_at = len(out) if servers_at is None else servers_at
            continue
        out.append(line)
    if servers_at is None:
        raise ValueError("the HAProxy template has no server line to replace")
    out[servers_at:servers_at] = [
        f"    server relay{n} 127.0.0.1:{port}" for n, port in enumerate(relays, 1)]
    return "\n".join(out) + "\n"


def unit_service(unit: str, port: int, metrics_host: str, credentials: Path,
                 ) -> tuple[list[str], dict[str, str]]:
    """The arguments of the gin program and the environment that
    deploy/gin-relay@.service gives instance ``port``, with ``credentials`` for its
    credentials directory (``%d``) and ``metrics_host`` for its METRICS_HOST."""
    def expand(text: str, env: Mapping[str, str]) -> str:
        text = text.replace("%i", str(port)).replace("%d", str(credentials))
        return re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], text)

    env: dict[str, str] = {}
    command: list[str] = []
    for line in unit.splitlines():
        key, sep, value = line.partition("=")
        if not sep or line.startswith("#"):
            continue
        if key == "Environment":
            name, _, setting = value.partition("=")
            env[name] = expand(setting, env)
        elif key == "ExecStart":
            program, *args = value.split()
            assert program.endswith("/gin"), program
            command = args
    env["METRICS_HOST"] = metrics_host
    return [expand(arg, env) for arg in command], env


class RelayProcess:
    """One relay process; its JSON log lines are kept in ``log``."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None,
                 ) -> None:
        self.log: list[dict[str, Any]] = []
        self.proc = subprocess.Popen(
            list(argv), env={**os.environ, **env}, cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.started = threading.Event()
        self.port = 0
        self.metrics = ""
        threading.Thread(target=self._read, daemon=True).start()
        if not self.started.wait(30) or not self.port:
            self.kill()
            raise RuntimeError(f"the relay did not start: {self.log[-3:]}")

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"event": "not_json", "line": line.rstrip()}
            self.log.append(entry)
            if entry.get("event") == "relay_started":
                self.port, self.metrics = int(entry["port"]), entry.get("metrics") or ""
                self.started.set()
        self.started.set()

    def events(self, name: str) -> list[dict[str, Any]]:
        return [e for e in list(self.log) if e.get("event") == name]

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=20)

    @property
    def pid(self) -> int:
        return self.proc.pid


class Balancer:
    """HAProxy running ``config`` in the foreground; ``admin`` is its stats socket."""

    def __init__(self, haproxy: str, config: str, folder: Path, admin: Path) -> None:
        path = folder / "haproxy.cfg"
        path.write_text(config)
        check = subprocess.run([haproxy, "-c", "-q", "-f", str(path)], capture_output=True,
                               text=True, check=False)
        if check.returncode != 0:
            raise RuntimeError(f"HAProxy refuses its configuration: {check.stderr}")
        self.admin = admin
        self.proc = subprocess.Popen([haproxy, "-db", "-f", str(path)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.messages = self.proc.stderr.read()

    def command(self, text: str) -> str:
        """One command on the admin socket (``show servers state``, ``set server …``)."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(5)
            sock.connect(str(self.admin))
            sock.sendall(text.encode() + b"\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def up(self) -> dict[str, bool]:
        """Each server of the relays backend: up (health checks pass) or not."""
        lines = self.command("show servers state relays").splitlines()
        header = next(line for line in lines if line.startswith("#")).lstrip("# ").split()
        states = {}
        for line in lines:
            if line and not line.startswith("#") and len(line.split()) == len(header):
                row = dict(zip(header, line.split(), strict=True))
                states[row["srv_name"]] = row["srv_op_state"] == "2"  # SRV_ST_RUNNING
        return states

    def wait_up(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if sum(self.up().values()) == count:
                    return
            except (OSError, StopIteration):
                pass  # not listening yet
            time.sleep(0.1)
        raise RuntimeError(f"HAProxy did not see {count} relays up in {timeout:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=20)


@dataclass
class Cluster:
    """Relays behind HAProxy on 127.0.0.1:``port``."""

    relays: list[RelayProcess]
    balancer: Balancer
    port: int

    @classmethod
    def start(cls, haproxy: str, relays: list[RelayProcess], folder: Path) -> Cluster:
        """HAProxy running deploy/haproxy.cfg in front of ``relays``, all up."""
        port, admin = free_port(), folder / "haproxy.sock"
        config = haproxy_config(HAPROXY_CFG.read_text(), port, [r.port for r in relays], admin)
        balancer = Balancer(haproxy, config, folder, admin)
        try:
            balancer.wait_up(len(relays))
        except BaseException:
            balancer.stop()
            raise
        return cls(relays, balancer, port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def holder(self, room: str, seats: frozenset[int] = frozenset({0, 1})) -> RelayProcess | None:
        """The relay where ``seats`` of ``room`` were first taken (from its log)."""
        for relay in self.relays:
            taken = {e["seat"] for e in relay.events("seat_claimed") if e["room"] == room[:8]}
            if taken >= seats:
                return relay
        return None

    def stop(self) -> None:
        self.balancer.stop()
        for relay in self.relays:
            relay.kill(signal.SIGTERM)


def wait_for(what: str, ready: Callable[[], bool], timeout: float) -> None:
    """Poll ``ready`` until it holds; AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"not in {timeout:g} s: {what}")
        time.sleep(0.2)
