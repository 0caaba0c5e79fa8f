/**
 * The keys a match is bound to (protocol.md §4, §7.1): each side's per-match signing
 * key, its identity's vouch for it, and the match id they make; and the host's rules as
 * the guest reads them (the twin of gin/protocol/session/handshake.py).
 */

import { MalformedInput, type PeerFault } from "../../engine/errors.ts";
import { Ruleset } from "../../engine/rules.ts";
import { equalBytes } from "../bytes.ts";
import * as cosign from "../records/cosign.ts";
import { checkVouch, type Identity } from "../records/identity.ts";
import type { MapKey, Value } from "../wire/msgpack.ts";
import { SEATS } from "../records/records.ts";
import * as wire from "../wire/channel.ts";

export const MAX_RULE_NUMBER = 10_000;

/** What a hand record or deal evidence names the match by, besides its id. */
export interface Binding {
  linkId: Uint8Array;
  signingKeys: [Uint8Array, Uint8Array];
  identities: [Uint8Array, Uint8Array];
  vouches: [Uint8Array, Uint8Array];
  previous: Uint8Array | null;
}

/**
 * One side's keys of the match and, once its `hello` or `welcome` came, the peer's:
 * signing keys, identities, vouches, and the match id they make. `previous` is the match
 * on this link that this one continues (empty for a first match): the host chooses it
 * and sends it in `hello`; the guest takes it from there.
 */
export class MatchKeys {
  readonly signer: cosign.Signer;
  matchId: Uint8Array | null = null; // once the peer's keys are known
  private peer: [Uint8Array, Uint8Array, Uint8Array] | null = null; // key, identity, vouch
  private vouch: Uint8Array = new Uint8Array(0); // ours, made when we send it (the guest learns previous first)

  constructor(readonly seat: number, readonly linkId: Uint8Array, readonly identity: Identity, signingSeed: Uint8Array,
    public previous: Uint8Array = new Uint8Array(0)) {
    this.signer = new cosign.Signer(signingSeed);
  }

  /** Our keys as `hello` (with `prev`) or `welcome` carry them. */
  fields(): [string, Value][] {
    this.vouch = this.identity.vouch(this.linkId, this.seat, this.signer.public, this.previous);
    const out: [string, Value][] = [["key", this.signer.public], ["id", this.identity.public], ["vouch", this.vouch]];
    if (this.seat === 0) out.push(["prev", this.previous]);
    return out;
  }

  /** The peer's keys from its `hello` or `welcome`; `fault(message, field)` makes the
   * protocol error of a bad vouch or a key or identity that is ours. */
  read(msg: wire.Message, fault: (message: string, field: string) => PeerFault): void {
    const name = msg.type;
    const peer = 1 - this.seat;
    if (peer === 0) {
      const previous = msg.blob("prev", null, cosign.MATCH_ID_BYTES);
      if (previous.length !== 0 && previous.length !== cosign.MATCH_ID_BYTES) {
        throw fault(`hello: the match before is ${previous.length} bytes, not 0 or ${cosign.MATCH_ID_BYTES}`,
          "hello.prev");
      }
      this.previous = previous;
    }
    const key = msg.blob("key", cosign.KEY_BYTES);
    const identity = msg.blob("id", cosign.KEY_BYTES);
    const vouch = msg.blob("vouch", cosign.SIGNATURE_BYTES);
    if (peer === 1 && equalBytes(key, this.signer.public)) {
      throw fault("the guest's signing key is the host's", "welcome.key");
    }
    if (peer === 1 && equalBytes(identity, this.identity.public)) {
      throw fault("the guest's identity is the host's own: one data folder or browser profile cannot play both "
        + "seats", "welcome.id");
    }
    if (!checkVouch(identity, vouch, this.linkId, peer, key, this.previous)) {
      throw fault(`the ${SEATS[peer]}'s identity does not vouch for its signing key on this link`,
        `${name}.vouch`);
    }
    this.peer = [key, identity, vouch];
    this.matchId = cosign.matchIdFor(this.linkId, this.signingKeys, this.identities, this.previous);
  }

  private pair(mine: Uint8Array, theirs: Uint8Array): [Uint8Array, Uint8Array] {
    return this.seat === 0 ? [mine, theirs] : [theirs, mine];
  }

  private theirs(i: number): Uint8Array {
    if (this.peer === null) throw new Error("the peer's keys are not known yet");
    return this.peer[i]!;
  }

  /** (the host's, the guest's) per-match signing keys. */
  get signingKeys(): [Uint8Array, Uint8Array] {
    return this.pair(this.signer.public, this.theirs(0));
  }

  /** (the host's, the guest's) identity public keys. */
  get identities(): [Uint8Array, Uint8Array] {
    return this.pair(this.identity.public, this.theirs(1));
  }

  /** (the host's, the guest's) vouches. */
  get vouches(): [Uint8Array, Uint8Array] {
    return this.pair(this.vouch, this.theirs(2));
  }

  binding(): Binding {
    return { linkId: this.linkId, signingKeys: this.signingKeys, identities: this.identities, vouches: this.vouches,
      previous: this.previous.length === 0 ? null : this.previous };
  }
}

/** A msgpack map as plain JSON-like data (text keys only), for Ruleset.fromDict. */
export function plain(value: Value): unknown {
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([k, v]) => [typeof k === "string" ? k : String(k), plain(v)]));
  }
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/** The ruleset of a `hello`, each field bounded before the ruleset checks it. */
export function readRules(msg: wire.Message): Ruleset {
  const rules = msg.submap("rules");
  for (const [name, value] of rules.fields) {
    if (typeof value === "boolean" || value === null) continue;
    if (typeof value === "number" || typeof value === "bigint") rules.integer(name as string, 0, MAX_RULE_NUMBER);
    else rules.text(name as string, 32);
  }
  try {
    return Ruleset.fromDict(plain(rules.fields as Map<MapKey, Value>));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    throw new wire.MalformedMessage(`message 'hello': field 'rules': ${exc.message}`, "rules");
  }
}
