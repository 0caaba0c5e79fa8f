"""The real thing: three relays sharing one key, started as deploy/gin-relay@.service
starts them, behind HAProxy running deploy/haproxy.cfg (only its addresses changed),
all on 127.0.0.1. Bot matches between terminal peers (`gin host`, `gin join`) and one
with a Chromium guest play through it; the relay holding the browser's room is
killed (SIGKILL) mid-match; every match finishes on the relay the balancer picks
next, every record passes `gin audit`, and the matches on the other relays are not
disturbed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from client.cli import main as gin_main
from client.net.links import parse_invite
from tests.support.cluster import Cluster
from tests.support.cluster import wait_for as poll

ROOT = Path(__file__).resolve().parents[2]
GIN = [sys.executable, "-m", "client.cli"]
BOT = ["--bot", "easy", "--bot-delay", "0"]
# s: every match. A deadline, not a measure of speed: the browser's match to 100 took
# 104 s of 117 on a busy 2-core machine, and one CI run here ran out of the 150 s it had.
TIMEOUT = 300


class Terminal:
    """`gin host` or `gin join` with a bot, its records in its own data folder."""

    def __init__(self, argv: list[str], data: Path) -> None:
        self.data = data
        self.proc = subprocess.Popen(argv + ["--data-dir", str(data)], cwd=ROOT,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)

    def link(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def finish(self, timeout: float) -> tuple[int, str]:
        try:
            _, err = self.proc.communicate(timeout=max(1.0, timeout))
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode, err

    def records(self) -> list[Path]:
        return sorted((self.data / "records").glob("*.json"))


def wait_for(what: str, ready: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    poll(what, ready, timeout)


def page_records(page: Any, folder: Path) -> list[Path]:
    """The verified hands' records a page keeps in its storage, written out as files."""
    folder.mkdir(parents=True, exist_ok=True)
    stored = page.evaluate(
        "() => Object.keys(localStorage).filter(k => k.startsWith('gin-online-records:'))"
        "  .map(k => localStorage.getItem(k))")
    paths = []
    for text in stored:
        for record in json.loads(text):
            path = folder / record["name"]
            path.write_text(record["json"])
            paths.append(path)
    return sorted(paths)


def when(entry: dict[str, Any]) -> float:
    """The time of a relay's log line."""
    stamp = datetime.strptime(entry["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return stamp.timestamp()


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_matches_meet_through_haproxy_and_survive_a_relay_killed_mid_match(
    cluster: Cluster, board_built: None, browser: Any, tmp_path: Path
) -> None:
    began = time.monotonic()
    web_host = Terminal(GIN + ["host", "--relay", cluster.url, *BOT], tmp_path / "web-host")
    link = web_host.link()
    web_room = parse_invite(link).room
    context = browser.new_context()
    page = context.new_page()
    head, _, secret = link.partition("#")
    page.goto(f"{head}?bot=easy&delay=0#{secret}")
    wait_for("the browser's room on one relay", lambda: cluster.holder(web_room) is not None, 60)
    victim = cluster.holder(web_room)
    # Terminal hosts until one's room is on the relay to be killed and one's elsewhere
    # (where HAProxy sends a room is its hash): those two get a guest. A room misses the
    # victim 2 times in 3, so 12 tries found no room on it once in about 130 runs (CI's of
    # 6 December); 40 leave that to about one in 10^7.
    host_seat = frozenset({0})
    chosen: dict[bool, tuple[Terminal, str]] = {}
    for n in range(40):
        host = Terminal(GIN + ["host", "--relay", cluster.url, *BOT], tmp_path / f"host{n}")
        room = parse_invite(link_of := host.link()).room

        def seated(room: str = room) -> bool:
            return cluster.holder(room, host_seat) is not None

        wait_for("a host's seat", seated)
        there = cluster.holder(room, host_seat) is victim
        if there in chosen:
            host.proc.kill()  # a spare: its side is taken
        else:
            chosen[there] = (host, link_of)
        if len(chosen) == 2:
            break
    side = "on" if True in chosen else "off"
    assert len(chosen) == 2, f"after {n + 1} hosts, every room was {side} the relay to kill"
    matches = [(host, Terminal(GIN + ["join", *BOT, invite], tmp_path / f"guest-{there}"))
               for there, (host, invite) in chosen.items()]
    rooms = [parse_invite(invite).room for _, invite in chosen.values()]
    # Every room's two players met on one relay, whichever relay answered its /new.
    wait_for("both players of every room on one relay",
             lambda: all(cluster.holder(room) for room in [*rooms, web_room]), 60)
    held = {room: cluster.holder(room) for room in [*rooms, web_room]}
    # Mid-match: every match has verified its first hand.
    hosts = [host for host, _ in matches] + [web_host]
    wait_for("a hand verified in every match", lambda: all(h.records() for h in hosts))
    assert victim is not None and list(held.values()).count(victim) == 2
    victim.kill(signal.SIGKILL)
    killed_at, killed_wall = time.monotonic(), time.time()
    moved = [room for room, relay in held.items() if relay is victim]
    survivors = [relay for relay in cluster.relays if relay is not victim]

    for host, guest in matches:
        for side in (host, guest):
            code, err = side.finish(TIMEOUT - (time.monotonic() - began))
            assert code == 0, err
            assert "the match is over" in err
    page.wait_for_function("() => ['match-over', 'failed'].includes(document.body.dataset.state)",
                           timeout=max(1000, int((TIMEOUT - (time.monotonic() - began)) * 1000)))
    assert page.evaluate("document.body.dataset.state") == "match-over"
    code, err = web_host.finish(30)
    assert code == 0, err
    finished_in = time.monotonic() - killed_at

    # Every record of every side passes the audit, and the two sides of a hand agree.
    for host, guest in matches:
        assert host.records() and len(host.records()) == len(guest.records())
        assert gin_main(["audit", "-q", *map(str, host.records() + guest.records())]) == 0
    browser_records = page_records(page, tmp_path / "browser-records")
    assert browser_records and len(browser_records) == len(web_host.records())
    assert gin_main(["audit", "-q", *map(str, browser_records + web_host.records())]) == 0
    context.close()

    # The killed relay's rooms were opened again on the relays HAProxy picked next,
    # both players back in their seats there within seconds...
    back = []
    for room in moved:
        assert any(e["room"] == room[:8] for r in survivors for e in r.events("room_opened"))
        seated = [when(e) for r in survivors for e in r.events("seat_claimed")
                  if e["room"] == room[:8]]
        assert len(seated) >= 2, f"room {room[:8]}: its players did not both come back"
        back.append(max(seated) - killed_wall)
    assert max(back) < 30, back
    # ...and nothing else was disturbed: while both players of a room that stayed put
    # were there (from the guest's seat to the first player leaving), no seat dropped.
    # (A host whose guest is slow to come reconnects by itself, code 4001: not that.)
    for room, relay in held.items():
        if relay is not victim:
            assert relay is not None
            mine = [e for e in relay.log if e.get("room") == room[:8]]
            met = min(when(e) for e in mine if e["event"] == "seat_claimed" and e["seat"] == 1)
            parted = min((when(e) for e in mine if e["event"] == "seat_released"),
                         default=float("inf"))
            assert [e for e in mine if e["event"] == "seat_dropped" and met <= when(e) <= parted
                    ] == []
    assert cluster.balancer.up() == {
        f"relay{n}": relay is not victim for n, relay in enumerate(cluster.relays, 1)}
    # /metrics only on the relays' own address, never through HAProxy.
    assert get(f"{cluster.url}/metrics") == 404
    assert all(get(f"http://{relay.metrics}/metrics") == 200 for relay in survivors)
    print(f"3 matches ({len(moved)} moved) in {time.monotonic() - began:.0f} s; "
          f"{finished_in:.0f} s after the kill; the moved rooms' players back in their "
          f"seats {', '.join(f'{b:.1f}' for b in back)} s after it")

