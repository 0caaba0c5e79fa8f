"""What the relay answers to plain HTTP on its port: /healthz, /metrics, the board
(``relay.static``, with /version), the pages of ``relay.pages`` at / and for an
invite link, and 404 for anything else. WebSocket upgrades go on to
``relay.connections``, so that their refusals carry a close code."""

from __future__ import annotations

from http import HTTPStatus

from prometheus_client import CollectorRegistry
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from relay import metrics, pages
from relay.config import RelayConfig
from relay.metrics import RelayStats
from relay.roomid import RoomIds
from relay.static import Board

__all__ = ["Routes"]


class Routes:
    """The relay's HTTP routes; ``answer`` is websockets' ``process_request``."""

    def __init__(
        self,
        config: RelayConfig,
        ids: RoomIds,
        board: Board,
        registry: CollectorRegistry,
        stats: RelayStats,
    ) -> None:
        self._config = config
        self._ids = ids
        self._board = board
        self._registry = registry
        self._stats = stats

    def answer(self, conn: ServerConnection, request: Request) -> Response | None:
        """The response to a plain HTTP request; None lets a WebSocket upgrade through."""
        path = request.path.partition("?")[0]
        if path == "/healthz":
            return _http(HTTPStatus.OK, b"ok\n", "text/plain; charset=utf-8")
        if path == "/metrics" and self._config.metrics:
            return _http(HTTPStatus.OK, metrics.render(self._registry), metrics.CONTENT_TYPE)
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None  # the handler routes it, so refusals carry a close code
        encodings = request.headers.get("Accept-Encoding", "")
        board = self._board.response(path, encodings)
        if board is not None:
            return board
        valid = path.startswith("/j/") and self._ids.verify(path[3:])
        if valid and not _asks_terminal(request.path):
            board = self._board.invite(encodings)  # the board joins in the page
            if board is not None:
                return board
        if path.startswith("/j/") or path == "/":
            page = pages.invite_page(valid, self._board.built) if path != "/" else pages.home_page()
            return _http(
                HTTPStatus.OK,
                page.encode(),
                "text/html; charset=utf-8",
                Content_Security_Policy="default-src 'none'; style-src 'unsafe-inline'",
                Referrer_Policy="no-referrer",
                X_Content_Type_Options="nosniff",
            )
        self._stats.refusals["not_found"] += 1
        return _http(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")


def _asks_terminal(target: str) -> bool:
    """``/j/ROOM?terminal``: the page on joining with the gin program instead."""
    return "terminal" in target.partition("?")[2].split("&")


def _http(status: HTTPStatus, body: bytes, content_type: str, **extra: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("Connection", "close"),
        ]
    )
    for name, value in extra.items():
        headers[name.replace("_", "-")] = value
    return Response(status.value, status.phrase, headers, body)
