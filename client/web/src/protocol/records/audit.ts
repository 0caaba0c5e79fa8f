/**
 * Re-verify a hand record on its own (gin/protocol/records/audit.py, protocol.md §9).
 *
 * The checks: both players' signatures of the hand digest, under the keys the
 * match id is bound to; each seed opens its commitment; each deck message equals
 * what its sender's seed makes of the message it received; every key revealed is
 * the one its revealer's seed derives, and each step reveals exactly the keys the
 * protocol sends there (reveals.ts); every action replays legally through the
 * rules engine on the deck the seeds define; the replayed score equals the
 * recorded one; the match scores after the hand equal those after the hand
 * before plus this hand's result. A failure names the seat at fault (`host` or
 * `guest`; `record` when the record contradicts itself) and where, in exactly
 * gin's words. What the records given cannot prove is listed as unproven, never
 * shown as verified. Deal evidence (evidence.ts: a signed message 2 whose proof
 * failed) is checked by {@link auditEvidence}, an abandonment record (a player's signed
 * word that its peer fell silent) by {@link auditAbandonment}. Each result tells the
 * hand as text, line by line, as `gin audit` prints it (audit_report.ts), and keeps
 * the deck the seeds define, which the board's replay deals from.
 */

import { Card } from "../../engine/cards.ts";
import { Hand } from "../../engine/hand.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import * as abandonment from "./abandonment.ts";
import { AbandonmentRecord } from "./abandonment.ts";
import { equalBytes } from "../bytes.ts";
import * as cosign from "./cosign.ts";
import { DealEvidence } from "./evidence.ts";
import { place } from "./history.ts";
import { bindingRefusal } from "./identity.ts";
import * as fd from "../deal/fairdeal.ts";
import { HandRecord, Score, SEATS, type Step } from "./records.ts";
import { scoresText, scoreText, tell } from "./audit_text.ts";
import { Reveals } from "./reveals.ts";

/** One failed check: `who` is at fault ("host", "guest" or "record"). */
export class Finding {
  constructor(readonly who: string, readonly where: string, readonly detail: string) {
    Object.freeze(this);
  }

  toString(): string {
    return `${this.where}: ${this.detail} (at fault: ${this.who})`;
  }
}

export class AuditResult {
  constructor(
    readonly findings: readonly Finding[],
    /** The hand told line by line (empty if no deck). */
    readonly replay: readonly string[] = [],
    /** What the records given cannot prove, each a sentence: not a failure, and
     * never to be shown as verified. */
    readonly unproven: readonly string[] = [],
    /** The deck the seeds define, by position, that the hand was replayed on
     * (empty when the seeds define none): what a replay of the hand deals from. */
    readonly deck: readonly Card[] = [],
  ) {
    Object.freeze(this);
  }

  get ok(): boolean {
    return this.findings.length === 0;
  }
}

const unsigned = (record: HandRecord): boolean => record.signatures[0].length === 0 && record.signatures[1].length === 0;

/**
 * Check `record` completely. `trustSeat`: a player auditing its own hand skips
 * recomputing its own deck messages (see fairdeal's auditHand).
 *
 * `previous` is the verified record of the hand before in the same match, whose
 * own scores are proven: this hand's rules, dealer and scores must follow from
 * it. Without it the scores of a hand after the first are checked only against
 * what this hand alone shows, and the scores before it are listed as unproven.
 */
export function auditRecord(
  record: HandRecord, trustSeat: number | null = null, previous: HandRecord | null = null,
): AuditResult {
  const [signed, notSigned] = checkSignatures(record);
  const whereKey = keySteps(record);
  const report = fd.auditHand({
    matchId: record.matchId,
    handNumber: record.handNumber,
    firstSeed: record.seeds[0],
    secondSeed: record.seeds[1],
    firstCommitment: record.commitments[0],
    secondCommitment: record.commitments[1],
    message1: record.messages[0],
    message2: record.messages[1],
    message3: record.messages[2],
    revealedKeys: record.steps.flatMap((s) =>
      s.keys.map(([pos, key]) => [record.roleOf(s.seat), pos, key] as [fd.Role, number, bigint])),
    // A player checked the proof on arrival (or made it): only an auditor rebuilds it.
    proof: trustSeat === null ? record.proof : null,
    trust: trustSeat === null ? null : record.roleOf(trustSeat),
  });
  const findings = report.deviations.map((d) =>
    new Finding(SEATS[record.seatOf(d.role)]!, where(d, whereKey), d.detail));
  const [proven, disowned] = signedByTheirSide(findings, signed);
  if (report.deck === null) return new AuditResult([...signed, ...proven], [], [...notSigned, ...disowned]);
  const deck = report.deck.map((c) => Card.fromIndex(c));
  const [hand, replayFindings] = replay(record, deck);
  // With a deviating deck the hand was played on other cards: a replay failure
  // would then blame whoever met the difference first, so only the deck counts.
  let unproven: string[] = [];
  if (!findings.length) {
    proven.push(...replayFindings);
    if (!replayFindings.length) {
      proven.push(...follows(record, previous));
      const [scoreFindings, scoresUnproven] = checkScores(record, previous);
      proven.push(...scoreFindings);
      unproven = scoresUnproven;
    }
  }
  return new AuditResult([...signed, ...proven], tell(record, hand, deck, unproven.length > 0),
    [...notSigned, ...disowned, ...unproven], deck);
}

/**
 * The deviations a side's own signature proves against it, and the others as words:
 * a side whose signature of this record (its seed included) fails, or that the match
 * id does not bind, signed none of what the file says it did (it may be edited).
 */
function signedByTheirSide(findings: Finding[], signed: Finding[]): [Finding[], string[]] {
  const failed = new Set(signed.map((f) => f.where));
  const unbound = [...failed].some((where) => !where.startsWith("signatures."));
  const disowned = new Set<string>(SEATS.filter((seat) => unbound || failed.has(`signatures.${seat}`)));
  return [findings.filter((f) => !disowned.has(f.who)),
    findings.filter((f) => disowned.has(f.who)).map((f) => `${f.where}: ${f.detail}, which the ${f.who} did not sign`)];
}

/**
 * Both players signed this hand as recorded, under the keys its match id names.
 * A session checks the other's signature on arrival and keeps no record of a hand
 * it could not verify, so a signature that fails here is the record's.
 */
function checkSignatures(record: HandRecord): [Finding[], string[]] {
  if (unsigned(record)) return [[], ["the hand is not signed yet"]]; // a session auditing before signing
  const unbound = binding(record);
  if (unbound !== null) return [[unbound], []];
  return [[0, 1].filter((seat) => !cosign.verify(record.signingKeys[seat]!, cosign.seatSigned(record, seat), record.signatures[seat]!))
    .map((seat) => new Finding("record", `signatures.${SEATS[seat]}`,
      `the ${SEATS[seat]}'s signature does not sign this hand and its seed as recorded`)), []];
}

/** Step 0's binding: the match id and both vouches (identity.ts's bindingRefusal). */
function binding(x: HandRecord | DealEvidence): Finding | null {
  const refusal = bindingRefusal(x.matchId, x.linkId, x.signingKeys, x.identities, x.vouches, x.previous);
  return refusal === null ? null : new Finding("record", ...refusal);
}

/**
 * Check deal evidence: the match id and the second shuffler's signature (else the
 * file is not evidence of anything: `record` at fault), then message 2 and its proof
 * against message 1. A refusal is the second shuffler's proven cheat; a proof that
 * holds shows none (`record`). Never ok: no hand was played to verify.
 */
export function auditEvidence(evidence: DealEvidence): AuditResult {
  const second = SEATS[evidence.second]!;
  const told = [`Hand ${evidence.handNumber} of match ${bytesToHex(evidence.matchId)}: `
    + `${SEATS[evidence.dealer]} deals and shuffles first; ${second} signed message 2 `
    + "and its shuffle proof, which the dealer refused"];
  const failed = (finding: Finding): AuditResult => new AuditResult([finding], told);
  const unbound = binding(evidence);
  if (unbound !== null) return failed(unbound);
  if (!cosign.verify(evidence.signingKeys[evidence.second]!, evidence.digest(), evidence.signature)) {
    return failed(new Finding("record", "signature", `the ${second}'s signature does not sign this message 2`));
  }
  let message1: fd.Deck;
  try {
    message1 = fd.validateMessage([...evidence.message1], "message1");
  } catch (exc) { // an honest second shuffler signs no answer to it
    if (!(exc instanceof fd.MalformedDeck)) throw exc;
    return failed(new Finding(second, "message1", `signed an answer to a malformed message 1 (${exc.message})`));
  }
  const refusal = fd.message2Refusal(fd.context(evidence.matchId, evidence.handNumber), message1, evidence.message2,
    evidence.proof);
  if (refusal === null) {
    return failed(new Finding("record", "proof", "message 2 is proven a shuffle of message 1: this evidence shows no cheat"));
  }
  return failed(new Finding(second, ...refusal));
}

/**
 * Check an abandonment record's match id and signature, and that the claimant's own
 * signatures of the verified `hands` of its match do not contradict it. What it says is its
 * claimant's word, so it is always listed as unproven (its words: `record.words()`).
 */
export function auditAbandonment(record: AbandonmentRecord, hands: readonly HandRecord[] = []): AuditResult {
  const unsound = abandonment.check(record);
  const falseClaim = unsound.length ? null : abandonment.contradiction(record, hands);
  if (falseClaim !== null) { // the claimant's own signatures contradict its claim
    return new AuditResult([new Finding(SEATS[record.claimant]!, ...falseClaim)], [record.words()]);
  }
  const gap = unsound.length ? null : abandonment.missingHands(record, hands);
  return new AuditResult(unsound.map(([where, detail]) => new Finding("record", where, detail)),
    [record.words()], [...(gap === null ? [] : [gap]),
      `that the ${SEATS[record.owedSeat]} fell silent: only the ${SEATS[record.claimant]} says so`]);
}

/**
 * Audit several records, in the order given, chaining the hands of each match.
 *
 * Each hand is checked against the hand before it in its match when that record
 * is among `records` and verified with proven scores, so a run of records from
 * hand 1 proves every total. Two records of one hand (the two players' copies)
 * must agree in everything but the interleaving of the keys both sent at once. The
 * records of one link must form one history (history.ts): a record of a link whose
 * matches conflict fails (`link`). `names` label the records in findings (default: "record 1", ...). Deal evidence
 * among them is checked on its own ({@link auditEvidence}), an abandonment record
 * against the verified hand records of its match ({@link auditAbandonment}).
 */
export function auditRecords(records: readonly (HandRecord | DealEvidence | AbandonmentRecord)[],
  names: readonly string[] | null = null): AuditResult[] {
  const labels = names !== null ? [...names] : records.map((_, i) => `record ${i + 1}`);
  const id = (r: HandRecord): string => bytesToHex(r.matchId);
  const results = new Map<number, AuditResult>();
  records.forEach((e, i) => {
    if (e instanceof DealEvidence) results.set(i, auditEvidence(e));
  });
  const hands = records.filter((r): r is HandRecord => r instanceof HandRecord);
  const order = records.flatMap((r, i) => (r instanceof HandRecord ? [i] : [])).sort((i, j) => {
    const [a, b] = [records[i]!, records[j]!];
    return compareBytes(a.matchId, b.matchId) || a.handNumber - b.handNumber || i - j;
  });
  const proven = new Map<string, HandRecord>(); // verified, scores proven
  for (const i of order) {
    const record = records[i] as HandRecord;
    const previous = proven.get(`${id(record)}/${record.handNumber - 1}`) ?? null;
    let result = auditRecord(record, null, previous);
    if (record.handNumber > 1 && previous === null) result = withoutPrevious(result, record, hands);
    const clash = records.flatMap((other, j) => j !== i && other instanceof HandRecord && sameHand(other, record)
      && differs(other, record) ? [labels[j]!] : []);
    if (clash.length) {
      result = new AuditResult([...result.findings, new Finding("record", "hand",
        `${clash.join(", ")} of the same hand tells it otherwise; at most one of them is true`)], result.replay,
      result.unproven, result.deck);
    }
    results.set(i, result);
    const key = `${id(record)}/${record.handNumber}`;
    if (result.ok && (record.handNumber === 1 || previous !== null) && !proven.has(key)) proven.set(key, record);
  }
  const verified = records.filter((r, i): r is HandRecord => r instanceof HandRecord && results.get(i)!.ok);
  records.forEach((r, i) => {
    if (r instanceof AbandonmentRecord) results.set(i, auditAbandonment(r, verified));
  });
  for (const [i, placed] of place(records)) { // one link, one history
    const result = results.get(i)!;
    if (placed.conflict !== null) {
      results.set(i, new AuditResult([...result.findings, new Finding("record", "link", placed.conflict)],
        result.replay, result.unproven, result.deck));
    } else if (placed.unproven !== null && result.ok) {
      results.set(i, new AuditResult(result.findings, result.replay, [...result.unproven, placed.unproven], result.deck));
    }
  }
  return records.map((_, i) => results.get(i)!);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const sameHand = (a: HandRecord, b: HandRecord): boolean =>
  equalBytes(a.matchId, b.matchId) && a.handNumber === b.handNumber;

const stepText = (s: Step): string => JSON.stringify(s.toDict());

/** Whether two records of one hand disagree beyond the order of key-only steps
 * (each side records its own deal keys and the other's as they came). */
function differs(a: HandRecord, b: HandRecord): boolean {
  const moves = (r: HandRecord): string => JSON.stringify(r.steps.filter((s) => s.action !== null).map(stepText));
  const keysOnly = (r: HandRecord): string => JSON.stringify(r.steps.filter((s) => s.action === null)
    .map(stepText).sort());
  return !a.with({ steps: [] }).equals(b.with({ steps: [] })) || moves(a) !== moves(b) || keysOnly(a) !== keysOnly(b);
}

/** Say why the hand before could not be used, when its record was given. */
function withoutPrevious(result: AuditResult, record: HandRecord, records: readonly HandRecord[]): AuditResult {
  const given = records.some((r) => equalBytes(r.matchId, record.matchId) && r.handNumber === record.handNumber - 1);
  if (!given || !result.unproven.length) return result;
  const why = `the record of hand ${record.handNumber - 1} was given but did not verify `
    + "with proven scores, so nothing follows from it";
  return new AuditResult(result.findings, result.replay, [...result.unproven, why], result.deck);
}

/** The rules, the dealer and the match's going on, from the hand before. */
function follows(record: HandRecord, previous: HandRecord | null): Finding[] {
  if (previous === null) return [];
  const n = previous.handNumber;
  const out: Finding[] = [];
  if (!previous.rules.equals(record.rules)) {
    out.push(new Finding("record", "rules", `hand ${n} of this match was played under other rules`));
  }
  const winner = previous.score.winner;
  const dealer = winner === null ? previous.dealer : record.rules.winnerDeals ? winner : 1 - previous.dealer;
  if (record.dealer !== dealer) {
    out.push(new Finding("record", "dealer", `after hand ${n} ${SEATS[dealer]} deals, not ${SEATS[record.dealer]}`));
  }
  const target = previous.rules.target;
  if (Math.max(...previous.scores) >= target) {
    out.push(new Finding("record", "hand", `the match ended with hand ${n} (a score `
      + `reached ${target}): there is no hand ${record.handNumber}`));
  }
  return out;
}

/**
 * The match scores after the hand: `previous`'s plus this hand's points. Hand 1
 * starts from 0-0. For a later hand without the record before it only what this
 * hand shows is checked: the scores before it, the recorded ones less this hand's
 * points, cannot be negative nor already have ended the match.
 */
function checkScores(record: HandRecord, previous: HandRecord | null): [Finding[], string[]] {
  const gained = [0, 0];
  if (record.score.winner !== null) gained[record.score.winner] = record.score.points; // the replayed result
  const n = record.handNumber;
  if (n === 1 || previous !== null) {
    const before = previous === null ? [0, 0] : previous.scores;
    const want: [number, number] = [before[0]! + gained[0]!, before[1]! + gained[1]!];
    if (want[0] === record.scores[0] && want[1] === record.scores[1]) return [[], []];
    const source = previous === null ? "0-0 before hand 1" : `the scores after hand ${n - 1}`;
    return [[new Finding("record", "scores", `recorded ${scoresText(record.scores)}; ${source} and this hand's `
      + `result give ${scoresText(want)}`)], []];
  }
  const before: [number, number] = [record.scores[0] - gained[0]!, record.scores[1] - gained[1]!];
  if (Math.min(...before) < 0) {
    return [[new Finding("record", "scores",
      `recorded ${scoresText(record.scores)}, less than this hand's result alone gives`)], []];
  }
  if (Math.max(...before) >= record.rules.target) {
    return [[new Finding("record", "scores", `recorded ${scoresText(record.scores)}: before this hand `
      + `${scoresText(before)}, so the match had already ended at ${record.rules.target}`)], []];
  }
  const signed = unsigned(record) ? "" : "both players signed them, but ";
  return [[], [`the match scores before hand ${n} (this record implies ${scoresText(before)}) and so those `
    + `after it: ${signed}one record cannot prove them; give gin audit the records of the hands before it, `
    + "from hand 1"]];
}


function where(d: fd.Deviation, keySteps: ReadonlyMap<string, string>): string {
  return d.field === "key" ? keySteps.get(`${d.role}/${d.position}`) ?? d.where : d.where;
}

/** Where each revealed key first appears, so a bad key names its step. */
function keySteps(record: HandRecord): Map<string, string> {
  const out = new Map<string, string>();
  record.steps.forEach((step, i) => step.keys.forEach(([pos], j) => {
    const key = `${record.roleOf(step.seat)}/${pos}`;
    if (!out.has(key)) out.set(key, `steps[${i}].keys[${j}] (key[${pos}])`);
  }));
  return out;
}

function replay(record: HandRecord, deck: readonly Card[]): [Hand, Finding[]] {
  const hand = new Hand(deck, record.dealer, record.rules);
  const reveals = new Reveals(hand);
  for (const [i, step] of record.steps.entries()) {
    const illegal = step.action === null ? null : hand.refusal(step.seat, step.action);
    if (illegal !== null) {
      return [hand, [new Finding(SEATS[step.seat]!, `steps[${i}]`,
        `${SEATS[step.seat]} cannot ${step.action} in the ${hand.phase} phase: ${illegal}`)]];
    }
    // The session checked each key on arrival: a key missing or out of place is
    // the record's own inconsistency, not a player's.
    const why = reveals.refusal(step);
    if (why !== null) return [hand, [new Finding("record", `steps[${i}]`, why)]];
    if (step.action !== null) {
      hand.apply(step.seat, step.action);
      reveals.applied(step);
    }
  }
  if (hand.result === null) return [hand, [new Finding("record", "steps", "the hand is not over after the last step")]];
  const why = reveals.missing();
  if (why !== null) return [hand, [new Finding("record", "steps", why)]];
  const replayed = Score.of(hand.result);
  if (!replayed.equals(record.score)) {
    return [hand, [new Finding("record", "result", `recorded ${scoreText(record.score)}, the replay gives ${scoreText(replayed)}`)]];
  }
  return [hand, []];
}


