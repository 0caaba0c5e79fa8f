/**
 * The local player's moves as this side sends them (protocol.md §7.4): each action with
 * the keys that go with it, and the keys to every card it holds that the peer cannot open
 * yet (on a knock, ours or the peer's); the twin of gin/protocol/session_moves.py. The
 * functions take what they need of the match flow ({@link MoveIo}).
 */

import { type Action, BigGin, Discard, DrawStock, Knock } from "../engine/actions.ts";
import type { Card } from "../engine/cards.ts";
import type { Hand } from "../engine/hand.ts";
import * as fd from "./fairdeal.ts";
import type { Value } from "./msgpack.ts";
import { Step } from "./records.ts";
import type { HandState } from "./session_hand.ts";

/** What the local player's moves need of the match flow. */
export interface MoveIo {
  readonly seat: number;
  send(msgType: string, fields: [string, Value][]): void;
  engine(): Hand;
  state(): HandState;
  positionOf(card: Card): number;
  /** Play `action` for `seat` in the engine and tell the interface. */
  apply(seat: number, action: Action): void;
  /** End the hand (sign, send our seed) if the move ended it. */
  afterMove(): void;
}

/** Play the local player's action (already checked legal). */
export function play(io: MoveIo, action: Action): void {
  const hs = io.state();
  const hand = io.engine();
  let pairs: (readonly [number, bigint])[] = [];
  if (action instanceof Discard) {
    const pos = io.positionOf(action.card);
    pairs = hs.keysSent.has(pos) ? [] : [[pos, hs.mine.positionKeys[pos]!]];
  } else if (action instanceof Knock || action instanceof BigGin) {
    pairs = unrevealedKeys(io);
  }
  for (const [p] of pairs) hs.keysSent.add(p);
  hs.steps.push(new Step(io.seat, action, pairs));
  io.send("move", [["h", hs.number], ["a", String(action)], ["pos", pairs.map(([p]) => p)],
    ["keys", pairs.map(([, k]) => fd.keyBytes(k))]]);
  if (action instanceof Knock || action instanceof BigGin) {
    hs.knockPending = action; // applied once the defender has shown its cards
    return;
  }
  if (action instanceof DrawStock) hs.drawPending = hand.nextStockPosition;
  io.apply(io.seat, action);
  io.afterMove();
}

/** Our keys for every card we hold that the peer cannot open yet. */
export function unrevealedKeys(io: MoveIo): (readonly [number, bigint])[] {
  const hs = io.state();
  const positions = io.engine().cards(io.seat).map((c) => io.positionOf(c)).sort((a, b) => a - b);
  const pairs = positions.filter((p) => !hs.keysSent.has(p)).map((p) => [p, hs.mine.positionKeys[p]!] as const);
  for (const [p] of pairs) hs.keysSent.add(p);
  return pairs;
}
