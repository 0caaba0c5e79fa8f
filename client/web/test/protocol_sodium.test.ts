// The fair deal on libsodium's WebAssembly (issue 30), as the online worker runs it:
// the same bytes as on noble for every deck message, the proof and every opening,
// and a non-canonical encoding is refused by gin's own check before libsodium sees it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import sodium from "libsodium-wrappers-sumo";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

import * as fd from "../src/protocol/deal/fairdeal.ts";
import * as g from "../src/protocol/deal/group.ts";
import { loadSodium } from "../src/protocol/deal/sodium.ts";
import { range } from "./protocol_vectors.ts";

const FIRST = fd.SeedMaterial.fromSeed(range(0, 32));
const SECOND = fd.SeedMaterial.fromSeed(range(32, 64));
const CTX = fd.context(utf8ToBytes("vector-match"), 1);

/** Everything a hand's deal computes with multiplications, as hex. */
function hand(): string[] {
  const m1 = fd.buildMessage1(FIRST);
  const [m2, proof] = fd.buildMessage2(SECOND, m1, CTX);
  const m3 = fd.buildMessage3(FIRST, m2);
  const opened = m3.map((_, k) => fd.openCard(m3, k, FIRST.positionKeys[k]!, SECOND.positionKeys[k]!, "second"));
  return [...m1, ...m2, proof, ...m3].map(bytesToHex).concat(opened.map(String));
}

let noble: string[];
before(async () => {
  noble = hand();
  assert.ok(await loadSodium());
});
after(() => g.useSodium(null));

test("libsodium's multiplications give noble's bytes: messages, proof, openings", () => {
  assert.deepEqual(hand(), noble);
  const key = SECOND.positionKeys[3]!;
  const card = g.cardBytes()[9]!;
  assert.equal(bytesToHex(g.mulBytes(card, key)), g.mul(g.cardPoints()[9]!, key).toHex());
});

test("the canonical check stays in front of libsodium, in gin's words", () => {
  const card = g.cardBytes()[7]!;
  const topBit = Uint8Array.from(card, (b, i) => (i === 31 ? b | 0x80 : b));
  const odd = Uint8Array.from(card, (b, i) => (i === 0 ? b | 1 : b));
  const key = fd.keyBytes(FIRST.deckKey);
  // This build (libsodium 1.0.22) refuses both, but only with a bare error; Debian's
  // 1.0.18 under gin/ ignores the top bit. The explicit check does not depend on it.
  assert.throws(() => sodium.crypto_scalarmult_ristretto255(key, topBit), (exc: unknown) => !(exc instanceof g.InvalidPoint));
  for (const bad of [topBit, odd]) {
    assert.throws(() => g.mulBytes(bad, FIRST.deckKey),
      (exc: unknown) => exc instanceof g.InvalidPoint && /not a canonical encoding/.test(exc.message));
  }
  const m2 = fd.buildMessage2(SECOND, fd.buildMessage1(FIRST), CTX)[0];
  assert.throws(() => fd.buildMessage3(FIRST, [topBit, ...m2.slice(1)]), g.InvalidPoint);
  assert.throws(() => g.mulBytes(card, 0n), g.InvalidScalar);
});
