/**
 * Conformance checks for the protocol's building blocks (cases written by
 * gin/conformance/protocol_cases.py, records_cases.py and evidence_cases.py): `unpack` —
 * gin.protocol.wire.channel.unpack's verdict on a byte string and what it decodes to; `deck` —
 * one hand's deck computations from two seeds, message 2's proof bytes included.
 * Each check returns null when the TypeScript twin gives exactly what gin/ gave,
 * or a sentence saying what differs. `channel` — two sealed channels over a hostile
 * relay: every frame sent, message delivered and fault, in order; `shuffle_proof` —
 * message 2 and its proof checked (honest, issue 19's duplicating second shuffler and
 * other forgeries): every verdict, word for word;
 * `audit` — the hand-end audit of a tampered hand: every deviation, word for word;
 * `record` — a hand record of a whole local online match: parsed and written again
 * to the same text, its transcript and digest, and each signature's verdict;
 * `record_audit` / `record_chain` — the audit of a record (tampered or honest, alone
 * or after the hand before) or of several together: every finding and what is
 * unproven, word for word, and the hand told as text; `record_text` — parseRecord's verdict on a text: the
 * record written again, or gin's refusal word for word (a text that is not JSON
 * too); `evidence` — a failed proof's evidence:
 * parsed and written again, and its audit's findings, or the refusal word for word;
 * `abandonment` — an abandonment record, audited after the hand records given: written
 * again, its digest, its words, findings and what is unproven, or the refusal word for word;
 * `audit_report` — what gin audit prints for a set of files and its exit status.
 */

import { MalformedInput, PeerFault } from "../src/engine/errors.ts";
import { AbandonmentRecord } from "../src/protocol/records/abandonment.ts";
import { type AuditResult, auditEvidence, auditRecord, auditRecords } from "../src/protocol/records/audit.ts";
import { auditReport } from "../src/protocol/records/audit_report.ts";
import { EXIT_STATUSES } from "../src/protocol/records/audit_text.ts";
import * as cosign from "../src/protocol/records/cosign.ts";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { DealEvidence, parseFile } from "../src/protocol/records/evidence.ts";
import * as fd from "../src/protocol/deal/fairdeal.ts";
import * as g from "../src/protocol/deal/group.ts";
import * as msgpack from "../src/protocol/wire/msgpack.ts";
import { Float, type Value } from "../src/protocol/wire/msgpack.ts";
import { SESSION_CHECKS } from "./session_checks.ts";
import { parseRecord } from "../src/protocol/records/records.ts";
import { ChannelFault, MalformedMessage, SealedChannel, type Side, unpack } from "../src/protocol/wire/channel.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type CaseObject = { [key: string]: Json };

function str(c: CaseObject, name: string): string {
  const value = c[name];
  if (typeof value !== "string") throw new MalformedInput(`case field '${name}' must be text`);
  return value;
}

const show = (x: unknown): string => JSON.stringify(x);

function same(name: string, expected: unknown, actual: unknown): string | null {
  return show(expected) === show(actual) ? null : `${name}: expected ${show(expected)}, the TS side gives ${show(actual)}`;
}

/** The flat pre-order tokens of gin/conformance/protocol_cases.py's `tokens`. */
export function tokens(value: Value): Json[] {
  const out: Json[] = [];
  const stack: Value[] = [value];
  while (stack.length) {
    const item = stack.pop()!;
    if (item === null) out.push(["nil"]);
    else if (typeof item === "boolean") out.push(["bool", item]);
    else if (typeof item === "number" || typeof item === "bigint") out.push(["int", String(item)]);
    else if (item instanceof Float) {
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, item.value);
      out.push(["float", Number.isNaN(item.value) ? "nan" : bytesToHex(new Uint8Array(view.buffer))]);
    } else if (typeof item === "string") out.push(["str", item]);
    else if (item instanceof Uint8Array) out.push(["bin", bytesToHex(item)]);
    else if (Array.isArray(item)) {
      out.push(["array", item.length]);
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]!);
    } else {
      out.push(["map", item.size]);
      const pairs = [...item];
      for (let i = pairs.length - 1; i >= 0; i--) stack.push(pairs[i]![1], pairs[i]![0]);
    }
  }
  return out;
}

function checkUnpack(c: CaseObject): string | null {
  const data = hexToBytes(str(c, "data"));
  let message;
  try {
    message = unpack(data);
  } catch (exc) {
    if (!(exc instanceof MalformedMessage)) throw exc;
    if (!("error_field" in c)) return `gin/ accepts ${str(c, "data").slice(0, 60)}…, the TS side refuses it: ${exc.message}`;
    return same("refusal field", c.error_field, exc.field)
      ?? ("error" in c ? same("refusal", c.error, exc.message) : null);
  }
  if ("error_field" in c) return `gin/ refuses ${str(c, "data").slice(0, 60)}…, the TS side accepts it`;
  const canonical = bytesToHex(msgpack.encode(new Map(message.fields))) === str(c, "data");
  return same("type", c.type, message.type)
    ?? same("version", c.version, message.version)
    ?? same("fields", c.fields, tokens(new Map(message.fields)))
    ?? ("canonical" in c ? same("re-encoding is the input", c.canonical, canonical) : null);
}

const hexKey = (k: bigint): string => bytesToHex(fd.keyBytes(k));

function checkDeck(c: CaseObject): string | null {
  const first = fd.SeedMaterial.fromSeed(hexToBytes(str(c, "first_seed")));
  const second = fd.SeedMaterial.fromSeed(hexToBytes(str(c, "second_seed")));
  const matchId = hexToBytes(str(c, "match_id"));
  const hand = c.hand as number;
  const m1 = fd.buildMessage1(first);
  const [m2, proofBytes] = fd.buildMessage2(second, m1, fd.context(matchId, hand));
  const m3 = fd.buildMessage3(first, m2);
  const wrong = c.wrong_key as { position: number; key: string; blame: Json };
  let blame: Json = null;
  try {
    fd.openCard(m3, wrong.position, first.positionKeys[wrong.position]!, fd.keyFromBytes(hexToBytes(wrong.key)), "second");
  } catch (exc) {
    if (!(exc instanceof PeerFault)) throw exc;
    blame = [exc.who, exc.field, exc.message];
  }
  return same("card points", c.card_points, g.cardPoints().map(g.encode).map(bytesToHex))
    ?? same("generator H", c.generator_h, g.generatorH().toHex())
    ?? same("first permutation", c.first_permutation, first.permutation)
    ?? same("second permutation", c.second_permutation, second.permutation)
    ?? same("first deck key", c.first_deck_key, hexKey(first.deckKey))
    ?? same("second deck key", c.second_deck_key, hexKey(second.deckKey))
    ?? same("first position keys", c.first_position_keys, first.positionKeys.map(hexKey))
    ?? same("second position keys", c.second_position_keys, second.positionKeys.map(hexKey))
    ?? same("nonce keys", c.nonce_keys, [bytesToHex(first.nonceKey), bytesToHex(second.nonceKey)])
    ?? same("commitments", c.commitments, [
      bytesToHex(fd.commitment(first.seed, matchId, hand, "first")),
      bytesToHex(fd.commitment(second.seed, matchId, hand, "second")),
    ])
    ?? same("messages", c.messages, [m1, m2, m3].map((m) => m.map(bytesToHex)))
    ?? same("proof", c.proof, bytesToHex(proofBytes))
    ?? same("deck", c.deck, fd.deckOrder(first.permutation, second.permutation))
    ?? same("opened deck", c.deck, m3.map((_, k) =>
      fd.openCard(m3, k, first.positionKeys[k]!, second.positionKeys[k]!, "second")))
    ?? same("wrong key blame", wrong.blame, blame);
}

const hexes = (frames: Uint8Array[]): string[] => frames.map(bytesToHex);

function checkChannel(c: CaseObject): string | null {
  const secret = hexToBytes(str(c, "secret"));
  const sides: Record<Side, SealedChannel> = {
    host: new SealedChannel(secret, "host", hexToBytes(str(c, "host_epoch"))),
    guest: new SealedChannel(secret, "guest", hexToBytes(str(c, "guest_epoch"))),
  };
  const steps = c.steps as Json[][];
  for (const [i, step] of steps.entries()) {
    const [op, side] = step as [string, Side];
    const channel = sides[side];
    const at = `step ${i} (${op} at the ${side})`;
    let why: string | null;
    if (op === "offer") why = same(at, step[2], [bytesToHex(channel.offer())]);
    else if (op === "resend") why = same(at, step[2], hexes(channel.resend()));
    else if (op === "send") why = same(at, step[3], hexes(channel.send(hexToBytes(step[2] as string))));
    else if (op === "receive") {
      let outcome: Json[];
      try {
        const got = channel.receive(hexToBytes(step[2] as string));
        outcome = [got.message === null ? null : bytesToHex(got.message), hexes(got.replies)];
      } catch (exc) {
        if (!(exc instanceof ChannelFault)) throw exc;
        outcome = [{ fault: exc.name, who: exc.who, field: exc.field, text: exc.message, proven: exc.proven }];
      }
      why = same(at, step.slice(3), outcome);
    } else throw new MalformedInput(`unknown channel step ${show(op)}`);
    if (why) return why;
  }
  return same("hash chains", c.digests, {
    host: [bytesToHex(sides.host.sentDigest), bytesToHex(sides.host.receivedDigest)],
    guest: [bytesToHex(sides.guest.sentDigest), bytesToHex(sides.guest.receivedDigest)],
  });
}

type ProofCheck = [string, string[] | null, string, [string, string] | null];

function checkProof(c: CaseObject): string | null {
  const first = fd.SeedMaterial.fromSeed(hexToBytes(str(c, "first_seed")));
  const second = fd.SeedMaterial.fromSeed(hexToBytes(str(c, "second_seed")));
  const ctx = hexToBytes(str(c, "context"));
  const m1 = fd.buildMessage1(first);
  const [m2, proofBytes] = fd.buildMessage2(second, m1, ctx);
  const why = same("honest proof", c.proof, bytesToHex(proofBytes));
  if (why) return why;
  for (const [name, message2, data, verdict] of c.checks as ProofCheck[]) {
    const got = fd.message2Refusal(ctx, m1, message2 === null ? m2 : message2.map(hexToBytes), hexToBytes(data));
    const differ = same(`verdict (${name})`, verdict, got);
    if (differ) return differ;
  }
  return null;
}

function checkAudit(c: CaseObject): string | null {
  const [firstSeed, secondSeed] = (c.seeds as string[]).map(hexToBytes);
  const [firstCommitment, secondCommitment] = (c.commitments as string[]).map(hexToBytes);
  const [message1, message2, message3] = (c.messages as string[][]).map((m) => m.map(hexToBytes));
  const report = fd.auditHand({
    matchId: hexToBytes(str(c, "match_id")), handNumber: c.hand as number,
    firstSeed: firstSeed!, secondSeed: secondSeed!,
    firstCommitment: firstCommitment!, secondCommitment: secondCommitment!,
    message1: message1!, message2: message2!, message3: message3!,
    revealedKeys: (c.keys as [fd.Role, number, string][]).map(([role, position, key]) =>
      [role, position, fd.keyFromBytes(hexToBytes(key))] as [fd.Role, number, bigint]),
    proof: c.proof === null ? null : hexToBytes(str(c, "proof")),
    trust: c.trust as fd.Role | null,
  });
  return same(`deviations (${String(c.tampering)})`, c.deviations,
    report.deviations.map((d) => [d.role, d.field, d.position, d.detail, String(d)]))
    ?? same("deck", c.deck, report.deck);
}

function checkRecord(c: CaseObject): string | null {
  const text = str(c, "record");
  const record = parseRecord(text);
  const digest = cosign.handDigest(record);
  return same("written again", text, record.toJson())
    ?? same("transcript", c.transcript, cosign.canonicalJson(cosign.transcript(record)))
    ?? same("digest", c.digest, bytesToHex(digest))
    ?? same("signatures", c.signatures,
      [0, 1].map((s) => cosign.verify(record.signingKeys[s]!, cosign.seatSigned(record, s), record.signatures[s]!)));
}

const resultJson = (result: AuditResult): Json => ({
  findings: result.findings.map((f) => [f.who, f.where, f.detail, String(f)]),
  unproven: [...result.unproven],
  replay: [...result.replay],
});

function checkRecordAudit(c: CaseObject): string | null {
  const previous = c.previous === null ? null : parseRecord(str(c, "previous"));
  const result = auditRecord(parseRecord(str(c, "record")), c.trust as number | null, previous);
  return same(`audit (${String(c.name)})`, { findings: c.findings, unproven: c.unproven, replay: c.replay },
    resultJson(result));
}

function checkRecordChain(c: CaseObject): string | null {
  const records = (c.records as string[]).map((text) => parseRecord(text));
  return same(`audit (${String(c.name)})`, c.results, auditRecords(records, c.names as string[] | null).map(resultJson));
}

function checkRecordText(c: CaseObject): string | null {
  const text = str(c, "text");
  let parsed: string;
  try {
    parsed = parseRecord(text).toJson();
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    if ("parsed" in c) return `gin/ reads ${show(text.slice(0, 60))}…, the TS side refuses it: ${exc.message}`;
    return same("refusal", c.error, exc.message);
  }
  if (!("parsed" in c)) return `gin/ refuses ${show(text.slice(0, 60))}…, the TS side reads it`;
  return same("the record read", c.parsed, parsed);
}

type GivenCase = [string, string | null, string];

function checkAuditReport(c: CaseObject): string | null {
  const given = (c.files as GivenCase[]).map(([name, text, unreadable]) =>
    ({ name, data: text === null ? null : new TextEncoder().encode(text), unreadable }));
  const report = auditReport(given);
  const name = String(c.name);
  return same(`errors (${name})`, c.errors, report.errors)
    ?? same(`lines (${name})`, c.lines, report.lines())
    ?? same(`quiet lines (${name})`, c.quiet, report.lines(true))
    ?? same(`status (${name})`, c.status, report.status)
    ?? same(`meaning (${name})`, c.meaning, EXIT_STATUSES.get(report.status));
}

function checkEvidence(c: CaseObject): string | null {
  let parsed;
  try {
    parsed = parseFile(str(c, "text"));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    if (!("error" in c)) return `gin/ reads evidence (${String(c.name)}), the TS side refuses it: ${exc.message}`;
    return same(`refusal (${String(c.name)})`, c.error, exc.message);
  }
  if ("error" in c) return `gin/ refuses evidence (${String(c.name)}), the TS side reads it`;
  if (!(parsed instanceof DealEvidence)) return `the TS side reads evidence (${String(c.name)}) as a hand record`;
  return same(`evidence read (${String(c.name)})`, c.parsed, parsed.toJson())
    ?? same(`audit (${String(c.name)})`, c.findings,
      auditEvidence(parsed).findings.map((f) => [f.who, f.where, f.detail, String(f)]));
}

function checkAbandonment(c: CaseObject): string | null {
  const hands = (c.hands as string[]).map((text) => parseRecord(text));
  let parsed;
  try {
    parsed = parseFile(str(c, "text"));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    if (!("error" in c)) return `gin/ reads the record (${String(c.name)}), the TS side refuses it: ${exc.message}`;
    return same(`refusal (${String(c.name)})`, c.error, exc.message);
  }
  if ("error" in c) return `gin/ refuses the record (${String(c.name)}), the TS side reads it`;
  if (!(parsed instanceof AbandonmentRecord)) return `the TS side reads (${String(c.name)}) as another kind of record`;
  const result = auditRecords([...hands, parsed]).at(-1)!;
  return same(`record read (${String(c.name)})`, c.parsed, parsed.toJson())
    ?? same(`digest (${String(c.name)})`, c.digest, bytesToHex(parsed.digest()))
    ?? same(`words (${String(c.name)})`, c.words, parsed.words())
    ?? same(`audit (${String(c.name)})`, { findings: c.findings, unproven: c.unproven, replay: [c.words] },
      resultJson(result));
}

export const PROTOCOL_CHECKS: Record<string, (c: CaseObject) => string | null> = {
  unpack: checkUnpack,
  deck: checkDeck,
  channel: checkChannel,
  shuffle_proof: checkProof,
  audit: checkAudit,
  ...SESSION_CHECKS,
  record: checkRecord,
  record_audit: checkRecordAudit,
  record_chain: checkRecordChain,
  record_text: checkRecordText,
  evidence: checkEvidence,
  abandonment: checkAbandonment,
  audit_report: checkAuditReport,
};
