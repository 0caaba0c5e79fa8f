"""What the relay answers to plain HTTP on its port: /healthz, /metrics, a new room
at /new, the board (``relay.static``, with /version), the pages of ``relay.pages``
at / and for an invite link (or, with ``--board``, a redirect of the link to that
board), and 404 for anything else. WebSocket upgrades go on to
``relay.connections``, so that their refusals carry a close code.

A board of any site plays here: ``GET /new`` and ``/version`` answer pages of every
origin (``Access-Control-Allow-Origin: *``, no credentials: the relay keeps no cookie
or login, so a page of another site learns nothing it could not fetch itself), and
websocket upgrades are accepted whatever their ``Origin`` (docs/running-a-relay.md,
*Boards of other sites*)."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import parse_qsl, quote, urlencode

from prometheus_client import CollectorRegistry
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from relay import metrics, pages
from relay.config import RelayConfig
from relay.limits import AddressLimits, client_address
from relay.logs import event, short_room
from relay.metrics import RelayStats
from relay.roomid import RoomIds
from relay.static import Board
from relay.wire import (
    HTTP_STATUS,
    NEW_ROOM_FIELDS,
    Close,
    Control,
    RouteError,
    control,
    parse_route,
)

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
        limits: AddressLimits,
        rooms: Callable[[], int],
    ) -> None:
        self._config = config
        self._ids = ids
        self._board = board
        self._registry = registry
        self._stats = stats
        self._limits = limits
        self._rooms = rooms  # how many rooms this relay holds

    def answer(self, conn: ServerConnection, request: Request) -> Response | None:
        """The response to a plain HTTP request; None lets a WebSocket upgrade through."""
        path = request.path.partition("?")[0]
        if path == "/healthz":
            return _http(HTTPStatus.OK, b"ok\n", "text/plain; charset=utf-8")
        if path == "/metrics" and self._config.metrics and self._config.metrics_listen is None:
            return self.metrics_page()
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None  # the handler routes it, so refusals carry a close code
        if path == "/new":
            return self.new_room(conn, request)
        encodings = request.headers.get("Accept-Encoding", "")
        board = self._board.response(path, encodings, request.path.partition("?")[2])
        if board is not None:
            return board
        valid = path.startswith("/j/") and self._ids.verify(path[3:])
        if valid and not _asks_terminal(request.path) and self._config.board is not None:
            return self.to_board(request, path[3:])
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

    def metrics_page(self) -> Response:
        return _http(HTTPStatus.OK, metrics.render(self._registry), metrics.CONTENT_TYPE)

    def private(self, conn: ServerConnection, request: Request) -> Response:
        """What the metrics address (``--metrics-listen``) answers: /metrics, /healthz."""
        path = request.path.partition("?")[0]
        if path == "/metrics" and self._config.metrics:
            return self.metrics_page()
        if path == "/healthz":
            return _http(HTTPStatus.OK, b"ok\n", "text/plain; charset=utf-8")
        return _http(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")

    def to_board(self, request: Request, room: str) -> Response:
        """``--board URL``: send the browser to that board with this relay and the room
        in the query (and the link's other parameters). The Location has no fragment,
        so the browser keeps the link's own, the secret (RFC 9110 10.2.2)."""
        board = self._config.board
        assert board is not None
        relay = self._config.public_url or f"http://{request.headers.get('Host', '')}"
        query = [(k, v) for k, v in parse_qsl(request.path.partition("?")[2])
                 if k not in ("relay", "room")]
        target = f"{board}?" + urlencode([("relay", relay), ("room", room), *query],
                                         quote_via=lambda text, *_: quote(text, safe=":/"))
        event("sent_to_board", room=short_room(room))
        return _http(HTTPStatus.FOUND, b"", "text/plain; charset=utf-8", Location=target,
                     Referrer_Policy="no-referrer")

    def new_room(self, conn: ServerConnection, request: Request) -> Response:
        """``GET /new?token=T``: a room id and the ticket for its seat 0, made from the
        key alone. The room exists in memory only once a seat is taken at /j/ROOM, on
        whichever relay sharing the key a balancer sends that room to."""
        cfg = self._config
        try:
            route = parse_route(request.path)
        except RouteError as exc:
            return self._refuse_new(Close.BAD_REQUEST, str(exc), "bad_request")
        # Where the room will be held is not known here; a full relay says so at once.
        if self._rooms() >= cfg.max_rooms:
            return self._refuse_new(Close.RELAY_FULL, "relay full; try later", "relay_full")
        ip = client_address(conn.remote_address, request.headers, cfg.trust_forwarded)
        wait = self._limits.new_room_wait(ip)
        if wait:
            return self._refuse_new(
                Close.TOO_MANY_CONNECTIONS,
                f"too many new rooms from your address; try again in {wait:.0f} s",
                "new_room_rate",
                Retry_After=str(math.ceil(wait)),
            )
        room = self._ids.issue()
        ticket = self._ids.ticket(room, 0, route.token, int(cfg.wall_clock() * 1000))
        self._stats.rooms_created += 1
        event("room_created", room=short_room(room))
        answer = dict(zip(NEW_ROOM_FIELDS, (room, 0, ticket), strict=True))
        return _http(HTTPStatus.OK, _json(answer), "application/json", **_ANY_ORIGIN)

    def _refuse_new(self, code: int, reason: str, key: str, **extra: str) -> Response:
        self._stats.refusals[key] += 1
        event("refused", logging.WARNING, reason=key, code=code, detail=reason)
        body = control(Control.ERROR, code=code, reason=reason).encode()
        return _http(HTTPStatus(HTTP_STATUS[code]), body, "application/json", **extra,
                     **_ANY_ORIGIN)


#: A page of any site may read /new's answer (its refusals too, so it can say why). A
#: plain GET with no credentials: no preflight, and no cookie is ever involved.
_ANY_ORIGIN = {"Access_Control_Allow_Origin": "*"}


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


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
