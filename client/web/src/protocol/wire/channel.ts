/**
 * Wire format, the twin of gin/protocol/wire/channel.py: msgpack messages decoded under hard limits
 * (protocol.md §6.1), and the sealed channel's frames (§4, §5). {@link unpack} accepts and
 * refuses exactly the byte strings `gin.protocol.wire.channel.unpack` does, and its {@link Message}
 * accessors check each field and name it in errors with the same text as gin/.
 */

import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput, PeerFault } from "../../engine/errors.ts";
import { equalBytes, fromBigInt, toBigInt } from "../bytes.ts";
import * as msgpack from "./msgpack.ts";
import { Float, intValue, type MapKey, type Value } from "./msgpack.ts";

export const PROTOCOL_VERSION = 4;
export const FRAME_VERSION = 2;
export const SECRET_BYTES = 32;
export const EPOCH_BYTES = 32;
export const LINK_TAG_BYTES = 8;
export const EPOCH_ID_BYTES = 8;
export const MAC_BYTES = 16;
export const TAG_BYTES = 16;
export const PREFIX_BYTES = 3 + LINK_TAG_BYTES; // version, kind, direction, link tag
export const HEADER_BYTES = PREFIX_BYTES + EPOCH_ID_BYTES + 8; // ... epoch id, seq
export const OFFER_BYTES = PREFIX_BYTES + 2 * EPOCH_BYTES + MAC_BYTES;
export const ACK_BYTES = HEADER_BYTES + 9 + TAG_BYTES;
export const MAX_FRAME_BYTES = 65536;
export const MAX_PLAINTEXT_BYTES = MAX_FRAME_BYTES - HEADER_BYTES - TAG_BYTES;
export const MAX_SEQ = 2n ** 64n - 1n;
export const STATE_VERSION = 2;
const KDF_LABEL = "gin/wire/v2/";

// --- messages -------------------------------------------------------------------

/** A message that fails to decode or fails its schema; `field` names the culprit. */
export class MalformedMessage extends MalformedInput {
  readonly field: string;

  constructor(message: string, field = "") {
    super(message);
    this.field = field;
  }
}

/** A message of another protocol `version` (and type `msgType`): another gin. */
export class UnsupportedVersion extends MalformedMessage {
  constructor(readonly version: number, readonly msgType: string) { super(`unsupported protocol version ${version}`, "v"); }
}

/** The message size cap and msgpack limits of `gin.protocol.wire.channel.Limits`. */
export interface Limits extends msgpack.Limits {
  maxMessageBytes: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  ...msgpack.DEFAULT_LIMITS, maxMessageBytes: MAX_PLAINTEXT_BYTES,
});

/** Python's name for the type of a decoded value, as gin/'s messages say it. */
function pyType(value: Value): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number" || typeof value === "bigint") return "int";
  if (value instanceof Float) return "float";
  if (typeof value === "string") return "str";
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** Python's repr of a text (what gin/ shows around field names and values). */
function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = Array.from(text, (ch) => {
    if (ch === "\\") return "\\\\";
    if (ch === quote) return "\\" + ch;
    if (ch === "\n") return "\\n";
    if (ch === "\r") return "\\r";
    if (ch === "\t") return "\\t";
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) return "\\x" + code.toString(16).padStart(2, "0");
    return ch;
  });
  return quote + escaped.join("") + quote;
}

/** Encode a message: the map {t, v, ...fields}. MalformedInput for a bad type, reserved keys or oversize. */
export function pack(msgType: string, fields: ReadonlyMap<string, Value> | null = null,
  version: number = PROTOCOL_VERSION): Uint8Array {
  const length = Array.from(msgType).length;
  if (length < 1 || length > 64) throw new MalformedInput("message type must be 1..64 characters");
  const body = new Map<MapKey, Value>([["t", msgType], ["v", version]]);
  for (const [key, value] of fields ?? []) {
    if (body.has(key)) throw new MalformedInput(`field name ${pyRepr(key)} is reserved`);
    body.set(key, value);
  }
  const data = msgpack.encode(body);
  if (data.length > MAX_PLAINTEXT_BYTES) {
    throw new MalformedInput(`message ${pyRepr(msgType)} is ${data.length} bytes, over the frame limit`);
  }
  return data;
}

/** Decode one message under `limits`. MalformedMessage says what was wrong. */
export function unpack(data: Uint8Array, limits: Limits = DEFAULT_LIMITS,
  versions: readonly number[] = [PROTOCOL_VERSION]): Message {
  if (data.length > limits.maxMessageBytes) {
    throw new MalformedMessage(`message is ${data.length} bytes, limit ${limits.maxMessageBytes}`);
  }
  let body: Value;
  try {
    body = msgpack.decode(data, limits);
  } catch (exc) {
    if (!(exc instanceof msgpack.UndecodableData)) throw exc;
    throw new MalformedMessage(`undecodable message: ${exc.message}`);
  }
  if (!(body instanceof Map)) throw new MalformedMessage("message is not a map");
  for (const key of body.keys()) {
    if (typeof key !== "string") throw new MalformedMessage("message field names must be text");
  }
  const top = new Message("", 0, body, "");
  const msgType = top.text("t", 64);
  if (!msgType) throw new MalformedMessage("field 't': empty message type", "t");
  const version = top.integer("v", 0, 0xffff);
  if (!versions.includes(version)) throw new UnsupportedVersion(version, msgType);
  return new Message(msgType, version, body, "");
}

/**
 * A decoded message and schema-checking accessors that name the field in errors.
 * Each accessor throws MalformedMessage whose `field` is the dotted path
 * (`deal.keys[3]`) and whose text says what was expected.
 */
export class Message {
  readonly fields: ReadonlyMap<MapKey, Value>;

  constructor(readonly type: string, readonly version: number, fields: ReadonlyMap<MapKey, Value>,
    private readonly path: string) {
    this.fields = new Map(fields);
  }

  private where(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  private failAt(where: string, why: string): never {
    const context = this.type ? `message ${pyRepr(this.type)}: ` : "";
    throw new MalformedMessage(`${context}field ${pyRepr(where)}: ${why}`, where);
  }

  private get(name: string): Value {
    if (!this.fields.has(name)) this.failAt(this.where(name), "missing");
    return this.fields.get(name)!;
  }

  /** Reject any field other than t, v (at top level) and `names`. */
  only(...names: string[]): void {
    const allowed = new Set(this.path ? names : [...names, "t", "v"]);
    for (const key of this.fields.keys()) {
      if (typeof key !== "string" || !allowed.has(key)) {
        this.failAt(this.where(typeof key === "string" ? key : String(key)), "unexpected field");
      }
    }
  }

  integer(name: string, low: number, high: number): number {
    return this.int(this.get(name), this.where(name), low, high);
  }

  private int(value: Value, where: string, low: number, high: number): number {
    if (typeof value !== "number" && typeof value !== "bigint") {
      this.failAt(where, `expected an integer, got ${pyType(value)}`);
    }
    if (value < low || value > high) this.failAt(where, `${value} is outside ${low}..${high}`);
    return Number(value);
  }

  flag(name: string): boolean {
    const value = this.get(name);
    if (typeof value !== "boolean") this.failAt(this.where(name), `expected true or false, got ${pyType(value)}`);
    return value;
  }

  text(name: string, maxLen: number, choices: readonly string[] | null = null): string {
    const value = this.get(name);
    const where = this.where(name);
    if (typeof value !== "string") this.failAt(where, `expected text, got ${pyType(value)}`);
    if (Array.from(value).length > maxLen) this.failAt(where, `text longer than ${maxLen} characters`);
    if (choices !== null && !choices.includes(value)) {
      this.failAt(where, `${pyRepr(value)} is not one of the allowed values`);
    }
    return value;
  }

  blob(name: string, size: number | null = null, maxSize: number | null = null): Uint8Array {
    return this.bytes(this.get(name), this.where(name), size, maxSize);
  }

  private bytes(value: Value, where: string, size: number | null, maxSize: number | null): Uint8Array {
    if (!(value instanceof Uint8Array)) this.failAt(where, `expected bytes, got ${pyType(value)}`);
    if (size !== null && value.length !== size) this.failAt(where, `expected ${size} bytes, got ${value.length}`);
    if (maxSize !== null && value.length > maxSize) this.failAt(where, `more than ${maxSize} bytes`);
    return value;
  }

  array(name: string, maxLen: number, minLen = 0): Value[] {
    const value = this.get(name);
    const where = this.where(name);
    if (!Array.isArray(value)) this.failAt(where, `expected a list, got ${pyType(value)}`);
    if (value.length < minLen || value.length > maxLen) {
      this.failAt(where, `list of ${value.length} entries, expected ${minLen}..${maxLen}`);
    }
    return value;
  }

  /** A list of byte strings, each checked like {@link blob}. */
  blobs(name: string, maxLen: number, { minLen = 0, size = null, maxSize = null }:
    { minLen?: number; size?: number | null; maxSize?: number | null } = {}): Uint8Array[] {
    const where = this.where(name);
    return this.array(name, maxLen, minLen).map((v, i) => this.bytes(v, `${where}[${i}]`, size, maxSize));
  }

  /** A list of integers, each in low..high. */
  integers(name: string, maxLen: number, low: number, high: number, minLen = 0): number[] {
    const where = this.where(name);
    return this.array(name, maxLen, minLen).map((v, i) => this.int(v, `${where}[${i}]`, low, high));
  }

  /** A nested map, read with the same accessors; its keys must be text. */
  submap(name: string): Message {
    const value = this.get(name);
    const where = this.where(name);
    if (!(value instanceof Map)) this.failAt(where, `expected a map, got ${pyType(value)}`);
    for (const key of value.keys()) {
      if (typeof key !== "string") this.failAt(where, "map keys must be text");
    }
    return new Message(this.type, this.version, value, where);
  }
}

// --- sealing -------------------------------------------------------------------

/** Which end of the channel: the player who sent the invite, or who joined. */
export type Side = "host" | "guest";

/** The direction byte of frames `side` sends. */
export const direction = (side: Side): number => (side === "host" ? 0x01 : 0x02);
const otherSide = (side: Side): Side => (side === "host" ? "guest" : "host");

/** Byte 1 of a frame. */
export enum Kind {
  OFFER = 1,
  DATA = 2,
  ACK = 3,
}

const KIND_NAMES: Record<number, string> = { 1: "offer", 2: "data", 3: "ack" };

/**
 * The channel was attacked or the peer broke the framing; the channel is now dead.
 * `proven` is true only when an authentic frame (which only the peer can make) is
 * at fault; otherwise the relay or the peer may have caused it.
 */
export class ChannelFault extends PeerFault {
  get proven(): boolean {
    return false;
  }
}

/** Bytes that are not a frame of this format. */
export class MalformedFrame extends ChannelFault {}
/** A frame of another invite link (its link tag differs). */
export class ForeignFrame extends ChannelFault {}
/** A frame in our own sending direction, sent back to us. */
export class ReflectedFrame extends ChannelFault {}
/** A frame whose authentication tag does not verify. */
export class TamperedFrame extends ChannelFault {}
/** An authentic ack of messages we never sent: the peer broke the protocol. */
export class AckBeyondSent extends ChannelFault {
  override get proven(): boolean {
    return true;
  }
}
/** Any use of a channel after a fault; repeats the first fault's text. */
export class ChannelFailed extends ChannelFault {}

/** What one incoming frame did: the message it delivered (null: none) and frames to send back. */
export interface Received {
  message: Uint8Array | null;
  replies: Uint8Array[];
}

function kdf(secret: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  return hkdf(sha256, secret, undefined, info, length);
}

function nonce(kind: Kind, dir: number, counter: bigint): Uint8Array {
  return concatBytes(Uint8Array.of(kind, dir, 0, 0), fromBigInt(counter, 8));
}

/** The next link of a hash chain over messages: SHA-256(digest ‖ message). */
export function chain(digest: Uint8Array, message: Uint8Array): Uint8Array {
  return sha256(concatBytes(digest, message));
}

/** [traffic key, epoch id] of one direction, from both sides' contributions. */
export function epochKeys(secret: Uint8Array, dir: number, sender: Uint8Array, receiver: Uint8Array): [Uint8Array, Uint8Array] {
  const okm = kdf(secret, concatBytes(utf8ToBytes(KDF_LABEL + "epoch\x00"), Uint8Array.of(dir), sender, receiver), 32 + EPOCH_ID_BYTES);
  return [okm.slice(0, 32), okm.slice(32)];
}

/** The two traffic keys for one pair of contributions (ours, the peer's). */
class Epoch {
  readonly sendKey: Uint8Array;
  readonly sendId: Uint8Array;
  readonly recvKey: Uint8Array;
  readonly recvId: Uint8Array;

  constructor(secret: Uint8Array, side: Side, mine: Uint8Array, theirs: Uint8Array) {
    [this.sendKey, this.sendId] = epochKeys(secret, direction(side), mine, theirs);
    [this.recvKey, this.recvId] = epochKeys(secret, direction(otherSide(side)), theirs, mine);
  }
}

/**
 * One end of an end-to-end sealed, ordered, exactly-once channel, the twin of
 * gin.protocol.wire.channel.SealedChannel. Pure state machine: `epoch` is this side's fresh
 * 32-byte contribution (from a secure random source, never reused). `send`
 * numbers and keeps each message until acknowledged; `receive` takes any frame
 * and returns what it delivered and what to send back. Frames at the wrong time
 * are answered, not faults; anything else wrong throws a ChannelFault and the
 * channel refuses every later frame (it can still send, to tell the peer why).
 */
export class SealedChannel {
  private readonly linkTag: Uint8Array;
  private readonly offerKey: Uint8Array;
  private theirs: Uint8Array | null = null;
  private epoch: Epoch | null = null;
  private sendSeq = 0n;
  private recvSeq = 0n;
  private readonly pendingBySeq = new Map<bigint, Uint8Array>();
  private acksSent = 0n;
  private gapAsked: bigint | null = null;
  sentDigest: Uint8Array = new Uint8Array(32);
  receivedDigest: Uint8Array = new Uint8Array(32);
  private fault: [string, string, string] | null = null;

  constructor(private readonly secret: Uint8Array, readonly side: Side, private readonly mine: Uint8Array) {
    if (!(secret instanceof Uint8Array) || secret.length !== SECRET_BYTES) {
      throw new MalformedInput(`invite secret must be ${SECRET_BYTES} bytes`);
    }
    if (!(mine instanceof Uint8Array) || mine.length !== EPOCH_BYTES || mine.every((b) => b === 0)) {
      throw new MalformedInput(`epoch contribution must be ${EPOCH_BYTES} random bytes`);
    }
    this.secret = secret.slice();
    this.mine = mine.slice();
    this.linkTag = kdf(secret, utf8ToBytes(KDF_LABEL + "link-tag"), LINK_TAG_BYTES);
    this.offerKey = kdf(secret, utf8ToBytes(KDF_LABEL + "offer"), 32);
  }

  get nextSendSeq(): bigint {
    return this.sendSeq;
  }

  /** The seq of the next message `receive` will deliver (= messages so far). */
  get nextReceiveSeq(): bigint {
    return this.recvSeq;
  }

  /** Whether the peer's contribution is known, so that frames can be sealed. */
  get keyed(): boolean {
    return this.epoch !== null;
  }

  /** Messages sent but not yet acknowledged. */
  get pending(): number {
    return this.pendingBySeq.size;
  }

  /** The first fault's text, or null while the channel is healthy. */
  get failed(): string | null {
    return this.fault === null ? null : this.fault[0];
  }

  /** [seq, message] of every unacknowledged message, oldest first. */
  pendingMessages(): [bigint, Uint8Array][] {
    return this.sortedPending().map((seq) => [seq, this.pendingBySeq.get(seq)!]);
  }

  private sortedPending(): bigint[] {
    return [...this.pendingBySeq.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private prefix(kind: Kind): Uint8Array {
    return concatBytes(Uint8Array.of(FRAME_VERSION, kind, direction(this.side)), this.linkTag);
  }

  /** Our offer frame: our contribution and the peer's as we know it, MAC'd. */
  offer(): Uint8Array {
    const body = concatBytes(this.prefix(Kind.OFFER), this.mine, this.theirs ?? new Uint8Array(EPOCH_BYTES));
    return concatBytes(body, hmac(sha256, this.offerKey, body).slice(0, MAC_BYTES));
  }

  private seal(kind: Kind, counter: bigint, plaintext: Uint8Array): Uint8Array {
    const epoch = this.epoch!;
    const header = concatBytes(this.prefix(kind), epoch.sendId, fromBigInt(counter, 8));
    const sealed = chacha20poly1305(epoch.sendKey, nonce(kind, direction(this.side), counter), header).encrypt(plaintext);
    return concatBytes(header, sealed);
  }

  /** Number a message and keep it until acknowledged; its frame, or [] until keyed. */
  send(plaintext: Uint8Array): Uint8Array[] {
    if (plaintext.length > MAX_PLAINTEXT_BYTES) {
      throw new MalformedInput(`message of ${plaintext.length} bytes exceeds the frame limit`);
    }
    if (this.sendSeq > MAX_SEQ) throw new MalformedInput("sequence numbers exhausted");
    const seq = this.sendSeq;
    this.sendSeq += 1n;
    this.pendingBySeq.set(seq, plaintext.slice());
    this.sentDigest = chain(this.sentDigest, plaintext);
    return this.epoch !== null ? [this.seal(Kind.DATA, seq, plaintext)] : [];
  }

  /** Our offer, then every unacknowledged message sealed under the current keys. */
  resend(): Uint8Array[] {
    if (this.epoch === null) return [this.offer()];
    return [this.offer(), ...this.sortedPending().map((seq) => this.seal(Kind.DATA, seq, this.pendingBySeq.get(seq)!))];
  }

  private ack(gap: boolean): Uint8Array {
    // Each ack frame has its own counter: a nonce is never used twice.
    const counter = this.acksSent;
    this.acksSent += 1n;
    return this.seal(Kind.ACK, counter, concatBytes(fromBigInt(this.recvSeq, 8), Uint8Array.of(gap ? 1 : 0)));
  }

  /** Take one frame from the relay. Throws a ChannelFault (the channel is then dead). */
  receive(frame: Uint8Array): Received {
    if (this.fault !== null) {
      const [text, who, field] = this.fault;
      throw new ChannelFailed(`channel failed earlier: ${text}`, who, field);
    }
    try {
      return this.take(frame);
    } catch (exc) {
      if (exc instanceof ChannelFault) this.fault = [exc.message, exc.who, exc.field];
      throw exc;
    }
  }

  private take(frame: Uint8Array): Received {
    if (!(frame instanceof Uint8Array) || frame.length < PREFIX_BYTES || frame.length > MAX_FRAME_BYTES) {
      throw new MalformedFrame("frame of impossible length", "relay", "frame");
    }
    if (frame[0] !== FRAME_VERSION) throw new MalformedFrame(`unknown frame version ${frame[0]}`, "relay", "version");
    const kind = frame[1]!;
    if (!(kind in KIND_NAMES)) throw new MalformedFrame(`unknown frame kind ${kind}`, "relay", "kind");
    if (!equalBytes(frame.subarray(3, PREFIX_BYTES), this.linkTag)) {
      throw new ForeignFrame("frame belongs to another invite link", "relay", "link");
    }
    if (frame[2] === direction(this.side)) {
      throw new ReflectedFrame("frame in our own direction was reflected back", "relay", "direction");
    }
    if (frame[2] !== direction(otherSide(this.side))) {
      throw new MalformedFrame(`unknown direction ${frame[2]}`, "relay", "direction");
    }
    if (kind === Kind.OFFER) return this.onOffer(frame);
    const name = KIND_NAMES[kind]!;
    if (frame.length < HEADER_BYTES + TAG_BYTES || (kind === Kind.ACK && frame.length !== ACK_BYTES)) {
      throw new MalformedFrame(`${name} frame of impossible length`, "relay", "frame");
    }
    const epoch = this.epoch;
    if (epoch === null || !equalBytes(frame.subarray(PREFIX_BYTES, PREFIX_BYTES + 8), epoch.recvId)) {
      // Sealed for another epoch: the peer does not know our contribution yet
      // (tell it), or a replay of an earlier session (which cannot open).
      return { message: null, replies: [this.offer()] };
    }
    const counter = toBigInt(frame.subarray(PREFIX_BYTES + 8, HEADER_BYTES));
    let plaintext: Uint8Array;
    try {
      plaintext = chacha20poly1305(epoch.recvKey, nonce(kind, frame[2], counter), frame.subarray(0, HEADER_BYTES))
        .decrypt(frame.subarray(HEADER_BYTES));
    } catch {
      throw new TamperedFrame(`${name} frame ${counter} fails authentication (altered or forged)`, "relay", "tag");
    }
    return kind === Kind.ACK ? this.onAck(plaintext) : this.onData(counter, plaintext);
  }

  private onOffer(frame: Uint8Array): Received {
    if (frame.length !== OFFER_BYTES) throw new MalformedFrame("offer frame of impossible length", "relay", "frame");
    const body = frame.subarray(0, OFFER_BYTES - MAC_BYTES);
    const mac = frame.subarray(OFFER_BYTES - MAC_BYTES);
    if (!equalBytes(mac, hmac(sha256, this.offerKey, body).slice(0, MAC_BYTES))) {
      throw new TamperedFrame("offer frame fails authentication (altered or forged)", "relay", "offer");
    }
    const theirs = body.slice(PREFIX_BYTES, PREFIX_BYTES + EPOCH_BYTES);
    const known = body.subarray(PREFIX_BYTES + EPOCH_BYTES);
    let replies: Uint8Array[] = [];
    if (this.theirs === null || !equalBytes(theirs, this.theirs)) {
      this.theirs = theirs;
      this.epoch = new Epoch(this.secret, this.side, this.mine, theirs);
      replies = this.resend(); // everything unacknowledged, under the new keys
      if (equalBytes(known, this.mine)) replies = replies.slice(1); // the peer has our offer already
    } else if (!equalBytes(known, this.mine)) {
      replies = [this.offer()];
    }
    return { message: null, replies };
  }

  private onAck(plaintext: Uint8Array): Received {
    const acked = toBigInt(plaintext.subarray(0, 8));
    const gap = plaintext[8]!;
    if (acked > this.sendSeq || gap > 1) {
      throw new AckBeyondSent(`peer acknowledges ${acked} messages, only ${this.sendSeq} were sent`,
        otherSide(this.side), "ack");
    }
    for (const seq of [...this.pendingBySeq.keys()]) if (seq < acked) this.pendingBySeq.delete(seq);
    if (gap && this.pendingBySeq.size) return { message: null, replies: this.resend().slice(1) };
    return { message: null, replies: [] };
  }

  private onData(seq: bigint, plaintext: Uint8Array): Received {
    if (seq < this.recvSeq) return { message: null, replies: [this.ack(false)] }; // a re-send we have
    if (seq > this.recvSeq) {
      if (this.gapAsked === this.recvSeq) return { message: null, replies: [] }; // asked already
      this.gapAsked = this.recvSeq;
      return { message: null, replies: [this.ack(true)] };
    }
    this.recvSeq += 1n;
    this.receivedDigest = chain(this.receivedDigest, plaintext);
    return { message: plaintext, replies: [this.ack(false)] };
  }
  // -- persistence

  /**
   * Plain msgpack-able data to restore the channel (gin's `to_state`, field for
   * field and in the same order); no key material and no contribution: a restored
   * channel starts a new epoch.
   */
  toState(): Map<string, Value> {
    return new Map<string, Value>([
      ["v", STATE_VERSION],
      ["side", this.side],
      ["send_seq", intValue(this.sendSeq)],
      ["recv_seq", intValue(this.recvSeq)],
      ["pending", this.pendingMessages().map(([seq, message]) => [intValue(seq), message.slice()])],
      ["sent_digest", this.sentDigest.slice()],
      ["received_digest", this.receivedDigest.slice()],
      ["failed", this.fault === null ? null : [...this.fault]],
    ]);
  }

  /**
   * Rebuild a channel from {@link toState} output, the invite secret and a fresh
   * contribution. MalformedMessage names the bad field.
   */
  static fromState(secret: Uint8Array, state: ReadonlyMap<MapKey, Value>, epoch: Uint8Array): SealedChannel {
    const reader = new Message("channel-state", STATE_VERSION, state, "");
    reader.only("v", "side", "send_seq", "recv_seq", "pending", "sent_digest", "received_digest", "failed");
    reader.integer("v", STATE_VERSION, STATE_VERSION);
    const side = reader.text("side", 8, ["host", "guest"]) as Side;
    const channel = new SealedChannel(secret, side, epoch);
    const limit = Number(MAX_SEQ + 1n); // 2^64, exact as a double
    reader.integer("send_seq", 0, limit);
    reader.integer("recv_seq", 0, limit);
    channel.sendSeq = BigInt(state.get("send_seq") as number | bigint);
    channel.recvSeq = BigInt(state.get("recv_seq") as number | bigint);
    channel.sentDigest = reader.blob("sent_digest", 32).slice();
    channel.receivedDigest = reader.blob("received_digest", 32).slice();
    const entries = reader.array("pending", Number(channel.sendSeq));
    entries.forEach((entry, index) => {
      const seq = Array.isArray(entry) && entry.length === 2 && (typeof entry[0] === "number" || typeof entry[0] === "bigint")
        ? BigInt(entry[0]) : null;
      const message = Array.isArray(entry) ? entry[1] : null;
      if (seq === null || seq < 0n || seq >= channel.sendSeq || !(message instanceof Uint8Array)
        || message.length > MAX_PLAINTEXT_BYTES || channel.pendingBySeq.has(seq)) {
        throw new MalformedMessage(`channel state: field 'pending[${index}]' is not a [seq, message] pair`,
          `pending[${index}]`);
      }
      channel.pendingBySeq.set(seq, message.slice());
    });
    const failed = state.get("failed") ?? null;
    if (failed !== null) {
      if (!Array.isArray(failed) || failed.length !== 3 || !failed.every((part) => typeof part === "string")) {
        throw new MalformedMessage("channel state: field 'failed' must be [text, who, field] or nil", "failed");
      }
      channel.fault = [failed[0] as string, failed[1] as string, failed[2] as string];
    }
    return channel;
  }

}
