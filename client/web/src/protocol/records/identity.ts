/**
 * Players' identities (gin/protocol/records/identity.py, protocol.md §4, §7.1): a long-term
 * Ed25519 key per browser profile or data folder, the vouch that binds it to a match's
 * signing key, and the fingerprint a person reads aloud.
 *
 * The signing keys of a match are fresh, so without identities anyone holding an invite
 * link could play both seats and mint a whole match. Each side's identity key signs a
 * *vouch* for its per-match signing key on this link; the match id binds both identities
 * and the match this one continues, so a record names who played. Pure: the 32 secret
 * bytes of an identity come from the client, which keeps them.
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";
import { equalBytes } from "../bytes.ts";
import * as cosign from "./cosign.ts";
import { SEATS } from "./records.ts";

const VOUCH_DOMAIN = utf8ToBytes("gin/session/v3/vouch\x00");
const FINGERPRINT_DOMAIN = utf8ToBytes("gin/identity/v3/fingerprint\x00");
export const IDENTITY_SEED_BYTES = 32;
export const FINGERPRINT_WORDS = 5;

/** 256 short, common, distinct English words, none a homophone of another word: word i of a
 * fingerprint is WORDS[byte i]. The same list, in the same order, is in gin/protocol/records/identity.py. */
export const WORDS: readonly string[] = Object.freeze([
  "acorn", "actor", "album", "anchor", "ankle", "antler", "apple", "apron", "arrow", "atlas", "award", "bacon",
  "badge", "bamboo", "banana", "banjo", "barn", "barrel", "basket", "beaver", "beetle", "bench", "bike", "bird",
  "bison", "bottle", "brick", "bridge", "broom", "bubble", "bucket", "butter", "button", "cabin", "cactus",
  "camel", "camera", "candle", "candy", "canoe", "canvas", "canyon", "carpet", "carrot", "castle", "chair",
  "chalk", "cheese", "cherry", "chess", "circus", "cliff", "clock", "cloud", "clover", "coast", "cocoa",
  "coffee", "comet", "cookie", "copper", "cotton", "crab", "cradle", "crane", "crayon", "crown", "daisy",
  "dart", "doctor", "donkey", "door", "dragon", "drum", "duck", "dune", "eagle", "echo", "elbow", "engine",
  "falcon", "farm", "fence", "fern", "finger", "fish", "flag", "flame", "flute", "forest", "fork", "fossil",
  "fox", "frog", "galaxy", "garden", "garlic", "giant", "ginger", "glass", "globe", "glove", "goat", "gold",
  "goose", "grape", "gravel", "guitar", "hammer", "harbor", "harp", "hawk", "hedge", "helmet", "hill", "honey",
  "hotel", "igloo", "island", "ivory", "jacket", "jaguar", "jelly", "jungle", "kayak", "kettle", "kite",
  "koala", "ladder", "lake", "lamp", "laptop", "lemon", "lion", "lizard", "llama", "locket", "lotus", "magnet",
  "mango", "maple", "marble", "meadow", "melon", "mirror", "mitten", "monkey", "moon", "motor", "mouse",
  "muffin", "needle", "nest", "noodle", "ocean", "olive", "onion", "opera", "orange", "orchid", "otter", "owl",
  "oyster", "paddle", "panda", "paper", "parrot", "peach", "peanut", "pebble", "pencil", "pepper", "piano",
  "pickle", "pigeon", "pillow", "pilot", "pine", "planet", "pocket", "pony", "potato", "prism", "puppet",
  "puzzle", "quilt", "rabbit", "radio", "raft", "raisin", "rhino", "ribbon", "river", "robin", "rocket", "ruby",
  "saddle", "salad", "scarf", "shark", "sheep", "shell", "ship", "shovel", "silver", "skate", "sled", "snail",
  "snake", "sock", "spider", "sponge", "spoon", "squid", "stamp", "star", "statue", "stone", "stove", "straw",
  "sugar", "summer", "swan", "sword", "table", "teapot", "tiger", "toast", "tomato", "tooth", "torch", "towel",
  "tower", "train", "tree", "trophy", "tuba", "tulip", "tunnel", "turtle", "valley", "violin", "waffle",
  "wagon", "wallet", "walnut", "walrus", "wheat", "willow", "window", "winter", "wizard", "wolf", "yogurt",
  "zebra", "zipper",
]);

const previousOk = (previous: Uint8Array): boolean =>
  previous.length === 0 || previous.length === cosign.MATCH_ID_BYTES;

/** SHA-256("gin/session/v3/vouch" ‖ 00 ‖ link_id ‖ u8(seat) ‖ signing_key ‖ u8(len previous) ‖
 * previous): what a seat's identity signs for its match key. */
export function vouchDigest(linkId: Uint8Array, seat: number, signingKey: Uint8Array, previous: Uint8Array): Uint8Array {
  if (linkId.length !== cosign.LINK_ID_BYTES || (seat !== 0 && seat !== 1) || signingKey.length !== cosign.KEY_BYTES
      || !previousOk(previous)) {
    throw new MalformedInput("vouch inputs have the wrong lengths");
  }
  return sha256(concatBytes(VOUCH_DOMAIN, linkId, Uint8Array.of(seat), signingKey, Uint8Array.of(previous.length),
    previous));
}

/** Whether `vouch` is `identity`'s signature for `seat`'s `signingKey`. */
export function checkVouch(identity: Uint8Array, vouch: Uint8Array, linkId: Uint8Array, seat: number,
  signingKey: Uint8Array, previous: Uint8Array): boolean {
  return cosign.verify(identity, vouchDigest(linkId, seat, signingKey, previous), vouch);
}

/** Why a record's match is not bound to its players (audit step 0, §9), as [field, detail],
 * or null: each identity vouches for its seat's signing key on this link, the two identities
 * differ, and the match id is the one all of them make. */
export function bindingRefusal(matchId: Uint8Array, linkId: Uint8Array,
  signingKeys: readonly [Uint8Array, Uint8Array], identities: readonly [Uint8Array, Uint8Array],
  vouches: readonly [Uint8Array, Uint8Array], previous: Uint8Array | null): [string, string] | null {
  const before = previous ?? new Uint8Array(0);
  for (const seat of [0, 1]) {
    const name = SEATS[seat]!;
    if (!checkVouch(identities[seat]!, vouches[seat]!, linkId, seat, signingKeys[seat]!, before)) {
      return [`vouches.${name}`, `the ${name}'s identity does not vouch for the ${name}'s signing key on this link`];
    }
  }
  if (equalBytes(identities[0], identities[1])) return ["identities", "the host and the guest are one identity"];
  if (!equalBytes(matchId, cosign.matchIdFor(linkId, signingKeys, identities, before))) {
    return ["match_id", "the match id is not the one the link id, the signing keys, the identities and the match "
      + "before make"];
  }
  return null;
}

/** Five words a person can read aloud that name `identity` (a public key). */
export function fingerprint(identity: Uint8Array): string {
  if (identity.length !== cosign.KEY_BYTES) throw new MalformedInput(`an identity is ${cosign.KEY_BYTES} bytes`);
  const digest = sha256(concatBytes(FINGERPRINT_DOMAIN, identity));
  return [...digest.subarray(0, FINGERPRINT_WORDS)].map((b) => WORDS[b]!).join(" ");
}

/** Both players' identities as `gin audit` prints them: words, then hex. */
export function identitiesText(identities: readonly [Uint8Array, Uint8Array]): string {
  return "identities: " + [0, 1].map((seat) =>
    `${SEATS[seat]} ${fingerprint(identities[seat]!)} (${bytesToHex(identities[seat]!)})`).join(", ");
}

/** A player's long-term identity key, from its 32 secret bytes. */
export class Identity {
  readonly public: Uint8Array;
  readonly #signer: cosign.Signer;

  constructor(seed: Uint8Array) {
    if (!(seed instanceof Uint8Array) || seed.length !== IDENTITY_SEED_BYTES) {
      throw new MalformedInput(`an identity key is ${IDENTITY_SEED_BYTES} bytes`);
    }
    this.#signer = new cosign.Signer(seed);
    this.public = this.#signer.public;
    Object.freeze(this);
  }

  vouch(linkId: Uint8Array, seat: number, signingKey: Uint8Array, previous: Uint8Array): Uint8Array {
    return this.#signer.sign(vouchDigest(linkId, seat, signingKey, previous));
  }

  toString(): string {
    return "Identity(<secret>)";
  }
}
