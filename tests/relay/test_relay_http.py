"""Plain HTTP on the relay's port: health, metrics, and the page a browser sees."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from relay import static
from relay.roomid import RoomIds
from relay.server import Relay
from tests.support.relay import TOKEN_C, http_get, pair, refused

StartRelay = Callable[..., Awaitable[Relay]]


async def test_healthz(start_relay: StartRelay) -> None:
    relay = await start_relay()
    assert await http_get(relay, "/healthz") == (
        200,
        {
            "content-type": "text/plain; charset=utf-8",
            "content-length": "3",
            "cache-control": "no-store",
            "connection": "close",
            "server": "gin-relay",
        },
        b"ok\n",
    )


async def test_metrics_report_rooms_traffic_and_refusals(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    await host.ws.send(b"x" * 300)
    await guest.frame()
    await refused(relay, f"/j/{'A' * 32}?seat=1&token={TOKEN_C}")
    await refused(relay, "/new")

    status, headers, body = await http_get(relay, "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = set(body.decode().splitlines())
    for expected in (
        "gin_relay_rooms 1.0",
        "gin_relay_connections 2.0",
        "gin_relay_frames_received_total 1.0",
        "gin_relay_bytes_received_total 300.0",
        "gin_relay_frames_delivered_total 1.0",
        "gin_relay_bytes_delivered_total 300.0",
        "gin_relay_rooms_created_total 1.0",
        'gin_relay_refusals_total{reason="unknown_room"} 1.0',
        'gin_relay_refusals_total{reason="bad_request"} 1.0',
        "# TYPE gin_relay_refusals_total counter",
        "# TYPE process_cpu_seconds_total counter",  # a relay's one core: how busy
    ):
        assert expected in lines, expected


async def test_metrics_can_be_switched_off(start_relay: StartRelay) -> None:
    relay = await start_relay(metrics=False)
    status, _, _ = await http_get(relay, "/metrics")
    assert status == 404


async def test_browser_opening_an_invite_gets_instructions(
    start_relay: StartRelay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)  # no board built: the instructions
    relay = await start_relay()
    host, _ = await pair(relay)
    status, headers, body = await http_get(relay, f"/j/{host.room}")
    page = body.decode()
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer"
    assert "gin_rummy-*.whl" in page and "gin join" in page and "GIN_LINK" in page
    assert "never send it to this relay" in page
    assert "did not issue" not in page
    assert "does not serve the board" in page and "?terminal" not in page


async def test_browser_opening_a_forged_invite_is_told(start_relay: StartRelay) -> None:
    relay = await start_relay()
    status, _, body = await http_get(relay, f"/j/{RoomIds(b'z' * 32).issue()}")
    assert status == 200 and "This relay did not issue this invite" in body.decode()


async def test_home_page_and_unknown_paths(
    start_relay: StartRelay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)  # no board built: the home page
    relay = await start_relay()
    status, _, body = await http_get(relay, "/")
    assert status == 200 and "gin host --relay" in body.decode()
    status, _, body = await http_get(relay, "/favicon.ico")
    assert (status, body) == (404, b"not found\n")
    assert relay.stats.refusals["not_found"] == 1


async def test_metrics_on_their_own_address_are_not_on_the_public_port(
    start_relay: StartRelay,
) -> None:
    relay = await start_relay(metrics_listen=("127.0.0.1", 0))
    assert relay.metrics_port is not None and relay.metrics_port != relay.port
    host, guest = await pair(relay)
    await host.ws.send(b"x")
    await guest.frame()
    assert (await http_get(relay, "/metrics"))[0] == 404
    assert (await http_get(relay, "/healthz"))[0] == 200

    class Private:
        port = relay.metrics_port

    status, headers, body = await http_get(Private(), "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    assert b"gin_relay_frames_received_total 1.0" in body
    assert (await http_get(Private(), "/healthz"))[0] == 200
    assert (await http_get(Private(), "/new?token=" + TOKEN_C))[0] == 404  # nothing else
    await relay.close()
    with pytest.raises(OSError):
        await http_get(Private(), "/metrics")  # closed with the relay
