"""Your move, when you are away (issue 30 item 3), in Debian's Chromium against the fake
online peer (tests/web/test_online_board.py builds and serves it). The page is hidden
the way a browser hides it (document.hidden, visibilityState and a visibilitychange
event: another tab or app in front), and the browser's Notification is wrapped to
record what the page shows, with the permission granted in the test's context."""

from __future__ import annotations

from typing import Any

from tests.web.test_online_board import (  # noqa: F401 (fixtures of that module)
    fake_board,
    host,
    open_page,
    site,
)

YOUR_MOVE = "● Your move — Gin Rummy"

# Runs before the page's own script: `__hide(true|false)` hides the page or brings it
# back; `__notes` are the notifications made, `__asked` how often permission was asked.
AWAY = """
window.__hidden = false;
Object.defineProperty(Document.prototype, 'hidden',
  {configurable: true, get: () => window.__hidden});
Object.defineProperty(Document.prototype, 'visibilityState', {configurable: true,
  get: () => window.__hidden ? 'hidden' : 'visible'});
window.__hide = (hidden) => {
  window.__hidden = hidden;
  document.dispatchEvent(new Event('visibilitychange'));
};
window.__notes = [];
window.__asked = 0;
const Real = window.Notification;
class Recorded extends Real {
  constructor(title, options) {
    window.__notes.push([title, options && options.body]);
    super(title, options);
  }
  static requestPermission() { window.__asked += 1; return Real.requestPermission(); }
}
window.Notification = Recorded;
"""


def bodies(page: Any) -> list[str]:
    notes = page.page.evaluate("window.__notes")
    assert all(title == "Gin Rummy" for title, _ in notes), notes
    return [body for _, body in notes]


def hide(page: Any, hidden: bool) -> None:
    page.page.evaluate(f"window.__hide({'true' if hidden else 'false'})")


def test_away_online_the_title_and_notifications_say_your_move_and_the_friend(
        open_page: Any) -> None:  # noqa: F811
    page = open_page(permissions=["notifications"], init=AWAY)
    host(page)
    page.page.keyboard.press("Escape")  # the invite
    assert page.page.evaluate("window.__asked") == 0  # never asked on load
    page.page.click("#btn-notify")
    assert page.page.get_attribute("#btn-notify", "aria-pressed") == "true"
    assert page.text("#notify-state").startswith("Notifications are on")
    assert page.page.evaluate("window.__asked") == 0  # granted already: nothing to ask
    hide(page, True)
    page.fake("peer.arrive();")  # the guest deals: the host is offered the upcard
    page.page.wait_for_function(f"() => document.title === '{YOUR_MOVE}'")
    assert bodies(page) == ["Your friend joined", "Your move"]
    hide(page, False)
    assert page.page.title() == "Gin Rummy"
    # Back on the page: the friend's answer and your next move are seen, not notified.
    page.page.click("#btn-pass")
    page.page.wait_for_selector("#btn-take:visible, #btn-stock:visible")
    assert page.page.title() == "Gin Rummy"
    assert len(bodies(page)) == 2
    hide(page, True)  # away on your move: the title says it
    assert page.page.title() == YOUR_MOVE
    page.fake("peer.setConnection('peer-left');")
    page.fake("peer.setConnection('connected');")
    assert bodies(page)[2:] == ["Your friend is away — waiting for them to come back",
                                "Your friend is back"]
    # Turned off: the title still says it, no notification does.
    hide(page, False)
    page.page.click("#btn-notify")
    assert page.page.get_attribute("#btn-notify", "aria-pressed") == "false"
    hide(page, True)
    page.fake("peer.setConnection('peer-gone');")
    assert len(bodies(page)) == 4
    # Leaving the match: the normal title, even while hidden, and nothing against the computer.
    hide(page, False)
    page.page.click("#btn-leave")
    page.page.click("#dialog-buttons .primary")
    page.page.wait_for_selector("#btn-pass:visible, #btn-stock:visible")
    hide(page, True)
    page.page.click("#btn-pass:visible, #btn-stock:visible")
    page.page.wait_for_selector("#btn-take:visible, #btn-stock:visible, #btn-throw:visible")
    assert page.page.title() == "Gin Rummy"
    assert len(bodies(page)) == 4


def test_away_permission_is_asked_from_the_button_only(open_page: Any) -> None:  # noqa: F811
    page = open_page(init=AWAY)
    host(page)
    page.page.keyboard.press("Escape")
    assert page.page.evaluate("[window.__asked, Notification.permission]") == [0, "default"]
    page.page.click("#btn-notify")
    page.page.wait_for_function("() => window.__asked === 1")
    hide(page, True)
    page.fake("peer.arrive();")
    page.page.wait_for_function(f"() => document.title === '{YOUR_MOVE}'")
    assert bodies(page) == []  # not granted: no notification
