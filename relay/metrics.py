"""Relay counters and their Prometheus exposition.

The hot path bumps plain integers (no locks, no label lookups per frame); a
collector turns them into metric families only when /metrics is scraped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass
class RelayStats:
    frames_in: int = 0
    bytes_in: int = 0
    frames_out: int = 0
    bytes_out: int = 0
    frames_buffered: int = 0
    connections_accepted: int = 0
    rooms_created: int = 0
    rooms_opened: int = 0  # rooms made in memory from a valid id on /j
    seats_reclaimed: int = 0  # seats taken back from a later claimant by an older ticket
    accept_errors: int = 0  # accept() failed for lack of file descriptors or memory
    rooms_closed: Counter[str] = field(default_factory=Counter)
    frames_dropped: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Gauges:
    """Readings of the relay's state, taken when /metrics is scraped."""

    rooms: Callable[[], int]
    connections: Callable[[], int]
    held_bytes: Callable[[], int]
    addresses: Callable[[], int]


class _RelayCollector(Collector):
    def __init__(self, stats: RelayStats, gauges: Gauges) -> None:
        self._stats = stats
        self._gauges = gauges

    def collect(self) -> Iterator[Metric]:
        s, g = self._stats, self._gauges
        for name, doc, read in (
            ("gin_relay_rooms", "Rooms held in memory.", g.rooms),
            ("gin_relay_connections", "Players connected to a seat.", g.connections),
            ("gin_relay_held_bytes", "Frame bytes held for seats, all rooms.", g.held_bytes),
            (
                "gin_relay_limited_addresses",
                "Client addresses with open connections or a room-creation allowance in use.",
                g.addresses,
            ),
        ):
            yield GaugeMetricFamily(name, doc, value=read())
        simple = (
            (
                "gin_relay_connections_accepted",
                "WebSocket connections seated.",
                s.connections_accepted,
            ),
            ("gin_relay_rooms_created", "Room ids issued by /new.", s.rooms_created),
            (
                "gin_relay_rooms_opened",
                "Rooms made in memory from a valid id when a seat was taken.",
                s.rooms_opened,
            ),
            ("gin_relay_frames_received", "Binary frames received from players.", s.frames_in),
            ("gin_relay_bytes_received", "Payload bytes received from players.", s.bytes_in),
            ("gin_relay_frames_delivered", "Frames delivered to the other seat.", s.frames_out),
            (
                "gin_relay_bytes_delivered",
                "Payload bytes delivered to the other seat.",
                s.bytes_out,
            ),
            ("gin_relay_frames_buffered", "Frames held for an absent seat.", s.frames_buffered),
            (
                "gin_relay_seats_reclaimed",
                "Seats taken back by their holder's older ticket from a later claimant.",
                s.seats_reclaimed,
            ),
            (
                "gin_relay_accept_errors",
                "Connections the system could not accept (out of file descriptors).",
                s.accept_errors,
            ),
        )
        for name, doc, value in simple:
            yield CounterMetricFamily(name, doc, value=value)
        labelled = (
            ("gin_relay_refusals", "Requests or connections refused.", s.refusals),
            ("gin_relay_frames_dropped", "Frames discarded undelivered.", s.frames_dropped),
            ("gin_relay_rooms_closed", "Rooms removed from memory.", s.rooms_closed),
        )
        for name, doc, counts in labelled:
            family = CounterMetricFamily(name, doc, labels=["reason"])
            for reason, value in sorted(counts.items()):
                family.add_metric([reason], value)
            yield family


def make_registry(stats: RelayStats, gauges: Gauges) -> CollectorRegistry:
    # A registry per relay, so several relays in one process (tests) stay apart.
    registry = CollectorRegistry(auto_describe=True)
    registry.register(_RelayCollector(stats, gauges))
    # process_cpu_seconds_total and friends (Linux): a relay is one process on one
    # core, so its CPU rate near 1 says it is time for another relay.
    ProcessCollector(registry=registry)
    return registry


def render(registry: CollectorRegistry) -> bytes:
    return generate_latest(registry)
