"""A TypeScript online session against a gin/ session: whole matches through
``client/web/scripts/session_bridge.ts`` (node, JSON lines, frames in hex), the TS
side as guest and as host. Both sides' hand records agree and pass ``gin audit``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gin.engine.rules import STANDARD, Ruleset
from gin.players import Player, get
from gin.protocol.records import cosign
from gin.protocol.records.records import HandRecord, parse_record
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session

# Every test here takes seconds: whole matches through Pilot, a relay, a browser or
# a subprocess.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "client" / "web"
SECRET = bytes(range(32))
# Custom rules (the guest must accept them) and a low target keep the matches short.
QUICK = STANDARD.with_options(name="bridge", target=40, big_gin_bonus=31)


class Bridge:
    """The TS session in a node process: one JSON line in, one JSON line out."""

    def __init__(self, role: str, rules: Ruleset | None, seed: str) -> None:
        args = ["node", "--import", "tsx", "scripts/session_bridge.ts", "--role", role,
                "--secret", SECRET.hex(), "--seed", seed, "--player", "normal", "--accept",
                "--identity", (b"t" * 32).hex()]
        if rules is not None:
            args += ["--rules", json.dumps(rules.to_dict())]
        self.proc = subprocess.Popen(args, cwd=WEB, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.events: list[Any] = []
        self.reply = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the bridge ended"
        reply: dict[str, Any] = json.loads(line)
        assert "error" not in reply, reply["error"]
        self.events += reply["events"]
        return reply

    def send(self, frame: bytes) -> list[bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"frame": frame.hex()}) + "\n")
        self.proc.stdin.flush()
        self.reply = self._read()
        return [bytes.fromhex(f) for f in self.reply["frames"]]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture
def bridge(typescript: Path) -> Iterator[type[Bridge]]:
    yield Bridge


def play(py: Session, ts: Bridge, player: Player) -> list[HandRecord]:
    """Play until both sides are quiet; the gin side's verified records."""
    to_py = [bytes.fromhex(f) for f in ts.reply["frames"]]
    records: list[HandRecord] = []
    while True:
        for frame in to_py:
            if not py.over:
                py.receive(frame)
        to_py = []
        if py.rules_offered is not None:
            py.accept_rules()
        while py.legal_actions():
            observation = py.observation()
            assert observation is not None
            py.act(player.choose(observation, py.legal_actions()))
        records += [e.record for e in py.events() if isinstance(e, HandVerified)]
        out = py.data_to_send()
        for frame in out:
            to_py += ts.send(frame)
        if not out and not to_py:
            return records


def comparable(record: HandRecord) -> dict[str, Any]:
    """A record as JSON data with the two deal steps in seat order: the one thing the
    two peers' records may order differently (protocol.md §10)."""
    data = record.to_dict()
    data["steps"] = sorted(data["steps"][:2], key=lambda s: s["seat"]) + data["steps"][2:]
    return data


@pytest.mark.parametrize("ts_role", ["guest", "host"])
def test_a_typescript_peer_plays_a_whole_match_against_gin(
        bridge: type[Bridge], ts_role: str, tmp_path: Path) -> None:
    py_role = "host" if ts_role == "guest" else "guest"
    ts = bridge(ts_role, QUICK if ts_role == "host" else None, seed=f"bridge/{ts_role}")
    py = Session(py_role, SECRET, QUICK if py_role == "host" else None,  # type: ignore[arg-type]
                 random.Random(f"bridge/{py_role}").randbytes, b"p" * 32)
    try:
        py_records = play(py, ts, get("normal", random.Random(1)))
    finally:
        ts.close()
    assert py.failure is None and py.over, py.failure
    assert ts.reply["over"] and ts.reply["failure"] is None
    assert ts.events[-1][0] == "MatchOver" and ts.events[-1][2] is None  # not forfeited
    ts_records = [parse_record(e[2]) for e in ts.events if e[0] == "HandVerified"]
    assert len(ts_records) == len(py_records) >= 1
    for mine, theirs in zip(py_records, ts_records, strict=True):
        assert comparable(mine) == comparable(theirs)
        assert cosign.hand_digest(mine) == cosign.hand_digest(theirs)
    assert py_records[-1].scores[["host", "guest"].index(ts_role)] >= QUICK.target or \
        py_records[-1].scores[["host", "guest"].index(py_role)] >= QUICK.target
    paths = []
    for side, records in (("py", py_records), ("ts", ts_records)):
        for record in records:
            path = tmp_path / f"{side}-{record.hand_number}.json"
            path.write_text(record.to_json(), encoding="utf-8")
            paths.append(str(path))
    audit = subprocess.run([sys.executable, "-m", "client.cli", "audit", "--quiet", *paths],
                           cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert audit.returncode == 0, audit.stdout + audit.stderr
