// Hand records and co-signing in TypeScript: protocol.md §13's session and
// hand-signature vectors, Ed25519 as gin's (OpenSSL's) verification decides, the
// strict JSON reader, and what the conformance corpus does not reach (the size
// limit, bytes input, records made here). The corpus compares records of whole
// matches, their digests and refusals with gin/ case by case.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Pass } from "../src/engine/actions.ts";
import { MalformedInput } from "../src/engine/errors.ts";
import { PyFloat } from "../src/engine/pyrepr.ts";
import { STANDARD } from "../src/engine/rules.ts";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import * as cosign from "../src/protocol/records/cosign.ts";
import * as fd from "../src/protocol/deal/fairdeal.ts";
import { JsonSyntaxError, MAX_DEPTH, parsePyJson } from "../src/protocol/records/strict_json.ts";
import { Identity } from "../src/protocol/records/identity.ts";
import { MAX_RECORD_BYTES } from "../src/protocol/records/envelope.ts";
import { HandRecord, parseRecord, Score, Step } from "../src/protocol/records/records.ts";
import { auditRecord } from "../src/protocol/records/audit.ts";
import { auditReport } from "../src/protocol/records/audit_report.ts";
import { NOT_A_RECORD } from "../src/protocol/records/audit_text.ts";
import { DealEvidence, parseFile } from "../src/protocol/records/evidence.ts";
import * as g from "../src/protocol/deal/group.ts";
import * as sp from "../src/protocol/deal/shuffle_proof.ts";
import { range, vector } from "./protocol_vectors.ts";

const FIRST = fd.SeedMaterial.fromSeed(range(0, 32));
const SECOND = fd.SeedMaterial.fromSeed(range(32, 64));
const HOST = new cosign.Signer(range(32, 64));
const GUEST = new cosign.Signer(range(64, 96));
const IDS = [new Identity(range(128, 160)), new Identity(range(160, 192))] as const;
const TRANSCRIPT = /```transcript\n(.*)\n```/.exec(
  readFileSync(new URL("../../../protocol.md", import.meta.url), "utf8"))![1]!;

/** The hand of protocol.md §13's hand-signature vectors: both pass, a dead hand (not a replayable one). */
function vectorRecord(): HandRecord {
  const matchId = hexToBytes(vector("hand_match_id"));
  const m1 = fd.buildMessage1(FIRST);
  const [m2, proof] = fd.buildMessage2(SECOND, m1, fd.context(matchId, 1));
  const unsigned = new HandRecord({
    rules: STANDARD,
    matchId,
    handNumber: 1,
    dealer: 0,
    commitments: [fd.commitment(FIRST.seed, matchId, 1, "first"), fd.commitment(SECOND.seed, matchId, 1, "second")],
    messages: [m1, m2, fd.buildMessage3(FIRST, m2)],
    proof: fd.proofDigest(proof),
    steps: [new Step(0, null, [[1, FIRST.positionKeys[1]!]]), new Step(1, null, [[0, SECOND.positionKeys[0]!]]),
      new Step(1, new Pass()), new Step(0, new Pass())],
    seeds: [FIRST.seed, SECOND.seed],
    score: new Score("dead", null, null, 0),
    scores: [0, 0],
    linkId: cosign.linkIdFor(range(0, 32)),
    signingKeys: [HOST.public, GUEST.public],
    // Who played: the session vectors' identities (the hand digest does not cover them).
    identities: [IDS[0].public, IDS[1].public],
    vouches: [IDS[0].vouch(cosign.linkIdFor(range(0, 32)), 0, HOST.public, new Uint8Array(0)),
      IDS[1].vouch(cosign.linkIdFor(range(0, 32)), 1, GUEST.public, new Uint8Array(0))],
  });
  return unsigned.with({ signatures: [HOST.sign(cosign.seatSigned(unsigned, 0)), GUEST.sign(cosign.seatSigned(unsigned, 1))] });
}

const RECORD = vectorRecord();

test("session vectors: the link id, both signing keys and the match id they make with both identities", () => {
  assert.equal(bytesToHex(cosign.linkIdFor(range(0, 32))), vector("session_link_id"));
  assert.equal(bytesToHex(HOST.public), vector("session_host_key"));
  assert.equal(bytesToHex(GUEST.public), vector("session_guest_key"));
  const ids: [Uint8Array, Uint8Array] = [new Identity(range(128, 160)).public, new Identity(range(160, 192)).public];
  assert.equal(bytesToHex(cosign.matchIdFor(cosign.linkIdFor(range(0, 32)), [HOST.public, GUEST.public], ids,
    new Uint8Array(0))), vector("session_match_id"));
  assert.throws(() => cosign.matchIdFor(range(0, 15), [HOST.public, GUEST.public], ids, new Uint8Array(0)),
    MalformedInput);
  assert.throws(() => cosign.matchIdFor(range(0, 16), [HOST.public, GUEST.public], ids, new Uint8Array(3)),
    MalformedInput);
  assert.throws(() => new cosign.Signer(range(0, 31)), /a signing key seed is 32 bytes/);
  assert.equal(String(HOST), "Signer(<secret>)");
});

test("hand-signature vectors: the transcript, the digest and both signatures byte for byte", () => {
  assert.equal(cosign.canonicalJson(cosign.transcript(RECORD)), TRANSCRIPT);
  const digest = cosign.handDigest(RECORD);
  assert.equal(bytesToHex(digest), vector("hand_digest"));
  assert.equal(bytesToHex(RECORD.signatures[0]), vector("hand_signature_host"));
  assert.equal(bytesToHex(RECORD.signatures[1]), vector("hand_signature_guest"));
  // Each side signs the digest followed by its own seed (the host deals: the first seed is its).
  const hosts = cosign.seatSigned(RECORD, 0);
  assert.equal(bytesToHex(hosts), bytesToHex(digest) + bytesToHex(RECORD.seeds[0]));
  assert.ok(cosign.verify(HOST.public, hosts, RECORD.signatures[0]));
  assert.ok(cosign.verify(GUEST.public, cosign.seatSigned(RECORD, 1), RECORD.signatures[1]));
  assert.ok(!cosign.verify(GUEST.public, hosts, RECORD.signatures[0]));
  assert.ok(!cosign.verify(HOST.public, digest, RECORD.signatures[0]));
});

test("message 2's signed digest: the vector of hand 1 of the hand vectors' match", () => {
  const matchId = hexToBytes(vector("hand_match_id"));
  const ctx = fd.context(matchId, 1);
  const m1 = fd.buildMessage1(FIRST);
  const [m2, proof] = fd.buildMessage2(SECOND, m1, ctx);
  const digest = cosign.message2Digest(1, ctx, m1, m2, proof);
  assert.equal(bytesToHex(digest), vector("message2_digest"));
  assert.equal(bytesToHex(GUEST.sign(digest)), vector("message2_signature_guest"));
  assert.notEqual(bytesToHex(cosign.message2Digest(0, ctx, m1, m2, proof)), vector("message2_digest"));
});

test("the digest does not depend on the order the deal's keys were processed in", () => {
  const [a, b, ...rest] = RECORD.steps;
  const swapped = RECORD.with({ steps: [b!, a!, ...rest] });
  assert.equal(bytesToHex(cosign.handDigest(swapped)), vector("hand_digest"));
  assert.ok(!swapped.equals(RECORD));
  const moved = RECORD.with({ steps: [a!, b!, rest[1]!, rest[0]!] }); // the actions' order counts
  assert.notEqual(bytesToHex(cosign.handDigest(moved)), vector("hand_digest"));
});

const le32 = (value: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));
const IDENTITY = le32(1n);
const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

test("Ed25519 verification decides as gin's (OpenSSL's) on the edge cases", () => {
  const m = utf8ToBytes("m");
  const sig = new cosign.Signer(new Uint8Array(32)).sign(m);
  // gin: Signer(bytes(32)).sign(b"m")
  assert.equal(bytesToHex(sig), "a7d2b316acb308e44ba5be4fa0cf2b7ab249c6d1748430d5350cffc1d34b8324"
    + "794eedf65b07ca805d5d9bdb8adf9304ff07b4303111f17a8278743773af1c0f");
  const pub = new cosign.Signer(new Uint8Array(32)).public;
  const s = sig.subarray(32).reduceRight((v, b) => (v << 8n) | BigInt(b), 0n);
  // Each verdict below is what gin.protocol.records.cosign.verify answers for the same bytes.
  assert.equal(cosign.verify(pub, m, concatBytes(sig.subarray(0, 32), le32(s + L))), false); // S not reduced
  assert.equal(cosign.verify(IDENTITY, m, concatBytes(IDENTITY, new Uint8Array(32))), true); // a small-order key
  assert.equal(cosign.verify(le32(1n + P), m, concatBytes(IDENTITY, new Uint8Array(32))), true); // A not canonical
  assert.equal(cosign.verify(IDENTITY, m, concatBytes(le32(1n + P), new Uint8Array(32))), false); // R not canonical
  // R with a small-order component: the cofactored check (noble's own verify) accepts it, gin refuses.
  assert.equal(cosign.verify(
    hexToBytes("ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"), utf8ToBytes("digest"),
    hexToBytes("40a4cf5c611d737a2f1c6fcca84d9cabfed80987f186a5a6c57e629bff1af27f"
      + "52646ce9dfa2d9c78d7a860c63cc7ad7199711348ab124b931caa7f1406ebb07")), false);
});

test("verification is false, never a throw, on garbage", () => {
  const digest = cosign.handDigest(RECORD);
  const good = RECORD.signatures[0];
  for (const [pub, sig] of [
    [new Uint8Array(31), good], [HOST.public, good.subarray(1)], [new Uint8Array(32).fill(0xff), good],
    [hexToBytes("02" + "00".repeat(31)), good], [HOST.public, new Uint8Array(64).fill(0xff)], [new Uint8Array(0), new Uint8Array(0)],
  ] as const) {
    assert.equal(cosign.verify(pub, digest, sig), false);
  }
  assert.equal(cosign.verify("x" as unknown as Uint8Array, digest, good), false);
});

test("a record written and read again is the same record, as text and as bytes", () => {
  const text = RECORD.toJson();
  assert.ok(text.endsWith("}\n") && text.startsWith('{\n "format": "gin-hand-record",\n "version": 4,'));
  assert.ok(parseRecord(text).equals(RECORD));
  assert.ok(parseRecord(new TextEncoder().encode(text)).equals(RECORD));
  const upper = text.replace(`"${bytesToHex(RECORD.linkId)}"`, `"${bytesToHex(RECORD.linkId).toUpperCase()}"`);
  assert.ok(upper !== text && parseRecord(upper).equals(RECORD)); // gin's bytes.fromhex reads upper case too
  assert.equal(RECORD.roleOf(0), "first");
  assert.equal(RECORD.seatOf("second"), 1);
  assert.ok(Object.isFrozen(RECORD) && Object.isFrozen(RECORD.steps[0]!.keys[0]));
});

test("parseRecord refuses what is too big, not UTF-8 or not JSON, naming it", () => {
  assert.throws(() => parseRecord("x".repeat(MAX_RECORD_BYTES + 1)),
    { message: `hand record: ${MAX_RECORD_BYTES + 1} bytes, more than ${MAX_RECORD_BYTES}` });
  // Python's len() of text counts code points, not UTF-16 units.
  assert.throws(() => parseRecord("😀".repeat(MAX_RECORD_BYTES / 2 + 1)), /not JSON/);
  assert.throws(() => parseRecord(Uint8Array.of(0x7b, 0xff, 0x7d)), { message: "hand record: not JSON (not UTF-8 text)" });
  assert.throws(() => parseRecord(""), (exc: Error) => exc instanceof MalformedInput && /^hand record: not JSON \(/.test(exc.message));
});

test("a record's hex with whitespace is refused (gin's bytes.fromhex would skip it)", () => {
  const text = RECORD.toJson().replace(`"${bytesToHex(RECORD.linkId)}"`, `"${bytesToHex(RECORD.linkId).slice(0, 30)} 0"`);
  assert.throws(() => parseRecord(text), { message: "hand record: record.link: not hexadecimal" });
});

test("deep nesting is not a record, in gin's words and before parsing", () => {
  // gin/ once met 100,000 brackets with a RecursionError; both now refuse past 64.
  const cases: [string | Uint8Array, number][] = [
    ["[".repeat(100_000) + "]".repeat(100_000), 64], ["[".repeat(65) + "]".repeat(65), 64],
    ['{"a": '.repeat(65) + "1" + "}".repeat(65), 64 * 6], [utf8ToBytes("[".repeat(100_000)), 64],
    ['["]\\\\", ' + "[".repeat(70), 71], ['"é😀" ' + "[".repeat(70), 69],
  ];
  for (const [text, at] of cases) {
    assert.throws(() => parseRecord(text), {
      message: `hand record: not JSON (more than 64 arrays and objects nested at char ${at})`,
    });
  }
  assert.throws(() => parseRecord("[".repeat(64) + "]".repeat(64)), { message: "hand record: record: expected an object, got list" });
  // A backslash keeps the string open: brackets after it are inside the string.
  assert.throws(() => parseRecord('["]\\", ' + "[".repeat(70)), (exc: Error) => !exc.message.includes("nested"));
});

test("Python's JSON: integers, floats and objects kept as Python loads them", () => {
  const value = parsePyJson('{"a": 12345678901234567890, "b": 1.0, "c": -0, "d": 1e2, "e": [NaN, -Infinity, "\\ud83d\\ude00"]}');
  assert.ok(value instanceof Map);
  assert.deepEqual([...value.keys()], ["a", "b", "c", "d", "e"]);
  assert.throws(() => parsePyJson('{"a": 1, "a": 2}'), JsonSyntaxError); // Python would keep the last
  assert.equal(value.get("a"), 12345678901234567890n);
  assert.equal(String(value.get("b")), "1.0");
  assert.equal(value.get("c"), 0n);
  assert.ok(value.get("d") instanceof PyFloat);
  const list = value.get("e") as [PyFloat, PyFloat, string];
  assert.deepEqual([String(list[0]), String(list[1]), list[2]], ["nan", "-inf", "😀"]);
  for (const bad of ["", "01", "[1,]", "{'a': 1}", '"a\tb"', '"\\x"', "1 2", "\ufeff1", "+1", ".5", "1.", "[".repeat(MAX_DEPTH + 2)]) {
    assert.throws(() => parsePyJson(bad), JsonSyntaxError, JSON.stringify(bad));
  }
  assert.throws(() => parsePyJson("1".repeat(4301)), JsonSyntaxError);
  assert.equal(parsePyJson("1".repeat(4300)), BigInt("1".repeat(4300)));
});

test("Python's repr of floats, as gin's messages show them", () => {
  const cases: [number, string][] = [[1, "1.0"], [1.5, "1.5"], [1e16, "1e+16"], [1e15, "1000000000000000.0"],
    [1e-5, "1e-05"], [1e-4, "0.0001"], [123456789012345678, "1.2345678901234568e+17"], [-0, "-0.0"], [-2.5e-7, "-2.5e-07"],
    [0.1, "0.1"], [Infinity, "inf"]];
  for (const [x, text] of cases) assert.equal(String(new PyFloat(x)), text);
});

test("records are read strictly (issue 26 item 5): a repeated key, and JSON refused in gin's words and places", () => {
  for (const [text, why] of [
    ['{"a" 1}', "expecting ':' (char 5)"],
    ['{"a": 1,}', "expecting a property name in double quotes (char 8)"],
    ['["😀😀", x]', "expecting a value (char 7)"],
    ['{"x": 1, "x": 2}', "a key repeats in its object (char 9)"],
  ] as const) {
    assert.throws(() => parseRecord(text), (exc: unknown) => exc instanceof MalformedInput && exc.message === `hand record: not JSON (${why})`);
  }
});

// --- issue 26 item 1: a record's points and keys are read as their one encoding ---------

const NOT_ELEMENT = "not a ristretto255 element other than the identity";
const resigned = (record: HandRecord): HandRecord =>
  record.with({ signatures: [HOST.sign(cosign.seatSigned(record, 0)), GUEST.sign(cosign.seatSigned(record, 1))] });
const topBit = (point: Uint8Array): Uint8Array => Uint8Array.from(point, (b, i) => (i === 31 ? b | 0x80 : b));

test("a record with a point not its one encoding is refused at parse, naming its field once (issue 26)", () => {
  // It parsed, and the audit blamed the signatures or the sender, naming the field twice.
  const entry = RECORD.messages[1][3]!;
  const edges: [string, Uint8Array][] = [["top bit", topBit(entry)], ["p", le32(2n ** 255n - 19n)],
    ["identity", new Uint8Array(32)], ["odd", Uint8Array.from(entry, (b, i) => (i === 0 ? b ^ 1 : b))]];
  for (const message of [0, 1, 2]) {
    for (const [edge, data] of edges) {
      const messages = [...RECORD.messages] as [fd.Deck, fd.Deck, fd.Deck];
      messages[message] = messages[message].map((x, i) => (i === 3 ? data : x));
      const text = resigned(RECORD.with({ messages })).toJson();
      const words = `hand record: record.messages.message${message + 1}[3]: ${NOT_ELEMENT}`;
      assert.throws(() => parseRecord(text), (exc: unknown) => exc instanceof MalformedInput && exc.message === words,
        `message${message + 1}: ${edge}`);
      const report = auditReport([{ name: "spoiled.json", data: utf8ToBytes(text) }]);
      assert.equal(report.status, NOT_A_RECORD);
      assert.deepEqual(report.errors, [`gin audit: spoiled.json: ${words}`]);
    }
  }
});

test("a record with a key not reduced modulo L is refused at parse (issue 26)", () => {
  const [position, key] = RECORD.steps[0]!.keys[0]!;
  for (const value of [g.L, 2n ** 256n - 1n, key + g.L]) {
    const steps = [new Step(0, null, [[position, value]]), ...RECORD.steps.slice(1)];
    assert.throws(() => parseRecord(resigned(RECORD.with({ steps })).toJson()), (exc: unknown) =>
      exc instanceof MalformedInput && exc.message === "hand record: record.steps[0].keys[0][1]: scalar is not reduced modulo L");
  }
  assert.ok(parseRecord(RECORD.toJson()).equals(RECORD));
});

test("a finding names its field once (issue 26)", () => {
  // It said "message3[8]: message3[8]: repeats position 7": the deck check's words began
  // with the field, and the finding put it before them again.
  const m3 = RECORD.messages[2];
  const repeated = resigned(RECORD.with({ messages: [RECORD.messages[0], RECORD.messages[1],
    m3.map((x, i) => (i === 8 ? m3[7]! : x))] }));
  // The vectors' match id is not bound to its keys, so the host's signature proves
  // nothing and its deviation is listed as what it did not sign, its field said once.
  const result = auditRecord(parseRecord(repeated.toJson()));
  assert.ok(result.unproven.includes("message3[8]: repeats position 7, which the host did not sign"),
    result.unproven.join("; "));
  const evidence = { matchId: RECORD.matchId, handNumber: 1, firstSeed: RECORD.seeds[0], secondSeed: RECORD.seeds[1],
    firstCommitment: RECORD.commitments[0], secondCommitment: RECORD.commitments[1], message1: RECORD.messages[0],
    message2: RECORD.messages[1], message3: repeated.messages[2], revealedKeys: [] };
  assert.deepEqual(fd.auditHand(evidence).deviations.map(String), ["first shuffler, message3[8]: repeats position 7"]);
  const m2 = RECORD.messages[1];
  const ctx = fd.context(RECORD.matchId, 1);
  const bad = m2.map((x, i) => (i === 45 ? topBit(x) : x));
  assert.deepEqual(fd.message2Refusal(ctx, RECORD.messages[0], bad, new Uint8Array(sp.PROOF_BYTES)),
    ["message2[45]", NOT_ELEMENT]);
  assert.throws(() => fd.validateMessage(bad, "message2"), (exc: unknown) => exc instanceof fd.MalformedDeck
    && exc.where === "message2[45]" && exc.reason === NOT_ELEMENT && exc.message === `message2[45]: ${NOT_ELEMENT}`);
});

// --- issue 26 item 5: evidence and abandonment records that repeat a key ----------------

test("deal evidence that repeats a key is refused in deal evidence's words, not a hand record's (issue 26)", () => {
  const evidence = new DealEvidence({ matchId: RECORD.matchId, handNumber: 1, dealer: 0,
    message1: RECORD.messages[0], message2: RECORD.messages[1], proof: new Uint8Array(sp.PROOF_BYTES),
    signature: new Uint8Array(64), linkId: RECORD.linkId, signingKeys: RECORD.signingKeys,
    identities: RECORD.identities, vouches: RECORD.vouches, previous: null });
  const good = evidence.toJson();
  assert.ok(parseFile(good) instanceof DealEvidence);
  for (const [old, repeated] of [['"hand": ', '"hand": 0, "hand": '], ['"guest": ', '"guest": 1, "guest": '],
    ['"format": ', '"format": "gin-hand-record", "format": ']]) {
    const spoiled = good.replace(old!, repeated!);
    const place = spoiled.indexOf(repeated!) + repeated!.length - old!.length;
    assert.throws(() => parseFile(spoiled), (exc: unknown) => exc instanceof MalformedInput
      && exc.message === `deal evidence: not JSON (a key repeats in its object (char ${place}))`, repeated);
  }
  // The last format counts; text that is not JSON is worded as a hand record's.
  assert.throws(() => parseFile(good.replace('"version": ', '"format": "gin-hand-record", "version": ')),
    /: hand record: not JSON \(a key repeats/);
  assert.throws(() => parseFile(good.slice(0, -3)), /: hand record: not JSON \(expecting/);
});
