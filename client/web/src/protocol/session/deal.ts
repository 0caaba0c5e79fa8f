/**
 * One hand's fair deal before play (protocol.md §7.2, §7.3): the commitments, the
 * three deck messages — the second's signed, with its shuffle proof — and this side's
 * deal; the twin of gin/protocol/session/deal.py. Each handler of the stage table
 * (session_table.ts) takes the match flow and the peer's message and returns the next
 * stage.
 */

import { concatBytes } from "@noble/hashes/utils.js";

import { dealtPositions, UPCARD_POSITION } from "../../engine/hand.ts";
import * as cosign from "../records/cosign.ts";
import { DealEvidence } from "../records/evidence.ts";
import * as fd from "../deal/fairdeal.ts";
import { Step } from "../records/records.ts";
import { type MatchFlow, Stage } from "./flow.ts";
import { type HandState, otherRole } from "./hand.ts";
import * as sp from "../deal/shuffle_proof.ts";
import type * as wire from "../wire/channel.ts";

/** The peer's commitment; the first shuffler then sends message 1. */
export function onCommit(io: MatchFlow, msg: wire.Message): Stage {
  const hs = io.state();
  io.handFields(msg, "c");
  hs.commits.set(otherRole(hs.role), msg.blob("c", 32));
  if (hs.role === "first") { // commitments exchanged: the first shuffle may go
    const message1 = fd.buildMessage1(hs.mine);
    hs.messages[0] = message1;
    io.send("deck", [["h", hs.number], ["n", 1], ["deck", [...message1]]]);
  }
  return Stage.DECK;
}

/**
 * A deck message, checked on arrival (§8.6, §8.8): the second answers message 1 with
 * message 2 and its proof, signed; the first checks them, answers with message 3 and
 * deals; the second deals on message 3.
 */
export function onDeck(io: MatchFlow, msg: wire.Message): Stage {
  const hs = io.state();
  const n = msg.integer("n", 1, 3);
  io.handFields(msg, "n", "deck", ...(n === 2 ? ["proof", "sig"] : []));
  if (n !== hs.expectedDeck()) {
    throw io.protocol(`deck message ${n} while waiting for message ${hs.expectedDeck() ?? "None"}`, "deck.n");
  }
  const entries = msg.blobs("deck", fd.DECK_SIZE, { minLen: fd.DECK_SIZE, size: 32 });
  if (n === 2) return onMessage2(hs, msg, entries, io);
  let deck: fd.Deck;
  try {
    deck = fd.validateMessage(entries, `message${n}`);
  } catch (exc) {
    if (!(exc instanceof fd.MalformedDeck)) throw exc;
    throw io.cheat(exc.message, exc.where);
  }
  hs.messages[n - 1] = deck;
  if (n === 1) { // the second shuffle, its proof and our signature of both (§7.2)
    const ctx = fd.context(hs.matchId, hs.number);
    const [message2, proof] = fd.buildMessage2(hs.mine, deck, ctx);
    hs.messages[1] = message2;
    hs.proof = fd.proofDigest(proof);
    const sig = io.keys!.signer.sign(cosign.message2Digest(io.seat, ctx, deck, message2, proof));
    io.send("deck", [["h", hs.number], ["n", 2], ["deck", [...message2]], ["proof", sp.words(proof)], ["sig", sig]]);
    return Stage.DECK;
  }
  return sendDeal(hs, io);
}

/** The second's message 2: its signature, then its entries and proof. A refusal is a
 * cheat with evidence (the signed message) that anyone can check (§10.2). */
function onMessage2(hs: HandState, msg: wire.Message, entries: Uint8Array[], io: MatchFlow): Stage {
  const words = sp.PROOF_BYTES / 32; // 32-byte words: within the codec's binary limit
  const proof = concatBytes(...msg.blobs("proof", words, { minLen: words, size: 32 }));
  const sig = msg.blob("sig", cosign.SIGNATURE_BYTES);
  const evidence = new DealEvidence({ matchId: hs.matchId, handNumber: hs.number, dealer: hs.dealer,
    message1: hs.messages[0]!, message2: entries, proof, signature: sig, ...io.keys!.binding() });
  if (!cosign.verify(evidence.signingKeys[io.peer]!, evidence.digest(), sig)) {
    throw io.protocol("the second shuffler's signature does not sign its message 2", "deck.sig");
  }
  const refusal = fd.message2Refusal(fd.context(hs.matchId, hs.number), hs.messages[0]!, entries, proof);
  if (refusal !== null) { // a bad entry's reason says where, as message 1's and 3's do
    const [where, why] = refusal;
    throw io.cheat(where === "proof" ? why : `${where}: ${why}`, where, evidence);
  }
  hs.messages[1] = entries;
  hs.proof = fd.proofDigest(proof);
  const message3 = fd.buildMessage3(hs.mine, entries);
  hs.messages[2] = message3;
  io.send("deck", [["h", hs.number], ["n", 3], ["deck", [...message3]]]);
  return sendDeal(hs, io);
}

/** Our keys for the peer's ten dealt positions and the upcard (§7.3). */
function sendDeal(hs: HandState, io: MatchFlow): Stage {
  const positions = [...dealtPositions(io.peer === hs.dealer), UPCARD_POSITION];
  const keys = positions.map((p) => hs.mine.positionKeys[p]!);
  for (const p of positions) hs.keysSent.add(p);
  hs.steps.push(new Step(io.seat, null, positions.map((p, i) => [p, keys[i]!] as const)));
  io.send("deal", [["h", hs.number], ["keys", keys.map(fd.keyBytes)]]);
  return Stage.DEAL;
}
