/**
 * The stage table of one peer's match (protocol.md §7): for each stage and each input —
 * a message of the peer, or a local action — the handler that takes it and the stages
 * it may lead to; the twin of gin/protocol/session/table.py.
 *
 * What the peer owes ({@link waitingFor}) and why the local player may not act
 * ({@link refusal}) are read from the stage; an input the table has no row for is
 * refused here and nowhere else. The session's own endings (a rejected frame, a
 * timeout, an abandonment, another protocol version) stop the match in any stage.
 */

import type { Action } from "../../engine/actions.ts";
import { IllegalAction } from "../../engine/errors.ts";
import { pyRepr } from "../../engine/pyrepr.ts";
import { messageType, type MessageType, type Owed } from "../wire/messages.ts";
import * as deal from "./deal.ts";
import { type MatchFlow, OWES, ProtocolFault, SEATS, Stage } from "./flow.ts";

export { OWES } from "./flow.ts";
import * as moves from "./moves.ts";
import * as start from "./start.ts";
import type * as wire from "../wire/channel.ts";

/** What the local player does: start the session, play a move, answer offered rules. */
export type LocalAction = "begin" | "act" | "accept" | "decline";
export type Input = MessageType | LocalAction;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each row takes its own input
type Handler = (flow: MatchFlow, arg: any) => Stage;
type Row = readonly [Handler, readonly Stage[]];
const S = Stage;

/** The stages a match can be in before it ends: the peer may abort in any of them. */
export const LIVE: readonly Stage[] = [S.HELLO, S.WELCOME, S.RULES, S.START, S.COMMIT, S.DECK, S.DEAL, S.PLAY,
  S.MOVE, S.KEY, S.SHOW, S.SEED];

/** (stage, input) -> (handler, the stages it may lead to), in the order of the Python table. */
export const TABLE: ReadonlyMap<string, Row> = new Map<string, Row>([
  [key(S.NEW, "begin"), [start.begin, [S.WELCOME, S.HELLO]]],
  [key(S.HELLO, "hello"), [start.onHello, [S.START, S.RULES, S.FAILED]]],
  [key(S.RULES, "accept"), [start.accept, [S.START]]],
  [key(S.RULES, "decline"), [start.decline, [S.OVER, S.FAILED]]],
  [key(S.WELCOME, "welcome"), [start.onWelcome, [S.COMMIT]]],
  [key(S.START, "start"), [start.onStart, [S.COMMIT]]],
  [key(S.COMMIT, "commit"), [deal.onCommit, [S.DECK]]],
  [key(S.DECK, "deck"), [deal.onDeck, [S.DECK, S.DEAL]]],
  [key(S.DEAL, "deal"), [moves.onDeal, [S.PLAY, S.MOVE]]],
  [key(S.PLAY, "act"), [moves.play, [S.MOVE, S.PLAY, S.KEY, S.SHOW, S.SEED]]],
  [key(S.MOVE, "move"), [moves.onMove, [S.MOVE, S.PLAY, S.SEED]]],
  [key(S.KEY, "key"), [moves.onKey, [S.PLAY]]],
  [key(S.SHOW, "show"), [moves.onShow, [S.MOVE, S.SEED]]],
  [key(S.SEED, "seed"), [moves.onSeed, [S.COMMIT, S.OVER, S.FAILED]]],
  ...LIVE.map((stage) => [key(stage, "abort"), [moves.onAbort, stage === S.WELCOME ? [S.OVER, S.FAILED] : [S.FAILED]]] as const),
]);

function key(stage: Stage, input: Input): string {
  return `${stage} ${input}`;
}

/** Why nothing can be accepted or declined outside the rules stage. */
export const NOTHING_OFFERED: Readonly<Record<"accept" | "decline", string>> = {
  accept: "no rules are waiting to be accepted",
  decline: "no rules are waiting to be declined",
};

/** The message type the peer owes now, or null (our move, or the match is over). */
export function waitingFor(flow: MatchFlow): Owed | null {
  return OWES[flow.stage];
}

/** Why the local player may not move in this stage, or null. */
export function stageRefusal(flow: MatchFlow): string | null {
  if (flow.over) return "the match is over";
  const owed = OWES[flow.stage];
  if (flow.hand === null || !flow.hand.dealt) return "the hand is not dealt yet";
  return owed === null ? null : `waiting for ${SEATS[flow.peer]}'s ${owed}`;
}

/** The local player's legal actions; empty unless it is its move now. */
export function legalActions(flow: MatchFlow): Action[] {
  return stageRefusal(flow) !== null ? [] : flow.match!.legalActions();
}

/** Why the local player may not play `action` now, or null. */
export function refusal(flow: MatchFlow, action: Action): string | null {
  return stageRefusal(flow) ?? flow.engine().refusal(flow.seat, action);
}

/** Whether this stage has a row for `input`. */
export function allows(flow: MatchFlow, input: Input): boolean {
  return TABLE.has(key(flow.stage, input));
}

/** One message of the peer: its row of the table, or a protocol error (field `t`). */
export function receive(flow: MatchFlow, msg: wire.Message): void {
  const peer = SEATS[flow.peer];
  const type = messageType(msg.type);
  if (type === null) throw new ProtocolFault(`unknown message type ${pyRepr(msg.type)}`, peer, "t");
  const row = TABLE.get(key(flow.stage, type));
  if (row === undefined) {
    throw new ProtocolFault(`unexpected ${pyRepr(type)} message while waiting for ${OWES[flow.stage] ?? "the local player"}`,
      peer, "t");
  }
  run(flow, row, msg);
}

/** A local action; IllegalAction when this stage has no row for it. */
export function local(flow: MatchFlow, action: LocalAction, arg: unknown = null): void {
  const row = TABLE.get(key(flow.stage, action));
  if (row === undefined) {
    throw new IllegalAction(action === "accept" || action === "decline" ? NOTHING_OFFERED[action]
      : `${flow.role} cannot ${action} now: ${stageRefusal(flow)}`);
  }
  run(flow, row, arg);
}

function run(flow: MatchFlow, [handler, leadsTo]: Row, arg: unknown): void {
  const after = handler(flow, arg);
  if (!leadsTo.includes(after)) throw new Error(`${handler.name} led ${flow.stage} to ${after}`);
  flow.stage = after;
}

/** The table as protocol.md §7's Mermaid state diagram, as gin/protocol/session/table.py
 * draws it (`abort` leads every live stage to failed). */
export function drawing(): string {
  const order = Object.values(Stage) as Stage[];
  const lines = ["```mermaid", "stateDiagram-v2", "    [*] --> new"];
  for (const [rowKey, [, leadsTo]] of TABLE) {
    const [stage, input] = rowKey.split(" ") as [Stage, Input];
    if (input === "abort") continue;
    const owner = input === "begin" || input === "act" || input === "accept" || input === "decline" ? "local" : "peer";
    const after = [...leadsTo].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    lines.push(...after.map((next) => `    ${stage} --> ${next}: ${input} (${owner})`));
  }
  lines.push("    over --> [*]", "    failed --> [*]", "```");
  return lines.join("\n") + "\n";
}
