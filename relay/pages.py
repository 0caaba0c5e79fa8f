"""The few HTML pages a browser may see when someone opens an invite link without
the board (or asks how to join from a terminal)."""

from __future__ import annotations

from html import escape

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.5;color:#222}code,pre{background:#f3f3f3;padding:.1rem .3rem;"
    "border-radius:3px}pre{padding:.6rem;overflow-x:auto}"
)


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )


_NO_BOARD = ("<p>This relay does not serve the board that plays in the browser (it was "
             "started without it), so join with the <code>gin</code> program:</p>")


# Where the relay serves the board: a friend checks hand records there.
_CHECK = ("A friend can check the hand records of a match there too, with nothing to "
          "install: open this relay's address without the <code>/j/…</code> part, choose "
          "<em>Open records</em> (or drop the files on the page), and the board verifies "
          "them as <code>gin audit</code> does and replays each hand. The files never "
          "leave the browser.")


def invite_page(valid: bool, board: bool = False) -> str:
    """What a browser shows for /j/ROOM when it opens no game there: a room this relay
    did not issue (the link is wrong, or the relay that made it was replaced), a relay
    that serves no board, or /j/ROOM?terminal (``board``: the link itself opens the
    game in the browser), with how to join with the gin program."""
    if not valid:
        status = (
            "<p><strong>This relay did not issue this invite link,</strong> so it opens no "
            "game. Either the link is wrong (cut short or mistyped: check that it was "
            "copied whole), or the relay that made it was replaced (restarted with a new "
            "key, or it ran inside your friend's gin program, which is not running now). "
            "Ask your friend to start the match again or to send a new link.</p>"
        )
        how = ("<p>A good link opens the game right here in the browser, with nothing to "
               f"install. {_CHECK} To play in a terminal with the <code>gin</code> program "
               "instead:</p>") if board else _NO_BOARD
        copy = "<p>Copy the <em>whole</em> link your friend sent you, then run</p>"
    elif board:
        status = "<p>You have been invited to a game of Gin Rummy.</p>"
        how = (f"<p>The link itself opens the game in your browser. {_CHECK} To play in a "
               "terminal with the <code>gin</code> program instead:</p>")
        copy = ("<p>Copy the <em>whole</em> link your friend sent you (this page's address "
                "without <code>?terminal</code>), then run</p>")
    else:
        status = "<p>You have been invited to a game of Gin Rummy.</p>"
        how = _NO_BOARD
        copy = "<p>Copy the <em>whole</em> link from your browser's address bar, then run</p>"
    body = (
        f"{status}{how}"
        "<h2>1. Install gin</h2>"
        "<p>gin needs Python 3.11 or newer. It is not on PyPI yet, and "
        "<code>pip install gin</code> installs a different, unrelated program. Ask the "
        "friend who sent you this link for a copy of gin: the file "
        "<code>gin_rummy-VERSION-py3-none-any.whl</code> (they make it by running "
        "<code>python3 -m pip wheel --no-deps -w dist .</code> in their gin folder), or "
        "that folder itself, or an archive of it. Then install it into a fresh "
        "environment:</p>"
        "<pre>python3 -m venv gin-env\n"
        ". gin-env/bin/activate\n"
        "python3 -m pip install ./gin_rummy-*.whl</pre>"
        "<p>in the folder where you saved the file (or give the path of the folder or "
        "archive you received instead). This installs the <code>gin</code> command; "
        "run <code>. gin-env/bin/activate</code> again in a new terminal to use it.</p>"
        "<h2>2. Join</h2>"
        f"{copy}"
        "<pre>gin join 'LINK'</pre>"
        "<p>To keep the link out of your shell history, run <code>gin join</code> and "
        "paste it when asked, or set <code>GIN_LINK</code>.</p>"
        "<h2>About the part after #</h2>"
        "<p>Everything after <code>#</code> in the link is the game's secret key. "
        "Browsers never send it to this relay, and neither does gin: the relay only "
        "passes sealed messages between the two players and cannot read or forge them. "
        "Share the link only with the person you want to play.</p>"
    )
    return _page("Join a game of gin", body)


def home_page() -> str:
    body = (
        "<p>This is a <code>gin</code> relay: it passes sealed messages between two "
        "players of Gin Rummy and knows nothing about the game.</p>"
        "<p>Start a game with <code>gin host --relay URL</code>, where URL is this "
        "page's address, and send the link it prints to a friend.</p>"
    )
    return _page("gin relay", body)
