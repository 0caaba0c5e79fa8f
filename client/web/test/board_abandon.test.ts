// Silence has a name on the board: the words of the grace's question and of the ending,
// and the entry your record keeps (never a win). The browser test
// (tests/web/test_online_abandon.py) drives the same through the page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { matchEntry, parse, summarize } from "../src/board/record.ts";
import { failureLines, failureTitle, graceWords, howLong } from "../src/board/words.ts";

test("the grace's question says what is owed, since when, and that nothing is a verdict", () => {
  const since = 1_796_198_400; // 2026-12-02 08:00:00 UTC
  const [what, choice] = graceWords("seed", since, since + 305);
  assert.equal(what, "Your friend has not answered since 08:00:00 UTC (5 min 5 s): their device has yet to "
    + "reveal its secret number, to check the deck. They may have stopped answering, or the relay may have lost "
    + "their message.");
  assert.match(choice!, /^Keep waiting, or end the match as abandoned by your friend\? That is not a cheat verdict/);
  assert.match(graceWords("move", since, since)[0]!, /\(0 min 0 s\): it is their move\./);
  // Hours, not "3487 min" (issue 28), as the terminal says it.
  assert.match(graceWords("move", since, since + 3487 * 60)[0]!, /\(about 58 hours\): it is their move\./);
  assert.equal(howLong(3600), "about 1 hour");
});

test("the ending names no fault: abandoned by your friend, the signed record kept", () => {
  const failure = { kind: "Abandoned", who: "guest", field: "seed", proven: false,
    reason: "Abandoned by the guest: it owed its seed for hand 3 since 2026-12-02 08:00:00 UTC; the host ended "
      + "the match at 08:05:00 (after 300 s). This is the host's signed word: not a cheat, and not proven (the guest "
      + "may have withheld it, or the relay dropped it)" };
  assert.equal(failureTitle(failure), "Abandoned by your friend");
  const lines = failureLines(failure);
  assert.match(lines[0]!, /^Abandoned by your friend \(the guest\): it owed its seed for hand 3 since/);
  assert.match(lines[1]!, /^Saved as a signed record you can audit/);
  assert.ok(!lines.some((line) => /At fault/.test(line)));
  const told = { ...failure, kind: "ClaimedAbandoned", who: "host", reason: "the host ended the match (abandoned), …" };
  assert.equal(failureTitle(told), "Your friend ended the match: abandoned by you, it says");
  assert.ok(!failureLines(told).some((line) => /At fault/.test(line)));
});

test("your record keeps an abandoned match apart, never as a win", () => {
  const entry = matchEntry("friend:0a1b", 1, null, [], null, "2026-12-02T08:05:00Z", "friend");
  assert.equal(entry.won, false);
  assert.equal(entry.abandoned, "friend");
  const overall = summarize(parse({ format: 1, matches: [entry, { ...entry, abandoned: "you" }] })).overall;
  assert.deepEqual([overall.matches, overall.matches_won, overall.abandoned_by_friend, overall.abandoned_by_you],
    [2, 0, 1, 1]);
  assert.throws(() => parse({ format: 1, matches: [{ ...entry, abandoned: "nobody" }] }),
    /abandoned by neither the friend nor you/);
});
