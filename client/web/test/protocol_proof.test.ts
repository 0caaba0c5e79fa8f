// The shuffle proof in TypeScript (protocol.md §8.9): an honest second shuffler's
// openings pass, and one that puts a message-1 entry at two positions of message 2
// is caught by every bit-1 round. gin/'s verdicts are checked by npm run conformance.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as ecc from "../src/protocol/ecc.ts";
import * as fd from "../src/protocol/fairdeal.ts";
import * as proof from "../src/protocol/shuffle_proof.ts";
import { range } from "./protocol_vectors.ts";

test("honest openings pass; a duplicating message 2 fails the bit-1 rounds", () => {
  const first = fd.SeedMaterial.fromSeed(range(0, 32));
  const second = fd.SeedMaterial.fromSeed(range(32, 64));
  const m1 = fd.buildMessage1(first);
  const m2 = fd.buildMessage2(second, m1);
  const shadows = proof.shadows(second, m1);
  const challenge = 0b0110;
  const openings = proof.openRounds(second, challenge);
  for (let r = 0; r < proof.ROUNDS; r++) {
    assert.equal(proof.checkRound(m1, m2, shadows[r]!, (challenge >> r) & 1, openings[r]!), null);
  }
  // Position 5 re-encrypts the entry at position 0's source under its own key.
  const cheat = m2.slice();
  cheat[5] = ecc.mul(m1[second.permutation[0]!]!, second.positionKeys[5]!);
  assert.match(proof.checkRound(m1, cheat, shadows[1]!, 1, openings[1]!)!, /^message2\[5\] is not the shadow's entry \d+ re-keyed$/);
  assert.equal(proof.checkRound(m1, cheat, shadows[0]!, 0, openings[0]!), null); // bit 0 cannot see it
  assert.equal(proof.checkRound(m1, m2, shadows[0]!, 1, openings[0]!), "expected a permutation of the 52 positions and 52 keys");
});
