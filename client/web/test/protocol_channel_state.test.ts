// The sealed channel's saved state: a channel restored from its state carries on
// where it was (under new keys); a damaged state is refused naming the field.
// Python repr of unprintable text, as gin/'s messages quote it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { RulesError, Ruleset } from "../src/engine/rules.ts";
import { equalBytes } from "../src/protocol/bytes.ts";
import * as msgpack from "../src/protocol/wire/msgpack.ts";
import type { Value } from "../src/protocol/wire/msgpack.ts";
import { MalformedMessage, pack, SealedChannel } from "../src/protocol/wire/channel.ts";

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i);

const epoch = (fill: number): Uint8Array => new Uint8Array(32).fill(fill);

function pair(): [SealedChannel, SealedChannel] {
  const host = new SealedChannel(SECRET, "host", epoch(1));
  const guest = new SealedChannel(SECRET, "guest", epoch(2));
  for (const reply of host.receive(guest.offer()).replies) guest.receive(reply);
  host.receive(guest.offer());
  return [host, guest];
}

test("a channel restored from its state re-sends what is unacknowledged, under a new epoch", () => {
  const [host, guest] = pair();
  const first = pack("m", new Map([["n", 1]]));
  const second = pack("m", new Map([["n", 2]]));
  for (const frame of host.send(first)) guest.receive(frame); // delivered, its ack lost
  host.send(second); // lost
  const state = host.toState();
  assert.deepEqual([...state.keys()],
    ["v", "side", "send_seq", "recv_seq", "pending", "sent_digest", "received_digest", "failed"]);
  const again = SealedChannel.fromState(SECRET, msgpack.decode(msgpack.encode(state)) as Map<string, Value>, epoch(3));
  assert.equal(again.nextSendSeq, 2n);
  assert.deepEqual(again.pendingMessages().map(([seq]) => seq), [0n, 1n]);
  assert.ok(equalBytes(again.sentDigest, host.sentDigest));
  const [offer] = again.resend();
  assert.ok(!again.keyed); // no key until the peer answers the new contribution
  const delivered: Uint8Array[] = [];
  let frames = guest.receive(offer!).replies;
  while (frames.length) {
    const next: Uint8Array[] = [];
    for (const frame of frames) {
      const got = (frame[2] === 1 ? guest : again).receive(frame);
      if (got.message !== null) delivered.push(got.message);
      next.push(...got.replies);
    }
    frames = next;
  }
  assert.deepEqual(delivered, [second]); // the duplicate of the first is acknowledged, not delivered
  assert.equal(again.pending, 0);
});

test("a damaged channel state is refused, naming the field", () => {
  const [host] = pair();
  host.send(pack("m"));
  const damage = (field: string, value: Value): Map<string, Value> => new Map([...host.toState(), [field, value]]);
  assert.throws(() => SealedChannel.fromState(SECRET, damage("pending", [[5, new Uint8Array(1)]]), epoch(3)),
    (exc: unknown) => exc instanceof MalformedMessage && exc.field === "pending[0]");
  assert.throws(() => SealedChannel.fromState(SECRET, damage("sent_digest", new Uint8Array(31)), epoch(3)),
    (exc: unknown) => exc instanceof MalformedMessage && exc.field === "sent_digest");
  assert.throws(() => SealedChannel.fromState(SECRET, damage("failed", ["x"]), epoch(3)),
    (exc: unknown) => exc instanceof MalformedMessage && exc.field === "failed");
  assert.throws(() => SealedChannel.fromState(SECRET, damage("extra", 1), epoch(3)),
    (exc: unknown) => exc instanceof MalformedMessage && exc.field === "extra");
});

test("text from the peer is quoted with its control characters escaped, as Python's repr does", () => {
  assert.throws(() => Ruleset.fromDict({ name: "\x1b[2Jhouse\u00a0\u200b" }),
    (exc: unknown) => exc instanceof RulesError && exc.message.endsWith("not '\\x1b[2Jhouse\\xa0\\u200b'"));
});
