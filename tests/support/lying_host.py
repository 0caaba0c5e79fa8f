"""A gin host that lies (issue 26 item 4), run by tests/web/test_online_abandon.py: it
hosts a match on the relay given, prints the invite link, and when its own move is owed
sends ``abort`` with ``why: abandoned`` instead, as if its friend had gone silent.

    python -m tests.support.lying_host RELAY_URL DATA_DIR
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from client.net import lobby
from client.storage import Storage
from gin.engine.rules import STANDARD
from gin.protocol.session.session import Session


async def lie(relay: str, data: Path) -> None:
    host = await lobby.host(relay, STANDARD, Storage(data))
    print(host.invite.url, flush=True)
    running = asyncio.create_task(host.run())
    while not (host.session.legal_actions() and host.session.waiting_for() is None):
        await asyncio.sleep(0.05)  # until the host owes its own move
    Session._send(host.session, "abort",
                  {"why": "abandoned", "field": "move", "reason": "you were gone"})
    host._flush()
    await asyncio.sleep(3)  # the abort reaches the relay and the friend
    running.cancel()


if __name__ == "__main__":
    asyncio.run(lie(sys.argv[1], Path(sys.argv[2])))
