// Text from the network shown in the page without control or format characters,
// by the rule of client/text.py (tests/client/test_text.py has the same cases), and
// the board's online game showing a peer's words that way.
import assert from "node:assert/strict";
import { test } from "node:test";

import type { PeerNotice, PeerView } from "../src/online/api.ts";
import { plain, plainNotice } from "../src/online/text.ts";
import { OnlineGame } from "../src/board/online.ts";
import { FakePeer } from "./web/fake_peer.ts";

test("plain removes control and format characters, as client/text.py", () => {
  const cases: [string, string][] = [
    ["\x1b[2J\x1b]0;owned\x07standard", "[2J]0;ownedstandard"], // ESC and BEL go
    ["at fault: \x9b31mhost", "at fault: 31mhost"], // the one-byte CSI of C1
    ["verified\u202e deifirev", "verified deifirev"], // a right-to-left override
    ["zero\u200bwidth\x7f", "zerowidth"], // invisible characters and DEL
    ["line\nbreak\r", "linebreak"],
    ["Dame de ♥ — é 😀", "Dame de ♥ — é 😀"], // everything printable stays, astral too
  ];
  for (const [text, shown] of cases) assert.equal(plain(text), shown, JSON.stringify(text));
  assert.equal(plain("a\nb\r\n\tc", true), "a\nb\nc");
});

test("every bidirectional control, mark, invisible and C0/C1 control goes", () => {
  const unsafe = [
    ...Array.from({ length: 0x20 }, (_, i) => i), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
    0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
    0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0xfff9, 0xe0001, 0xd800, 0xdfff, 0x2028, 0x2029,
  ];
  for (const code of unsafe) {
    assert.equal(plain(`a${String.fromCharCode(...(code > 0xffff ? [0xdb40, 0xdc01] : [code]))}b`), "ab", code.toString(16));
  }
  for (const kept of ["\u00a0", "\u2007", "\u05d0", "\u0645", "\u{1f600}", "\u3000"]) assert.equal(plain(`a${kept}b`), `a${kept}b`);
});

test("a notice or a failure is shown plain; other notices are as they were", () => {
  assert.deepEqual(plainNotice({ kind: "notice", text: "relay says \u202eoh\x07" }), { kind: "notice", text: "relay says oh" });
  const failure = { kind: "PeerAborted", who: "guest\u2066", field: "ab\x00ort", reason: "said: \u202eniw I\x1b[2J", proven: false };
  assert.deepEqual(plainNotice({ kind: "failed", failure }),
    { kind: "failed", failure: { kind: "PeerAborted", who: "guest", field: "abort", reason: "said: niw I[2J", proven: false } });
  const moved: PeerNotice = { kind: "moved", seat: 1, action: "pass" };
  assert.equal(plainNotice(moved), moved);
});

test("the board's online game shows a friend's abort without bidi or control characters", () => {
  const peer = new FakePeer("guest", "http://relay/j/R#s", null, { seed: 9 });
  const game = new OnlineGame(peer);
  peer.arrive();
  const seen: [PeerView, readonly PeerNotice[]][] = [];
  game.onView((view, notices) => seen.push([view, notices]));
  const reason = "the host ended the match (left), saying: \u202etluaf ruoy\u2069\x1b]0;x\x07 \u200fbye";
  peer.fail({ kind: "PeerAborted", who: "nobody", field: "abort", reason, proven: false });
  peer.notice("the relay says: \x1b[31mred\u202d");
  const shown = "the host ended the match (left), saying: tluaf ruoy]0;x bye";
  assert.equal(game.view.failure!.reason, shown);
  const [view, notices] = seen.at(-2)!;
  assert.equal(view.failure!.reason, shown);
  assert.deepEqual(notices.filter((n) => n.kind === "failed").map((n) => n.kind === "failed" && n.failure.reason), [shown]);
  assert.equal(game.takeWarnings().join("|"), "the relay says: [31mred");
  assert.equal(peer.failure!.reason, reason); // the peer's own view is not changed
});

test("line and paragraph separators (U+2028, U+2029) go too, as in the terminal", () => {
  assert.equal(plain("you\u2028lost\u2029 (at fault: host)"), "youlost (at fault: host)");
  assert.equal(plain("a\u2028b", true), "ab");
});
