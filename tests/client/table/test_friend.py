"""The table against a friend online, in Pilot, through a relay on 127.0.0.1: the
host sees the link and the connection's state; a pasted link joins; a hand is
played with the keys and the mouse against a computer player on the other side,
and "deck verified" shows."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from client.net import lobby, peer, store
from client.net.links import ROOM_ID_LENGTH, parse_invite
from client.net.transport import TransportSettings
from client.storage import Storage
from client.table import words
from client.table.app import GinApp, make_app
from client.table.config import AppConfig
from client.table.controller import OnlineGame
from client.table.invite import InviteScreen
from client.table.screens import (
    AlertScreen,
    ConfirmScreen,
    HandOverScreen,
    MatchEndScreen,
    OnlineScreen,
)
from gin import Discard, DrawPile, DrawStock, Knock, LayOff, Pass, players
from gin.engine.rules import STANDARD
from relay.server import Relay, serve
from tests.support.relay import TEST_CONFIG

# Every test here takes seconds: whole matches through Pilot, a relay, a browser or
# a subprocess.
pytestmark = pytest.mark.slow

SIZE = (100, 30)
FAST = peer.OnlineSettings(reply_timeout=20, move_timeout=60, linger=0.2,
                           transport=TransportSettings(backoff=lambda a: 0.05,
                                                       ping_interval=None, send_rate=None))


@pytest.fixture
async def relay() -> AsyncIterator[Relay]:
    relay = await serve(replace(TEST_CONFIG, rate=10_000.0, burst=100_000))
    yield relay
    await relay.close()


def relay_url(relay: Relay) -> str:
    return f"http://127.0.0.1:{relay.port}"


def table_text(app: GinApp, selector: str) -> str:
    return str(app.screen_stack[0].query_one(selector, Static).render())


async def until(pilot: Pilot[None], ready: Callable[[], bool], seconds: float = 20) -> None:
    async with asyncio.timeout(seconds):
        while not ready():
            await pilot.pause(0.02)


async def shown_link(pilot: Pilot[None], app: GinApp) -> str:
    """The invite link, once the host's table shows its invite window."""
    await until(pilot, lambda: isinstance(app.screen, InviteScreen))
    await pilot.pause()
    return str(app.screen.query_one("#invite-link", Static).render())


async def play_one_move(pilot: Pilot[None], app: GinApp) -> None:
    """The local player's move, chosen by a computer player, made with keys and clicks."""
    game = app.game
    assert isinstance(game, OnlineGame)
    legal = game.legal()
    action = players.get("easy").choose(game.observation(), legal)
    if isinstance(action, Pass):
        await pilot.press("p")
    elif isinstance(action, DrawStock):
        before = set(game.observation().hand)
        await pilot.press("s")
        # Once the friend's key opens it, the drawn card is the one selected.
        await until(pilot, lambda: app.selected is not None and app.selected not in before)
    elif isinstance(action, DrawPile):
        await pilot.press("t")
    elif isinstance(action, LayOff):
        await pilot.press("l")
        await pilot.pause()
        await pilot.press("enter")  # the best layout, offered first
    elif isinstance(action, Discard | Knock):
        if app.selected != action.card:  # a drawn card arrives selected
            await pilot.click(f"#hand #card-{action.card}")  # select it
            await pilot.pause()
        if isinstance(action, Discard):
            await pilot.click(f"#hand #card-{action.card}")  # a second click throws it
        else:
            await pilot.press("k")
            await pilot.pause()
            await pilot.press("enter")  # confirm the knock
    else:
        game.play(action)  # big gin: no key of its own
    await pilot.pause()


async def play_until_verified(pilot: Pilot[None], app: GinApp) -> None:
    """Play the local seat until the first hand's deck is verified."""
    async with asyncio.timeout(60):
        while "deck verified" not in table_text(app, "#online"):
            game = app.game
            if isinstance(game, OnlineGame) and game.dealt and game.legal() \
                    and not isinstance(app.screen, HandOverScreen | AlertScreen):
                await play_one_move(pilot, app)
            else:
                await pilot.pause(0.02)


async def bot_side(match: peer.OnlineMatch) -> asyncio.Future[object]:
    return asyncio.gather(match.run(), peer.play_bot(
        match, players.get("normal", random.Random(3))))


async def stop(task: asyncio.Future[object]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_host_shows_the_link_and_state_then_plays_a_verified_hand(
        relay: Relay, tmp_path: Path) -> None:
    start = lobby.OnlineStart("host", relay=relay_url(relay), rules=STANDARD)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=FAST, delay=0))
    async with app.run_test(size=SIZE) as pilot:
        link = await shown_link(pilot, app)
        screen = app.screen
        assert link.startswith(relay_url(relay) + "/j/") and "#" in link
        await until(pilot, lambda: "Waiting for your friend" in
                    str(screen.query_one("#invite-state", Static).render()))
        assert "█" in str(screen.query_one("#invite-qr", Static).render())
        # The link is shown whole, on lines of its own; on more than one, the screen
        # says so (Copy takes it in one piece).
        shown = screen.query_one("#invite-link", Static)
        assert str(shown.render()) == link
        assert screen.query_one("#invite-fit").display == (shown.region.height > 1)
        await pilot.click("#copy")
        await pilot.pause()
        assert app.clipboard == link
        assert "Your friend · waiting for them to join" in str(
            app.screen_stack[0].query_one("#opponent-label").render())

        guest = await lobby.join(parse_invite(link), Storage(tmp_path / "guest"),
                                 FAST)
        friend = await bot_side(guest)
        try:
            # The friend's arrival deals the first hand and closes the link screen.
            await until(pilot, lambda: not isinstance(app.screen, InviteScreen))
            await until(pilot, lambda: "Online: connected" in table_text(app, "#online"))
            # No hint against a person (issue 21 item 16): no button, and h says why.
            await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
            assert not app.screen_stack[0].query_one("#btn-hint").display
            await pilot.press("h")
            await until(pilot, lambda: table_text(app, "#prompt") == words.NO_HINT_ONLINE)
            await play_until_verified(pilot, app)
            assert "Hand 1: deck verified" in table_text(app, "#online")
            assert list((tmp_path / "host" / store.RECORDS_DIR).glob("*-001.json"))
        finally:
            await stop(friend)
        # The friend's program is gone: the table says so.
        await until(pilot, lambda: "your friend" in table_text(app, "#online").lower()
                    and "connected" not in table_text(app, "#online"))


def joining_table(storage: Storage) -> GinApp:
    return make_app(AppConfig(storage=storage, online_settings=FAST, delay=0,
                              offer_resume=False, rng=random.Random(1)))


async def open_online_screen(pilot: Pilot[None], app: GinApp) -> None:
    """Play against → Friend online, then wait for the host/join screen."""
    await pilot.pause()
    await pilot.click("#mode-online")
    await until(pilot, lambda: isinstance(app.screen, OnlineScreen))


async def test_join_with_a_pasted_link_from_the_table(relay: Relay, tmp_path: Path,
                                                      storage: Storage) -> None:
    host = await lobby.host(relay_url(relay), STANDARD, Storage(tmp_path / "host"), FAST)
    friend = await bot_side(host)
    app = joining_table(storage)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_online_screen(pilot, app)
            # A mangled link is refused with a reason, and the screen asks again.
            app.screen.query_one("#link", Input).value = host.invite.url[:-5]
            await pilot.click("#join")
            await until(pilot, lambda: isinstance(app.screen, OnlineScreen)
                        and "cut short" in str(app.screen.query_one("#online-error",
                                                                    Static).render()))
            app.screen.query_one("#link", Input).value = host.invite.url
            await pilot.click("#join")
            await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
            assert app.game.seat == 1
            assert "Your friend" in str(app.screen_stack[0].query_one("#opponent-label")
                                        .render())
            await play_until_verified(pilot, app)
            # No hint against a person (issue 21 item 16), in the next hand as in the first.
            await until(pilot, lambda: isinstance(app.screen, HandOverScreen))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.game, OnlineGame)
                        and app.game.observation().hand_number == 2 and bool(app.game.legal()))
            await pilot.press("h")
            await until(pilot, lambda: table_text(app, "#prompt") == words.NO_HINT_ONLINE)
    finally:
        await stop(friend)


async def test_an_unreachable_relay_keeps_the_online_screen_to_retry(
        tmp_path: Path, storage: Storage) -> None:
    app = make_app(AppConfig(storage=storage, online_settings=replace(
        FAST, transport=TransportSettings(open_timeout=2)), delay=0, offer_resume=False))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#mode-online")
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen))
        app.screen.query_one("#relay", Input).value = "http://127.0.0.1:1"
        await pilot.click("#host")
        # Back on the online screen, the error said, the relay kept for a retry.
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen)
                    and bool(app.screen.error))
        error = str(app.screen.query_one("#online-error", Static).render())
        assert error.startswith("Could not start the online match: cannot reach relay")
        assert app.screen.query_one("#relay", Input).value == "http://127.0.0.1:1"
        assert not isinstance(app.game, OnlineGame)
        await pilot.press("escape")  # give up: the computer table is still there
        await pilot.pause()
        assert app.screen_stack[0].query_one("#mode-computer").value


async def test_a_relay_address_typed_without_http_is_tried_and_a_bad_one_is_refused(
        tmp_path: Path, storage: Storage) -> None:
    """Typed in Friend online: 127.0.0.1:1 means http://127.0.0.1:1 (tried, nothing
    there); an address that cannot be read is refused with its reason, no traceback."""
    app = make_app(AppConfig(storage=storage, online_settings=replace(
        FAST, transport=TransportSettings(open_timeout=2)), delay=0, offer_resume=False))
    async with app.run_test(size=SIZE) as pilot:
        await open_online_screen(pilot, app)
        app.screen.query_one("#relay", Input).value = "127.0.0.1:1"
        await pilot.click("#host")
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen)
                    and bool(app.screen.error))
        assert "cannot reach relay" in app.screen.error  # type: ignore[attr-defined]
        app.screen.query_one("#relay", Input).value = "ftp://relay.example.org"
        await pilot.click("#host")
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen)
                    and "That relay address cannot be used" in app.screen.error)
        assert app.is_running and app.return_code is None
        assert app.screen.query_one("#relay", Input).value == "ftp://relay.example.org"


async def test_the_table_hosts_with_a_board_for_the_friend_and_refuses_one_not_http(
        relay: Relay, storage: Storage) -> None:
    """Issue 27: the host window's friend's board makes links that open that board on
    the relay, and the invite window says where the friend's page comes from."""
    app = joining_table(storage)
    async with app.run_test(size=SIZE) as pilot:
        await open_online_screen(pilot, app)
        app.screen.query_one("#relay", Input).value = relay_url(relay)
        app.screen.query_one("#board", Input).value = "ftp://board.example.org/"
        await pilot.click("#host")
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen)
                    and "That board address cannot be used" in app.screen.error)
        assert app.screen.query_one("#board", Input).value == "ftp://board.example.org/"
        assert app.screen.query_one("#relay", Input).value == relay_url(relay)
        app.screen.query_one("#board", Input).value = "https://board.example.org/gin/"
        await pilot.click("#host")
        await until(pilot, lambda: isinstance(app.screen, InviteScreen))
        link = app.screen.link  # type: ignore[attr-defined]
        assert link.startswith(f"https://board.example.org/gin/?relay={relay_url(relay)}&room=")
        assert parse_invite(link).relay.port == relay.port
        said = str(app.screen.query_one("#invite-reach", Static).render())
        assert "Your friend's page comes from board.example.org" in said


async def test_a_failed_join_from_the_command_line_offers_a_retry(
        tmp_path: Path, storage: Storage) -> None:
    """`gin join` with a relay that is gone: no computer match starts by itself."""
    invite = parse_invite("http://127.0.0.1:1/j/" + "A" * ROOM_ID_LENGTH + "#" + "A" * 43)
    app = make_app(AppConfig(storage=storage, online=lobby.OnlineStart("join", invite=invite),
                             online_settings=replace(FAST, transport=TransportSettings(
                                 open_timeout=2)), delay=0, offer_resume=False))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen))
        assert app.game is None
        assert app.screen.query_one("#link", Input).value == invite.url
        assert "cannot reach relay" in app.screen.error


@pytest.mark.parametrize("said", ["[/]", "[bold red]x"])
async def test_a_peers_words_are_shown_as_plain_text(relay: Relay, tmp_path: Path,
                                                     said: str) -> None:
    """A friend's abort reason in Textual's markup neither crashes nor restyles the
    table: it is shown exactly as sent."""
    from gin.protocol.session.events import ProtocolError

    start = lobby.OnlineStart("host", relay=relay_url(relay), rules=STANDARD)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=FAST, delay=0))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InviteScreen))
        assert isinstance(app.game, OnlineGame)
        guest = await lobby.join(parse_invite(app.game.online.invite.url),
                                 Storage(tmp_path / "guest"), FAST)
        task = asyncio.ensure_future(guest.run())
        try:
            await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
            # Online the computer's settings do not apply: not shown, keys off.
            await until(pilot, lambda: not isinstance(app.screen, InviteScreen))
            assert not app.screen.query_one("#computer-settings").display
            for key in ("n", "r", "3"):
                await pilot.press(key)
                await pilot.pause()
                assert not isinstance(app.screen, ConfirmScreen), key
            # The friend's program ends the match with words of its own choosing.
            guest.session._fail(ProtocolError("host", said, said))
            guest._flush()
            await until(pilot, lambda: isinstance(app.screen, AlertScreen))
            shown = str(app.screen.query_one("#alert-text", Static).render())
            assert f"saying: {said}" in shown
        finally:
            task.cancel()  # it may have ended by itself after its abort
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def test_copied_is_said_only_when_a_clipboard_program_copied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from client.table import clipboard

    link = "http://127.0.0.1:9/j/" + "A" * ROOM_ID_LENGTH + "#" + "A" * 43
    fake = tmp_path / "fake-copy"
    fake.write_text(f"#!/bin/sh\ncat > {tmp_path / 'clip.txt'}\n")
    fake.chmod(0o755)
    for programs, said in (((), "if pasting gives nothing"),
                           (((str(fake),),), "The link is copied.")):
        monkeypatch.setattr(clipboard, "PROGRAMS", programs)
        app = make_app(AppConfig(storage=Storage(tmp_path / "data"), offer_resume=False,
                                 delay=0))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.push_screen(InviteScreen(link, "waiting for your friend"))
            await pilot.pause()
            # At 80 columns this 97-character link takes several lines: the screen says
            # so until the copy, whose note takes its place (issue 28 item 21); at 170
            # it has one line, whole, beside the QR code.
            assert app.screen.query_one("#invite-fit").display
            await pilot.click("#copy")
            await pilot.pause()
            assert said in str(app.screen.query_one("#invite-copied", Static).render())
            assert not app.screen.query_one("#invite-fit").display
            await pilot.resize_terminal(170, 30)
            shown = app.screen.query_one("#invite-link")
            async with asyncio.timeout(10):
                while shown.size.width < len(link):  # until the new width is laid out
                    await pilot.pause(0.02)
            assert not app.screen.query_one("#invite-fit").display
    assert (tmp_path / "clip.txt").read_text() == link


async def test_the_host_keeps_the_link_and_gin_offers_the_online_match_again(
        relay: Relay, tmp_path: Path) -> None:
    start = lobby.OnlineStart("host", relay=relay_url(relay), rules=STANDARD)
    storage = Storage(tmp_path / "host")
    app = make_app(AppConfig(storage=storage, online=start, online_settings=FAST, delay=0))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InviteScreen))
        assert isinstance(app.game, OnlineGame)
        link = app.game.online.invite.url
        await pilot.pause()
        await pilot.click("#close")  # back to the table…
        await until(pilot, lambda: not isinstance(app.screen, InviteScreen))
        assert "o shows the invite link again" in table_text(app, "#prompt")
        await pilot.press("o")  # …and the link is there again
        await until(pilot, lambda: isinstance(app.screen, InviteScreen))
        assert app.screen.link == link  # type: ignore[attr-defined]
        await pilot.press("escape")
        guest = await lobby.join(parse_invite(link), Storage(tmp_path / "guest"), FAST)
        friend = asyncio.ensure_future(guest.run())
        await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
        # q asks first; "Stay" stays.
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Leave the online match? It is saved" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, ConfirmScreen)
    # Started again, gin offers the online match, and continues it in the same seat.
    again = make_app(AppConfig(storage=storage, online_settings=FAST, delay=0))
    try:
        async with again.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(again.screen, ConfirmScreen))
            assert "online match in progress" in again.screen.question
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(again.game, OnlineGame)
                        and again.game.dealt)
            assert again.game.seat == 0
            assert again.game.online.invite.url == link
    finally:
        friend.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await friend


@pytest.mark.parametrize("again", ["gin", "gin host"])
async def test_a_match_hosted_on_the_relay_inside_gin_is_continued_there(
        tmp_path: Path, again: str) -> None:
    """Hosted without --relay and left mid-match: `gin` (Continue online) or `gin host`
    (Continue it) brings the relay back where the link points, with its key, and the
    friend's program reconnects and plays on."""
    storage = Storage(tmp_path / "host")
    start = lobby.OnlineStart("host", bind="127.0.0.1", rules=STANDARD)
    app = make_app(AppConfig(storage=storage, online=start, online_settings=FAST, delay=0))
    friend: asyncio.Future[object] | None = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, InviteScreen))
            assert isinstance(app.game, OnlineGame)
            link = app.game.online.invite.url
            guest = await lobby.join(parse_invite(link), Storage(tmp_path / "guest"), FAST)
            friend = await bot_side(guest)
            await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            question = app.screen.question  # type: ignore[attr-defined]
            assert "its relay runs inside gin" in question
            assert f"comes back at {relay_of(link)}" in question
            await pilot.press("y")
        async with asyncio.timeout(10):
            while guest.link is not peer.Link.RECONNECTING:
                await asyncio.sleep(0.02)
        if again == "gin":
            config = AppConfig(storage=storage, online_settings=FAST, delay=0)
        else:  # as `gin host` finds it
            saved = lobby.hosted_here(storage)
            assert saved is not None and saved.link == link
            config = AppConfig(storage=storage, online_settings=FAST, delay=0,
                               offer_resume=False,
                               online=replace(start, saved=parse_invite(saved.link)))
        back = make_app(config)
        async with back.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(back.screen, ConfirmScreen))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(back.game, OnlineGame) and back.game.dealt)
            game = back.game
            assert isinstance(game, OnlineGame)
            assert game.online.invite.url == link and game.seat == 0
            await until(pilot, lambda: "Online: connected" in table_text(back, "#online"))
            # Play goes on: a move of ours, and the friend's answer arrives.
            await until(pilot, lambda: bool(game.legal()))
            seen = game.online.session.received
            await play_one_move(pilot, back)
            await until(pilot, lambda: game.online.session.received > seen)
    finally:
        if friend is not None and not friend.done():
            await stop(friend)


def relay_of(link: str) -> str:
    return parse_invite(link).relay.http_url


async def test_q_asks_before_leaving_the_computer_table() -> None:
    app = make_app(AppConfig(offer_resume=False, delay=0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Quit? The match is saved")
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.parametrize("accept", [True, False])
async def test_a_joining_table_shows_custom_rules_and_plays_them_only_if_accepted(
        relay: Relay, tmp_path: Path, storage: Storage, accept: bool) -> None:
    rules = STANDARD.with_options(knock_limit=7, target=50, name="house rules")
    host = await lobby.host(relay_url(relay), rules, Storage(tmp_path / "host"), FAST)
    friend = await bot_side(host)
    app = joining_table(storage)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_online_screen(pilot, app)
            app.screen.query_one("#link", Input).value = host.invite.url
            await pilot.click("#join")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                        and "custom rules" in app.screen.question)
            question = app.screen.question
            assert "house rules: the standard rules with 2 changes" in question
            # What differs from the preset is marked (issue 21 item 14), and only that.
            assert [line for line in question.splitlines() if "changed" in line] == [
                "knock limit: 7 — changed from 10", "match to: 50 — changed from 100"]
            assert isinstance(app.game, OnlineGame) and not app.game.dealt
            # The header gives the target on offer, not the default "to 100".
            await until(pilot, lambda: table_text(app, "#subtitle")
                        == words.subtitle(50, offered=True))
            await pilot.press("enter" if accept else "escape")
            if accept:
                await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
                assert app.game.rules.knock_limit == 7
                assert table_text(app, "#subtitle") == words.subtitle(50)
            else:
                await until(pilot, lambda: isinstance(app.game, OnlineGame)
                            and app.game.online.session.over)
                assert not app.game.dealt
                # The host is told and its side of the match ends too, unplayed.
                async with asyncio.timeout(20):
                    await friend
                assert host.session.over and host.verified == 0
    finally:
        if not friend.done():
            await stop(friend)


async def test_a_joining_table_is_offered_a_rematch_and_plays_it(
        relay: Relay, tmp_path: Path) -> None:
    """Issue 22 item 4: at the match's end the host offers a rematch on the same link;
    the table shows the offer, and accepting it deals the next match."""
    short = STANDARD.with_options(name="short", target=10)
    host = await lobby.host(relay_url(relay), short, Storage(tmp_path / "host"), FAST)
    host.rematches.wanted = 1  # as gin host --matches 2
    friend = await bot_side(host)
    app = joining_table(Storage(tmp_path / "guest"))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_online_screen(pilot, app)
            app.screen.query_one("#link", Input).value = host.invite.url
            await pilot.click("#join")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("enter")  # the custom rules (a low target)
            async with asyncio.timeout(90):
                while not (isinstance(app.screen, ConfirmScreen)
                           and app.screen.question == words.REMATCH_OFFERED):
                    game = app.game
                    if isinstance(app.screen, HandOverScreen):
                        await pilot.press("enter")
                    elif isinstance(game, OnlineGame) and game.dealt and game.legal() \
                            and not isinstance(app.screen, MatchEndScreen | ConfirmScreen):
                        await play_one_move(pilot, app)
                    await pilot.pause(0.02)
            assert isinstance(app.game, OnlineGame)
            assert app.game.online.status() == "your friend offers a rematch"
            await pilot.press("enter")  # Rematch
            await until(pilot, lambda: isinstance(app.game, OnlineGame) and app.game.dealt)
            assert not any(isinstance(s, MatchEndScreen) for s in app.screen_stack)
            session = app.game.online.session
            assert session.rematch is not None and session.rematch == host.session.rematch
            assert app.game.online.rematches.finished == 1
    finally:
        if not friend.done():
            await stop(friend)
