/** The stage table (src/protocol/session/table.ts): the same drawing as the Python twin's,
 * which protocol.md §7 holds, and every message type of the vocabulary taken somewhere. */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { MESSAGE_TYPES, OWED_TYPES } from "../src/protocol/wire/messages.ts";
import { Stage } from "../src/protocol/session/flow.ts";
import { drawing, LIVE, OWES, TABLE } from "../src/protocol/session/table.ts";

const PROTOCOL = new URL("../../../protocol.md", import.meta.url);

test("protocol.md 7 holds the drawing of this table, as the Python twin draws it", () => {
  const text = readFileSync(PROTOCOL, "utf-8");
  const begin = "<!-- stage table: begin -->\n";
  const held = text.slice(text.indexOf(begin) + begin.length, text.indexOf("<!-- stage table: end -->"));
  assert.equal(held, drawing());
});

test("the table takes every message type of the vocabulary, each where it is owed", () => {
  const inputs = new Set([...TABLE.keys()].map((k) => k.split(" ")[1]!));
  for (const type of MESSAGE_TYPES) assert.ok(inputs.has(type), type);
  for (const stage of LIVE) assert.ok(TABLE.has(`${stage} abort`), stage);
  assert.deepEqual(new Set(Object.values(OWES).filter((o) => o !== null)), new Set(OWED_TYPES));
  assert.deepEqual(Object.keys(OWES).sort(), Object.values(Stage).sort());
});
