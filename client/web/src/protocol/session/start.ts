/**
 * The handshake (protocol.md §4, §7.1) and the start of each hand, as the stage table's
 * handlers (session_table.ts): the host's hello, the guest's answer (at once, or once its
 * player accepts the offered rules or rematch), the coin toss and each hand's
 * commitment; the twin of gin/protocol/session/start.py.
 */

import { pyRepr } from "../../engine/pyrepr.ts";
import { Match } from "../../engine/match.ts";
import type { Ruleset } from "../../engine/rules.ts";
import { equalBytes } from "../bytes.ts";
import * as cosign from "../records/cosign.ts";
import * as fd from "../deal/fairdeal.ts";
import { MatchStarted, RematchDeclined, RulesDeclined, RulesOffered } from "./events.ts";
import { type MatchFlow, rulesValue, Stage } from "./flow.ts";
import { coin, HandState, rulesDigest } from "./hand.ts";
import { MatchKeys, readRules } from "./handshake.ts";
import { firstDealer, NOT_PLAYED, NOT_PLAYED_TOLD, prevFault } from "./rematch.ts";
import type * as wire from "../wire/channel.ts";

export const NONCE_BYTES = 32;

/** Draw the signing key; the host proposes its rules and commits to its coin. */
export function begin(flow: MatchFlow): Stage {
  flow.keys = new MatchKeys(flow.seat, flow.linkId, flow.identity, flow.random(cosign.KEY_SEED_BYTES),
    flow.rematch === null ? new Uint8Array(0) : flow.rematch.matchId);
  if (flow.role !== "host") return Stage.HELLO;
  flow.nonce = flow.random(NONCE_BYTES);
  flow.send("hello", [["rules", rulesValue(flow.agreed!)], ["coin", coin(flow.linkId, flow.nonce)],
    ...flow.keys.fields()]);
  return Stage.WELCOME;
}

export function onHello(flow: MatchFlow, msg: wire.Message): Stage {
  msg.only("rules", "coin", "key", "id", "prev", "vouch");
  const rules = readRules(msg);
  if (flow.proposed !== null && !rules.equals(flow.proposed)) {
    throw flow.protocol(`the host proposes the ${rules.name} rules ${pyRepr(rules.toDict())}, which `
      + "this guest did not agree to", "hello.rules");
  }
  flow.peerCoin = msg.blob("coin", 32);
  flow.keys!.read(msg, (message, field) => flow.protocol(message, field));
  const prev = flow.keys!.previous;
  const wrong = prevFault(prev, flow.rematch);
  if (prev.length && flow.rematch === null) return refuse(flow, "hello.prev", NOT_PLAYED, NOT_PLAYED_TOLD);
  if (wrong !== null) throw flow.protocol(wrong, "hello.prev");
  if (prev.length || (flow.proposed === null && !rules.isPreset)) { // shown first (§7.1)
    flow.offered = rules;
    flow.emit(new RulesOffered(rules, prev.length > 0));
    return Stage.RULES;
  }
  return welcome(flow, rules);
}

/** The local player accepted the offered rules. */
export function accept(flow: MatchFlow): Stage {
  const rules = flow.offered!;
  flow.offered = null;
  return welcome(flow, rules);
}

/** The local player declines the offered rules or rematch: tell the host, stop. */
export function decline(flow: MatchFlow, reason: string | null): Stage {
  flow.offered = null;
  if (flow.rematch !== null) { // a normal end of the series, not a failure
    flow.send("abort", [["why", "declined"], ["field", "hello.prev"], ["reason", "the guest declined the rematch"]]);
    return declined(flow, reason ?? "you declined the rematch");
  }
  return refuse(flow, "hello.rules", reason ?? "you declined the host's custom rules",
    "the guest declined the host's custom rules");
}

/** The guest declined the rematch: the series ends here, nobody at fault. */
export function declined(flow: MatchFlow, reason: string): Stage {
  flow.declined = true;
  flow.emit(new RematchDeclined("guest", reason));
  return Stage.OVER;
}

/** End the match unplayed: `told` is what the host reads, `reason` ours. */
function refuse(flow: MatchFlow, field: string, reason: string, told: string): Stage {
  flow.send("abort", [["why", "declined"], ["field", field], ["reason", told]]);
  return flow.fail(new RulesDeclined("guest", field, reason));
}

function welcome(flow: MatchFlow, rules: Ruleset): Stage {
  flow.agreed = rules;
  flow.nonce = flow.random(NONCE_BYTES);
  flow.send("welcome", [["rules", rulesDigest(rules)], ["nonce", flow.nonce], ...flow.keys!.fields()]);
  return Stage.START;
}

export function onWelcome(flow: MatchFlow, msg: wire.Message): Stage {
  msg.only("rules", "nonce", "key", "id", "vouch");
  if (!equalBytes(msg.blob("rules", 32), rulesDigest(flow.agreed!))) {
    throw flow.protocol("the guest agreed to another ruleset", "welcome.rules");
  }
  const guestNonce = msg.blob("nonce", NONCE_BYTES);
  flow.keys!.read(msg, (message, field) => flow.protocol(message, field));
  flow.send("start", [["nonce", flow.nonce!]]);
  return startMatch(flow, firstDealer(flow.matchId!, flow.nonce!, guestNonce, flow.rematch));
}

export function onStart(flow: MatchFlow, msg: wire.Message): Stage {
  msg.only("nonce");
  const hostNonce = msg.blob("nonce", NONCE_BYTES);
  if (!equalBytes(coin(flow.linkId, hostNonce), flow.peerCoin!)) {
    throw flow.cheat("the host's nonce does not open its coin commitment", "start.nonce");
  }
  return startMatch(flow, firstDealer(flow.matchId!, hostNonce, flow.nonce!, flow.rematch));
}

function startMatch(flow: MatchFlow, dealer: number): Stage {
  flow.match = new Match(flow.agreed!, dealer);
  flow.emit(new MatchStarted(flow.agreed!, flow.seat, dealer, flow.matchId!));
  return startHand(flow);
}

/** A new hand: draw its seed and send its commitment (§7.2). */
export function startHand(flow: MatchFlow): Stage {
  const number = flow.hand === null ? 1 : flow.hand.number + 1;
  const hs = new HandState(number, flow.match!.dealer, flow.seat, flow.random(fd.SEED_BYTES), flow.matchId!);
  flow.hand = hs;
  flow.send("commit", [["h", number], ["c", hs.commits.get(hs.role)!]]);
  return Stage.COMMIT;
}
