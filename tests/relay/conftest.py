"""Fixtures for relay tests: in-process relays on 127.0.0.1 with a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from relay.server import Relay, serve
from tests.support.relay import TEST_CONFIG, FakeClock

StartRelay = Callable[..., Awaitable[Relay]]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def start_relay(clock: FakeClock) -> AsyncIterator[StartRelay]:
    """Start relays with settings overridden per test; all are closed afterwards."""
    relays: list[Relay] = []

    async def start(**overrides: Any) -> Relay:
        relay = await serve(replace(TEST_CONFIG, clock=clock, **overrides))
        relays.append(relay)
        return relay

    yield start
    for relay in relays:
        await relay.close()
