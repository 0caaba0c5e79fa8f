/**
 * The conformance check for the relay's wire protocol (cases written by
 * `python -m relay.conformance`): `relay_wire` — the constants of relay/wire.py
 * against the copy the browser's relay client exports (src/online/relay.ts): every
 * close code by name, the codes after which the client stops retrying, the control
 * messages' types and fields, a welcome's peer states, and the fields of the
 * answer to a plain `GET /new`.
 */

import * as data from "../src/engine/data.ts";
import { CLOSE, CONTROL, CONTROL_FIELDS, FINAL_CLOSE_CODES, NEW_ROOM_FIELDS, PEER, WELCOMES } from "../src/online/relay.ts";

type Case = Readonly<Record<string, unknown>>;

const show = (x: unknown): string => JSON.stringify(x) ?? "nothing";

/** The first name whose value differs between the case's table and relay.ts's. */
function tableDiff(name: string, expected: unknown, actual: Case): string | null {
  const table = data.record(expected, name);
  for (const key of new Set([...Object.keys(table), ...Object.keys(actual)])) {
    if (show(table[key]) !== show(actual[key])) {
      return `${name}.${key}: the case has ${show(table[key])}, relay.ts has ${show(actual[key])}`;
    }
  }
  return null;
}

function listDiff(name: string, expected: unknown, actual: unknown[]): string | null {
  const list = data.list(expected, name);
  return show(list) === show(actual) ? null
    : `${name}: the case has ${show(list)}, relay.ts has ${show(actual)}`;
}

/** `relay_wire`: every field is required; sets are compared as sorted lists. */
function checkRelayWire(c: Case): string | null {
  return tableDiff("close", c.close, CLOSE)
    ?? listDiff("final_close_codes", c.final_close_codes, [...FINAL_CLOSE_CODES].sort((a, b) => a - b))
    ?? tableDiff("control", c.control, CONTROL)
    ?? listDiff("welcomes", c.welcomes, [...WELCOMES].map(String).sort())
    ?? tableDiff("fields", c.fields, CONTROL_FIELDS)
    ?? tableDiff("peer", c.peer, PEER)
    ?? listDiff("new_room", c.new_room, [...NEW_ROOM_FIELDS]);
}

export const RELAY_CHECKS: Record<string, (c: Case) => string | null> = {
  relay_wire: checkRelayWire,
};
