/**
 * Two sessions in one process (tests, benchmarks): the twin of `pump` and `play_local`
 * at the end of gin/protocol/session/session.py, kept apart here for the 600-line limit.
 */

import type { Player } from "../../players/index.ts";
import type { Session } from "./session.ts";

/** Hand each session's queued frames to the other until both are quiet (tests, benchmarks); the bytes moved. */
export function pump(a: Session, b: Session): number {
  let moved = 0;
  for (;;) {
    const frames: [Uint8Array, Session][] = [
      ...a.dataToSend().map((f): [Uint8Array, Session] => [f, b]),
      ...b.dataToSend().map((f): [Uint8Array, Session] => [f, a]),
    ];
    if (!frames.length) return moved;
    for (const [frame, target] of frames) {
      moved += frame.length;
      if (!target.over) target.receive(frame);
    }
  }
}

/**
 * Play a whole match between two sessions, `players[seat]` choosing each move;
 * the guest accepts the host's rules, custom ones too. Stops when both are over
 * or neither can move (a failure); returns the wire bytes.
 */
export function playLocal(host: Session, guest: Session, players: readonly Player[]): number {
  let moved = pump(host, guest);
  if (guest.rulesOffered !== null) {
    guest.acceptRules();
    moved += pump(host, guest);
  }
  while (!(host.over && guest.over)) {
    const session = [host, guest].find((s) => s.legalActions().length);
    if (session === undefined) return moved;
    session.act(players[session.seat]!.choose(session.observation()!, session.legalActions()));
    moved += pump(host, guest);
  }
  return moved;
}

