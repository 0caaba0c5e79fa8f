// The sealed channel in TypeScript against protocol.md §13's frame vectors (made by
// gin/), and its faults: who is blamed, proven or not, sticky after the first.
// Whole hostile-relay exchanges are checked against gin/ by npm run conformance.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bytesToHex } from "@noble/hashes/utils.js";
import {
  AckBeyondSent, ChannelFailed, ForeignFrame, pack, ReflectedFrame, SealedChannel, TamperedFrame,
} from "../src/protocol/wire/channel.ts";
import { range, vector } from "./protocol_vectors.ts";

const HELLO = pack("hello", new Map([["n", 1]]));

function pair(): [SealedChannel, SealedChannel] {
  return [new SealedChannel(range(0, 32), "host", range(32, 64)), new SealedChannel(range(0, 32), "guest", range(64, 96))];
}

test("the §13 frames: the host's first offer, its first data frame, the guest's ack", () => {
  const [host, guest] = pair();
  const offer = host.offer();
  assert.equal(bytesToHex(offer), vector("frame_offer_host"));
  assert.deepEqual(host.send(HELLO), []); // not keyed yet: the message waits, numbered
  const guestOffer = guest.receive(offer).replies; // the guest keys, answers with its offer
  assert.equal(guestOffer.length, 1);
  const [data] = host.receive(guestOffer[0]!).replies; // the peer has our offer: only the data
  assert.equal(bytesToHex(data!), vector("frame_data_host_0"));
  const got = guest.receive(data!);
  assert.deepEqual(got.message, HELLO);
  assert.equal(bytesToHex(got.replies[0]!), vector("frame_ack_guest_0"));
  assert.equal(host.pending, 1);
  host.receive(got.replies[0]!);
  assert.equal(host.pending, 0);
});

test("the relay's faults are not proven and the channel stays dead", () => {
  const [host, guest] = pair();
  guest.receive(host.offer());
  const flipped = host.offer();
  flipped[20] ^= 1;
  const [, other] = pair();
  assert.throws(() => guest.receive(guest.offer()), (e: unknown) => e instanceof ReflectedFrame && !e.proven && e.who === "relay");
  assert.throws(() => new SealedChannel(range(1, 33), "guest", range(64, 96)).receive(host.offer()), ForeignFrame);
  assert.throws(() => other.receive(flipped), (e: unknown) => e instanceof TamperedFrame && e.field === "offer");
  assert.throws(() => other.receive(host.offer()), (e: unknown) => e instanceof ChannelFailed && /failed earlier: offer frame fails/.test(e.message));
});

test("an authentic ack of messages never sent is the peer's proven fault", () => {
  const [host, guest] = pair();
  host.receive(guest.receive(host.offer()).replies[0]!);
  guest.send(HELLO);
  guest.send(HELLO);
  const frames = guest.resend().slice(1);
  const acks = frames.map((f) => host.receive(f).replies[0]!);
  // The host acknowledged two messages; the guest has sent two: fine. A fresh guest has sent none.
  guest.receive(acks[1]!);
  const fresh = new SealedChannel(range(0, 32), "guest", range(64, 96));
  fresh.receive(host.offer());
  assert.throws(() => fresh.receive(acks[1]!),
    (e: unknown) => e instanceof AckBeyondSent && e.proven && e.who === "host" && e.field === "ack");
});
