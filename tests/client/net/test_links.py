"""Invite links: building, parsing, http→ws mapping, and errors that say what is wrong."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from client.net.links import (
    InvalidLinkError,
    Invite,
    RelayAddress,
    decode_secret,
    encode_secret,
    parse_board,
    parse_invite,
    parse_relay,
    read_link,
)

ROOM = "jXcICbPb1X0UQ4C3Oxg2IjXfFZ7EzEwq"
SECRET = bytes(range(32))
SECRET_TEXT = encode_secret(SECRET)


def test_round_trip_and_websocket_url_without_the_secret() -> None:
    link = f"https://relay.example.org/j/{ROOM}#{SECRET_TEXT}"
    invite = parse_invite(link)
    assert invite == Invite(RelayAddress("https", "relay.example.org"), ROOM, SECRET)
    assert invite.url == link
    assert invite.websocket_url == f"wss://relay.example.org/j/{ROOM}"
    assert SECRET_TEXT not in invite.websocket_url and "#" not in invite.websocket_url


def test_http_maps_to_ws_with_port_and_prefix() -> None:
    invite = parse_invite(f"http://192.0.2.7:8765/games/gin/j/{ROOM}#{SECRET_TEXT}")
    assert invite.relay == RelayAddress("http", "192.0.2.7", 8765, "/games/gin")
    assert invite.websocket_url == f"ws://192.0.2.7:8765/games/gin/j/{ROOM}"
    assert invite.relay.ws_url == "ws://192.0.2.7:8765/games/gin"


def test_ipv6_hosts_keep_their_brackets() -> None:
    invite = parse_invite(f"http://[::1]:8765/j/{ROOM}#{SECRET_TEXT}")
    assert invite.relay.host == "::1"
    assert invite.websocket_url == f"ws://[::1]:8765/j/{ROOM}"
    assert invite.url == f"http://[::1]:8765/j/{ROOM}#{SECRET_TEXT}"


def test_pasted_links_may_carry_spaces_and_angle_brackets() -> None:
    assert parse_invite(f"  <https://r.example/j/{ROOM}#{SECRET_TEXT}>\n").room == ROOM


@pytest.mark.parametrize(
    ("link", "message"),
    [
        ("", "the invite link is empty"),
        (f"ftp://r.example/j/{ROOM}#{SECRET_TEXT}", "must start with http:// or https://"),
        (f"ws://r.example/j/{ROOM}#{SECRET_TEXT}", "an invite link starts with http"),
        (f"https:///j/{ROOM}#{SECRET_TEXT}", "names no relay host"),
        (f"https://r.example:99999/j/{ROOM}#{SECRET_TEXT}", "not a valid URL"),
        (f"https://u:p@r.example/j/{ROOM}#{SECRET_TEXT}", "user name or password"),
        (f"https://r.example/j/{ROOM}?x=1#{SECRET_TEXT}", "must not contain a query"),
        (f"https://r.example/j/{ROOM}?terminal#{SECRET_TEXT}", "must not contain a query"),
        (f"https://r.example/room/{ROOM}#{SECRET_TEXT}", "path ends in /j/ROOM"),
        (f"https://r.example/j/{ROOM[:-1]}#{SECRET_TEXT}", "room id after /j/ must be 32"),
        (f"https://r.example/j/{ROOM}", "no secret after '#'"),
        (f"https://r.example/j/{ROOM}#{SECRET_TEXT[:-3]}", "was the link cut short"),
        (f"https://r.example/j/{ROOM}#{SECRET_TEXT[:-1]}!", "43 url-safe base64"),
        (f"https://r.example/j/{ROOM} #{SECRET_TEXT}", "contains spaces"),
    ],
)
def test_malformed_links_say_what_is_wrong(link: str, message: str) -> None:
    with pytest.raises(InvalidLinkError, match=message.replace("?", r"\?")) as info:
        parse_invite(link)
    assert isinstance(info.value, ValueError)
    assert SECRET_TEXT not in str(info.value)  # errors never echo the secret


def test_non_canonical_secret_is_refused() -> None:
    # The last character carries 4 spare bits; "B" sets one of them.
    canonical = encode_secret(bytes(32))
    assert canonical.endswith("A")
    with pytest.raises(InvalidLinkError, match="not canonical"):
        decode_secret(canonical[:-1] + "B")


@given(st.binary(min_size=32, max_size=32))
def test_any_secret_round_trips(secret: bytes) -> None:
    text = encode_secret(secret)
    assert len(text) == 43 and "=" not in text
    assert decode_secret(text) == secret


def test_relay_addresses() -> None:
    assert parse_relay("https://relay.example.org/").ws_url == "wss://relay.example.org"
    assert parse_relay("ws://127.0.0.1:8765").http_url == "http://127.0.0.1:8765"
    assert parse_relay("wss://r.example/gin").ws_url == "wss://r.example/gin"
    with pytest.raises(InvalidLinkError, match="did you paste an invite link"):
        parse_relay(f"https://r.example/j/{ROOM}#{SECRET_TEXT}")
    with pytest.raises(InvalidLinkError, match="relay address must start with http"):
        parse_relay("ftp://relay.example.org")


@pytest.mark.parametrize(("typed", "meant"), [
    ("127.0.0.1:30200", "http://127.0.0.1:30200"),
    ("192.0.2.2", "http://192.0.2.2"),
    ("[::1]:8765", "http://[::1]:8765"),
    ("localhost:8765", "http://localhost:8765"),
    ("relay.example.org:8765", "http://relay.example.org:8765"),
    ("relay.example.org", "https://relay.example.org"),
    (" relay.example.org/gin/ ", "https://relay.example.org/gin"),
    ("relay.example.org:443", "https://relay.example.org:443"),
])
def test_a_relay_address_without_its_scheme_is_read_as_a_person_means_it(
        typed: str, meant: str) -> None:
    assert parse_relay(typed).http_url == meant


def test_a_bare_relay_address_that_is_still_wrong_says_what_is_wrong() -> None:
    with pytest.raises(InvalidLinkError, match="not a valid URL"):
        parse_relay("127.0.0.1:port")
    with pytest.raises(InvalidLinkError, match="spaces"):
        parse_relay("relay example org")


def test_read_link_prefers_argument_then_environment_then_stdin() -> None:
    env = {"GIN_LINK": "from-env"}
    stdin = io.StringIO("from-stdin\n")
    assert read_link("from-arg", env, stdin) == "from-arg"
    assert read_link(None, env, stdin) == "from-env"
    assert read_link(None, {}, stdin) == "from-stdin"
    assert read_link("-", env, io.StringIO("  dash means stdin \n")) == "dash means stdin"
    with pytest.raises(InvalidLinkError, match="give it as an argument, set GIN_LINK"):
        read_link(None, {"GIN_LINK": "  "}, io.StringIO(""))


def test_a_link_copied_in_several_lines_from_a_narrow_window_is_taken_whole() -> None:
    link = f"http://192.0.2.2:30300/j/{ROOM}#{SECRET_TEXT}"
    lines = "  \n".join(link[i:i + 33] for i in range(0, len(link), 33)) + "   \n"
    assert parse_invite(lines) == parse_invite(link)
    with pytest.raises(InvalidLinkError, match="spaces"):
        parse_invite(link.replace("/j/", "/j /"))  # a space is not a line break

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    typed = Terminal("\n".join(link[i:i + 33] for i in range(0, len(link), 33)) + "\n")
    assert read_link(None, {}, typed, io.StringIO()) == link
    cut = Terminal(link[:60] + "\n\n")  # a link really cut short: an empty line ends it
    assert read_link(None, {}, cut, io.StringIO()) == link[:60]


def test_a_boards_link_names_its_relay_and_room_and_keeps_the_secret_after_the_hash() -> None:
    """Issue 27: BOARD?relay=RELAY&room=ROOM#SECRET opens the board at BOARD, any origin,
    on RELAY; the same strings as client/web/test/online_peer.test.ts's."""
    link = (f"https://board.example.org/gin/?relay=https://relay.example.org:8443/r"
            f"&room={ROOM}#{SECRET_TEXT}")
    invite = parse_invite(link)
    assert invite == Invite(RelayAddress("https", "relay.example.org", 8443, "/r"), ROOM, SECRET,
                            "https://board.example.org/gin/")
    assert invite.url == link
    assert invite.websocket_url == f"wss://relay.example.org:8443/r/j/{ROOM}"
    # The page's own parameters (?bot=) are passed over; an escaped relay reads the same.
    assert parse_invite(link.replace("#", "&bot=easy#")) == invite
    escaped = link.replace("https://relay.example.org:8443/r",
                           "https%3A%2F%2Frelay.example.org%3A8443%2Fr")
    assert parse_invite(escaped) == invite
    # A board at a site's root gets its "/".
    bare = parse_invite(f"http://127.0.0.1:8001?relay=http://127.0.0.1:9000&room={ROOM}#{SECRET_TEXT}")
    assert bare.board == "http://127.0.0.1:8001/" and bare.relay.port == 9000


@pytest.mark.parametrize(
    ("link", "message"),
    [
        (f"https://b.example/?relay=ftp://r.example&room={ROOM}#{SECRET_TEXT}", "http://"),
        (f"https://b.example/?relay=r.example&room={ROOM}#{SECRET_TEXT}", "after relay= must"),
        (f"https://b.example/?relay=https://r.example&room=short#{SECRET_TEXT}",
         "after room= must"),
        (f"https://b.example/?relay=https://r.example#{SECRET_TEXT}", "after room= must"),
        (f"https://b.example/?relay=https://r.example&room={ROOM}", "no secret after '#'"),
    ],
)
def test_a_boards_link_that_is_wrong_says_what(link: str, message: str) -> None:
    with pytest.raises(InvalidLinkError, match=message) as info:
        parse_invite(link)
    assert SECRET_TEXT not in str(info.value)


def test_a_board_address_for_links_is_http_or_https() -> None:
    assert parse_board("https://board.example.org") == "https://board.example.org/"
    assert parse_board("http://127.0.0.1:8001/gin/") == "http://127.0.0.1:8001/gin/"
    for bad in ("ftp://b.example/", "javascript:alert(1)", "https://b.example/#x",
                "https://b.example/?x=1", "https://u:p@b.example/"):
        with pytest.raises(InvalidLinkError):
            parse_board(bad)
