// The online session's own rules: it refuses moves out of turn (nothing
// changes), stays failed after a fault, and refuses a damaged save as CorruptState.
// Frame-for-frame agreement with gin/ is the conformance corpus' job (kind session).
import assert from "node:assert/strict";
import { test } from "node:test";

import { DrawPile, Pass } from "../src/engine/actions.ts";
import { get } from "../src/players/index.ts";
import { auditEvidence, auditRecords } from "../src/protocol/records/audit.ts";
import * as cosign from "../src/protocol/records/cosign.ts";
import { DealEvidence, parseFile } from "../src/protocol/records/evidence.ts";
import * as fd from "../src/protocol/deal/fairdeal.ts";
import * as g from "../src/protocol/deal/group.ts";
import type { Fields } from "../src/protocol/session/flow.ts";
import { fingerprint, Identity } from "../src/protocol/records/identity.ts";
import type { HandState } from "../src/protocol/session/hand.ts";
import * as sp from "../src/protocol/deal/shuffle_proof.ts";
import * as wire from "../src/protocol/wire/channel.ts";
import { IllegalAction, MalformedInput, PeerFault } from "../src/engine/errors.ts";
import { STANDARD } from "../src/engine/rules.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import { equalBytes } from "../src/protocol/bytes.ts";
import * as msgpack from "../src/protocol/wire/msgpack.ts";
import type { Value } from "../src/protocol/wire/msgpack.ts";
import { parseRecord } from "../src/protocol/records/records.ts";
import { coin, CorruptState, firstDealerFor, linkIdFor, rulesDigest, Session } from "../src/protocol/session/session.ts";
import { playLocal, pump } from "../src/protocol/session/local.ts";
import { CheatDetected, FrameRejected, type SessionEvent, VersionMismatch } from "../src/protocol/session/events.ts";
import { STATE_LIMITS } from "../scripts/session_checks.ts";
import { hexVector, range, vector } from "./protocol_vectors.ts";

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i);
/** Each seat's identity key: the bytes "h" * 32 and "g" * 32, as the Python tests use. */
const HOST_ID = new Uint8Array(32).fill(104);
const GUEST_ID = new Uint8Array(32).fill(103);

/** A deterministic stand-in for a secure source (tests only). */
function source(seed: number): (n: number) => Uint8Array {
  let x = seed;
  return (n) => Uint8Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x >> 16) & 0xff || 1;
  });
}

test("the session vectors of protocol.md §13: identities, vouches, match ids, fingerprints, rules digest, coin, first dealer", () => {
  const link = linkIdFor(range(0, 32));
  const keys: [Uint8Array, Uint8Array] = [new cosign.Signer(range(32, 64)).public, new cosign.Signer(range(64, 96)).public];
  const ids = [new Identity(range(128, 160)), new Identity(range(160, 192))] as const;
  const publics: [Uint8Array, Uint8Array] = [ids[0].public, ids[1].public];
  assert.equal(bytesToHex(publics[0]), vector("session_host_identity"));
  assert.equal(bytesToHex(publics[1]), vector("session_guest_identity"));
  assert.equal(bytesToHex(ids[0].vouch(link, 0, keys[0], new Uint8Array(0))), vector("session_host_vouch"));
  assert.equal(bytesToHex(ids[1].vouch(link, 1, keys[1], new Uint8Array(0))), vector("session_guest_vouch"));
  assert.equal(fingerprint(publics[0]), vector("session_host_fingerprint"));
  assert.equal(fingerprint(publics[1]), vector("session_guest_fingerprint"));
  const matchId = cosign.matchIdFor(link, keys, publics, new Uint8Array(0));
  assert.equal(bytesToHex(matchId), vector("session_match_id"));
  assert.equal(bytesToHex(cosign.matchIdFor(link, keys, publics, matchId)), vector("session_next_match_id"));
  assert.equal(bytesToHex(rulesDigest(STANDARD)), vector("session_rules_digest_standard"));
  const hostNonce = range(64, 96);
  assert.equal(bytesToHex(coin(linkIdFor(range(0, 32)), hostNonce)), vector("session_coin"));
  assert.equal(firstDealerFor(hexVector("session_match_id"), hostNonce, range(96, 128)),
    Number(vector("session_first_dealer")));
});

function dealt(): [Session, Session] {
  const host = new Session("host", SECRET, STANDARD, source(1), HOST_ID);
  const guest = new Session("guest", SECRET, null, source(2), GUEST_ID);
  pump(host, guest);
  return [host, guest];
}

test("a move out of turn is an IllegalAction and changes nothing", () => {
  const [host, guest] = dealt();
  const idle = host.legalActions().length ? guest : host;
  const mover = idle === host ? guest : host;
  assert.equal(idle.waitingFor(), "move");
  const before = msgpack.encode(idle.toState());
  assert.throws(() => idle.act(new DrawPile()), (exc: unknown) => exc instanceof IllegalAction && /waiting for/.test(exc.message));
  assert.ok(equalBytes(msgpack.encode(idle.toState()), before));
  assert.deepEqual(idle.dataToSend(), []);
  assert.ok(mover.legalActions().length > 0);
  assert.throws(() => mover.acceptRules(), IllegalAction); // nothing offered
});

test("a failed session stays failed: every later input throws the same fault", () => {
  const [host, guest] = dealt();
  guest.receive(new Uint8Array(5)); // not a frame
  const failure = guest.failure;
  assert.ok(failure instanceof FrameRejected && !failure.proven);
  assert.equal(failure.who, "host or the relay");
  assert.ok(guest.over && guest.legalActions().length === 0 && guest.waitingFor() === null);
  for (const input of [() => guest.receive(new Uint8Array(5)), () => guest.act(new Pass()), () => guest.peerTimedOut()]) {
    assert.throws(input, (exc: unknown) => exc instanceof PeerFault && exc.who === failure.who && exc.field === failure.field);
  }
  pump(host, guest); // the abort reaches the host, which blames nobody
  assert.equal(host.failure?.kind, "PeerAborted");
  const restored = Session.fromState(SECRET, roundTrip(guest), source(9), GUEST_ID);
  assert.equal(restored.failure?.kind, "FrameRejected");
  assert.throws(() => restored.act(new Pass()), PeerFault);
});

function roundTrip(session: Session): Map<string, Value> {
  return msgpack.decode(msgpack.encode(session.toState()), STATE_LIMITS) as Map<string, Value>;
}

test("a restored session re-sends exactly the frames its peer still needs", () => {
  const [host, guest] = dealt();
  const restored = Session.fromState(SECRET, roundTrip(guest), source(7), GUEST_ID);
  assert.deepEqual(restored.observation()?.hand.map(String), guest.observation()?.hand.map(String));
  assert.equal(restored.waitingFor(), guest.waitingFor());
  pump(host, restored);
  assert.equal(host.failure, null);
  assert.equal(restored.failure, null);
});

test("a damaged save is CorruptState, never the peer's fault", () => {
  const [, guest] = dealt();
  const state = roundTrip(guest);
  const log = state.get("log") as Value[][];
  const damaged: [string, Map<string, Value>][] = [
    ["not a map", new Map([["v", 2]])],
    ["log entry", new Map([...state, ["log", [...log, ["nonsense"]]]])],
    ["a delivered message altered", new Map([...state, ["log", log.map((e) =>
      e[0] === "in" ? ["in", (e[1] as Uint8Array).map((b, i) => (i === 5 ? b ^ 1 : b))] : e)]])],
    ["a random draw dropped", new Map([...state, ["log", log.filter((e, i) => !(e[0] === "rand" && i > 2))]])],
    ["the channel", new Map([...state, ["channel", new Map([...(state.get("channel") as Map<string, Value>),
      ["send_seq", 0]])]])],
    ["an extra draw", new Map([...state, ["log", [...log, ["rand", new Uint8Array(32)]]]])],
    ["the failure", new Map([...state, ["failure", ["Nonsense", "a", "b", "c"]]])],
  ];
  for (const [what, bad] of damaged) {
    assert.throws(() => Session.fromState(SECRET, bad, source(3), GUEST_ID), CorruptState, what);
  }
});

test("two TS sessions play a whole match with custom rules; both keep the same verified, signed records", () => {
  const rules = STANDARD.withOptions({ name: "short", target: 30 });
  const host = new Session("host", SECRET, rules, source(11), HOST_ID);
  const guest = new Session("guest", SECRET, null, source(12), GUEST_ID);
  const moved = playLocal(host, guest, [get("normal"), get("hard", 5)]);
  assert.ok(moved > 0);
  const events: SessionEvent[][] = [host.events(), guest.events()];
  assert.ok(host.over && guest.over && host.failure === null && guest.failure === null);
  assert.ok(events[1].some((e) => e.kind === "RulesOffered"));
  const records = events.map((list) => list.flatMap((e) => (e.kind === "HandVerified" ? [e.record] : [])));
  assert.equal(records[0]!.length, records[1]!.length);
  assert.ok(records[0]!.length >= 1);
  records[0]!.forEach((mine, i) => {
    const theirs = records[1]![i]!;
    assert.deepEqual(mine.signatures, theirs.signatures);
    assert.deepEqual(mine.seeds, theirs.seeds);
    assert.deepEqual(parseRecord(mine.toJson()).toDict(), mine.toDict());
  });
  for (const list of records) assert.ok(auditRecords(list).every((result) => result.ok));
  const over = events.map((list) => list.filter((e) => e.kind === "MatchOver"));
  assert.equal(over[0]!.length, 1);
  assert.deepEqual(over[0], over[1]);
});

test("the re-send timer waits, doubles up to its longest wait, and refuses a bad timing", () => {
  const host = new Session("host", SECRET, STANDARD, source(4), HOST_ID); // its peer's contribution has not come
  host.dataToSend();
  assert.throws(() => host.setResendTiming(0, 1), MalformedInput);
  assert.throws(() => host.setResendTiming(3, 2), MalformedInput);
  host.setResendTiming(1, 4);
  const fired = [0, 1, 2, 3, 4, 6, 7, 10, 11, 14, 15].filter((now) => host.poll(now));
  assert.deepEqual(fired, [1, 3, 7, 11, 15]); // after 1, 2, 4, then 4 (the longest) each time
  assert.equal(host.dataToSend().length, 5); // the offer each time: nothing can be sealed yet
});

/** A second shuffler that duplicates the dealer's hand into its own (issue 19's cheat), signing what it sends;
 * `after` "abort": it sends an abort at once. */
class Duplicator extends Session {
  after = "";
  cheated = false;

  protected override send(msgType: string, fields: Fields, version = wire.PROTOCOL_VERSION): void {
    const n = fields.find(([k]) => k === "n")?.[1];
    if (msgType !== "deck" || n !== 2 || this.cheated) return super.send(msgType, fields, version);
    const flow = (this as unknown as { flow: { hand: HandState; keys: { signer: cosign.Signer } } }).flow;
    const hs = flow.hand;
    const m1 = hs.messages[0]!;
    const source = [...hs.mine.permutation];
    for (let own = 0; own < 20; own += 2) source[own] = source[own + 1]!; // its cards: the dealer's
    const deck = source.map((src, j) => g.encode(g.mul(g.decode(m1[src]!), hs.mine.positionKeys[j]!)));
    const ctx = fd.context(hs.matchId, hs.number);
    const proof = sp.proofToBytes(sp.prove(ctx, m1, deck, hs.mine.permutation, hs.mine.positionKeys, hs.mine.nonceKey));
    const sig = flow.keys.signer.sign(cosign.message2Digest(this.seat, ctx, m1, deck, proof));
    this.cheated = true;
    super.send("deck", [["h", hs.number], ["n", 2], ["deck", deck], ["proof", sp.words(proof)], ["sig", sig]]);
    if (this.after === "abort") super.send("abort", [["why", "timeout"], ["field", "deck"], ["reason", "gone"]]);
  }
}

test("a duplicating second shuffler is a proven cheat every time, with evidence anyone can check", () => {
  for (const [seed, after] of [[21, ""], [23, "abort"], [25, ""]] as const) {
    const host = new Duplicator("host", SECRET, STANDARD, source(seed), HOST_ID);
    const guest = new Duplicator("guest", SECRET, null, source(seed + 1), GUEST_ID);
    host.after = guest.after = after;
    pump(host, guest);
    const [honest, cheater] = host.cheated ? [guest, host] : [host, guest];
    const failure = honest.failure;
    assert.ok(failure instanceof CheatDetected && failure.proven, `seed ${seed}`);
    assert.equal(failure.who, cheater.role);
    assert.equal(failure.field, "proof");
    assert.match(failure.reason, /^message 2 is not proven a shuffle of message 1: /);
    assert.equal(cheater.observation(), null); // it never saw a card of the hand
    const evidence = failure.record;
    assert.ok(evidence instanceof DealEvidence);
    const parsed = parseFile(evidence.toJson());
    assert.ok(parsed instanceof DealEvidence && parsed.toJson() === evidence.toJson());
    assert.deepEqual(auditEvidence(parsed).findings.map((f) => [f.who, f.where]), [[cheater.role, "proof"]]);
  }
});

/** A peer whose messages say protocol `version` (2: as v2 code packs them). */
class OtherVersion extends Session {
  version = 3;
  protected override send(msgType: string, fields: Fields): void {
    super.send(msgType, fields, this.version);
  }
}

for (const older of [2, 3]) {
  test(`a v${older} hello meets a v4 peer cleanly: nobody at fault, each side told who must update`, () => {
    const host = new OtherVersion("host", SECRET, STANDARD, source(31), HOST_ID);
    host.version = older;
    const guest = new Session("guest", SECRET, null, source(32), GUEST_ID);
    for (let round = 0; round < 6; round++) {
      for (const frame of host.dataToSend()) if (!guest.over) guest.receive(frame);
      for (const frame of guest.dataToSend()) if (!host.over) host.receive(frame);
    }
    const failure = guest.failure;
    assert.ok(failure instanceof VersionMismatch && !failure.proven);
    assert.deepEqual([failure.who, failure.field], ["nobody", "v"]);
    assert.equal(failure.reason, `your friend's gin speaks protocol ${older}; this gin speaks 4: your friend must update gin to play this match`);
    assert.ok(!guest.events().some((e) => e.kind === "MatchOver"));
    // The host (a v4 session speaking the older protocol here) received the guest's abort in it.
    const log = (roundTrip(host).get("log") as Value[][]).filter((e) => e[0] === "in");
    const abort = wire.unpack(log[log.length - 1]![1] as Uint8Array, undefined, [older]);
    assert.deepEqual([abort.type, abort.version, abort.text("why", 16), abort.text("field", 64)], ["abort", older, "protocol", "v"]);
    assert.equal(abort.text("reason", 400), `this gin speaks protocol 4, yours speaks ${older}: you must update gin to play this match`);
  });
}
