"""Structured logs: one JSON object per line, for log shippers and `jq`."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

LOGGER_NAME = "relay"
log = logging.getLogger(LOGGER_NAME)


def event(name: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log an event with machine-readable fields instead of prose."""
    if log.isEnabledFor(level):
        log.log(level, name, extra={"fields": fields})


def short_room(room: str) -> str:
    # A room id lets anyone holding it take a free seat, so logs keep a prefix only.
    return room[:8]


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


def configure(level: str) -> None:
    """Send relay and websockets logs to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # websockets reports every failed handshake at INFO; the relay logs its own.
    logging.getLogger("websockets").setLevel(max(logging.WARNING, root.level))
